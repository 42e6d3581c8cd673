"""Polygons fetched from the partitions that hold them, for the chance pairings.

The corpus-wide index keeps boxes, areas and codes of every object, not the polygons:
they stay on the workers, one array per partition (persisted). The chance sample needs
the polygons of the few annotations it pairs; :class:`GeometryStore` fetches them, one
task per partition that holds some, and keeps what it fetched. :func:`run_fetched` runs
the matching pipeline on exactly those annotations, with their polygons: the same
computation, on the same values, as on the whole corpus.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.matching.corpus import Corpus, Slices
from iaa_frames.core.matching.pipeline import Matched, run
from iaa_frames.geometry.distances import Shapes

from .partition import take

__all__ = ["GeometryStore", "objects_of_slots", "run_fetched"]


def objects_of_slots(slots: Slices, s: np.ndarray) -> np.ndarray:
    """Object indices of the slots ``s``, slot after slot."""
    count = slots.count[s]
    owner = np.repeat(np.arange(len(s)), count)
    first = np.cumsum(count) - count
    return slots.start[s][owner] + np.arange(len(owner)) - first[owner]


class GeometryStore:
    """Normalized polygons of objects by corpus-wide index, fetched on demand.

    Parameters
    ----------
    parts : list of dask Delayed
        Per partition, the persisted array of its polygons in its canonical order.
    position : ndarray of int64
        Corpus-wide index of every object in partition order.
    offsets : ndarray of int64
        Start of each partition's objects in partition order.
    """

    def __init__(self, parts, position, offsets):
        self.parts = parts
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.source = np.empty(len(position), dtype=np.int64)
        self.source[position] = np.arange(len(position))  # partition-order position
        self.known = np.zeros(0, np.int64)
        self.values = np.zeros(0, dtype=object)
        self.fetches = 0  # partitions asked, for the record

    def get(self, objects) -> np.ndarray:
        """Polygons (``None`` for boxes) of the corpus-wide object indices ``objects``."""
        import dask
        from dask import delayed

        objects = np.asarray(objects, dtype=np.int64)
        missing = np.setdiff1d(objects, self.known)
        if len(missing):
            pos = self.source[missing]
            part = np.searchsorted(self.offsets, pos, side="right") - 1
            ks = np.unique(part)
            tasks = [delayed(take)(self.parts[k], pos[part == k] - self.offsets[k]) for k in ks]
            got = dask.compute(*tasks)
            self.fetches += len(ks)
            fetched = np.empty(len(missing), dtype=object)
            for k, values in zip(ks, got):
                fetched[part == k] = values
            known = np.concatenate([self.known, missing])
            order = np.argsort(known, kind="stable")
            self.known = known[order]
            self.values = np.concatenate([self.values, fetched])[order]
        return self.values[np.searchsorted(self.known, objects)]


def run_fetched(corpus: Corpus, store: GeometryStore, slots: Slices, a, b, **params) -> Matched:
    """:func:`iaa_frames.core.matching.pipeline.run` on the pairings ``(a, b)`` of ``slots``, with
    the polygons of their objects fetched from ``store``.

    The pipeline runs on a corpus made of those objects only (same boxes, areas and
    polygons); object indices of the result are corpus-wide.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    used, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    objects = objects_of_slots(slots, used)
    count = slots.count[used]
    pad = lambda v, x: np.append(np.asarray(v, dtype=np.int64), x)
    sub_slots = Slices(
        start=pad(np.cumsum(count) - count, 0),
        count=pad(count, 0),
        item=pad(slots.item[used], -1),
        annotator=pad(slots.annotator[used], -1),
        label=None if slots.label is None else pad(slots.label[used], -1),
        group=None if slots.group is None else pad(slots.group[used], -1),
    )
    polygons = store.get(objects)
    kind_params = corpus.shapes.params  # of parametric geometry kinds, held by the index
    kind_payloads = corpus.shapes.payloads  # and their variable-length data (voxel runs)
    shapes = Shapes(
        corpus.shapes.boxes[objects],
        polygons if any(p is not None for p in polygons) else None,
        None,
        None if kind_params is None else {k: v[objects] for k, v in kind_params.items()},
        None if kind_payloads is None else {k: v.take(objects) for k, v in kind_payloads.items()},
    )
    sub = Corpus(
        objects=pd.DataFrame(index=pd.RangeIndex(len(objects))),
        shapes=shapes,
        item=corpus.item[objects],
        annotator=corpus.annotator[objects],
        label=corpus.label[objects],
        items=corpus.items,
        annotators=corpus.annotators,
        labels=corpus.labels,
        annotations=sub_slots,
        by_label=sub_slots,
        normalization=corpus.normalization,
        area=corpus.area[objects],
    )
    m = run(sub, sub_slots, inverse[: len(a)], inverse[len(a) :], **params)
    return Matched(
        m.pair_pairing,
        objects[m.pair_a],
        objects[m.pair_b],
        m.pair_iou,
        m.pair_distance,
        m.set_n_a,
        m.set_n_b,
        m.set_matched,
        m.set_detection,
        m.set_overall,
    )
