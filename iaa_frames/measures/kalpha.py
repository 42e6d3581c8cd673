"""Krippendorff's α as *kalphacv* computes it, for comparison with published figures.

(Over 400 lines: the definition it reproduces is spelled out below in full, so that it can
be checked against kalphacv without reading kalphacv's code.)

Agreement figures published for object detection and instance segmentation are often
those of the ``kalphacv`` package (Tschirschwitz et al., "A Dataset for Analysing Complex
Document Layouts in the Digital Humanities and its Evaluation with Krippendorff's Alpha",
DAGM GCPR 2022; https://github.com/Madave94/kalphacv). This module computes the same
number from a tidy annotation frame, vectorized over images. Its definition, per image:

1. **Reliability matrix.** The annotators who covered the image, sorted by name, are the
   rows; the columns (units) are built by matching. The first annotator's objects each
   open a column. Every next annotator is matched against the earlier rows in turn (row
   0 first, then row 1, ...): against row ``j`` it may take a column where row ``j`` has
   an object and the new annotator has none yet, by an optimal assignment between row
   ``j``'s available objects and its own still unmatched objects. Its objects left
   unmatched after all earlier rows each open a new column. Matching is transitive by
   assumption: an object matched to row 0's object in a column is never compared with
   row 1's object in that column.
2. **One assignment.** The objects that have at least one partner with IoU > τ (strictly)
   take part; the assignment maximises the total IoU among them (pairs under τ count in
   that total), and the assigned pairs with IoU > τ are kept. IoU is that of the boxes
   (``kind="bbox"``) or of the polygons (``kind="segm"``).
3. **Values.** A cell holds the class of the annotator's object in that column, or a
   *miss* category where the annotator has none: a miss is a disagreement like a wrong
   class.
4. **Per-image α.** Krippendorff's nominal α of the matrix, rounded to 4 decimals. An
   image whose matrix holds at most one distinct value (no objects at all, or everybody
   drew the same class and nothing was missed) scores 1; an image covered by one
   annotator with two or more distinct values scores 0 (α is undefined there: kalphacv's
   rule for an undefined α).
5. **The figure** is the mean of the per-image α over the images (:func:`kalpha`); every
   image counts once, whatever its number of objects.

:func:`kalpha` with ``average="pooled"`` gives a single α over the units of every image
instead (the corpus-level coincidence matrix), which weighs images by their number of
values and is NaN when undefined (rather than 1 or 0 by rule).

How this relates to the components of :func:`iaa_frames.agreement`
------------------------------------------------------------------
kalpha mixes detection and classification in one figure (a miss and a wrong class are
the same kind of disagreement) and ignores localization above τ. Its expected
disagreement is computed *within each image* from that image's category frequencies, so
an image where everybody drew the same objects but with several classes is compared with
a baseline built from the image itself; our components compare within-item distances
with those of unrelated items (a chance baseline), and keep detection, classification
and localization apart. The two answer different questions; report kalpha next to the
components when a figure must be compared with the literature.

Differences from kalphacv's code, where it is not a definition
--------------------------------------------------------------
* Ties in the optimal assignment (two assignments with exactly the same total IoU, as
  with duplicated boxes) may be broken differently: kalphacv's depends on the iteration
  order of Python sets.
* kalphacv codes a miss as category 0, so a COCO category with id 0 cannot be told from a
  miss there; here a miss is its own category.
* kalphacv raises on an image covered by a single annotator who drew two or more classes
  (with ``krippendorff`` >= 0.6); its code then scores such an image 0, as here.
* ``kind="segm"`` needs a polygon on every object; kalphacv fails on objects without one.
* Each image's α is rounded from its exact value (half to even); kalphacv rounds its
  floating-point value, so where α lies exactly halfway between two 4-decimal values
  (9/32 = 0.28125, say) the two may differ by 1e-4 on that image.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import shapely

from iaa_frames.core.matching.assignment import assign, candidate_pairs
from iaa_frames.errors import InvalidAnnotationError, ParameterError
from iaa_frames.frame.schema import validate
from iaa_frames.progress import tqdm
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.krippendorff import nominal_alpha_from_codes

__all__ = ["AVERAGES", "KINDS", "MISS", "kalpha", "kalpha_items", "kalpha_units"]

#: IoU of boxes ("bbox") or of polygons ("segm"), as kalphacv's ``mode``.
KINDS = ("bbox", "segm")
#: How :func:`kalpha` combines the images.
AVERAGES = ("images", "pooled")
#: Value of a cell where the annotator has no object in the unit.
MISS = "(miss)"

_CHUNK_PAIRS = 2_000_000  # candidate object pairs per block of images
_PROGRESS_MIN_OBJECTS = 200_000


# ------------------------------------------------------------------------- parameters


#: The most decimals α is rounded to: np.round scales by 10**decimals, which overflows
#: float64 (about 1.8e308) past 308 decimals, and the α were NaN.
MAX_DECIMALS = 300


def _check(match_threshold, kind, decimals=None, average=None, progress=None):
    if (
        isinstance(match_threshold, (bool, np.bool_))
        or not isinstance(match_threshold, (int, float, np.number))
        or not 0.0 < float(match_threshold) <= 1.0
    ):
        raise ParameterError(
            "match_threshold must be a number in (0, 1] (kalphacv's IoU "
            f"threshold); got {match_threshold!r}"
        )
    if kind not in KINDS:
        raise ParameterError(f"kind must be one of {KINDS}; got {kind!r}")
    if decimals is not None and (
        isinstance(decimals, (bool, np.bool_))
        or not isinstance(decimals, (int, np.integer))
        or decimals < 0
    ):
        raise ParameterError(f"decimals must be None or a non-negative integer; got {decimals!r}")
    if decimals is not None and decimals > MAX_DECIMALS:
        raise ParameterError(
            f"decimals must be at most {MAX_DECIMALS} (rounding scales α by 10**decimals, "
            f"past float64's range); got {decimals!r}"
        )
    if average is not None and average not in AVERAGES:
        raise ParameterError(f"average must be one of {AVERAGES}; got {average!r}")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"progress must be None, True or False; got {progress!r}")


# --------------------------------------------------------------------------- IoU


def _box_iou(ba: np.ndarray, bb: np.ndarray) -> np.ndarray:
    """IoU of corner boxes, with the operations in kalphacv's order (same rounding)."""
    xa, ya = np.maximum(ba[:, 0], bb[:, 0]), np.maximum(ba[:, 1], bb[:, 1])
    xb, yb = np.minimum(ba[:, 2], bb[:, 2]), np.minimum(ba[:, 3], bb[:, 3])
    inter = np.abs(np.maximum(xb - xa, 0.0) * np.maximum(yb - ya, 0.0))
    area_a = np.abs((ba[:, 2] - ba[:, 0]) * (ba[:, 3] - ba[:, 1]))
    area_b = np.abs((bb[:, 2] - bb[:, 0]) * (bb[:, 3] - bb[:, 1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a + area_b - inter)
    return np.where(inter == 0, 0.0, iou)


def _polygon_iou(ga: np.ndarray, gb: np.ndarray, ba: np.ndarray, bb: np.ndarray) -> np.ndarray:
    """Polygon IoU (intersection area over union area), computed only where the bounding
    boxes overlap."""
    out = np.zeros(len(ga))
    touch = np.flatnonzero(_box_iou(ba, bb) > 0)
    if touch.size:
        inter = shapely.area(shapely.intersection(ga[touch], gb[touch]))
        union = shapely.area(shapely.union(ga[touch], gb[touch]))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[touch] = np.where(inter > 0, inter / union, 0.0)
    return out


# ---------------------------------------------------------------------- reliability


@dataclass(frozen=True, eq=False)
class _Matrix:
    """The reliability matrices of every image.

    ``items``: names; ``raters``: annotators per item; ``coverage``: (item code,
    annotator, rank) with the annotators of each item ranked by name. Per object:
    ``item``, ``rank`` (its annotator's row), ``label``, ``object_id``, ``col`` (its
    unit, a global column number). ``col_item``: the item of every column.
    """

    items: np.ndarray
    raters: np.ndarray
    coverage: pd.DataFrame
    item: np.ndarray
    rank: np.ndarray
    label: np.ndarray
    object_id: np.ndarray
    col: np.ndarray
    col_item: np.ndarray


def _objects(df: pd.DataFrame, kind: str):
    """Validated frame -> (items, annotators per item, coverage with ranks, and per object:
    item code, rank, box, polygon or None, label, object_id)."""
    df = validate(df)
    obj = df["x0"].notna().to_numpy()
    item_code, items = pd.factorize(df["item"])
    annotator = df["annotator"].to_numpy(dtype=object)
    # the annotators of each item, sorted by name: their rank is their row
    cov = pd.DataFrame({"item": item_code, "annotator": annotator}).drop_duplicates()
    cov = cov.sort_values(["item", "annotator"], kind="stable").reset_index(drop=True)
    cov["rank"] = cov.groupby("item").cumcount()
    raters = np.bincount(cov["item"].to_numpy(), minlength=len(items))
    rank = (
        pd.DataFrame({"item": item_code[obj], "annotator": annotator[obj]})
        .merge(cov, on=["item", "annotator"], how="left")["rank"]
        .to_numpy()
    )
    boxes = df.loc[obj, ["x0", "y0", "x1", "y1"]].to_numpy(dtype=np.float64)
    polygons = None
    if kind == "segm":
        polygons = df.loc[obj, "geometry"].to_numpy(dtype=object)
        lacking = np.flatnonzero(pd.isna(polygons))
        if lacking.size:
            first = df.loc[obj].iloc[lacking[0]]
            raise InvalidAnnotationError(
                f"kind='segm' needs a polygon on every object; {lacking.size} object(s) "
                f"are plain boxes (first: item {first['item']!r}, annotator "
                f"{first['annotator']!r}, object_id {first['object_id']!r}); use "
                "kind='bbox' or give them a geometry"
            )
    return (
        np.asarray(items, dtype=object),
        raters,
        cov,
        item_code[obj],
        rank,
        boxes,
        polygons,
        df.loc[obj, "label"].to_numpy(dtype=object),
        df.loc[obj, "object_id"].to_numpy(dtype=object),
    )


def _grouped(select: np.ndarray, item: np.ndarray):
    """Objects ``select`` sorted by item (stable), with the run of every item."""
    order = select[np.argsort(item[select], kind="stable")]
    keys, start, count = np.unique(item[order], return_index=True, return_counts=True)
    return order, keys, start, count


def _match_step(col, filled, a_objs, b_objs, item, boxes, polygons, tau):
    """Match rank-k objects ``b_objs`` to the available objects ``a_objs`` of an earlier
    row, image by image (kalphacv's filter, assignment and threshold); updates ``col``
    and ``filled`` in place."""
    a_order, a_keys, a_start, a_count = _grouped(a_objs, item)
    b_order, b_keys, b_start, b_count = _grouped(b_objs, item)
    common, ia, ib = np.intersect1d(a_keys, b_keys, assume_unique=True, return_indices=True)
    if common.size == 0:
        return
    sa, ca, sb, cb = a_start[ia], a_count[ia], b_start[ib], b_count[ib]
    work = np.cumsum(ca * cb)
    bounds = np.searchsorted(work, np.arange(0, work[-1], _CHUNK_PAIRS), side="right")
    bounds = np.unique(np.r_[0, bounds, len(common)])
    limit = 1.0 - tau
    for lo, hi in itertools.pairwise(bounds):  # blocks of images, to bound memory
        pairing, la, lb, oa, ob = candidate_pairs(sa[lo:hi], ca[lo:hi], sb[lo:hi], cb[lo:hi])
        ga, gb = a_order[oa], b_order[ob]
        if polygons is None:
            iou = _box_iou(boxes[ga], boxes[gb])
        else:
            iou = _polygon_iou(polygons[ga], polygons[gb], boxes[ga], boxes[gb])
        good = (1.0 - iou) < limit  # kalphacv's test, on the cost 1 - IoU
        # only objects with a partner above the threshold take part in the assignment
        a_ok = np.zeros(len(a_order), dtype=bool)
        b_ok = np.zeros(len(b_order), dtype=bool)
        a_ok[oa[good]] = True
        b_ok[ob[good]] = True
        # zero-IoU pairs add nothing to the total, so only positive ones are candidates
        eligible = a_ok[oa] & b_ok[ob] & (iou > 0)
        chosen = assign(pairing, la, lb, ca[lo:hi], cb[lo:hi], iou, eligible)
        keep = chosen & good
        col[gb[keep]] = col[ga[keep]]
        filled[col[ga[keep]]] = True


def _reliability(df: pd.DataFrame, tau: float, kind: str, progress) -> _Matrix:
    """kalphacv's sequential matching, vectorized over images: a loop over (row k, earlier
    row j) steps, each step matching every image at once."""
    items, raters, cov, item, rank, boxes, polygons, labels, object_id = _objects(df, kind)
    n = len(item)
    col = np.full(n, -1, dtype=np.int64)
    first = np.flatnonzero(rank == 0)
    col[first] = np.arange(len(first))
    n_cols = len(first)
    r_max = int(raters.max()) if len(raters) else 0
    steps = [(k, j) for k in range(1, r_max) for j in range(k)]
    disable = (n < _PROGRESS_MIN_OBJECTS) if progress is None else not progress
    with tqdm(total=len(steps), unit="step", desc="kalpha matching", disable=disable) as bar:
        for k in range(1, r_max):  # rows in order: a loop over ranks, not images
            filled = np.zeros(n_cols, dtype=bool)
            rank_k = rank == k
            for j in range(k):
                a_objs = np.flatnonzero(rank == j)
                a_objs = a_objs[~filled[col[a_objs]]]
                b_objs = np.flatnonzero(rank_k & (col < 0))
                if a_objs.size and b_objs.size:
                    _match_step(col, filled, a_objs, b_objs, item, boxes, polygons, tau)
                bar.update(1)
            new = np.flatnonzero(rank_k & (col < 0))
            col[new] = n_cols + np.arange(len(new))
            n_cols += len(new)
    col_item = np.zeros(n_cols, dtype=np.int64)
    col_item[col] = item
    return _Matrix(items, raters, cov, item, rank, labels, object_id, col, col_item)


def _cells(m: _Matrix):
    """One row per (unit, annotator of the image): the unit, the rank of the annotator,
    the value (label code, or the miss code ``len(labels)``) and the object (-1 for a
    miss); with the item of every unit and the label names."""
    col, col_item, rank = m.col, m.col_item, m.rank
    label_code, label_names = pd.factorize(m.label, sort=True)
    n_cols = len(col_item)
    r = m.raters[col_item]
    unit = np.repeat(np.arange(n_cols), r)
    first = np.zeros(n_cols, dtype=np.int64)
    np.cumsum(r[:-1], out=first[1:])
    cell_rank = np.arange(len(unit)) - first[unit]
    obj = np.full(len(unit), -1, dtype=np.int64)
    obj[first[col] + rank] = np.arange(len(col))
    value = np.where(obj >= 0, label_code[np.maximum(obj, 0)], len(label_names))
    return unit, col_item, cell_rank, value, obj, np.asarray(label_names, dtype=object)


def _per_image(unit, col_item, value, n_values, n_items, raters, decimals):
    """kalphacv's per-image α, the rule that gave it, units and distinct values per
    image. With R annotators on every unit of an image, U units, ``n = R U`` values,
    ``n_uc`` values c in unit u and ``n_c`` in the image::

        alpha = 1 - (n - 1) sum_u (R^2 - sum_c n_uc^2) / (R - 1) / (n^2 - sum_c n_c^2)
    """
    n_cols = len(col_item)
    uc, uc_count = np.unique(unit * n_values + value, return_counts=True)
    unit_sq = np.bincount(
        uc // n_values, weights=uc_count.astype(np.float64) ** 2, minlength=n_cols
    )
    sq_units = np.bincount(col_item, weights=unit_sq, minlength=n_items)
    n_units = np.bincount(col_item, minlength=n_items)
    cell_item = col_item[unit]
    ic, ic_count = np.unique(cell_item * n_values + value, return_counts=True)
    sq_categories = np.bincount(
        ic // n_values, weights=ic_count.astype(np.float64) ** 2, minlength=n_items
    )
    distinct = np.bincount(ic // n_values, minlength=n_items)
    R = raters.astype(np.float64)
    n = R * n_units
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (n_units * R * R - sq_units) / (R - 1.0)
        alpha = 1.0 - (n - 1.0) * observed / (n * n - sq_categories)
    one_value = distinct <= 1
    one_rater = ~one_value & (raters < 2)
    alpha = np.where(one_value, 1.0, np.where(one_rater, 0.0, alpha))
    if decimals is not None:
        alpha = np.round(alpha, int(decimals))
    rule = np.where(
        one_value, "one value: scored 1", np.where(one_rater, "one annotator: scored 0", "")
    )
    return alpha, rule, n_units, distinct


# --------------------------------------------------------------------------- public


@validate_params(engine=False)
def kalpha_units(
    df: pd.DataFrame,
    *,
    match_threshold: float = 0.5,
    kind: str = "bbox",
    progress: bool | None = None,
) -> pd.DataFrame:
    """The reliability data of :func:`kalpha`: one row per (unit, annotator) of each image.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated here); coverage rows make an annotator a row
        of an image where it drew nothing.
    match_threshold : float in (0, 1], default 0.5
        τ: a pair is matched when its IoU is strictly above τ (kalphacv's rule).
    kind : {"bbox", "segm"}, default "bbox"
        IoU of the boxes, or of the polygons (every object needs one).
    progress : bool, optional
        Progress bar over the matching steps; by default only for large corpora.

    Returns
    -------
    pandas.DataFrame
        Columns ``item``, ``unit`` (numbered within the image, in order of creation),
        ``annotator``, ``value`` (the class, or ``"(miss)"``) and ``object_id`` (NA for
        a miss); sorted by item, unit and annotator.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([
    ...     {"item": "i", "annotator": "a", "label": "cat", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
    ...     {"item": "i", "annotator": "b", "label": "dog", "x0": 1, "y0": 0, "x1": 11, "y1": 10},
    ...     {"item": "i", "annotator": "b", "label": "cat", "x0": 50, "y0": 50, "x1": 60, "y1": 60},
    ... ])
    >>> kalpha_units(df)[["unit", "annotator", "value"]]
       unit annotator   value
    0     0         a     cat
    1     0         b     dog
    2     1         a  (miss)
    3     1         b     cat
    """
    _check(match_threshold, kind, progress=progress)
    m = _reliability(df, float(match_threshold), kind, progress)
    items, object_id = m.items, m.object_id
    unit, col_item, cell_rank, value, obj, names = _cells(m)
    # number the units within their image, in order of creation
    order = np.argsort(col_item, kind="stable")
    start = np.zeros(len(items), dtype=np.int64)
    np.cumsum(np.bincount(col_item, minlength=len(items))[:-1], out=start[1:])
    local = np.empty(len(col_item), dtype=np.int64)
    local[order] = np.arange(len(col_item)) - start[col_item[order]]
    cell_item = col_item[unit]
    annotator = (
        m.coverage.set_index(["item", "rank"])["annotator"]
        .reindex(pd.MultiIndex.from_arrays([cell_item, cell_rank]))
        .to_numpy()
    )
    ids = pd.array(
        np.where(obj >= 0, object_id[np.maximum(obj, 0)], None)
        if len(object_id)
        else np.full(len(obj), None),
        dtype=object,
    )
    out = pd.DataFrame(
        {
            "item": items[cell_item],
            "unit": local[unit],
            "annotator": annotator,
            "value": np.append(names, MISS)[value],
            "object_id": ids,
        }
    )
    out["object_id"] = out["object_id"].where(obj >= 0, pd.NA)
    return out.iloc[np.lexsort((cell_rank, local[unit], cell_item))].reset_index(drop=True)


@validate_params(engine=False)
def kalpha_items(
    df: pd.DataFrame,
    *,
    match_threshold: float = 0.5,
    kind: str = "bbox",
    decimals: int | None = 4,
    progress: bool | None = None,
) -> pd.DataFrame:
    """kalphacv's per-image α: one row per image (what its CSV output lists).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    match_threshold : float in (0, 1], default 0.5
        τ: a pair is matched when its IoU is strictly above τ.
    kind : {"bbox", "segm"}, default "bbox"
        IoU of the boxes, or of the polygons.
    decimals : int or None, default 4
        Round each image's α as kalphacv does (4 decimals); None keeps full precision; at
        most 300.
    progress : bool, optional
        Progress bar over the matching steps.

    Returns
    -------
    pandas.DataFrame
        Columns ``item``, ``alpha``, ``n_annotators``, ``n_units`` (columns of the
        reliability matrix), ``n_values`` (distinct values, the miss category included)
        and ``rule`` (why an image scored 1 or 0 by rule rather than by α; empty
        otherwise), in order of first appearance of the items.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> box = {"label": "cat", "x0": 0, "y0": 0, "x1": 10, "y1": 10}
    >>> df = iaf.from_records([  # on j, b saw nothing
    ...     {"item": "i", "annotator": "a", **box}, {"item": "i", "annotator": "b", **box},
    ...     {"item": "j", "annotator": "a", **box}, {"item": "j", "annotator": "b"},
    ... ])
    >>> kalpha_items(df)[["item", "alpha", "n_units", "n_values"]]
      item  alpha  n_units  n_values
    0    i    1.0        1         1
    1    j    0.0        1         2
    >>> kalpha_items(df)["rule"].tolist()
    ['one value: scored 1', '']
    """
    _check(match_threshold, kind, decimals=decimals, progress=progress)
    m = _reliability(df, float(match_threshold), kind, progress)
    items, raters = m.items, m.raters
    unit, col_item, _, value, _, names = _cells(m)
    alpha, rule, n_units, distinct = _per_image(
        unit, col_item, value, len(names) + 1, len(items), raters, decimals
    )
    return pd.DataFrame(
        {
            "item": items,
            "alpha": alpha,
            "n_annotators": raters.astype(np.int64),
            "n_units": n_units,
            "n_values": distinct.astype(np.int64),
            "rule": rule,
        }
    )


@validate_params(engine=False)
def kalpha(
    df: pd.DataFrame,
    *,
    match_threshold: float = 0.5,
    kind: str = "bbox",
    average: str = "images",
    decimals: int | None = 4,
    progress: bool | None = None,
) -> float:
    """Krippendorff's α with IoU matching, as the kalphacv package computes it.

    The definition is in the module docstring of :mod:`iaa_frames.measures.kalpha`: per image, a
    reliability matrix (annotators x matched units, misses coded as a category) built by
    sequential IoU matching at τ, and its nominal α; the figure is the mean over images,
    images with a single distinct value scoring 1.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame; coverage rows make an annotator part of an image where it
        drew nothing (every unit of that image counts as a miss for it).
    match_threshold : float in (0, 1], default 0.5
        τ: an assigned pair is matched when its IoU is strictly above τ (kalphacv's
        ``iou_thresholds``; note that :func:`iaa_frames.agreement` keeps IoU >= τ).
    kind : {"bbox", "segm"}, default "bbox"
        IoU of the boxes (kalphacv's ``"bbox"`` mode) or of the polygons (``"segm"``;
        every object needs a polygon).
    average : {"images", "pooled"}, default "images"
        ``"images"``: the mean of the per-image α (kalphacv's figure). ``"pooled"``: one
        nominal α over the units of every image together (each image's rows are its own
        annotators), NaN when undefined (every value the same, or no image with two
        annotators).
    decimals : int or None, default 4
        Rounding of each image's α before averaging, as kalphacv does (4); None keeps full
        precision; at most 300. Not used by ``average="pooled"``.
    progress : bool, optional
        Progress bar over the matching steps; by default only for large corpora.

    Returns
    -------
    float
        NaN for a frame without items.

    See Also
    --------
    kalpha_items : the per-image α.
    kalpha_units : the reliability data, one row per (unit, annotator).

    Examples
    --------
    Two annotators, two images. On the first they drew the same cat; on the second ``b``
    drew nothing (a coverage row): one unit, one miss.

    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([
    ...     {"item": "i", "annotator": "a", "label": "cat", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
    ...     {"item": "i", "annotator": "b", "label": "cat", "x0": 1, "y0": 0, "x1": 11, "y1": 10},
    ...     {"item": "j", "annotator": "a", "label": "cat", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
    ...     {"item": "j", "annotator": "b"},
    ... ])
    >>> kalpha(df)          # (1 + 0) / 2
    0.5
    >>> kalpha(df, average="pooled")   # units (cat, cat) and (cat, miss): 1 - 3 * 1 / 3
    0.0
    """
    _check(match_threshold, kind, decimals=decimals, average=average, progress=progress)
    m = _reliability(df, float(match_threshold), kind, progress)
    items, raters = m.items, m.raters
    if len(items) == 0:
        return float("nan")
    unit, col_item, _, value, _, names = _cells(m)
    if average == "pooled":
        return float(nominal_alpha_from_codes(unit, value)) if len(unit) else float("nan")
    alpha = _per_image(unit, col_item, value, len(names) + 1, len(items), raters, decimals)[0]
    return float(np.mean(alpha))
