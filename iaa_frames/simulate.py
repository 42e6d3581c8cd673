"""Synthetic annotation corpora with known annotator profiles.

:func:`simulate_with_truth` draws true objects per item (image), then lets each annotator
redraw them according to a :class:`Profile`: localization noise, misses, false positives,
label confusion, and pathological behaviours (lazy-center, random, mirror). The result is a
tidy annotation frame (see ``docs/CONTRACTS.md``) with coverage rows, plus the truth, so
that validation studies can check that the agreement measures rank annotators by their
known quality. :func:`simulate` returns only the annotations.

Randomness
----------
Everything flows from one ``seed``. The truth has its own streams, and every annotator has
streams derived from the seed *and its name* (never its position), one stream per step
(coverage, misses, confusion, jitter, false positives, ...). Hence

* adding, removing or reordering annotators never changes another annotator's draws;
* changing one field of a profile (say ``miss``) does not change the draws of the other
  steps (the same objects get the same jitter): profiles can be compared on common random
  numbers.

Everything is vectorized over objects; the only Python loops run over annotators.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import shapely

from .errors import ParameterError
from .frame import ALL

__all__ = ["PRESETS", "Profile", "Simulated", "simulate", "simulate_with_truth"]

#: Image sizes (width, height) drawn uniformly per item when ``image_size`` is None.
COMMON_IMAGE_SIZES = (
    (640, 480),
    (800, 600),
    (1024, 768),
    (1280, 720),
    (1280, 960),
    (1920, 1080),
    (1080, 1080),
    (512, 512),
    (480, 640),
    (720, 1280),
)

#: Side of the lazy-center box as a fraction of the image side (centred).
LAZY_CENTER_FRACTION = 0.6

_KINDS = ("box", "polygon", "mixed")
_LAYOUTS = ("random", "single_center")
_OBJECTS_PER = ("poisson", "fixed")
_MIN_SIDE = 1.0  # pixels: smallest side of a drawn box

# Stream keys: (0, step) for the truth, (1, *name words, step) for an annotator.
_TRUTH, _ANNOTATOR = 0, 1
_T_SIZE, _T_COUNT, _T_CLASS, _T_KIND, _T_SHAPE = range(5)
_A_COVER, _A_MISS, _A_CONFUSE, _A_JITTER, _A_FP, _A_RANDOM, _A_LAZY = range(7)


# --------------------------------------------------------------------------- profiles


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """How one simulated annotator redraws the true objects.

    All fields combine. The pipeline per annotator is: pick the *source* objects (the
    truth; or ``random`` shapes; or the ``lazy_center`` box), ``mirror`` them, drop each
    with probability ``miss``, relabel with probability ``confusion``, add ``jitter``, clip
    to the image, add ``false_positives``, and finally drop the items not reviewed
    (``coverage``).

    Parameters
    ----------
    jitter : float, default 0
        Localization noise: every box coordinate (or polygon vertex coordinate) moves by
        Normal(0, jitter · size), where size is the object's width for x and its height
        for y.
    miss : float in [0, 1], default 0
        Probability that each source object is not drawn.
    false_positives : float >= 0, default 0
        Expected number of spurious objects per reviewed item (Poisson), with random
        shapes and uniformly random classes.
    confusion : float in [0, 1], default 0
        Probability that a drawn object gets a different class, chosen uniformly among
        the wrong ones (no effect with a single class).
    lazy_center : bool, default False
        Ignore the truth: draw one central box covering the middle
        ``LAZY_CENTER_FRACTION`` (60 %) of each side of every item, labelled with the
        item's first true class (a random class on items without objects). With
        ``kind="polygon"`` the box is drawn as a rectangular polygon.
    random : bool, default False
        Ignore the image content: draw as many objects as the truth's count distribution
        would give (an independent draw, not the item's true count), with uniformly
        random positions, plausible sizes and uniformly random classes.
    mirror : bool, default False
        Draw the source objects mirrored horizontally about the image centre
        (systematic disagreement).
    coverage : float in (0, 1], default 1
        Probability that the annotator reviewed an item at all; items not reviewed get
        no rows, not even a coverage row.

    See Also
    --------
    PRESETS : named profiles, usable as strings in ``simulate(annotators=...)``.

    Examples
    --------
    >>> from iaa_frames.simulate import Profile
    >>> Profile(jitter=0.05, miss=0.1)
    Profile(jitter=0.05, miss=0.1, false_positives=0.0, confusion=0.0, lazy_center=False, random=False, mirror=False, coverage=1.0)
    >>> Profile.preset("sloppy", coverage=0.5).jitter
    0.15
    """

    jitter: float = 0.0
    miss: float = 0.0
    false_positives: float = 0.0
    confusion: float = 0.0
    lazy_center: bool = False
    random: bool = False
    mirror: bool = False
    coverage: float = 1.0

    def __post_init__(self):
        ranges = {
            "jitter": (0.0, math.inf, "a finite number >= 0"),
            "miss": (0.0, 1.0, "a probability in [0, 1]"),
            "false_positives": (0.0, math.inf, "a finite number >= 0"),
            "confusion": (0.0, 1.0, "a probability in [0, 1]"),
            "coverage": (0.0, 1.0, "a probability in (0, 1]"),
        }
        for name, (lo, hi, what) in ranges.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ParameterError(f"Profile.{name} must be {what}, got {value!r}")
            value = float(value)
            if not (math.isfinite(value) and lo <= value <= hi) or (
                name == "coverage" and value == 0.0
            ):
                raise ParameterError(f"Profile.{name} must be {what}, got {value!r}")
            object.__setattr__(self, name, value)
        for name in ("lazy_center", "random", "mirror"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ParameterError(f"Profile.{name} must be True or False, got {value!r}")
            object.__setattr__(self, name, bool(value))
        if self.lazy_center and self.random:
            raise ParameterError(
                "Profile: lazy_center and random both replace the truth; set at most one"
            )

    @classmethod
    def preset(cls, name: str, /, **overrides) -> Profile:
        """The preset profile ``name`` (see :data:`PRESETS`), with fields overridden.

        Examples
        --------
        >>> from iaa_frames.simulate import Profile
        >>> Profile.preset("good").miss
        0.02
        """
        if not isinstance(name, str):
            raise ParameterError(f"a preset name must be a string, got {name!r}")
        key = name.strip().lower().replace("_", "-")
        if key not in PRESETS:
            raise ParameterError(
                f"unknown annotator preset {name!r}; valid presets: {', '.join(PRESETS)}"
            )
        return PRESETS[key].replace(**overrides)

    def replace(self, **changes) -> Profile:
        """A copy with some fields changed (validated like the constructor).

        Examples
        --------
        >>> from iaa_frames.simulate import Profile
        >>> Profile(jitter=0.1).replace(miss=0.2).miss
        0.2
        """
        _check_fields(changes, "Profile.replace")
        return dataclasses.replace(self, **changes)


_FIELDS = tuple(f.name for f in dataclasses.fields(Profile))


def _check_fields(mapping, where):
    unknown = [k for k in mapping if k not in _FIELDS]
    if unknown:
        raise ParameterError(
            f"{where}: unknown profile field(s) {', '.join(map(repr, unknown))}; "
            f"valid fields: {', '.join(_FIELDS)}"
        )


#: Named annotator profiles; strings accepted wherever a profile is.
PRESETS: dict[str, Profile] = {
    "perfect": Profile(),
    "good": Profile(jitter=0.02, miss=0.02),
    "sloppy": Profile(jitter=0.15),
    "misser": Profile(miss=0.3),
    "mislabeler": Profile(confusion=0.3),
    "random": Profile(random=True),
    "mirror": Profile(mirror=True),
    "lazy-center": Profile(lazy_center=True),
}


def _as_profile(name, value) -> Profile:
    if isinstance(value, Profile):
        return value
    if isinstance(value, str):
        return Profile.preset(value)
    if isinstance(value, Mapping):
        fields = dict(value)
        base = fields.pop("preset", None)
        _check_fields(fields, f"annotator {name!r}")
        if base is not None:
            return Profile.preset(base, **fields)
        return Profile(**fields)
    raise ParameterError(
        f"annotator {name!r}: a profile must be a Profile, a dict of its fields "
        f"({', '.join(_FIELDS)}) or a preset name ({', '.join(PRESETS)}); got {value!r}"
    )


# --------------------------------------------------------------------------- result


class Simulated(NamedTuple):
    """What :func:`simulate_with_truth` returns.

    Attributes
    ----------
    annotations : pandas.DataFrame
        The tidy annotation frame, with a ``truth_id`` column (``Int64``) naming the true
        object each row redraws (NA for false positives, random and lazy-center draws, and
        coverage rows).
    truth : pandas.DataFrame
        One row per true object: ``item, truth_id, label, x0, y0, x1, y1, geometry,
        width, height``.
    """

    annotations: pd.DataFrame
    truth: pd.DataFrame


# --------------------------------------------------------------------------- objects


@dataclasses.dataclass
class _Objects:
    """Struct of arrays. ``box`` covers every row; polygon data covers the rows where
    ``is_poly`` (in row order): the star centre, the vertices (NaN-padded) and their
    count."""

    item: np.ndarray  # (n,) int64 item index
    label: np.ndarray  # (n,) int64 class code
    truth_id: np.ndarray  # (n,) int64, -1 when the row redraws no true object
    box: np.ndarray  # (n, 4) float64
    is_poly: np.ndarray  # (n,) bool
    centre: np.ndarray  # (m, 2)
    verts: np.ndarray  # (m, K, 2)
    nv: np.ndarray  # (m,) int64

    def take(self, rows: np.ndarray) -> _Objects:
        """The rows ``rows`` (boolean mask or integer positions), in that order."""
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        is_poly = self.is_poly[rows]
        prows = (np.cumsum(self.is_poly) - 1)[rows][is_poly]
        return _Objects(
            self.item[rows], self.label[rows], self.truth_id[rows], self.box[rows],
            is_poly, self.centre[prows], self.verts[prows], self.nv[prows],
        )  # fmt: skip


def _concat(parts: Sequence[_Objects]) -> _Objects:
    return _Objects(*(np.concatenate([getattr(p, f.name) for p in parts])
                      for f in dataclasses.fields(_Objects)))  # fmt: skip


def _empty_poly(k):
    return np.empty((0, 2)), np.empty((0, k, 2)), np.empty(0, np.int64)


def _draw_shapes(rng, W, H, is_poly, layout, vrange, K):
    """Random shapes inside images of sizes ``W, H`` (one entry per object)."""
    n = len(W)
    if layout == "single_center":
        rw = rng.uniform(0.35, 0.65, n)
        rh = rng.uniform(0.35, 0.65, n)
        cx = W * (0.5 + rng.uniform(-0.1, 0.1, n))
        cy = H * (0.5 + rng.uniform(-0.1, 0.1, n))
        bw, bh = rw * W, rh * H
    else:
        size = np.exp(rng.uniform(np.log(0.05), np.log(0.4), n))
        aspect = np.exp(rng.normal(0.0, 0.35, n))
        rw = np.clip(size * np.sqrt(aspect), 0.02, 0.9)
        rh = np.clip(size / np.sqrt(aspect), 0.02, 0.9)
        bw, bh = rw * W, rh * H
        cx = bw / 2 + rng.random(n) * (W - bw)
        cy = bh / 2 + rng.random(n) * (H - bh)
    box = np.column_stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
    m = int(is_poly.sum())
    if m == 0:
        return box, *_empty_poly(K)
    # Star-shaped polygons: stratified sorted angles (consecutive gaps < pi for >= 5
    # vertices), radii within the box's ellipse, so they are simple and inside the box.
    pcx, pcy = cx[is_poly], cy[is_poly]
    rx, ry = bw[is_poly] / 2, bh[is_poly] / 2
    nv = rng.integers(vrange[0], vrange[1] + 1, m)
    offset = rng.uniform(0.0, 2 * np.pi, m)
    j = np.arange(K)
    theta = offset[:, None] + 2 * np.pi * (j + 0.1 + 0.8 * rng.random((m, K))) / nv[:, None]
    radius = rng.uniform(0.55, 1.0, (m, K))
    verts = np.stack(
        [pcx[:, None] + rx[:, None] * radius * np.cos(theta),
         pcy[:, None] + ry[:, None] * radius * np.sin(theta)], axis=-1,
    )  # fmt: skip
    verts[j[None, :] >= nv[:, None]] = np.nan
    return box, np.column_stack([pcx, pcy]), verts, nv


def _finish_boxes(box, W, H):
    """Order the corners, give every box at least ``_MIN_SIDE`` and clip to the image."""
    out = np.empty_like(box)
    for lo, hi, size in ((0, 2, W), (1, 3, H)):
        a = np.minimum(box[:, lo], box[:, hi])
        b = np.maximum(box[:, lo], box[:, hi])
        a = np.clip(a, 0.0, size - _MIN_SIDE)
        b = np.clip(b, a + _MIN_SIDE, size)
        out[:, lo], out[:, hi] = a, b
    return out


def _finish_polygons(centre, verts, nv, W, H):
    """Clip vertices to the image, re-sort them by angle about the star centre and build
    valid shapely polygons (convex hull, then a small box, for the rare leftovers)."""
    m = len(nv)
    if m == 0:
        return np.empty(0, dtype=object)
    x = np.clip(verts[..., 0], 0.0, W[:, None])
    y = np.clip(verts[..., 1], 0.0, H[:, None])
    angle = np.arctan2(y - centre[:, 1:2], x - centre[:, 0:1])
    angle[np.isnan(x)] = np.inf  # padding sorts last
    order = np.argsort(angle, axis=1, kind="stable")
    xy = np.stack([np.take_along_axis(x, order, 1), np.take_along_axis(y, order, 1)], -1)
    valid = ~np.isnan(xy[..., 0])
    rings = shapely.linearrings(xy[valid], indices=np.repeat(np.arange(m), nv))
    geoms = shapely.polygons(rings)
    bad = ~shapely.is_valid(geoms)
    if bad.any():
        geoms[bad] = shapely.convex_hull(geoms[bad])
        bad = (shapely.get_type_id(geoms) != 3) | ~(shapely.area(geoms) > 0)
        if bad.any():
            cx = np.clip(centre[bad, 0], _MIN_SIDE, W[bad] - _MIN_SIDE)
            cy = np.clip(centre[bad, 1], _MIN_SIDE, H[bad] - _MIN_SIDE)
            geoms[bad] = shapely.box(cx - _MIN_SIDE, cy - _MIN_SIDE, cx + _MIN_SIDE, cy + _MIN_SIDE)
    return geoms


def _finish(obj: _Objects, W, H):
    """Final boxes (bounds for polygon rows) and the geometry column of ``obj``."""
    box = _finish_boxes(obj.box, W[obj.item], H[obj.item])
    geometry = np.full(len(obj.item), None, dtype=object)
    if obj.is_poly.any():
        pitem = obj.item[obj.is_poly]
        polys = _finish_polygons(obj.centre, obj.verts, obj.nv, W[pitem], H[pitem])
        geometry[obj.is_poly] = polys
        box[obj.is_poly] = shapely.bounds(polys)
    return box, geometry


def _poly_mask(rng, n, kind):
    if kind == "box":
        return np.zeros(n, bool)
    if kind == "polygon":
        return np.ones(n, bool)
    return rng.random(n) < 0.5


def _random_objects(rng, item, W, H, n_classes, kind, vrange, K):
    """Random-layout objects on the given items with uniformly random classes."""
    n = len(item)
    label = rng.integers(0, n_classes, n)
    is_poly = _poly_mask(rng, n, kind)
    box, centre, verts, nv = _draw_shapes(rng, W[item], H[item], is_poly, "random", vrange, K)
    return _Objects(item, label, np.full(n, -1, np.int64), box, is_poly, centre, verts, nv)


# --------------------------------------------------------------------------- streams


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _name_key(name: str) -> tuple[int, ...]:
    digest = hashlib.sha256(name.encode("utf-8")).digest()[:16]
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


# --------------------------------------------------------------------------- core


@dataclasses.dataclass
class _Corpus:
    seed: int
    n_items: int
    W: np.ndarray
    H: np.ndarray
    n_classes: int
    kind: str
    count: object  # callable rng -> (n_items,) counts
    vrange: tuple[int, int]
    K: int


def _truth(c: _Corpus, class_p, layout) -> _Objects:
    counts = c.count(_rng(c.seed, _TRUTH, _T_COUNT))
    item = np.repeat(np.arange(c.n_items), counts)
    n = len(item)
    label = _rng(c.seed, _TRUTH, _T_CLASS).choice(c.n_classes, size=n, p=class_p)
    is_poly = _poly_mask(_rng(c.seed, _TRUTH, _T_KIND), n, c.kind)
    box, centre, verts, nv = _draw_shapes(
        _rng(c.seed, _TRUTH, _T_SHAPE), c.W[item], c.H[item], is_poly, layout, c.vrange, c.K
    )
    return _Objects(item, label.astype(np.int64), np.arange(n, dtype=np.int64), box,
                    is_poly, centre, verts, nv)  # fmt: skip


def _lazy_objects(rng, truth: _Objects, c: _Corpus) -> _Objects:
    n = c.n_items
    item = np.arange(n)
    first = np.searchsorted(truth.item, item)
    has = first < len(truth.item)
    has[has] = truth.item[first[has]] == item[has]
    label = rng.integers(0, c.n_classes, n)
    label[has] = truth.label[first[has]]
    f0, f1 = (1 - LAZY_CENTER_FRACTION) / 2, (1 + LAZY_CENTER_FRACTION) / 2
    box = np.column_stack([c.W * f0, c.H * f0, c.W * f1, c.H * f1])
    if c.kind == "polygon":
        is_poly = np.ones(n, bool)
        corners = box[:, [[0, 1], [2, 1], [2, 3], [0, 3]]]  # (n, 4, 2), counter-clockwise
        verts = np.full((n, c.K, 2), np.nan)
        verts[:, :4] = corners
        centre = np.column_stack([c.W / 2, c.H / 2])
        nv = np.full(n, 4, np.int64)
    else:
        is_poly = np.zeros(n, bool)
        centre, verts, nv = _empty_poly(c.K)
    return _Objects(item, label, np.full(n, -1, np.int64), box, is_poly, centre, verts, nv)


def _annotate(name: str, p: Profile, truth: _Objects, c: _Corpus):
    """One annotator's rows: (objects, box, geometry) sorted by item, and the reviewed
    mask over items."""
    key = (_ANNOTATOR, *_name_key(name))
    W, H = c.W, c.H
    reviewed = _rng(c.seed, *key, _A_COVER).random(c.n_items) < p.coverage

    if p.random:
        rng = _rng(c.seed, *key, _A_RANDOM)
        item = np.repeat(np.arange(c.n_items), c.count(rng))
        src = _random_objects(rng, item, W, H, c.n_classes, c.kind, c.vrange, c.K)
    elif p.lazy_center:
        src = _lazy_objects(_rng(c.seed, *key, _A_LAZY), truth, c)
    else:
        src = dataclasses.replace(truth, box=truth.box.copy(), centre=truth.centre.copy(),
                                  verts=truth.verts.copy(), label=truth.label.copy())  # fmt: skip
    n = len(src.item)

    if p.mirror:
        w = W[src.item]
        src.box[:, [0, 2]] = w[:, None] - src.box[:, [2, 0]]
        pw = W[src.item[src.is_poly]]
        src.centre[:, 0] = pw - src.centre[:, 0]
        src.verts[..., 0] = pw[:, None] - src.verts[..., 0]

    # Every per-object draw covers all source objects, whatever is kept (common numbers).
    keep = _rng(c.seed, *key, _A_MISS).random(n) >= p.miss

    if p.confusion > 0 and c.n_classes > 1:
        rng = _rng(c.seed, *key, _A_CONFUSE)
        flip = rng.random(n) < p.confusion
        shift = rng.integers(1, c.n_classes, n)
        src.label = np.where(flip, (src.label + shift) % c.n_classes, src.label)

    if p.jitter > 0:
        rng = _rng(c.seed, *key, _A_JITTER)
        noise = rng.standard_normal((n, 4))
        size = np.column_stack([src.box[:, 2] - src.box[:, 0], src.box[:, 3] - src.box[:, 1]])
        src.box += noise * p.jitter * size[:, [0, 1, 0, 1]]
        if src.is_poly.any():
            vnoise = rng.standard_normal(src.verts.shape)
            xs, ys = src.verts[..., 0], src.verts[..., 1]
            vsize = np.stack([np.nanmax(xs, 1) - np.nanmin(xs, 1),
                              np.nanmax(ys, 1) - np.nanmin(ys, 1)], -1)  # fmt: skip
            src.verts += vnoise * p.jitter * vsize[:, None, :]

    src = src.take(keep)
    if p.false_positives > 0:
        rng = _rng(c.seed, *key, _A_FP)
        fp_item = np.repeat(np.arange(c.n_items), rng.poisson(p.false_positives, c.n_items))
        fp = _random_objects(rng, fp_item, W, H, c.n_classes, c.kind, c.vrange, c.K)
        src = _concat([src, fp])
        src = src.take(np.argsort(src.item, kind="stable"))

    src = src.take(reviewed[src.item])
    box, geometry = _finish(src, W, H)
    return src, box, geometry, reviewed


# --------------------------------------------------------------------------- validation


def _check_int(name, value, lo):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo:
        raise ParameterError(f"{name} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
        )
    return value


def _check_classes(classes, class_weights):
    if isinstance(classes, str) or not isinstance(classes, Sequence) or len(classes) == 0:
        raise ParameterError(
            f"classes must be a non-empty sequence of strings (e.g. ('car', 'person')), "
            f"got {classes!r}"
        )
    classes = tuple(classes)
    if not all(isinstance(k, str) and k for k in classes):
        raise ParameterError(f"classes must be non-empty strings, got {classes!r}")
    if len(set(classes)) != len(classes):
        raise ParameterError(f"classes must be distinct, got {classes!r}")
    if ALL in classes:
        raise ParameterError(f"the class name {ALL!r} is reserved")
    if class_weights is None:
        return classes, None
    try:
        w = np.asarray(class_weights, dtype=float)
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (len(classes),) or not np.all(np.isfinite(w)) \
            or np.any(w < 0) or w.sum() <= 0:  # fmt: skip
        raise ParameterError(
            f"class_weights must be {len(classes)} finite non-negative numbers (one per "
            f"class) with a positive sum, got {class_weights!r}"
        )
    return classes, w / w.sum()


def _check_annotators(annotators):
    if annotators is None:
        annotators = {"A": "good", "B": "good", "C": "good"}
    if not isinstance(annotators, Mapping) or len(annotators) == 0:
        raise ParameterError(
            "annotators must be a non-empty dict {name: profile} where a profile is a "
            f"Profile, a dict of its fields or a preset name ({', '.join(PRESETS)}); "
            f"got {annotators!r}"
        )
    out = {}
    for name, value in annotators.items():
        if not isinstance(name, str) or not name:
            raise ParameterError(f"annotator names must be non-empty strings, got {name!r}")
        if name == ALL:
            raise ParameterError(f"the annotator name {ALL!r} is reserved")
        out[name] = _as_profile(name, value)
    return out


def _check_image_size(image_size):
    if image_size is None:
        return None
    ok = (
        isinstance(image_size, Sequence)
        and not isinstance(image_size, str)
        and len(image_size) == 2
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in image_size)
        and all(math.isfinite(v) and v >= 4 for v in image_size)
    )
    if not ok:
        raise ParameterError(
            f"image_size must be None or (width, height) in pixels, both >= 4, "
            f"got {image_size!r}"
        )
    return float(image_size[0]), float(image_size[1])


def _check_vertices(vertices):
    ok = (
        isinstance(vertices, Sequence)
        and len(vertices) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vertices)
        and 5 <= vertices[0] <= vertices[1] <= 64
    )
    if not ok:
        raise ParameterError(
            f"vertices must be (min, max) integers with 5 <= min <= max <= 64, got {vertices!r}"
        )
    return int(vertices[0]), int(vertices[1])


# --------------------------------------------------------------------------- public


def simulate_with_truth(
    *,
    n_items: int = 100,
    annotators: Mapping[str, Profile | Mapping | str] | None = None,
    kind: str = "box",
    classes: Sequence[str] = ("car", "person", "bicycle"),
    objects_per_item: float = 4,
    seed: int = 0,
    image_size: tuple[float, float] | None = None,
    objects_per: str = "poisson",
    class_weights: Sequence[float] | None = None,
    layout: str = "random",
    vertices: tuple[int, int] = (5, 12),
) -> Simulated:
    """Simulate a corpus: true objects per item, and each annotator's redrawing of them.

    Parameters
    ----------
    n_items : int, default 100
        Number of items (images), named ``"img_00000"``, ``"img_00001"``, ... (zero-padded
        to at least five digits, so that string order is numeric order).
    annotators : dict {str: Profile or dict or str}, optional
        Annotator name to profile: a :class:`Profile`, a dict of its fields (optionally
        with a ``"preset"`` key as the base), or a preset name from :data:`PRESETS`
        (``"perfect"``, ``"good"``, ``"sloppy"``, ``"misser"``, ``"mislabeler"``,
        ``"random"``, ``"mirror"``, ``"lazy-center"``). Default: three ``"good"``
        annotators ``"A"``, ``"B"``, ``"C"``.
    kind : {"box", "polygon", "mixed"}, default "box"
        Shapes of the true objects. ``"polygon"`` gives star-shaped polygons with
        ``vertices`` vertices; ``"mixed"`` makes each object a box or a polygon with
        probability 1/2. Annotators redraw an object in its own kind; false positives and
        random draws follow ``kind`` too.
    classes : sequence of str, default ("car", "person", "bicycle")
        Class names.
    objects_per_item : float, default 4
        Mean number of true objects per item (Poisson, so some items have none), or the
        exact number with ``objects_per="fixed"``. Ignored by ``layout="single_center"``.
    seed : int, default 0
        Seed of every random draw (see the module notes on streams).
    image_size : (float, float), optional
        Fixed (width, height) in pixels. By default each item draws one of
        ``COMMON_IMAGE_SIZES``.
    objects_per : {"poisson", "fixed"}, default "poisson"
        Distribution of the number of true objects per item.
    class_weights : sequence of float, optional
        Relative class frequencies of the true objects (class imbalance). False positives
        and random draws use uniform classes.
    layout : {"random", "single_center"}, default "random"
        ``"random"``: objects of 5–40 % of the image side (log-uniform, varied aspect)
        anywhere in the image. ``"single_center"``: exactly one large object per item
        (35–65 % of each side), centred up to ±10 % off the image centre.
    vertices : (int, int), default (5, 12)
        Range of the number of polygon vertices (each polygon draws its own count).

    Returns
    -------
    Simulated
        ``annotations``: the tidy frame with columns ``item, annotator, label, object_id,
        x0, y0, x1, y1, geometry, width, height, truth_id``, sorted by item and annotator.
        Boxes are clipped to the image with positive area; polygon rows carry a valid
        shapely Polygon in ``geometry`` and its bounds in ``x0..y1``; box rows have
        ``geometry=None``. Every annotator who reviewed an item and drew nothing on it has
        exactly one coverage row (NA label, NaN coordinates). ``truth``: one row per true
        object (``item, truth_id, label, x0, y0, x1, y1, geometry, width, height``).

    Raises
    ------
    ParameterError
        For an invalid parameter, unknown preset or unknown profile field.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate_with_truth
    >>> sim = simulate_with_truth(n_items=3, annotators={"a": "perfect", "b": "misser"},
    ...                           seed=1)
    >>> list(sim.truth.columns)
    ['item', 'truth_id', 'label', 'x0', 'y0', 'x1', 'y1', 'geometry', 'width', 'height']
    >>> perfect = sim.annotations.query("annotator == 'a'")
    >>> len(perfect) == len(sim.truth)
    True
    """
    n_items = _check_int("n_items", n_items, 1)
    annotators = _check_annotators(annotators)
    kind = _check_choice("kind", kind, _KINDS)
    classes, class_p = _check_classes(classes, class_weights)
    seed = _check_int("seed", seed, 0)
    size = _check_image_size(image_size)
    objects_per = _check_choice("objects_per", objects_per, _OBJECTS_PER)
    layout = _check_choice("layout", layout, _LAYOUTS)
    vrange = _check_vertices(vertices)
    if isinstance(objects_per_item, bool) or not isinstance(objects_per_item, numbers.Real) \
            or not (math.isfinite(objects_per_item) and objects_per_item >= 0):  # fmt: skip
        raise ParameterError(
            f"objects_per_item must be a finite number >= 0, got {objects_per_item!r}"
        )
    if objects_per == "fixed" and objects_per_item != int(objects_per_item):
        raise ParameterError(
            f"objects_per_item must be a whole number with objects_per='fixed', "
            f"got {objects_per_item!r}"
        )

    # Image sizes.
    if size is None:
        choice = _rng(seed, _TRUTH, _T_SIZE).integers(0, len(COMMON_IMAGE_SIZES), n_items)
        W, H = np.asarray(COMMON_IMAGE_SIZES, dtype=float)[choice].T.copy()
    else:
        W, H = np.full(n_items, size[0]), np.full(n_items, size[1])

    if layout == "single_center":
        def count(rng):
            return np.ones(n_items, np.int64)
    elif objects_per == "fixed":
        def count(rng):
            return np.full(n_items, int(objects_per_item), np.int64)
    else:
        def count(rng):
            return rng.poisson(float(objects_per_item), n_items).astype(np.int64)

    c = _Corpus(seed, n_items, W, H, len(classes), kind, count, vrange, max(vrange[1], 4))
    truth = _truth(c, class_p, layout)

    # Annotators, in name order; each block is sorted by item, coverage rows included.
    names = sorted(annotators)
    blocks = []
    for rank, name in enumerate(names):
        obj, box, geometry, reviewed = _annotate(name, annotators[name], truth, c)
        drawn = np.bincount(obj.item, minlength=n_items)
        empty = np.flatnonzero(reviewed & (drawn == 0))
        item = np.concatenate([obj.item, empty])
        blocks.append(dict(
            item=item,
            annotator=np.full(len(item), rank, np.int64),
            label=np.concatenate([obj.label, np.full(len(empty), -1, np.int64)]),
            truth_id=np.concatenate([obj.truth_id, np.full(len(empty), -1, np.int64)]),
            box=np.concatenate([box, np.full((len(empty), 4), np.nan)]),
            geometry=np.concatenate([geometry, np.full(len(empty), None, dtype=object)]),
        ))  # fmt: skip
    cols = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
    order = np.argsort(cols["item"] * len(names) + cols["annotator"], kind="stable")
    cols = {k: v[order] for k, v in cols.items()}

    width = max(5, len(str(n_items - 1)))
    item_names = pd.Index([f"img_{i:0{width}d}" for i in range(n_items)], dtype="str")
    class_index = pd.Index(classes, dtype="str")

    def strings(codes, categories):
        return pd.Categorical.from_codes(codes, categories=categories).astype("str")

    item_col = strings(cols["item"], item_names)
    annotations = pd.DataFrame({
        "item": item_col,
        "annotator": strings(cols["annotator"], pd.Index(names, dtype="str")),
        "label": strings(cols["label"], class_index),
        "object_id": np.arange(len(order), dtype=np.int64),
        "x0": cols["box"][:, 0], "y0": cols["box"][:, 1],
        "x1": cols["box"][:, 2], "y1": cols["box"][:, 3],
        "geometry": cols["geometry"],
        "width": W[cols["item"]], "height": H[cols["item"]],
        "truth_id": pd.arrays.IntegerArray(np.maximum(cols["truth_id"], 0),
                                           cols["truth_id"] < 0),
    })  # fmt: skip

    tbox, tgeom = _finish(truth, W, H)
    truth_frame = pd.DataFrame({
        "item": strings(truth.item, item_names),
        "truth_id": truth.truth_id,
        "label": strings(truth.label, class_index),
        "x0": tbox[:, 0], "y0": tbox[:, 1], "x1": tbox[:, 2], "y1": tbox[:, 3],
        "geometry": tgeom,
        "width": W[truth.item], "height": H[truth.item],
    })  # fmt: skip
    return Simulated(annotations, truth_frame)


def simulate(
    *,
    n_items: int = 100,
    annotators: Mapping[str, Profile | Mapping | str] | None = None,
    kind: str = "box",
    classes: Sequence[str] = ("car", "person", "bicycle"),
    objects_per_item: float = 4,
    seed: int = 0,
    image_size: tuple[float, float] | None = None,
    objects_per: str = "poisson",
    class_weights: Sequence[float] | None = None,
    layout: str = "random",
    vertices: tuple[int, int] = (5, 12),
) -> pd.DataFrame:
    """Simulate an annotation corpus: ``simulate_with_truth(...).annotations``.

    Parameters
    ----------
    n_items, annotators, kind, classes, objects_per_item, seed, image_size, objects_per, \
class_weights, layout, vertices
        As in :func:`simulate_with_truth`.

    Returns
    -------
    pandas.DataFrame
        The tidy annotation frame (see :func:`simulate_with_truth`).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> df = simulate(n_items=20, annotators={"good": "good", "lazy": "lazy-center"},
    ...               kind="polygon", seed=3)
    >>> sorted(df["annotator"].unique())
    ['good', 'lazy']
    >>> objects = df[df["label"].notna()]      # coverage rows have no label
    >>> bool(objects["geometry"].notna().all())
    True
    >>> df["item"].iloc[0]
    'img_00000'
    """
    return simulate_with_truth(
        n_items=n_items, annotators=annotators, kind=kind, classes=classes,
        objects_per_item=objects_per_item, seed=seed, image_size=image_size,
        objects_per=objects_per, class_weights=class_weights, layout=layout,
        vertices=vertices,
    ).annotations
