# Over 400 lines: the within half of every component's cells on the partitions, one step of the dask
# path.
"""The cells of the statistics from per-partition sums.

Every figure of :func:`iaa_frames.agreement_from_tables` is computed from sums over the
rows of the pair tables by item and cell (:class:`iaa_frames.stats.bootstrap.ItemSums`: the
point estimates and the bootstrap), from the chance rows, and, for the KS tests, from the
within distances of every cell. An item lies in one partition, so:

* each partition builds the within-item half of every component's cells with the
  engine's own code (:func:`iaa_frames.core.engine.component_cells`, on its rows in the order
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

import dataclasses

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.chance.pooled import needs_pooling
from iaa_frames.core.engine import (
    CellLayout,
    ClassificationCells,
    PresenceCells,
    component_cells,
    within_item_sums,
)
from iaa_frames.core.engine.assemble import label_alpha_cells
from iaa_frames.core.engine.result import COMPONENTS, MEASURES
from iaa_frames.core.engine.rows import within_stratum_groups
from iaa_frames.core.tables.pairs import PairTables, pooled_baseline
from iaa_frames.errors import IAAError
from iaa_frames.heap import large_heap
from iaa_frames.stats.bootstrap import ItemSums

from . import ks
from .ks import SampledSigmaCells, WithinSample
from .partition import (
    Codes,
    Matching,
    geometry_of,
    index_arrays,
    match,
    narrow,
)

__all__ = [
    "between_tables",
    "merge_cells",
    "merge_samples",
    "partition_statistics",
    "pooled_from_sample",
]

SIGMA = tuple(c for c in COMPONENTS if MEASURES[c] == "sigma")

_I, _F, _B = np.int64, np.float64, np.bool_
#: Columns of the pair tables (:class:`~iaa_frames.core.tables.pairs.PairTables`), for the empty
#: halves.
_PAIR = {"annotator_a": _I, "annotator_b": _I}
_OBJECTS = {"label_a": _I, "label_b": _I, "object_a": _I, "object_b": _I, "iou": _F, "distance": _F}
_SETS = {"label": _I, "n_a": _I, "n_b": _I, "n_matched": _I, "detection": _F, "overall": _F}
#: Which chance strata a between-item row belongs to.
_STRATA = {"in_uniform": _B, "in_annotator_a": _B, "in_annotator_b": _B, "in_pair": _B}
LOCALIZATION_WITHIN = {"item": _I, **_PAIR, **_OBJECTS}
LOCALIZATION_BETWEEN = {"item_a": _I, "item_b": _I, **_PAIR, **_OBJECTS, **_STRATA, "in_label": _B}
SETS_WITHIN = {"item": _I, **_PAIR, **_SETS}
SETS_BETWEEN = {"item_a": _I, "item_b": _I, **_PAIR, **_SETS, **_STRATA}
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
        item of ``items``); ``units_per_cell`` (classification); ``<component>_matched``
        (detection, overall: matched pairs per cell); ``strata`` (the
        :func:`~iaa_frames.core.engine.rows.within_stratum_groups` of its localization
        within rows, which the chance means are post-stratified over).
    """
    corpus = m.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    tables = PairTables(
        corpus=corpus,
        localization_within=m.localization_within,
        localization_between=_empty(LOCALIZATION_BETWEEN),
        sets_within=m.sets_within,
        sets_between=_empty(SETS_BETWEEN),
        units=m.units,
        coverage=m.coverage,
        localization_pooled=_empty(POOLED),
        label_source=np.full(len(corpus.labels), "", dtype=object),
    )
    items = sorted_unique(m.coverage["item"].to_numpy())
    out = {"items": items}
    for c in COMPONENTS:
        if c in SIGMA:
            sums, matched = within_item_sums(tables, layout, c)
            if matched is not None:
                out[f"{c}_matched"] = matched
        else:
            sums = component_cells(tables, layout, c).within
        out[c] = sums.matrix[items]
        del sums
    alpha = label_alpha_cells(tables, layout)
    out["label_alpha"] = alpha.within.matrix[items]
    out["units_per_cell"] = alpha.units_per_cell
    presence = PresenceCells.build(layout, len(corpus.items), m.units, m.coverage)
    out["presence"] = presence.within.matrix[items]
    out["strata"] = within_stratum_groups(tables, layout)
    return out


def within_samples(m: Matching) -> dict:
    """The within rows of the sigma components, for the KS tests, in narrow types.

    Per component (``localization``, ``detection``, ``overall``): ``distance``,
    ``item``, ``annotator_a``, ``annotator_b`` and ``label`` (localization: both objects'
    class, -1 when they differ; detection, overall: the class, -1 for whole annotations),
    rows in order of distance (a cell's rows come out in that order too, which makes its
    tests faster); localization also ``object_a`` and ``object_b`` (local indices, for
    the pooled chance units).
    """
    A, L = len(m.corpus.annotators), len(m.corpus.labels)
    loc, sets = m.localization_within, m.sets_within

    def sample(frame, distance, label, **extra):
        d = frame[distance].to_numpy()
        order = np.argsort(d, kind="stable")
        return {
            "distance": d[order],
            "item": frame["item"].to_numpy()[order].astype(np.int32),
            "annotator_a": narrow(frame["annotator_a"].to_numpy()[order], A),
            "annotator_b": narrow(frame["annotator_b"].to_numpy()[order], A),
            "label": narrow(label[order], L),
            **{k: v[order].astype(np.int32) for k, v in extra.items()},
        }

    la, lb = loc["label_a"].to_numpy(), loc["label_b"].to_numpy()
    out = {
        "localization": sample(
            loc,
            "distance",
            np.where(la == lb, la, -1),
            object_a=loc["object_a"].to_numpy(),
            object_b=loc["object_b"].to_numpy(),
        )
    }
    for c in ("detection", "overall"):
        out[c] = sample(sets, c, sets["label"].to_numpy())
    return out


def partition_statistics(
    frame: pd.DataFrame, codes: Codes, *, distance, tau: float, overall: str, keep_geometry: bool
):
    """What the agreement of a dask DataFrame needs from one partition (run on a worker).

    Returns
    -------
    out : dict
        The per-object arrays of :func:`~iaa_frames.dask.partition.index_arrays`;
        ``counts`` (its share of :class:`~iaa_frames.core.chance.WithinCounts`); ``cells``
        (:func:`partition_cells`); ``samples`` (:func:`within_samples`).
    geometry : ndarray or None
        See :func:`~iaa_frames.dask.partition.geometry_of`.
    """
    with large_heap():
        m = match(frame, codes, distance=distance, tau=tau, overall=overall)
        out = {
            **index_arrays(m.corpus),
            "counts": m.counts,
            "cells": partition_cells(m),
            "samples": within_samples(m),
        }
        return out, geometry_of(m.corpus, keep_geometry)


# ------------------------------------------------------------------------------ driver


def merge_samples(
    parts: list[dict],
    position: np.ndarray,
    offsets: np.ndarray,
    *,
    n_annotators: int,
    n_labels: int,
) -> dict:
    """The partitions' within samples, joined (and taken out of ``parts``).

    Each partition's rows are in order of distance; the joined rows are too (a stable
    sort of the sorted runs). Object indices become corpus-wide (``position`` of the
    partition-order index, partitions starting at ``offsets``).

    Returns
    -------
    dict
        Per sigma component: ``sample`` (:class:`~iaa_frames.dask.ks.WithinSample`) and
        ``distance``; for localization also ``object_a``, ``object_b``.
    """
    samples = [p.pop("samples") for p in parts]
    out = {}
    for kind in SIGMA:
        pieces = [s.pop(kind) for s in samples]
        rows = np.cumsum([0] + [len(q["item"]) for q in pieces])
        distance = np.concatenate([q.pop("distance") for q in pieces])
        order = np.argsort(distance, kind="stable")  # merges the sorted runs
        merged = {"distance": distance[order]}
        del distance

        def cat(name, pieces=pieces, order=order):
            return np.concatenate([q.pop(name) for q in pieces])[order]

        if kind == "localization":
            part = np.repeat(np.arange(len(pieces)), np.diff(rows))
            base = np.asarray(offsets, dtype=np.int64)[part]
            index = np.int32 if len(position) < 2**31 else np.int64
            for name in ("object_a", "object_b"):
                local = np.concatenate([q.pop(name) for q in pieces])
                merged[name] = position[base + local].astype(index)[order]
            del part, base
        merged["sample"] = WithinSample(
            cat("item"),
            cat("annotator_a"),
            cat("annotator_b"),
            cat("label"),
            n_annotators=n_annotators,
            n_labels=n_labels,
            all_rows=kind == "localization",
        )
        out[kind] = merged
    return out


def pooled_from_sample(corpus, localization: dict, loc_between: pd.DataFrame, sample):
    """:func:`iaa_frames.core.tables.pairs.pooled_baseline` from the localization within sample.

    The classes it pools are those with at least two within pairs and fewer than
    ``MIN_OWN_CHANCE_UNITS`` chance pairs of their own
    (:func:`iaa_frames.core.chance.pooled.needs_pooling`); their within rows (all of them, in
    the order of the whole frame's table, objects in corpus-wide indices) are what it
    reads, so it gives what it gives the whole table.
    """
    s = localization["sample"]
    own = s.label.astype(np.int64)
    L = len(corpus.labels)
    within_n = np.bincount(own[own >= 0], minlength=L)
    ba, bb = loc_between["label_a"].to_numpy(), loc_between["label_b"].to_numpy()
    chance_own = (ba == bb) & (
        loc_between["in_uniform"].to_numpy() | loc_between["in_label"].to_numpy()
    )
    need = needs_pooling(within_n, np.bincount(ba[chance_own], minlength=L))
    rows = np.flatnonzero((own >= 0) & need[np.maximum(own, 0)])
    frame = pd.DataFrame(
        {
            "item": s.item[rows].astype(np.int64),
            "annotator_a": s.annotator_a[rows].astype(np.int64),
            "annotator_b": s.annotator_b[rows].astype(np.int64),
            "label_a": own[rows],
            "label_b": own[rows],
            "object_a": localization["object_a"][rows].astype(np.int64),
            "object_b": localization["object_b"][rows].astype(np.int64),
        }
    )
    frame = frame.take(
        np.lexsort(
            [frame[c].to_numpy() for c in ("object_a", "annotator_b", "annotator_a", "item")]
        )
    )
    return pooled_baseline(corpus, frame.reset_index(drop=True), loc_between, sample)


def between_tables(
    corpus, sets_between, loc_between, pooled, source, params, aligned=None
) -> PairTables:
    """The chance half of the pair tables, with empty within tables: what
    :func:`iaa_frames.core.engine.agreement_from_cells` reads names, parameters and chance
    sources from, and the engine builds the chance half of the cells from (``aligned``:
    the aligned chance units of a thin population, if drawn)."""
    return PairTables(
        corpus=corpus,
        localization_within=_empty(LOCALIZATION_WITHIN),
        localization_between=loc_between,
        sets_within=_empty(SETS_WITHIN),
        sets_between=sets_between,
        units=_empty(UNITS),
        coverage=_empty(COVERAGE),
        localization_pooled=pooled,
        label_source=source,
        params=params,
        localization_aligned=aligned,
    )


def merge_cells(
    parts: list[dict], between: PairTables, samples: dict, *, progress: bool | None = None
):
    """Every component's cells and the presence cells, within and chance halves joined.

    The partitions' rows of the per-item sums are stacked in item order (taken out of
    ``parts`` one component at a time); the chance half is built by the engine from
    ``between``. ``progress``: progress bars over the groups of cells of the KS tests.

    Returns
    -------
    cells : dict
        Per component, its cells (sigma components: :class:`SampledSigmaCells`), and
        ``label_alpha``: Krippendorff's alpha cells of the labels.
    presence : PresenceCells
    """
    corpus = between.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    halves = [p.pop("cells") for p in parts]
    items = np.concatenate([h.pop("items") for h in halves]) if halves else np.zeros(0, int)
    if len(items) != n_items or not np.array_equal(np.sort(items), np.arange(n_items)):
        raise IAAError(
            "internal error: the partitions' items are not every item once "
            f"({len(items)} rows for {n_items} items)"
        )
    order = np.empty(n_items, dtype=np.int64)
    order[items] = np.arange(n_items)

    def stacked(name) -> ItemSums:
        blocks = [h.pop(name) for h in halves]
        return ItemSums(
            sp.vstack(blocks, format="csr")[order] if blocks else sp.csr_matrix((n_items, 0))
        )

    def added(name):
        return sum(h.pop(name) for h in halves)

    # the within strata of localization's chance means, counted by the partitions
    strata = np.concatenate([np.zeros((4, 0), np.int64)] + [h.pop("strata") for h in halves], 1)
    out = {}
    out["label_alpha"] = ClassificationCells(
        layout, stacked("label_alpha"), added("units_per_cell")
    )
    for c in COMPONENTS:
        if c == "classification":
            # the chance half from the chance rows, thin cells decided on the partitions'
            # within units
            within = stacked(c)
            count = np.asarray(within.matrix[:, : layout.n_cells].sum(axis=0)).ravel()
            half = component_cells(between, layout, c, label_within=count)
            out[c] = dataclasses.replace(half, within=within)
            continue
        # chance rows only (localization's post-stratified over the partitions' within rows)
        half = component_cells(between, layout, c, strata_within=strata)
        fields = {f: getattr(half, f) for f in half.__dataclass_fields__}
        fields["within"] = stacked(c)
        if half.matched is not None:
            fields["matched"] = half.matched + added(f"{c}_matched")
        out[c] = SampledSigmaCells(
            **fields,
            sample=samples[c]["sample"],
            sample_distance=samples[c]["distance"],
            chunk_entries=ks.CHUNK_ENTRIES,
            name=c,
            progress=progress,
        )
    return out, PresenceCells(layout.n_cells, stacked("presence"))
