"""Synthetic 3D cuboid corpora (point-cloud scenes): true cuboids, annotators who jitter them,
and annotators who draw at random.

Every scene holds a few objects of three classes with typical sizes (car, pedestrian,
cyclist) standing on the ground (z = 0 is the ground, the scene's z axis is up), spread
over a square of ``2 * extent`` metres around the sensor. An annotator redraws each object
with its centre moved by ``noise`` times the object's size along each axis, its size
scaled by ``exp(noise * N(0, 1))`` and its yaw (and pitch and roll when ``tilt`` > 0)
turned by ``noise`` radians times N(0, 1); ``noise=0`` copies the truth exactly. A random
annotator draws scenes of its own, unrelated to the truth. As in :mod:`iaa_frames.simulate`,
every annotator's draws come from the seed and its name alone.

Examples
--------
>>> df = simulate_cuboids(n_items=3, seed=0)
>>> sorted(df["annotator"].unique()), "cuboid_yaw" in df.columns
(['a', 'b'], True)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import validate
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS
from iaa_frames.settings.validation import ANNOTATORS

from .annotators import name_key, stream
from .limits import check_counts, check_names, check_number, check_size

__all__ = ["CUBOID_CLASSES", "simulate_cuboids"]

#: Typical sizes (length, width, height in metres) of the simulated classes.
CUBOID_CLASSES = {
    "car": (4.2, 1.8, 1.5),
    "pedestrian": (0.8, 0.7, 1.75),
    "cyclist": (1.8, 0.6, 1.7),
}
_TRUTH, _ANNOTATOR = 7, 8  # stream keys (distinct from those of the 2D simulator)


def _scenes(rng, n_items: int, objects, extent: float, tilt: float, road):
    lo, hi = objects
    counts = rng.integers(lo, hi + 1, size=n_items)
    item = np.repeat(np.arange(n_items), counts)
    n = len(item)
    names = list(CUBOID_CLASSES)
    label = rng.integers(0, len(names), size=n)
    size = np.array([CUBOID_CLASSES[c] for c in names])[label] * np.exp(rng.normal(0, 0.1, (n, 3)))
    xy = rng.uniform(-extent, extent, size=(n, 2))
    if road is None:
        yaw = rng.uniform(-np.pi, np.pi, n)
    else:  # along the road (the x axis), either way
        yaw = np.pi * rng.integers(0, 2, n) + rng.normal(0, road, n)
    angles = np.column_stack([yaw, rng.normal(0, tilt, n), rng.normal(0, tilt, n)])
    p = np.column_stack([xy, size[:, 2] / 2, size, angles])
    return item, np.array(names, dtype=object)[label], p


def simulate_cuboids(
    *,
    n_items: int = 30,
    annotators=("a", "b"),
    noise: float = 0.05,
    random_annotators=(),
    objects=(3, 8),
    extent: float = 30.0,
    tilt: float = 0.0,
    road: float | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """A tidy frame of cuboids drawn by annotators of known noise over synthetic scenes.

    Parameters
    ----------
    n_items : int, default 30
        Scenes (point clouds).
    annotators : sequence of str, default ("a", "b")
        Annotators who redraw the true cuboids with ``noise``.
    noise : float, default 0.05
        Relative noise of the centre (times the size) and of the size (log scale), and of
        the angles in radians. 0 copies the truth.
    random_annotators : sequence of str, default ()
        Annotators who draw scenes of their own (as many objects, unrelated to the truth).
    objects : (int, int), default (3, 8)
        Fewest and most objects per scene.
    extent : float, default 30.0
        Objects lie within ``[-extent, extent]`` metres of the sensor in x and y.
    tilt : float, default 0.0
        Standard deviation of the true pitch and roll (radians): 0 gives upright cuboids
        (yaw alone); above 0, every cuboid is rotated in full and annotators' pitch and
        roll get the noise too.
    road : float, optional
        Objects head along the x axis (a road), either way, with this standard deviation
        of their yaw (radians); by default their yaw is uniform. Scenes with a road
        layout and a small ``extent`` have chance pairs of overlapping objects, which
        the localization baseline needs.
    seed : int, default 0

    Returns
    -------
    pandas.DataFrame
        Validated (:func:`iaa_frames.validate`), with the cuboid columns
        (:data:`~iaa_frames.geometry.kinds.cuboid.CUBOID_COLUMNS`).

    Raises
    ------
    ParameterError
        For a count or seed that is not an integer (:mod:`iaa_frames.simulate.limits`), no
        annotator, a noise, tilt, extent or road that is not a finite number >= 0, a bad
        ``objects`` range, or more rows than
        :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS`.

    Examples
    --------
    >>> df = simulate_cuboids(n_items=2, annotators=["x"], noise=0.0, objects=(1, 1), seed=3)
    >>> len(df), df["label"].iloc[0] in CUBOID_CLASSES
    (2, True)
    """
    n_items, seed = check_counts(n_items=(n_items, 1), seed=(seed, 0))
    for which, given in (("annotators", annotators), ("random_annotators", random_annotators)):
        if given is None or ANNOTATORS.check(which, given) is None:
            raise ParameterError(f"{which} must be a list of annotator names; got {given!r}")
    names = list(annotators) + list(random_annotators)
    if not names:
        raise ParameterError("simulate_cuboids needs at least one annotator; got none")
    check_names(names)
    noise, tilt = check_number(noise, "noise"), check_number(tilt, "tilt")
    extent = check_number(extent, "extent")
    road = None if road is None else check_number(road, "road")
    whole = isinstance(objects, (tuple, list)) and len(objects) == 2
    whole = whole and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in objects
    )
    if not whole or not (1 <= objects[0] <= objects[1]):
        raise ParameterError(
            f"objects must be (fewest, most) with 1 <= fewest <= most; got {objects!r}"
        )
    lo, hi = int(objects[0]), int(objects[1])
    check_size(
        "simulate_cuboids",
        float(n_items) * hi * (1 + len(names)),
        n_items=n_items,
        objects=objects,
        **{"len(annotators)": len(names)},
    )
    item, label, truth = _scenes(stream(seed, _TRUTH), n_items, (lo, hi), extent, tilt, road)
    parts = []
    for name in names:
        rng = stream(seed, _ANNOTATOR, *name_key(str(name)))
        if name in random_annotators:
            it, lab, p = _scenes(rng, n_items, (lo, hi), extent, tilt, road)
        else:
            it, lab, p = item, label, truth.copy()
            n = len(p)
            p[:, :3] += noise * p[:, 3:6] * rng.normal(size=(n, 3))
            p[:, 3:6] *= np.exp(noise * rng.normal(size=(n, 3)))
            turn = noise * rng.normal(size=(n, 3))
            p[:, 6:] += turn if tilt > 0 else turn * np.array([1.0, 0.0, 0.0])
        frame = pd.DataFrame(dict(zip(CUBOID_COLUMNS, p.T, strict=True)))
        frame.insert(0, "label", lab)
        frame.insert(0, "annotator", str(name))
        frame.insert(0, "item", [f"scene{i:04d}" for i in it])
        parts.append(frame)
    return validate(pd.concat(parts, ignore_index=True))
