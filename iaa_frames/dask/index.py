"""The corpus-wide index of a partitioned frame: codes, slots and per-object arrays.

:func:`codes` turns the partitions' summaries (:func:`iaa_frames.dask.partition.summarize`)
into the canonical codes :func:`iaa_frames.core.matching.corpus.prepare` gives the whole frame:
items and annotators ranked by the sum of their objects' fingerprints (box, and the share of
the object's class in the corpus, which only the driver knows), exact ties broken by the
classes drawn, then by name; classes sorted by name. Sums over partitions are added up;
the ranking rounds sums to 6 decimals, so the order in which partial sums are added does
not matter.

:func:`index_corpus` assembles the :class:`~iaa_frames.core.matching.corpus.Corpus` the chance
sample and the statistics work on, from the partitions' per-object arrays: boxes (normalized),
areas, codes. Polygons stay on the workers (:class:`IndexShapes` knows which objects are
polygons without holding them); the chance pairings that need them fetch them
(:class:`iaa_frames.dask.geometry.GeometryStore`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.matching.copies import warn_copies
from iaa_frames.core.matching.corpus import Corpus, annotation_slices, item_groups, rank_codes
from iaa_frames.frame.schema import GROUP, group_column
from iaa_frames.geometry.distances import Shapes
from iaa_frames.geometry.kinds.ragged import Ragged

from .partition import Codes

__all__ = ["IndexShapes", "codes", "index_corpus"]


class IndexShapes(Shapes):
    """Normalized boxes of every object and which of them are polygons, without the
    polygons (they stay on the workers).

    Everything that needs only boxes, areas and the polygon mask works on it (the IoU
    bound of :func:`iaa_frames.core.matching.pipeline.can_match`, the chance index); taking polygon
    rows raises, since their distances need the polygons. The parameters of parametric
    geometry kinds (``params``, :mod:`iaa_frames.geometry.kinds`) are held, so their rows
    are measured here.

    Examples
    --------
    >>> s = IndexShapes([[0, 0, 1, 1], [0, 0, 2, 2]], [False, True])
    >>> s.is_polygon.tolist(), s.take([0]).boxes.tolist()
    ([False, True], [[0.0, 0.0, 1.0, 1.0]])
    """

    def __init__(self, boxes, is_polygon, params=None, payloads=None):
        super().__init__(boxes, None, None, params or None, payloads or None)
        self.__dict__["is_polygon"] = np.asarray(is_polygon, dtype=bool)

    def take(self, indices) -> Shapes:
        indices = np.asarray(indices)
        if self.is_polygon[indices].any():
            raise RuntimeError(
                "IndexShapes holds no polygons: fetch them from the "
                "partitions (iaa_frames.dask.geometry) before measuring"
            )
        params = None if self.params is None else {k: v[indices] for k, v in self.params.items()}
        payloads = (
            None
            if self.payloads is None
            else {k: v.take(indices) for k, v in self.payloads.items()}
        )
        return Shapes(self.boxes[indices], None, None, params, payloads)


def _combine(names, fingerprints, rows):
    """Names in order of first appearance over the partitions, sums per name."""
    raw, uniq = pd.factorize(pd.Series(np.concatenate(names) if names else [], dtype=object))
    fp = np.bincount(
        raw, weights=np.concatenate(fingerprints) if names else [], minlength=len(uniq)
    )
    n = np.bincount(raw, weights=np.concatenate(rows) if names else [], minlength=len(uniq))
    return np.asarray(uniq, dtype=object), fp, n, raw


def codes(summaries: list[dict]) -> tuple[Codes, np.ndarray]:
    """Corpus-wide codes from the partitions' summaries.

    Returns
    -------
    codes : Codes
    coverage : ndarray of int64
        Sorted keys ``item * n_annotators + annotator`` of every covered pair.
    """
    s = summaries
    items, item_fp, item_rows, item_raw = _combine(
        [x["items"] for x in s], [x["item_fp"] for x in s], [x["item_rows"] for x in s]
    )
    anns, ann_fp, ann_rows, ann_raw = _combine(
        [x["annotators"] for x in s], [x["ann_fp"] for x in s], [x["ann_rows"] for x in s]
    )
    # the class terms of prepare(): every object adds 0.000731 x (its class's share of
    # the objects) to the fingerprint, and sqrt(1 + rank of its class name) to the
    # tie-breaker
    names = np.unique(np.concatenate([x["label_str"] for x in s])) if s else np.zeros(0, str)
    rank = [np.searchsorted(names, x["label_str"]) for x in s]
    count = np.zeros(len(names), dtype=np.int64)
    for x, r in zip(s, rank):
        np.add.at(count, r[x["item_label"][1]], x["item_label"][2])
    share = 0.000731 * count / max(int(count.sum()), 1)
    by_name = np.sqrt(1.0 + np.arange(len(names)))

    def class_terms(key, n, offsets):
        fp, tie = np.zeros(n), np.zeros(n)
        for x, r, off in zip(s, rank, offsets):
            ent, lab, k = x[key]
            np.add.at(fp, raw_of[key][off + ent], k * share[r[lab]])
            np.add.at(tie, raw_of[key][off + ent], k * by_name[r[lab]])
        return fp, tie

    raw_of = {"item_label": item_raw, "ann_label": ann_raw}
    item_off = np.cumsum([0] + [len(x["items"]) for x in s])[:-1]
    ann_off = np.cumsum([0] + [len(x["annotators"]) for x in s])[:-1]
    item_cls, item_tie = class_terms("item_label", len(items), item_off)
    ann_cls, ann_tie = class_terms("ann_label", len(anns), ann_off)
    item_code = rank_codes(item_fp + item_cls + 0.011 * item_rows, items, item_tie)
    ann_code = rank_codes(ann_fp + ann_cls + 0.013 * ann_rows, anns, ann_tie)
    by_code = np.empty_like(anns)
    by_code[ann_code] = anns
    labels = (
        pd.factorize(pd.Series(np.concatenate([x["labels"] for x in s]), dtype=object), sort=True)[
            1
        ]
        if s
        else []
    )
    n_obj = sum(x["n_objects"] for x in s)
    known = sum(x["known"] for x in s)
    normalization = "none" if not known else "image size" if known == n_obj else "mixed"
    # covered pairs, from positions in each partition's lists to codes
    A = len(anns)
    keys, i_off, a_off = [], 0, 0
    for x in s:
        it = item_code[item_raw[i_off + x["cov_item"]]]
        an = ann_code[ann_raw[a_off + x["cov_annotator"]]]
        keys.append(it * A + an)
        i_off, a_off = i_off + len(x["items"]), a_off + len(x["annotators"])
    coverage = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    out = Codes(
        item_group=_groups(s, items, item_raw, item_code),
        item_index=pd.Index(items, dtype=object, tupleize_cols=False),
        item_code=item_code,
        annotator_index=pd.Index(anns, dtype=object),
        annotator_code=ann_code,
        annotators=by_code,
        labels=np.asarray(labels, dtype=object),
        n_items=len(items),
        normalization=normalization,
    )
    return out, coverage


def _groups(summaries, items, item_raw, item_code):
    """Per item code, its group code, as :func:`iaa_frames.core.matching.corpus.prepare` gives it;
    an item whose partitions name two groups raises as :func:`iaa_frames.validate` does."""
    named = [x.get("item_group") for x in summaries]
    if not summaries or all(g is None for g in named):
        return None
    names = np.concatenate(
        [
            np.full(len(x["items"]), None, dtype=object) if g is None else g
            for x, g in zip(summaries, named)
        ]
    )
    rows = pd.DataFrame({"item": np.asarray(items, dtype=object)[item_raw], GROUP: names})
    group = group_column(rows)  # raises on an item with two groups
    ok = group.notna().to_numpy()
    raw = np.full(len(items), -1, dtype=np.int64)
    raw[item_raw[ok]] = pd.factorize(group.to_numpy(dtype=object)[ok])[0]
    return item_groups(item_code, raw)


def items_by_code(c: Codes) -> np.ndarray:
    """Item names in code order."""
    out = np.empty(len(c.item_index), dtype=object)
    out[c.item_code] = np.asarray(c.item_index, dtype=object)
    return out


def _params(parts: list[dict], offsets: np.ndarray) -> dict:
    """The parameters of parametric geometry kinds of every object in partition order, by
    kind (NaN on the objects of partitions without the kind)."""
    got = [p.pop("params", {}) for p in parts]
    names = list(dict.fromkeys(k for g in got for k in g))
    out = {}
    for name in names:
        width = next(g[name].shape[1] for g in got if name in g)
        block = np.full((int(offsets[-1]), width), np.nan)
        for g, lo, hi in zip(got, offsets[:-1], offsets[1:]):
            if name in g:
                block[lo:hi] = g[name]
        out[name] = block
    return out


def _payloads(parts: list[dict], offsets: np.ndarray) -> dict:
    """The payloads of parametric geometry kinds (a volume's voxel runs) of every object
    in partition order, by kind (empty rows on the partitions without the kind)."""
    got = [p.pop("payloads", {}) for p in parts]
    names = list(dict.fromkeys(k for g in got for k in g))
    sizes = np.diff(offsets)
    return {
        name: Ragged.concat(
            g[name] if name in g else Ragged.empty(int(n)) for g, n in zip(got, sizes, strict=True)
        )
        for name in names
    }


def index_corpus(c: Codes, coverage: np.ndarray, parts: list[dict]):
    """The corpus-wide :class:`~iaa_frames.core.matching.corpus.Corpus` (without polygons) from the
    partitions' per-object arrays (which are removed from ``parts`` as they are used).

    Returns
    -------
    corpus : Corpus
    position : ndarray of int64
        For every object in partition order (partitions concatenated), its index in the
        corpus-wide canonical order.
    offsets : ndarray of int64
        Where each partition's objects start in partition order.
    """
    offsets = np.cumsum([0] + [len(p["item"]) for p in parts])
    # taken out of the partitions' outputs as they are gathered (memory)
    cat = {
        k: np.concatenate([p.pop(k) for p in parts]) if parts else np.zeros(0)
        for k in ("item", "annotator", "label", "area", "is_polygon", "object_id")
    }
    boxes = np.concatenate([p.pop("boxes") for p in parts]) if parts else np.zeros((0, 4))
    params = _params(parts, offsets)
    payloads = _payloads(parts, offsets)
    # an item lies in one partition, in canonical order there: a stable sort by item
    # code gives the corpus-wide order
    order = np.argsort(cat["item"], kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    item, ann, label = (cat[k][order].astype(np.int64) for k in ("item", "annotator", "label"))
    annotations, by_label = annotation_slices(
        item,
        ann,
        label,
        coverage,
        n_annotators=len(c.annotators),
        n_labels=len(c.labels),
        group=c.item_group,
    )
    shapes = IndexShapes(
        boxes[order],
        cat["is_polygon"][order].astype(bool),
        {k: v[order] for k, v in params.items()},
        {k: v.take(order) for k, v in payloads.items()},
    )
    objects = pd.DataFrame({"object_id": cat["object_id"][order]})
    corpus = Corpus(
        objects=objects,
        shapes=shapes,
        item=item,
        annotator=ann,
        label=label,
        items=items_by_code(c),
        annotators=c.annotators,
        labels=c.labels,
        annotations=annotations,
        by_label=by_label,
        normalization=c.normalization,
        area=cat["area"][order].astype(np.float64),
        group=c.item_group,
    )
    if c.item_group is None:  # as prepare() does: copies among items are worth a warning
        warn_copies(corpus, stacklevel=4)
    return corpus, position, offsets
