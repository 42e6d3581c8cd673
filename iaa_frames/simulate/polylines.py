"""Synthetic polyline corpora: lines (lanes, edges) redrawn by annotators of known profiles.

:func:`simulate_polylines` draws true lines per image (smooth curves of a few vertices,
from the lower part of the image towards the top, as lanes run), then lets every
annotator redraw them by a :class:`PolylineProfile`: per-vertex jitter (in units of the
kind's tolerance δ times the image diagonal, so a jitter ``j`` costs about the same
similarity on every image), dropped lines, label flips, or lines drawn at random
(independently of the image, from the truth's distribution: the chance level).

The random streams are those of :mod:`iaa_frames.simulate.keypoints`: keyed by ``seed``,
the annotator's name and the step, so that profiles are compared on common random numbers.

Examples
--------
>>> df = simulate_polylines(n_items=3, annotators={"a": PolylineProfile(), "b": PolylineProfile()}, seed=0)
>>> int((df.annotator == "a").sum()) == int((df.annotator == "b").sum())
True
>>> df.filter(like="pl_0_").columns.tolist()
['pl_0_x', 'pl_0_y']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.kinds.polyline import POLYLINE, PolylineKind

from .annotators import name_key, stream
from .generate import check_classes, check_image_size
from .limits import check_counts, check_size
from .object_frames import check_profiles, tidy_objects

__all__ = ["PolylineProfile", "simulate_polylines"]

_T_COUNT, _T_PLACE, _T_LABEL = range(3)
_A_MISS, _A_JITTER, _A_FLIP, _A_FLIP_TO, _A_RANDOM = range(5)


@dataclass(frozen=True)
class PolylineProfile:
    """How an annotator redraws the true lines.

    Parameters
    ----------
    jitter : float, default 0
        Standard deviation of each vertex's displacement (x and y), in units of the
        kind's tolerance δ times the image diagonal.
    miss : float, default 0
        Probability that a line is not drawn (dropped).
    flip : float, default 0
        Probability that a line's label is replaced by another class (uniformly).
    random : bool, default False
        Draw as many lines as the truth, placed and labelled at random from the truth's
        distribution, independently of the image (chance level).
    """

    jitter: float = 0.0
    miss: float = 0.0
    flip: float = 0.0
    random: bool = False

    def __post_init__(self):
        for name in ("jitter", "miss", "flip"):
            value = getattr(self, name)
            top = np.inf if name == "jitter" else 1.0
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not (ok and np.isfinite(value) and 0 <= value <= top):
                raise ParameterError(
                    f"PolylineProfile.{name} must be a number in [0, {top}] (finite, not a bool); "
                    f"got {value!r}"
                )


def _lines(rng_count, rng_place, rng_label, n_items, max_lines, n_vertices, n_classes, W, H):
    """True lines: item, vertices ``(n, V, 2)`` (pixels), class code."""
    count = rng_count.integers(1, max_lines + 1, size=n_items)
    item = np.repeat(np.arange(n_items), count)
    n = len(item)
    # a quadratic Bezier from a point low in the image to one higher up, its control
    # point between them pushed sideways: a lane, a road edge
    start = np.column_stack([rng_place.uniform(0.05, 0.95, n), rng_place.uniform(0.75, 1.0, n)])
    end = np.column_stack([rng_place.uniform(0.2, 0.8, n), rng_place.uniform(0.1, 0.5, n)])
    bend = (start + end) / 2 + rng_place.normal(0, 0.08, size=(n, 2))
    t = np.linspace(0, 1, n_vertices)[None, :, None]
    xy = (1 - t) ** 2 * start[:, None] + 2 * (1 - t) * t * bend[:, None] + t**2 * end[:, None]
    xy = xy * np.array([W, H])
    label = rng_label.integers(0, n_classes, size=n)
    return item, xy, label


def _redraw(name, p: PolylineProfile, truth, seed, shape, n_classes, scale):
    """One annotator's lines: item, vertices, class code."""
    rng = [stream(seed, 1, *name_key(name), step) for step in range(5)]
    if p.random:
        r = rng[_A_RANDOM]
        sub = [np.random.default_rng(r.integers(2**63)) for _ in range(3)]
        return _lines(*sub, *shape)
    item, xy, label = truth
    n = len(item)
    keep = rng[_A_MISS].random(n) >= p.miss
    xy = xy + rng[_A_JITTER].normal(size=xy.shape) * (p.jitter * scale)
    flip = (rng[_A_FLIP].random(n) < p.flip) & (n_classes > 1)
    other = (label + rng[_A_FLIP_TO].integers(1, max(n_classes, 2), size=n)) % max(n_classes, 1)
    label = np.where(flip, other, label)
    return item[keep], xy[keep], label[keep]


def simulate_polylines(
    *,
    n_items: int = 100,
    annotators: dict,
    kind: PolylineKind = POLYLINE,
    max_lines: int = 4,
    n_vertices: int = 8,
    image_size=(1280, 720),
    classes=("lane", "edge"),
    seed: int = 0,
) -> pd.DataFrame:
    """A tidy frame of polylines drawn by annotators of known profiles.

    Parameters
    ----------
    n_items : int, default 100
    annotators : dict {str: PolylineProfile}
    kind : PolylineKind, default the built-in ``polyline``
    max_lines : int, default 4
        Lines per image: 1 to ``max_lines``, uniformly.
    n_vertices : int, default 8
        Vertices per line (at most ``kind.n_vertices``).
    image_size : (int, int), default (1280, 720)
    classes : sequence of str, default ("lane", "edge")
    seed : int, default 0

    Returns
    -------
    pandas.DataFrame
        ``item, annotator, label, width, height`` and the kind's columns (the last vertex
        repeated up to the kind's count); a coverage row (no object) where an annotator
        drew nothing on an image. Pass it to :func:`iaa_frames.validate` or straight to
        :func:`iaa_frames.agreement`.

    Raises
    ------
    ParameterError
        On no annotators, a profile that is not a :class:`PolylineProfile`, a count or
        seed that is not an integer (:mod:`iaa_frames.simulate.limits`), bad classes, image
        size or kind, or more rows than
        :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS`.
    """
    check_profiles(annotators, PolylineProfile, "simulate_polylines")
    if not isinstance(kind, PolylineKind):
        raise ParameterError(f"kind must be a PolylineKind; got {kind!r}")
    n_items, max_lines, n_vertices, seed = check_counts(
        n_items=(n_items, 1), max_lines=(max_lines, 1), n_vertices=(n_vertices, 2), seed=(seed, 0)
    )
    if n_vertices > kind.n_vertices:
        raise ParameterError(
            f"n_vertices must be an integer in 2..{kind.n_vertices} (the vertices of the kind "
            f"{kind.name!r}); got {n_vertices!r}"
        )
    classes = list(check_classes(classes, None)[0])
    W, H = check_image_size(image_size, required=True)
    check_size(
        "simulate_polylines",
        float(n_items) * max_lines * (1 + len(annotators)),
        n_items=n_items,
        max_lines=max_lines,
        **{"len(annotators)": len(annotators)},
    )
    shape = (int(n_items), int(max_lines), int(n_vertices), len(classes), W, H)
    truth = _lines(*(stream(seed, 0, s) for s in range(3)), *shape)
    scale = kind.tolerance * float(np.hypot(W, H))
    columns = []
    for name in sorted(annotators):
        item, xy, label = _redraw(name, annotators[name], truth, seed, shape, len(classes), scale)
        pad = np.repeat(xy[:, -1:], kind.n_vertices - xy.shape[1], axis=1)
        flat = np.concatenate([xy, pad], axis=1).reshape(len(item), -1)
        cols = {"item": item, "annotator": name, "label": np.asarray(classes, dtype=object)[label]}
        cols.update(zip(kind.columns, flat.T, strict=True))
        columns.append(cols)
    return tidy_objects(columns, n_items=n_items, width=W, height=H)
