"""The sums behind the per-keypoint breakdown: joints x annotators, per item.

The matched object pairs of the pair tables whose two objects are skeletons of one kind
are split by joint. Joints take the place of the engine's label cells
(:class:`~iaa_frames.core.engine.cells.CellLayout` with ``K - 1`` "classes": cell
``joint * G + group``, group 0 "(all)" and ``1 + annotator``), so every statistic of
every (joint, annotator) cell is a sum of rows per item, and a bootstrap replicate is one
sparse product (:mod:`iaa_frames.stats.bootstrap`):

* localization: one within row per (matched pair, joint labelled on both sides), of
  distance ``1 - k_j`` (``k_j`` the joint's term of OKS), and one chance row per
  (between-item matched pair, joint labelled on both sides), in the
  :class:`~iaa_frames.core.engine.sigma.SigmaCells` of the engine; a chance row counts in the
  cells of the strata that drew it (:func:`iaa_frames.core.engine.rows.chance_membership`:
  the uniform stratum for "(all)", the uniform stratum and the annotator's own for an
  annotator);
* visibility: every (matched pair, joint) is a unit of two values (absent 0, occluded
  1, visible 2), in the :class:`~iaa_frames.measures.attribute_cells.AttributeCells` of
  nominal α, the joint as its class;
* swapped: per (matched pair, left/right joint labelled with its mirror on both sides),
  whether the joint lies nearer the other's mirror joint than the other's same joint.
* mirrored: per annotator group, the matched pairs that are mirror images of each other
  (:meth:`~iaa_frames.geometry.kinds.KeypointsKind.mirror_matched`: a higher OKS with
  one skeleton's left and right joints exchanged than as labelled).

An annotator's cell keeps the rows of the pairs that involve it (each annotator against
the others), as the engine's cells do.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.core.engine.cells import CellLayout, items_per_column, mean_of, per_item
from iaa_frames.core.engine.rows import Chance, Rows, chance_membership, chance_with_aligned
from iaa_frames.core.engine.sigma import SigmaCells
from iaa_frames.geometry.kinds import KeypointsKind
from iaa_frames.stats.bootstrap import ItemSums

from .attribute_cells import AttributeCells

__all__ = ["KeypointCells", "mirror_of"]

#: Visibility codes (COCO's ``v``): absent, occluded, visible.
N_VISIBILITY = 3


def mirror_of(kind: KeypointsKind) -> np.ndarray:
    """Per joint, its left/right mirror joint (itself when it has none).

    Examples
    --------
    >>> from iaa_frames.geometry.kinds import KEYPOINTS
    >>> mirror_of(KEYPOINTS)[:5].tolist()
    [0, 2, 1, 4, 3]
    """
    return np.array(kind.mirror)


@dataclass(frozen=True, eq=False)
class Pairs:
    """Matched pairs of two skeletons of one kind: their item (of side a), annotators
    and parameters (rows of ``shapes.params``), and the rows of the table they come
    from."""

    rows: np.ndarray
    item_a: np.ndarray
    item_b: np.ndarray
    annotator_a: np.ndarray
    annotator_b: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @classmethod
    def of(cls, tables, frame, kind: KeypointsKind, item_columns=("item", "item")):
        shapes = tables.corpus.shapes
        on_kind = shapes.kind_rows()[kind.name]
        oa, ob = frame["object_a"].to_numpy(), frame["object_b"].to_numpy()
        rows = np.flatnonzero(on_kind[oa] & on_kind[ob])
        params = shapes.params[kind.name]

        def col(name):
            return frame[name].to_numpy(np.int64)[rows]

        return cls(
            rows,
            col(item_columns[0]),
            col(item_columns[1]),
            col("annotator_a"),
            col("annotator_b"),
            params[oa[rows]],
            params[ob[rows]],
        )


@dataclass(frozen=True, eq=False)
class KeypointCells:
    """Per-item sums of the per-keypoint breakdown, and its statistics per cell."""

    kind: KeypointsKind
    layout: CellLayout
    localization: SigmaCells
    visibility: AttributeCells
    swapped: ItemSums
    matched: np.ndarray  # matched pairs per annotator group (G,)
    n_chance_pairs: int  # between-item matched pairs of the uniform stratum
    mirrored: np.ndarray  # of them, the pairs of mirror images (G,)

    @classmethod
    def build(cls, tables, kind: KeypointsKind) -> KeypointCells:
        """The cells of ``kind``'s skeletons in ``tables``
        (:class:`~iaa_frames.core.tables.pairs.PairTables`)."""
        corpus = tables.corpus
        n_items, n_ann, k = len(corpus.items), len(corpus.annotators), kind.n_keypoints
        layout = CellLayout(k - 1, n_ann)
        w = Pairs.of(tables, tables.localization_within, kind)
        # the chance pairs, with the aligned units of a thin population (skeletons of
        # other items fitted into this person's box: iaa_frames.core.chance.aligned)
        between, unit_weight = chance_with_aligned(tables)
        c = Pairs.of(tables, between, kind, ("item_a", "item_b"))
        fit = c.rows >= len(tables.localization_between)
        if fit.any():
            boxes = corpus.shapes.boxes[between["object_a"].to_numpy()[c.rows[fit]]]
            b = c.b.copy()
            b[fit] = kind.fit_to_boxes(c.b[fit], boxes)
            c = dataclasses.replace(c, b=b)
        ks, both = kind.point_similarity(w.a, w.b)
        p, j = np.nonzero(both)
        within = Rows(
            w.item_a[p],
            None,
            w.annotator_a[p],
            w.annotator_b[p],
            j[:, None],
            1.0 - ks[p, j],
            ks[p, j],
        )
        cks, cboth = kind.point_similarity(c.a, c.b)
        q, cj = np.nonzero(cboth)
        n_q = len(q)
        one = chance_membership(
            CellLayout(0, n_ann),
            between.iloc[c.rows[q]],
            np.ones(n_q, dtype=bool),
            np.full(n_q, -1),
        ).tocoo()
        data = one.data if unit_weight is None else one.data * unit_weight[c.rows[q]][one.row]
        membership = sp.csr_matrix(
            (data, (one.row, one.col + layout.n_groups * cj[one.row])),
            shape=(n_q, layout.n_cells),
        )
        chance = Chance(c.item_a[q], c.item_b[q], 1.0 - cks[q, cj], membership)
        groups = layout.groups(w.annotator_a, w.annotator_b)
        mirror = kind.mirror_matched(w.a, w.b) if len(w.rows) else np.zeros(0, dtype=bool)
        return cls(
            kind,
            layout,
            SigmaCells.build(layout, n_items, within, chance),
            _visibility_cells(kind, w, n_items, n_ann),
            _swap_sums(kind, layout, w, n_items),
            np.bincount(groups.ravel(), minlength=layout.n_groups).astype(np.float64),
            int(between["in_uniform"].to_numpy(dtype=bool)[c.rows].sum()),
            np.bincount(groups[mirror].ravel(), minlength=layout.n_groups).astype(np.float64),
        )

    @property
    def shape(self) -> tuple[int, int]:
        """(joints, annotator groups) of every statistic."""
        return self.kind.n_keypoints, self.layout.n_groups

    def grid(self, values, skip: int = 0):
        """``(..., n_cells)`` as ``(..., K, G)``, after ``skip`` leading label cells."""
        values = np.asarray(values)
        grid = values.reshape(values.shape[:-1] + (-1, self.layout.n_groups))
        return grid[..., skip:, :]

    def statistics(self, multiplicities=None) -> dict:
        """``localization``, ``visibility_alpha``, ``visibility_agreement`` and
        ``not_swapped`` (``1 - swapped``, an agreement bounded by 1) of every (joint,
        annotator group): ``(K, G)``, or ``(b, K, G)`` for a block of multiplicities."""
        _, _, sigma = self.localization.statistics(multiplicities)
        vis = self.visibility.statistics(multiplicities)
        n = self.layout.n_cells
        s = self.swapped.total(multiplicities)
        return {
            "localization": self.grid(sigma),
            "visibility_alpha": self.grid(vis["alpha"], skip=1),
            "visibility_agreement": self.grid(vis["percent_agreement"], skip=1),
            "not_swapped": self.grid(1.0 - mean_of(s[..., n:], s[..., :n])),
        }

    def point_values(self) -> dict:
        """The point estimates and counts of every (joint, annotator group)."""
        loc = self.localization
        observed, expected, _ = loc.statistics()
        n_pairs, n_chance = loc.counts()
        n_pairs = self.grid(n_pairs)
        return {
            "within": self.grid(observed),
            "chance": self.grid(expected),
            "oks_term": self.grid(loc.raw_iou()),
            "n_pairs": n_pairs,
            "n_chance": self.grid(n_chance),
            "n_items": self.grid(loc.item_counts()),
            "labelled_by_both": mean_of(n_pairs, self.matched[None, :]),
            "visibility_items": self.grid(self.visibility.n_items, skip=1),
            "swap_items": self.grid(
                items_per_column(self.swapped.matrix, slice(0, self.layout.n_cells))
            ),
        }


def _visibility_cells(kind, w: Pairs, n_items: int, n_ann: int) -> AttributeCells:
    """Nominal α cells of the visibilities: every (pair, joint) a unit of two values,
    the joint its class (label cells 0 "every joint", ``1 + joint``)."""
    m, k = len(w.rows), kind.n_keypoints
    va, vb = kind.split(w.a)[2], kind.split(w.b)[2]
    unit = np.arange(m * k)
    units = pd.DataFrame(
        {
            "item": np.tile(np.repeat(w.item_a, k), 2),
            "annotator": np.concatenate([np.repeat(w.annotator_a, k), np.repeat(w.annotator_b, k)]),
            "label": np.tile(np.arange(k), 2 * m),
            "cluster": np.tile(unit, 2),
        }
    )
    values = np.concatenate([va.ravel(), vb.ravel()]).astype(np.int64)
    return AttributeCells.build(
        CellLayout(k, n_ann), n_items, units, values, level="nominal", n_categories=N_VISIBILITY
    )


def _swap_sums(kind, layout: CellLayout, w: Pairs, n_items: int) -> ItemSums:
    """Per item, [pairs | swapped pairs] of every cell: the pairs labelling a left/right
    joint and its mirror on both sides, and those where the joint lies nearer the
    other's mirror joint than the other's same joint."""
    xa, ya, va, _ = kind.split(w.a)
    xb, yb, vb, _ = kind.split(w.b)
    mirror = mirror_of(kind)
    own = (xa - xb) ** 2 + (ya - yb) ** 2
    cross = (xa - xb[:, mirror]) ** 2 + (ya - yb[:, mirror]) ** 2
    ok = (va > 0) & (vb > 0) & (va[:, mirror] > 0) & (vb[:, mirror] > 0)
    ok &= (mirror != np.arange(kind.n_keypoints))[None, :]
    p, j = np.nonzero(ok)
    member = layout.membership(j[:, None], layout.groups(w.annotator_a[p], w.annotator_b[p]))
    crossed = (cross[p, j] < own[p, j]).astype(np.float64)
    return ItemSums(per_item(w.item_a[p], n_items, [np.ones(len(p)), crossed], member))
