# Over 400 lines: the work of one partition (validation, summary, within tables), one step of the
# dask path.
"""The work done on one partition of a dask DataFrame (one pandas frame, on a worker).

Two passes run on every partition:

1. :func:`summarize` validates the rows and returns small aggregates: the partition's
   items and annotators with their content fingerprints, its classes, its coverage
   (item, annotator) pairs, whether image sizes are known, whether it holds polygons.
   The driver turns them into the corpus-wide canonical codes
   (:mod:`iaa_frames.dask.index`).
2. :func:`within_tables` puts the partition's objects in canonical order under those
   codes (the order :func:`iaa_frames.core.matching.corpus.prepare` gives the whole frame,
   restricted to the partition's items) and runs the within-item steps of
   :func:`iaa_frames.core.tables.pairs.pair_tables` on them: the matching of every pair of
   annotations of an item, whole and per class, and the clusters. Every item lies in one
   partition, so these are exactly the rows the whole frame gives for those items.

Only object indices are local: the driver maps them to the corpus-wide order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import shapely

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.matching.assignment import clusters
from iaa_frames.core.matching.checked import engine_distance
from iaa_frames.core.matching.corpus import Corpus, annotation_slices, box_fingerprint
from iaa_frames.core.matching.order import canonical_order
from iaa_frames.core.matching.pipeline import IoUCache, run
from iaa_frames.core.tables.pairs import (
    labels_of_pairings,
    to_label_slots,
    within_counts,
    within_pairings,
)
from iaa_frames.core.tables.steps import class_detection, label_noise, within_frames
from iaa_frames.errors import SchemaError
from iaa_frames.frame.schema import GROUP, check, validate
from iaa_frames.geometry.distances import Shapes, areas
from iaa_frames.heap import large_heap

__all__ = [
    "Codes",
    "Matching",
    "checked",
    "geometry_of",
    "id_hash",
    "index_arrays",
    "match",
    "narrow",
    "rows_with_ids",
    "summarize",
    "summarized",
    "within_order",
    "within_tables",
]


def checked(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The validated partition and its number of repaired polygons.

    Invalid rows raise :class:`~iaa_frames.errors.InvalidAnnotationError` as in
    :func:`iaa_frames.validate`; the warning about repaired polygons is left to the
    driver, which issues one for the whole frame.
    """
    kinds = set()
    if "geometry" in frame.columns:  # the types of the values that are neither shapes nor null
        g = frame["geometry"].to_numpy(dtype=object)
        odd = g[~shapely.is_geometry(g)]
        kinds = set(map(type, odd[~pd.isna(odd)]))
    if kinds & {bytes, bytearray, memoryview}:
        raise SchemaError(
            "the geometry column holds bytes (WKB), not shapely polygons: read a directory "
            "written by iaa_frames.to_parquet with iaa_frames.dask.read_parquet(path), "
            "which decodes them"
        )
    if str in kinds:
        raise SchemaError(
            "the geometry column holds text, not shapely polygons: dask converts object "
            "columns to strings unless dask.config.set({'dataframe.convert-string': False}) "
            "is set when the frame is made; build it with iaa_frames.dask.from_pandas(df) "
            "or iaa_frames.dask.read_parquet(path), which keep the polygons"
        )
    res = check(frame)
    if res.counts:
        validate(frame)  # raises, naming the rows and the reasons
    return res.frame, int(res.repaired)


def _objects(v: pd.DataFrame):
    """The object rows of a validated partition ``v`` (:func:`checked`) and their shapes."""
    is_obj = v["x0"].notna().to_numpy()
    objects = v.loc[is_obj]
    return is_obj, objects, Shapes.from_frame(objects, normalize=True, validated=True)


def summarize(frame: pd.DataFrame) -> dict:
    """Aggregates of one partition that the corpus-wide codes are made from.

    Returns
    -------
    dict
        ``items``, ``item_fp``, ``item_rows`` (items in order of first appearance, the
        sum of their objects' fingerprints, their rows); the same for ``annotators``;
        ``labels`` (classes present); ``cov_item``, ``cov_annotator`` (positions in
        ``items`` / ``annotators`` of every distinct covered pair); ``n_rows``,
        ``n_objects``, ``known`` (objects with a known image size), ``polygons``,
        ``repaired``; ``item_group`` (the group of each item, None without a group
        column).
    """
    v, repaired = checked(frame)
    is_obj, objects, shapes = _objects(v)
    given_ids = "object_id" in frame.columns  # else generated, unique by construction
    fp = box_fingerprint(shapes.boxes)
    item_raw, item_names = pd.factorize(v["item"])
    ann_raw, ann_names = pd.factorize(v["annotator"])
    n_i, n_a = len(item_names), len(ann_names)
    cov = sorted_unique(item_raw.astype(np.int64) * max(n_a, 1) + ann_raw)
    known = np.isfinite(objects["width"].to_numpy()) & np.isfinite(objects["height"].to_numpy())
    # class names (as str, the order prepare() ranks them in) and the objects of every
    # (item, class) and (annotator, class): the class terms of the fingerprints need the
    # corpus-wide class frequencies, so they are added by the driver
    label_str, label_raw = np.unique(
        objects["label"].to_numpy(dtype=object).astype(str), return_inverse=True
    )
    n_l = max(len(label_str), 1)

    def by_label(raw):
        key, count = np.unique(raw[is_obj].astype(np.int64) * n_l + label_raw, return_counts=True)
        return key // n_l, key % n_l, count

    return {
        "items": np.asarray(item_names, dtype=object),
        "item_fp": np.bincount(item_raw[is_obj], weights=fp, minlength=n_i).astype(float),
        "item_rows": np.bincount(item_raw, minlength=n_i),
        "annotators": np.asarray(ann_names, dtype=object),
        "ann_fp": np.bincount(ann_raw[is_obj], weights=fp, minlength=n_a).astype(float),
        "ann_rows": np.bincount(ann_raw, minlength=n_a),
        "labels": np.asarray(pd.unique(objects["label"]), dtype=object),
        "label_str": label_str,
        "item_label": by_label(item_raw),
        "ann_label": by_label(ann_raw),
        "cov_item": cov // max(n_a, 1),
        "cov_annotator": cov % max(n_a, 1),
        "n_rows": len(v),
        "n_objects": int(is_obj.sum()),
        "known": int(known.sum()),
        "polygons": bool(shapes.is_polygon.any()),
        "repaired": repaired,
        "id_hash": np.sort(id_hash(objects["object_id"])) if given_ids else None,
        "item_group": _item_group_names(v, item_raw, n_i),
    }


def summarized(frame: pd.DataFrame) -> dict:
    """:func:`summarize` inside :func:`~iaa_frames.heap.large_heap` (the task of
    :func:`iaa_frames.dask.tables.prepare`)."""
    with large_heap():
        return summarize(frame)


def _item_group_names(v: pd.DataFrame, item_raw: np.ndarray, n_items: int):
    """Per item of the partition (order of first appearance), the group its rows name
    (None where they name none); None when the frame has no group column."""
    if GROUP not in v.columns:
        return None
    out = np.full(n_items, None, dtype=object)
    group = v[GROUP]
    named = group.notna().to_numpy()
    out[item_raw[named]] = group.to_numpy(dtype=object)[named]
    return out


def id_hash(ids: pd.Series) -> np.ndarray:
    """64-bit hashes of object ids (equal ids, equal hashes; see :func:`rows_with_ids`)."""
    return pd.util.hash_pandas_object(ids.astype(object), index=False).to_numpy()


def rows_with_ids(frame: pd.DataFrame, hashes: np.ndarray) -> pd.DataFrame:
    """``item, annotator, object_id`` of the objects whose id hash is in ``hashes``."""
    v, _ = checked(frame)
    objects = v.loc[v["x0"].notna().to_numpy()]
    hit = np.isin(id_hash(objects["object_id"]), hashes)
    return objects.loc[hit, ["item", "annotator", "object_id"]].astype(object)


@dataclass(frozen=True)
class Codes:
    """Corpus-wide codes, as sent to every partition.

    ``item_index[i]`` has code ``item_code[i]`` (likewise for annotators); ``labels`` are
    the class names in code order; ``n_items`` the number of items.
    """

    item_index: pd.Index
    item_code: np.ndarray
    annotator_index: pd.Index
    annotator_code: np.ndarray
    annotators: np.ndarray
    labels: np.ndarray
    n_items: int
    normalization: str
    #: Per item code, its group code (:attr:`iaa_frames.core.matching.corpus.Corpus.group`); None
    #: without a group column.
    item_group: np.ndarray | None = None


def local_corpus(v: pd.DataFrame, codes: Codes) -> Corpus:
    """The partition's objects in canonical order, with the corpus-wide codes.

    The same steps as :func:`iaa_frames.core.matching.corpus.prepare`, with codes given instead of
    ranked from the partition alone. Slots index the partition's objects.
    """
    is_obj, objects, shapes = _objects(v)
    item = codes.item_code[codes.item_index.get_indexer(v["item"])]
    ann = codes.annotator_code[codes.annotator_index.get_indexer(v["annotator"])]
    label = pd.Index(codes.labels).get_indexer(objects["label"]).astype(np.int64)
    o_item, o_ann = item[is_obj], ann[is_obj]
    n_ann = len(codes.annotators)
    order = canonical_order(o_item, o_ann, label, shapes.boxes, n_ann, len(codes.labels))
    objects = objects.iloc[order]
    shapes = shapes.take(order)
    o_item, o_ann, o_label = o_item[order], o_ann[order], label[order]
    annotations, by_label = annotation_slices(
        o_item,
        o_ann,
        o_label,
        sorted_unique(item * n_ann + ann),
        n_annotators=n_ann,
        n_labels=len(codes.labels),
    )
    return Corpus(
        objects=objects,
        shapes=shapes,
        item=o_item,
        annotator=o_ann,
        label=o_label,
        items=np.full(codes.n_items, None, dtype=object),
        annotators=codes.annotators,
        labels=codes.labels,
        annotations=annotations,
        by_label=by_label,
        normalization=codes.normalization,
        area=areas(shapes),
    )


@dataclass(frozen=True, eq=False)
class Matching:
    """The within-item results of one partition (object indices local to it).

    ``corpus`` holds the partition's objects in canonical order with the corpus-wide
    codes; ``localization_within`` and ``sets_within`` are the frames of
    :func:`iaa_frames.core.tables.pairs.pair_tables` restricted to the partition's items, in the
    same row order; ``units`` and ``coverage`` likewise (``cluster`` numbers the
    partition's clusters in the order of their first objects, as the whole frame numbers
    them); ``first`` is, per object, the local index of the first object of its cluster;
    ``counts`` the partition's share of :class:`~iaa_frames.core.chance.WithinCounts`.
    """

    corpus: Corpus
    localization_within: pd.DataFrame
    sets_within: pd.DataFrame
    units: pd.DataFrame
    coverage: pd.DataFrame
    first: np.ndarray
    counts: object


def match(frame: pd.DataFrame, codes: Codes, *, distance, tau: float, overall: str) -> Matching:
    """The within-item steps of :func:`iaa_frames.core.tables.pairs.pair_tables` on one partition:
    the matching of every pair of annotations of an item, whole and per class, and the
    clusters."""
    v, _ = checked(frame)
    corpus = local_corpus(v, codes)
    dist = engine_distance(distance)  # a user's callable checked, as in memory
    ann = corpus.annotations
    a, b = within_pairings(ann)
    cache = IoUCache()
    whole = run(corpus, ann, a, b, tau=tau, distance=dist, overall=overall, cache=cache)
    pl, ll = labels_of_pairings(corpus, a, b)
    la, lb = to_label_slots(corpus, a[pl], b[pl], ll)
    by_label = run(
        corpus, corpus.by_label, la, lb, tau=tau, distance=dist, overall=overall, cache=cache
    )
    del cache
    detection = class_detection(corpus, ann, a, b, whole, pl, ll)
    noise = label_noise(corpus, detection["detection"], by_label.set_overall, ll)
    loc_within, sets_within = within_frames(corpus, whole, by_label, a, b, ann, pl, ll, detection)
    loc_within, sets_within = within_order(loc_within, sets_within)
    n = len(corpus.objects)
    cluster = clusters(n, whole.pair_a, whole.pair_b, whole.pair_iou, corpus.annotator)
    first_of = np.unique(cluster, return_index=True)[1]  # ids follow first objects
    first = first_of[cluster] if n else np.zeros(0, np.int64)
    units = pd.DataFrame(
        {
            "item": corpus.item,
            "annotator": corpus.annotator,
            "label": corpus.label,
            "cluster": np.unique(first, return_inverse=True)[1].ravel(),
        }
    )
    coverage = pd.DataFrame({"item": ann.item[:-1], "annotator": ann.annotator[:-1]})
    return Matching(
        corpus,
        loc_within,
        sets_within,
        units,
        coverage,
        first,
        within_counts(corpus, a, b, whole, ll, noise),
    )


def within_order(loc: pd.DataFrame, sets: pd.DataFrame):
    """Rows in the order of :func:`iaa_frames.core.tables.pairs.pair_tables`: pairings by item and
    annotators (whole annotations first, then per class), matched pairs by first object.
    Object indices may be local to a partition (they follow the canonical order within
    an item)."""
    lo = np.lexsort(
        (
            loc["object_a"].to_numpy(),
            loc["annotator_b"].to_numpy(),
            loc["annotator_a"].to_numpy(),
            loc["item"].to_numpy(),
        )
    )
    loc = loc.take(lo).reset_index(drop=True)
    del lo
    label = sets["label"].to_numpy()
    so = np.lexsort(
        (
            label,
            sets["annotator_b"].to_numpy(),
            sets["annotator_a"].to_numpy(),
            sets["item"].to_numpy(),
            label >= 0,
        )
    )
    return loc, sets.take(so).reset_index(drop=True)


def index_arrays(corpus: Corpus) -> dict:
    """Per object (canonical order): the codes, normalized box, area, polygon mask, the
    parameters of parametric geometry kinds (a few floats per object, so they travel with
    the index, unlike polygons) and their payloads (a volume's voxel runs) and id, for the driver's index of the corpus (codes in
    narrow integer types)."""
    return {
        "item": corpus.item.astype(np.int32),
        "annotator": narrow(corpus.annotator, len(corpus.annotators)),
        "label": narrow(corpus.label, len(corpus.labels)),
        "boxes": corpus.shapes.boxes,
        "area": corpus.area,
        "is_polygon": corpus.shapes.is_polygon,
        "params": dict(corpus.shapes.params or {}),
        "payloads": dict(corpus.shapes.payloads or {}),
        "object_id": corpus.objects["object_id"].to_numpy(),
    }


def narrow(codes: np.ndarray, n: int) -> np.ndarray:
    """Integer codes in [-1, n) in the narrowest signed type that holds them."""
    dtype = np.int8 if n < 2**7 else np.int16 if n < 2**15 else np.int32
    return np.asarray(codes).astype(dtype)


def geometry_of(corpus: Corpus, keep_geometry: bool):
    """The normalized polygons (``None`` on boxes), in canonical order, when
    ``keep_geometry``; the driver fetches from it the objects of chance pairings."""
    if not keep_geometry:
        return None
    geometry = corpus.shapes.polygons
    return np.full(len(corpus.objects), None, dtype=object) if geometry is None else geometry


def within_tables(
    frame: pd.DataFrame, codes: Codes, *, distance, tau: float, overall: str, keep_geometry: bool
):
    """The within-item tables of one partition (object indices local to it).

    Returns
    -------
    tables : dict
        ``item``, ``annotator``, ``label``, ``boxes``, ``area``, ``is_polygon``,
        ``object_id`` (per object, canonical order; :func:`index_arrays`);
        ``localization_within`` and ``sets_within`` (frames of
        :func:`iaa_frames.core.tables.pairs.pair_tables`, local object indices); ``first`` (per
        object, the local index of the first object of its cluster); ``counts`` (the
        partition's share of :class:`~iaa_frames.core.chance.WithinCounts`).
    geometry : ndarray or None
        See :func:`geometry_of`.
    """
    with large_heap():
        m = match(frame, codes, distance=distance, tau=tau, overall=overall)
        tables = {
            **index_arrays(m.corpus),
            "localization_within": m.localization_within,
            "sets_within": m.sets_within,
            "first": m.first,
            "counts": m.counts,
        }
        return tables, geometry_of(m.corpus, keep_geometry)


def take(geometry: np.ndarray, local: np.ndarray) -> np.ndarray:
    """The geometries at the local indices ``local`` (run on the worker holding them)."""
    return geometry[np.asarray(local, dtype=np.int64)]
