"""The cells of the statistics from per-partition sums.

Every figure of :func:`iaa_frames.agreement_from_tables` is computed from sums over the
rows of the pair tables by item and cell (:class:`iaa_frames.bootstrap.ItemSums`: the
point estimates and the bootstrap), from the chance rows, and, for the KS tests, from the
within distances of every cell. An item lies in one partition, so:

* each partition builds the within-item half of every component's cells with the
  engine's own code (:func:`iaa_frames.engine.component_cells`, on its rows in the order
  the whole frame has them) and sends back, for its items only, their rows of the sums;
  counts that add up (matched pairs, pairable clusters); and the within rows of the
  sigma components in narrow types (:func:`within_samples`), for the KS tests;
* the driver stacks the rows of the sums into the corpus-wide matrices (an item's row is
  the one the whole frame gives it: the same values added in the same order), builds the
  chance half from its chance tables with the same engine code, and joins the two
  (:func:`merge_cells`).

The within pair tables themselves never reach the driver.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..bootstrap import ItemSums
from ..chance import MIN_CHANCE_UNITS
from ..engine import CellLayout, ClassificationCells, PresenceCells, component_cells
from ..errors import IAAError
from ..pairs import PairTables, pooled_baseline
from ..result import COMPONENTS, MEASURES
from .ks import SampledSigmaCells, WithinSample
from .partition import Codes, Matching, geometry_of, index_arrays, match, narrow

__all__ = ["between_tables", "merge_cells", "merge_samples", "partition_statistics",
           "pooled_from_sample"]

SIGMA = tuple(c for c in COMPONENTS if MEASURES[c] == "sigma")

_I, _F, _B = np.int64, np.float64, np.bool_
#: Columns of the pair tables (docs/CONTRACTS.md), for the empty halves.
LOCALIZATION_WITHIN = {"item": _I, "annotator_a": _I, "annotator_b": _I, "label_a": _I,
                       "label_b": _I, "object_a": _I, "object_b": _I, "iou": _F,
                       "distance": _F}
LOCALIZATION_BETWEEN = {"item_a": _I, "item_b": _I, "annotator_a": _I, "annotator_b": _I,
                        "label_a": _I, "label_b": _I, "object_a": _I, "object_b": _I,
                        "iou": _F, "distance": _F, "in_uniform": _B, "in_annotator_a": _B,
                        "in_annotator_b": _B, "in_pair": _B, "in_label": _B}
SETS_WITHIN = {"item": _I, "annotator_a": _I, "annotator_b": _I, "label": _I, "n_a": _I,
               "n_b": _I, "n_matched": _I, "detection": _F, "overall": _F}
SETS_BETWEEN = {"item_a": _I, "item_b": _I, "annotator_a": _I, "annotator_b": _I,
                "label": _I, "n_a": _I, "n_b": _I, "n_matched": _I, "detection": _F,
                "overall": _F, "in_uniform": _B, "in_annotator_a": _B, "in_annotator_b": _B,
                "in_pair": _B}
POOLED = {"label": _I, "row": _I, "weight": _F}
UNITS = {"item": _I, "annotator": _I, "label": _I, "cluster": _I}
COVERAGE = {"item": _I, "annotator": _I}


def _empty(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({c: np.zeros(0, dtype=t) for c, t in columns.items()})


# ------------------------------------------------------------------------ partitions


def partition_cells(m: Matching) -> dict:
    """The within-item half of every component's cells, for the items of one partition.

    Returns
    -------
    dict
        ``items`` (codes of the partition's items, ascending); per component and for
        ``presence``, the rows of those items of its per-item sums (CSR, one row per
        item of ``items``); ``units_per_group`` (classification); ``<component>_matched``
        (detection, overall: matched pairs per cell).
    """
    corpus = m.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    tables = PairTables(corpus=corpus, localization_within=m.localization_within,
                        localization_between=_empty(LOCALIZATION_BETWEEN),
                        sets_within=m.sets_within, sets_between=_empty(SETS_BETWEEN),
                        units=m.units, coverage=m.coverage,
                        localization_pooled=_empty(POOLED),
                        label_source=np.full(len(corpus.labels), "", dtype=object))
    items = np.unique(m.coverage["item"].to_numpy())
    out = {"items": items}
    for c in COMPONENTS:
        cells = component_cells(tables, layout, c)
        out[c] = cells.within.matrix[items]
        if c == "classification":
            out["units_per_group"] = cells.units_per_group
        elif cells.matched is not None:
            out[f"{c}_matched"] = cells.matched
        del cells
    presence = PresenceCells.build(layout, len(corpus.items), m.units, m.coverage)
    out["presence"] = presence.within.matrix[items]
    return out


def within_samples(m: Matching) -> dict:
    """The within rows of the sigma components, for the KS tests, in narrow types.

    ``localization``: distance, item, annotators, class (both objects' class, -1 when
    they differ) and the two objects (local indices, for the pooled chance units);
    ``sets``: detection and overall distances, item, annotators, class (-1: whole
    annotations).
    """
    A, L = len(m.corpus.annotators), len(m.corpus.labels)
    loc, sets = m.localization_within, m.sets_within

    def col(frame, name):
        return frame[name].to_numpy()

    la, lb = col(loc, "label_a"), col(loc, "label_b")
    return {
        "localization": {
            "distance": col(loc, "distance"), "item": col(loc, "item").astype(np.int32),
            "annotator_a": narrow(col(loc, "annotator_a"), A),
            "annotator_b": narrow(col(loc, "annotator_b"), A),
            "label": narrow(np.where(la == lb, la, -1), L),
            "object_a": col(loc, "object_a").astype(np.int32),
            "object_b": col(loc, "object_b").astype(np.int32)},
        "sets": {
            "detection": col(sets, "detection"), "overall": col(sets, "overall"),
            "item": col(sets, "item").astype(np.int32),
            "annotator_a": narrow(col(sets, "annotator_a"), A),
            "annotator_b": narrow(col(sets, "annotator_b"), A),
            "label": narrow(col(sets, "label"), L)},
    }


def partition_statistics(frame: pd.DataFrame, codes: Codes, *, distance, tau: float,
                         overall: str, keep_geometry: bool):
    """What the agreement of a dask DataFrame needs from one partition (run on a worker).

    Returns
    -------
    out : dict
        The per-object arrays of :func:`~iaa_frames.dask.partition.index_arrays`;
        ``counts`` (its share of :class:`~iaa_frames.chance.WithinCounts`); ``cells``
        (:func:`partition_cells`); ``samples`` (:func:`within_samples`).
    geometry : ndarray or None
        See :func:`~iaa_frames.dask.partition.geometry_of`.
    """
    m = match(frame, codes, distance=distance, tau=tau, overall=overall)
    out = {**index_arrays(m.corpus), "counts": m.counts, "cells": partition_cells(m),
           "samples": within_samples(m)}
    return out, geometry_of(m.corpus, keep_geometry)


# ------------------------------------------------------------------------------ driver


def merge_samples(parts: list[dict], *, n_annotators: int, n_labels: int):
    """The partitions' within samples, concatenated (taken out of ``parts``).

    Returns
    -------
    localization, sets : dict
        ``sample`` (:class:`~iaa_frames.dask.ks.WithinSample`) and the distances; for
        localization also ``object_a``, ``object_b`` (local indices) and
        ``row_offsets`` (where each partition's rows start).
    """
    samples = [p.pop("samples") for p in parts]
    out = {}
    for kind, extra in (("localization", ("distance", "object_a", "object_b")),
                        ("sets", ("detection", "overall"))):
        pieces = [s.pop(kind) for s in samples]

        def cat(name, pieces=pieces):
            return np.concatenate([q.pop(name) for q in pieces])

        merged = {name: cat(name) for name in extra}
        merged["row_offsets"] = np.cumsum([0] + [len(q["item"]) for q in pieces])
        merged["sample"] = WithinSample(
            cat("item"), cat("annotator_a"), cat("annotator_b"), cat("label"),
            n_annotators=n_annotators, n_labels=n_labels, all_rows=kind == "localization")
        out[kind] = merged
    return out["localization"], out["sets"]


def pooled_from_sample(corpus, localization: dict, loc_between: pd.DataFrame, sample,
                       position: np.ndarray, offsets: np.ndarray):
    """:func:`iaa_frames.pairs.pooled_baseline` from the localization within sample.

    The classes it pools are those with at least two within pairs and fewer than
    ``MIN_CHANCE_UNITS`` chance pairs of their own; their within rows (all of them, in
    the order of the whole frame's table, objects in corpus-wide indices) are what it
    reads, so it gives what it gives the whole table.
    """
    s = localization["sample"]
    own = s.label.astype(np.int64)
    L = len(corpus.labels)
    within_n = np.bincount(own[own >= 0], minlength=L)
    ba, bb = loc_between["label_a"].to_numpy(), loc_between["label_b"].to_numpy()
    chance_own = (ba == bb) & (loc_between["in_uniform"].to_numpy()
                               | loc_between["in_label"].to_numpy())
    need = (within_n >= 2) & (np.bincount(ba[chance_own], minlength=L) < MIN_CHANCE_UNITS)
    rows = np.flatnonzero((own >= 0) & need[np.maximum(own, 0)])
    part = np.searchsorted(localization["row_offsets"], rows, side="right") - 1
    base = np.asarray(offsets, dtype=np.int64)[part]
    frame = pd.DataFrame({
        "item": s.item[rows].astype(np.int64),
        "annotator_a": s.annotator_a[rows].astype(np.int64),
        "annotator_b": s.annotator_b[rows].astype(np.int64),
        "label_a": own[rows], "label_b": own[rows],
        "object_a": position[base + localization["object_a"][rows]],
        "object_b": position[base + localization["object_b"][rows]]})
    frame = frame.take(np.lexsort([frame[c].to_numpy() for c in
                                   ("object_a", "annotator_b", "annotator_a", "item")]))
    return pooled_baseline(corpus, frame.reset_index(drop=True), loc_between, sample)


def between_tables(corpus, sets_between, loc_between, pooled, source, params) -> PairTables:
    """The chance half of the pair tables, with empty within tables: what
    :func:`iaa_frames.engine.agreement_from_cells` reads names, parameters and chance
    sources from, and the engine builds the chance half of the cells from."""
    return PairTables(corpus=corpus, localization_within=_empty(LOCALIZATION_WITHIN),
                      localization_between=loc_between, sets_within=_empty(SETS_WITHIN),
                      sets_between=sets_between, units=_empty(UNITS), coverage=_empty(COVERAGE),
                      localization_pooled=pooled, label_source=source, params=params)


def merge_cells(parts: list[dict], between: PairTables, localization: dict, sets: dict):
    """Every component's cells and the presence cells, within and chance halves joined.

    The partitions' rows of the per-item sums are stacked in item order (taken out of
    ``parts`` one component at a time); the chance half is built by the engine from
    ``between``.

    Returns
    -------
    cells : dict
        Per component, its cells (sigma components: :class:`SampledSigmaCells`).
    presence : PresenceCells
    """
    corpus = between.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    halves = [p.pop("cells") for p in parts]
    items = np.concatenate([h.pop("items") for h in halves]) if halves else np.zeros(0, int)
    if len(items) != n_items or not np.array_equal(np.sort(items), np.arange(n_items)):
        raise IAAError("internal error: the partitions' items are not every item once "
                       f"({len(items)} rows for {n_items} items)")
    order = np.empty(n_items, dtype=np.int64)
    order[items] = np.arange(n_items)

    def stacked(name) -> ItemSums:
        blocks = [h.pop(name) for h in halves]
        return ItemSums(sp.vstack(blocks, format="csr")[order] if blocks
                        else sp.csr_matrix((n_items, 0)))

    def added(name):
        return sum(h.pop(name) for h in halves)

    out = {}
    for c in COMPONENTS:
        if c == "classification":
            out[c] = ClassificationCells(layout, stacked(c), added("units_per_group"))
            continue
        half = component_cells(between, layout, c)  # chance rows only
        fields = {f: getattr(half, f) for f in half.__dataclass_fields__}
        fields["within"] = stacked(c)
        if half.matched is not None:
            fields["matched"] = half.matched + added(f"{c}_matched")
        sample = localization if c == "localization" else sets
        out[c] = SampledSigmaCells(**fields, sample=sample["sample"],
                                   sample_distance=sample["distance" if c == "localization"
                                                          else c])
    return out, PresenceCells(layout.n_cells, stacked("presence"))
