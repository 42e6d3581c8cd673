"""Aligned chance units: a second source of localization's chance units, for thin corpora.

Why
---
Localization's chance units are the *matched* between-item object pairs: two unrelated
objects that pass the gate (IoU, OKS, ... ``>= τ``). Where objects are small or spread
over the scene, unrelated objects rarely pass it, and the whole chance population holds a
handful of units (an 8-image pilot: 9; KITTI-like scenes of 1-4 cars: 6; COCO-like
skeletons of 1-3 people per image: none, skeletons of different images almost never
reaching OKS 0.5). Localization is then not measurable (fewer than
:data:`~iaa_frames.core.chance.population.MIN_CHANCE_UNITS` units), although the question
"how far apart are two unrelated objects that *do* meet the gate" has a well-defined
answer: this module estimates it by bringing unrelated objects together.

An aligned unit
---------------
An aligned unit takes an object ``x`` of the annotation of item i by annotator a and an
object ``y`` of the annotation of item j by annotator b, with i and j of different groups
(different items without groups) and a != b: the pairs of objects of the chance pairings
of :mod:`iaa_frames.core.chance` (:func:`~iaa_frames.core.chance.population.valid_pairings`). It
places ``y`` in ``x``'s frame, by the rule of the objects' kind
(:attr:`~iaa_frames.geometry.kinds.Kind.chance_alignment`):

* ``"translate"`` (boxes, polygons and masks, points, point sets, polylines, cuboids on
  the ground): ``y`` is moved (:meth:`~iaa_frames.geometry.shapes.Shapes.translated`) so
  that the centre of its bounding box sits at the centre of ``x``'s plus an offset ``u``
  drawn uniformly from the rectangle of offsets where the two boxes, each grown by its
  kind's reach at τ (:meth:`~iaa_frames.geometry.kinds.Kind.reach`, 0 for IoU kinds),
  can overlap: ``|u_x| <= (w_x + w_y) / 2 + r_x + r_y`` and the same in y. Every offset
  that can pass the gate lies in that rectangle (two shapes whose grown boxes are apart
  cannot reach τ: the contract of ``Kind.bounds`` and ``Kind.reach``). The unit weighs the
  area of its rectangle: if the positions of unrelated objects have a density that is
  flat at the scale of the objects, the chance that ``x`` and ``y`` meet within the gate
  is proportional to the area of the offsets that pass, which a uniform proposal over
  the rectangle times the rectangle's area reproduces (importance sampling). The weighted
  mean distance of the units is then the mean distance of the unrelated pairs that pass
  the gate, the empirical chance population's own mean when that population is large
  (checked in ``tests/core/chance/test_aligned.py`` on random annotators of 400 images: boxes,
  polygons, points).
* ``"box"`` (keypoints): ``y``'s skeleton is mapped into ``x``'s box (scaled on each axis
  and moved so that the box of its labelled joints is ``x``'s, its area scaled likewise,
  :meth:`~iaa_frames.geometry.kinds.Kind.fit_to_boxes`), so that the figure says how well
  joints agree beyond knowing where the person is. There is no offset to average over:
  weight 1, and each ordered pair ``(x, y)`` is one unit at most.
* None (a registered kind that implements neither): no aligned units.

A unit is kept when it passes the gate, computed by the matcher's own function of pairs
of shapes (:func:`iaa_frames.geometry.overlap.iou`: IoU, the COCO mask IoU of detailed
polygons, a kind's own similarity), and its distance is the configured distance of ``x``
and the moved ``y`` (:func:`iaa_frames.geometry.distances.get_distance`, the code the
matcher calls on its matched pairs, with the same known IoU).

What it is not: the matcher's optimal assignment is not run (a unit is one pair, not a
pairing), which the empirical population only differs from where one object can pass the
gate with several objects of an unrelated annotation, rare where the population is thin.
The translation keeps ``y``'s size, shape, orientation and, for cuboids, height: only its
place changes. The position density is assumed flat near the objects: for objects near
the image's edges the empirical offsets are fewer than the rectangle assumes (an error of
the order of the objects' size over the image's). At τ = 0 every unrelated pair passes
the gate, the empirical population is never thin, and no unit is drawn.

Drawing
-------
Candidates are ordered pairs ``(x, y)`` drawn uniformly, with replacement, over the
valid pairs of objects of one *family* (objects that can be compared: boxes with
polygons, every other kind with its own), so that every pair of objects of the chance
population is equally likely, as every pairing is in the uniform stratum; ``y`` gets one
offset per draw. Draws come in rounds, each sized from the rate of kept units so far,
until ``n_target`` units are kept (the first ``n_target`` in order of draw) or
``max_candidates`` candidates were drawn (default ``WORK_PER_UNIT * n_target``): the work
is bounded by the target, never quadratic in objects. For keypoints a pair drawn again is
skipped; the draw stops when three rounds in a row bring no valid candidate (no pair of
unrelated objects left to draw). Candidates
that cannot pass are told apart by the matcher's IoU upper bound
(:func:`iaa_frames.geometry.bounds.iou_upper_bound`) before any overlay. The random
stream is ``numpy.random.default_rng([seed, ALIGNED])``, and objects are drawn by their
codes, which follow the canonical order of the corpus (:mod:`iaa_frames.core.matching.corpus`):
the units depend on the seed and on the content of the annotations, never on names or
row order.

Every unit is in the uniform sample of pairs of objects, so it counts in every cell it
belongs to (``in_uniform``, as the uniform stratum's rows do); no stratum of a narrower
cell is drawn (the other flags are False): a class's units are those of two objects of
the class (``label_a == label_b``). Weights are scaled to average 1 over the units of each
family (only their ratios matter).

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.core.matching.corpus import prepare
>>> df = iaf.simulate(n_items=8, annotators={"a": "good", "b": "good"}, seed=0)
>>> units = aligned_units(prepare(df), n_target=50, seed=0)
>>> len(units), bool((units["item_a"] != units["item_b"]).all())
(50, True)
>>> bool((units["iou"] >= 0.5).all()), round(float(units["weight"].mean()), 6)
(True, 1.0)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.matching.checked import engine_distance
from iaa_frames.core.matching.corpus import Corpus
from iaa_frames.geometry.bounds import iou_upper_bound
from iaa_frames.geometry.kind_similarity import involves_own_similarity
from iaa_frames.geometry.kinds.registry import get_kind
from iaa_frames.geometry.mask_rule import on_masks
from iaa_frames.geometry.overlap import areas, areas_inside_bound
from iaa_frames.geometry.overlap import iou as gate_iou
from iaa_frames.geometry.shapes import Shapes
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings

from .sampling import first_occurrence, in_sorted, union_sorted

__all__ = [
    "ALIGNED",
    "ALIGNED_COLUMNS",
    "DEFAULT_N_ALIGNED",
    "WORK_PER_UNIT",
    "aligned_units",
    "alignment_families",
    "empty_aligned",
]

#: The kind of stream of aligned units (after the strata's, :mod:`.population`).
ALIGNED = 8
#: Aligned units aimed at.
DEFAULT_N_ALIGNED = 300
#: Most candidates drawn per unit aimed at (the work cap).
WORK_PER_UNIT = 500
#: Fewest candidates of a round.
_MIN_ROUND = 1024
#: Candidates measured per block (bounds the memory of polylines' and cuboids' arrays).
_BLOCK = 16_384

#: The columns of ``PairTables.localization_aligned``, in order: those of
#: ``localization_between`` and the unit's weight.
ALIGNED_COLUMNS = {
    "item_a": np.int64,
    "item_b": np.int64,
    "annotator_a": np.int64,
    "annotator_b": np.int64,
    "label_a": np.int64,
    "label_b": np.int64,
    "object_a": np.int64,
    "object_b": np.int64,
    "iou": np.float64,
    "distance": np.float64,
    "in_uniform": bool,
    "in_annotator_a": bool,
    "in_annotator_b": bool,
    "in_pair": bool,
    "in_label": bool,
    "weight": np.float64,
}

_NONE, _TRANSLATE, _BOX = 0, 1, 2


def empty_aligned() -> pd.DataFrame:
    """The frame of no aligned unit, with the columns and dtypes of
    :data:`ALIGNED_COLUMNS`.

    Examples
    --------
    >>> empty_aligned().columns[-1], len(empty_aligned())
    ('weight', 0)
    """
    return pd.DataFrame({c: np.zeros(0, dtype=t) for c, t in ALIGNED_COLUMNS.items()})


def alignment_families(shapes: Shapes):
    """Per object, its family (objects of one family can be compared: -1 for none) and
    how it is aligned (0: not, 1: translated, 2: fitted to the other's box).

    Boxes and polygons (masks among them) are family 0; every parametric kind is a
    family of its own, numbered in the order of ``shapes.params``. A kind whose
    :attr:`~iaa_frames.geometry.kinds.Kind.chance_alignment` is None, and missing shapes,
    get family -1.

    Examples
    --------
    >>> family, mode = alignment_families(Shapes([[0, 0, 1, 1], [0, 0, np.nan, 1]]))
    >>> family.tolist(), mode.tolist()
    ([0, -1], [1, 0])
    """
    n = len(shapes)
    family = np.zeros(n, dtype=np.int64)
    mode = np.full(n, _TRANSLATE, dtype=np.int64)
    for k, (name, rows) in enumerate(shapes.kind_rows().items()):
        how = get_kind(name).chance_alignment
        family[rows] = k + 1 if how in ("translate", "box") else -1
        mode[rows] = {"translate": _TRANSLATE, "box": _BOX}.get(how, _NONE)
    missing = ~np.isfinite(shapes.boxes).all(axis=1)
    family[missing], mode[missing] = -1, _NONE
    return family, np.where(family < 0, _NONE, mode)


def _reach(shapes: Shapes, rows, tau: float) -> np.ndarray:
    """The reach at ``tau`` of the objects ``rows`` (0 for IoU kinds)."""
    out = np.zeros(len(rows))
    for name, kind_rows in shapes.kind_rows().items():
        sel = kind_rows[rows]
        kind = get_kind(name)
        if sel.any() and kind.own_similarity:
            out[sel] = kind.reach(shapes.params[name][rows[sel]], tau)
    return out


def _offsets(shapes: Shapes, x, y, u, tau: float):
    """The shifts ``(m, 2)`` that move the objects ``y`` to the offsets ``u`` (two
    uniforms in [0, 1) per pair) from the objects ``x``, over the rectangle of offsets
    where their boxes grown by their reach overlap, and the rectangles' areas."""
    bx, by = shapes.boxes[x], shapes.boxes[y]
    half = (bx[:, 2:] - bx[:, :2] + by[:, 2:] - by[:, :2]) / 2
    half += (_reach(shapes, x, tau) + _reach(shapes, y, tau))[:, None]
    shift = (bx[:, :2] + bx[:, 2:]) / 2 + (2 * u - 1) * half - (by[:, :2] + by[:, 2:]) / 2
    return shift, 4 * half[:, 0] * half[:, 1]


def _tighten(a: Shapes, b: Shapes, proxy: Shapes, shift, bound, tau: float) -> None:
    """Lower in place the IoU bound of the pairs of ``a`` with a polygon moved by
    ``shift`` (``b`` before the move, ``proxy`` its boxes after) that pass ``tau`` and are
    not given by masks, as the matcher does (:func:`iaa_frames.core.matching.pipeline`'s
    tighter bound): the shared area is at most the area of either shape inside the
    other's box, bounded from a grid of the shape's areas computed once per shape."""
    rows = np.flatnonzero((bound >= tau) & (a.is_polygon | b.is_polygon))
    rows = rows[~on_masks(a, proxy, rows)]
    if not rows.size:
        return
    a, b, p = a.take(rows), b.take(rows), proxy.take(rows)
    back = a.boxes - np.column_stack([shift[rows], shift[rows]])  # a's box in b's frame
    top = np.minimum(areas_inside_bound(a, p.boxes), areas_inside_bound(b, back))
    area_a, area_b = areas(a), areas(b)
    top = np.minimum(top, np.minimum(area_a, area_b))
    with np.errstate(invalid="ignore", divide="ignore"):
        bound[rows] = np.minimum(bound[rows], np.nan_to_num(top / (area_a + area_b - top)))


def _measure(shapes: Shapes, x, y, mode, u, tau: float, distance):
    """Gate score, distance and weight of the candidates (one mode for all): ``y`` placed
    in ``x``'s frame (and image), moved by an offset or fitted to its box. The gate score
    is -1 where a candidate cannot pass (the matcher's IoU upper bound, computed on the
    moved boxes before any shape is moved: translation changes no area, outline or
    height), the distance NaN where it does not pass."""
    score = np.full(len(x), -1.0)
    dist = np.full(len(x), np.nan)
    weight = np.ones(len(x))
    for lo in range(0, len(x), _BLOCK):
        s = slice(lo, lo + _BLOCK)
        a, b = shapes.take(x[s]), shapes.take(y[s])
        size = a.image_size
        if mode == _BOX:
            moved = b.fitted(a.boxes)
            b = Shapes(moved.boxes, moved.polygons, size, moved.params, moved.payloads)
            maybe = np.arange(len(a))
        else:
            shift, weight[s] = _offsets(shapes, x[s], y[s], u[s], tau)
            boxes = b.boxes + np.column_stack([shift, shift])
            proxy = Shapes(boxes, b.polygons, size, b.params, b.payloads)  # its boxes alone moved
            own = involves_own_similarity(a, proxy)
            bound = iou_upper_bound(a, proxy)
            _tighten(a, b, proxy, shift, bound, tau)
            bound = bound >= tau
            maybe = np.flatnonzero(bound if own is None else bound | own)
            if not maybe.size:
                continue
            a, b = a.take(maybe), b.take(maybe).translated(*shift[maybe].T)
            b = Shapes(b.boxes, b.polygons, a.image_size, b.params, b.payloads)
        value = np.nan_to_num(gate_iou(a, b))
        score[lo + maybe] = value
        ok = np.flatnonzero(value >= tau)
        if ok.size:
            dist[lo + maybe[ok]] = distance(a.take(ok), b.take(ok), known_iou=value[ok])
    return score, dist, weight


def aligned_units(
    corpus: Corpus,
    settings: MatchSettings = DEFAULTS,
    *,
    n_target: int = DEFAULT_N_ALIGNED,
    seed: int | None = None,
    max_candidates: int | None = None,
) -> pd.DataFrame:
    """Aligned chance units of localization (module docstring).

    Parameters
    ----------
    corpus : Corpus
        A prepared corpus (:func:`iaa_frames.core.matching.corpus.prepare`).
    settings : MatchSettings, optional
        Its ``match_threshold`` (τ, one value) and ``distance`` are the matcher's;
        ``seed`` the default seed.
    n_target : int, default 300
        Units aimed at.
    seed : int, optional
        Seed of the draw; ``settings.seed`` by default.
    max_candidates : int, optional
        Most candidates drawn; ``WORK_PER_UNIT * n_target`` by default.

    Returns
    -------
    pandas.DataFrame
        One row per unit, the columns of :data:`ALIGNED_COLUMNS`: codes of both objects'
        items, annotators and labels (``object_a`` is ``x``, whose frame holds the unit;
        ``object_b`` is ``y``, moved into it), the gate score ``iou`` (IoU, OKS, ...),
        the ``distance``, the strata flags (``in_uniform`` True) and the ``weight``. In
        order of draw; empty when nothing can be aligned or τ is 0.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> corpus = prepare(iaf.simulate(n_items=6, kind="polygon", seed=1))
    >>> a = aligned_units(corpus, n_target=30, seed=3)
    >>> b = aligned_units(corpus, n_target=30, seed=3)
    >>> len(a), a.equals(b)
    (30, True)
    """
    tau = float(settings.match_threshold)
    distance = engine_distance(settings.distance)
    seed = int(settings.seed if seed is None else seed)
    n_target = int(n_target)
    cap = int(WORK_PER_UNIT * n_target if max_candidates is None else max_candidates)
    shapes = corpus.shapes
    family, mode = alignment_families(shapes)
    group = corpus.group_of_item(corpus.item)
    if tau <= 0 or n_target <= 0 or not (family >= 0).any():
        return empty_aligned()
    # objects of each family, in code order (CSR); x drawn with chance proportional to
    # its family's size, so that every valid pair of objects is equally likely
    pool = np.flatnonzero(family >= 0)
    pool = pool[np.argsort(family[pool], kind="stable")]
    count = np.bincount(family[pool])
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    prob = count[family[pool]].astype(np.float64)
    prob /= prob.sum()
    n_obj = len(shapes)
    rng = np.random.default_rng([seed, ALIGNED])
    kept, drawn, seen, stalled, n_kept = [], 0, np.zeros(0, np.int64), 0, 0
    for _ in range(50):
        if n_kept >= n_target or drawn >= cap or stalled >= 3:
            break
        rate = n_kept / drawn if drawn else 0.0
        left = n_target - n_kept
        m = int(left / rate * 1.3) if rate > 0 else 4 * n_target
        m = int(min(max(m, _MIN_ROUND), cap - drawn))
        drawn += m
        x = pool[rng.choice(len(pool), size=m, p=prob)]
        f = family[x]
        y = pool[start[f] + np.minimum((rng.random(m) * count[f]).astype(np.int64), count[f] - 1)]
        u = rng.random((m, 2))
        valid = (group[x] != group[y]) & (corpus.annotator[x] != corpus.annotator[y])
        fitted = mode[x] == _BOX
        if fitted.any():  # a skeleton pair is one unit at most: skip repeats
            key = x * n_obj + y
            new = first_occurrence(np.where(fitted & valid, key, -1)) & ~in_sorted(key, seen)
            valid &= ~fitted | new
            seen = union_sorted(seen, key[fitted & valid])
        stalled = 0 if valid.any() else stalled + 1  # nothing new to measure
        rows = np.flatnonzero(valid)
        score, dist, weight = np.full(m, -1.0), np.full(m, np.nan), np.ones(m)
        for how in (_TRANSLATE, _BOX):
            r = rows[mode[x[rows]] == how]
            if r.size:
                score[r], dist[r], weight[r] = _measure(
                    shapes, x[r], y[r], how, u[r], tau, distance
                )
        ok = np.flatnonzero(score >= tau)[:left]
        kept.append((x[ok], y[ok], score[ok], dist[ok], weight[ok]))
        n_kept += len(ok)
    if not n_kept:
        return empty_aligned()
    x, y, score, dist, weight = (np.concatenate(v) for v in zip(*kept, strict=True))
    fam = family[x]
    mean = np.bincount(fam, weights=weight) / np.maximum(np.bincount(fam), 1)
    columns = {
        "item_a": corpus.item[x],
        "item_b": corpus.item[y],
        "annotator_a": corpus.annotator[x],
        "annotator_b": corpus.annotator[y],
        "label_a": corpus.label[x],
        "label_b": corpus.label[y],
        "object_a": x,
        "object_b": y,
        "iou": score,
        "distance": dist,
        "in_uniform": np.ones(n_kept, dtype=bool),
        **{c: np.zeros(n_kept, dtype=bool) for c in ("in_annotator_a", "in_annotator_b")},
        "in_pair": np.zeros(n_kept, dtype=bool),
        "in_label": np.zeros(n_kept, dtype=bool),
        "weight": weight / mean[fam],
    }
    return pd.DataFrame({c: np.asarray(columns[c], dtype=t) for c, t in ALIGNED_COLUMNS.items()})
