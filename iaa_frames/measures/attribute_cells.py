"""The sums behind attribute agreement: coincidences of matched objects' values per cell.

The units are the clusters of matched objects of the pair tables (``tables.units``: at
most one object per annotator, the units of classification α). Every unordered pair of
objects of a cluster whose attribute values are both present is a *pair of values*,
weighing ``w = 1 / (m_u - 1)`` for a cluster of ``m_u`` present values, so that summed
over pairs it gives Krippendorff's coincidences (both orders of a pair: ``2 w``). A pair
enters the cells of :class:`iaa_frames.core.engine.cells.CellLayout`: label "(all)", and the
class when both objects carry it; annotator "(all)" and each of its two annotators.

Per cell the columns are ``[n_pairs, n_equal]`` (raw percent agreement), then, by level:

* nominal: ``n_c`` (C columns), ``o`` (the mass of differing values);
* masi: as nominal, with ``o`` the mass of the MASI distances of the distinct sets
  (:func:`~iaa_frames.stats.masi.set_disagreements`);
* ordinal: ``n_c`` (C columns), ``o_ck + o_kc`` for every ``c < k``
  (:func:`iaa_frames.stats.krippendorff_levels.pair_index` order);
* interval: ``n``, ``s_1``, ``s_2``, ``o`` (:func:`~iaa_frames.stats.krippendorff_levels.interval_disagreements`).

They are summed per item (:class:`iaa_frames.stats.bootstrap.ItemSums`), so a bootstrap
replicate is one sparse product and every statistic of every cell is an array
expression (:meth:`AttributeCells.statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.engine.cells import CellLayout
from iaa_frames.core.matching.assignment import pairs_within_runs
from iaa_frames.stats.bootstrap import ItemSums
from iaa_frames.stats.krippendorff import nominal_disagreements
from iaa_frames.stats.krippendorff_levels import (
    alpha_from_disagreements,
    interval_disagreements,
    ordinal_disagreements,
)
from iaa_frames.stats.masi import set_disagreements

__all__ = ["AttributeCells", "value_pairs"]


@dataclass(frozen=True, eq=False)
class ValuePairs:
    """Pairs of present values within clusters: objects ``i``, ``j`` (rows of
    ``tables.units``), their item, cluster and weight ``1 / (m_u - 1)``."""

    i: np.ndarray
    j: np.ndarray
    item: np.ndarray
    cluster: np.ndarray
    weight: np.ndarray


def value_pairs(units, present) -> ValuePairs:
    """The pairs of present values of every cluster of ``units`` (``tables.units``).

    Examples
    --------
    >>> import pandas as pd
    >>> units = pd.DataFrame({"item": [0, 0, 0, 1], "annotator": [0, 1, 2, 0],
    ...                       "cluster": [0, 0, 0, 1]})
    >>> p = value_pairs(units, np.array([True, True, True, True]))
    >>> p.i.tolist(), p.j.tolist(), p.weight.tolist()
    ([0, 0, 1], [1, 2, 2], [0.5, 0.5, 0.5])
    """
    cluster = units["cluster"].to_numpy(np.int64)
    keep = np.flatnonzero(present)
    keep = keep[np.lexsort((units["annotator"].to_numpy(np.int64)[keep], cluster[keep]))]
    a, b = pairs_within_runs(cluster[keep])
    i, j = keep[a], keep[b]
    m = np.bincount(cluster[keep], minlength=int(cluster.max(initial=-1)) + 1)
    weight = 1.0 / (m[cluster[i]] - 1.0) if len(i) else np.zeros(0)
    return ValuePairs(i, j, units["item"].to_numpy(np.int64)[i], cluster[i], weight)


@dataclass(frozen=True, eq=False)
class AttributeCells:
    """The per-item sums of one attribute's pairs of values, and the statistics of
    every cell from them."""

    level: str
    n_categories: int
    n_cells: int
    width: int
    within: ItemSums
    n_units: np.ndarray
    n_items: np.ndarray
    distances: np.ndarray | None = None

    @classmethod
    def build(
        cls,
        layout: CellLayout,
        n_items: int,
        units,
        values,
        *,
        level: str,
        n_categories: int,
        distances=None,
    ):
        """Cells of one attribute.

        ``values``: per row of ``units``, the category code (nominal, ordinal, masi; -1
        where missing) or the value (interval, centred and scaled; NaN where missing).
        ``distances``: the ``(C, C)`` distances of the categories (masi).
        """
        values = np.asarray(values)
        present = values >= 0 if level != "interval" else np.isfinite(values)
        p = value_pairs(units, present)
        label = units["label"].to_numpy(np.int64)
        annotator = units["annotator"].to_numpy(np.int64)
        la, lb = label[p.i], label[p.j]
        member = layout.membership(
            np.column_stack([np.zeros_like(la), np.where(la == lb, 1 + la, -1)]),
            layout.groups(annotator[p.i], annotator[p.j]),
        ).tocoo()
        row, cell = member.row.astype(np.int64), member.col.astype(np.int64)
        vi, vj, w = values[p.i][row], values[p.j][row], p.weight[row]
        C = n_categories
        if level == "interval":
            parts = [
                (0, np.ones(len(row))),
                (1, (vi == vj).astype(np.float64)),
                (2, 2.0 * w),
                (3, w * (vi + vj)),
                (4, w * (vi * vi + vj * vj)),
                (5, 2.0 * w * (vi - vj) ** 2),
            ]
            width = 6
        else:
            vi, vj = vi.astype(np.int64), vj.astype(np.int64)
            differ = vi != vj
            parts = [(0, np.ones(len(row))), (1, (~differ).astype(np.float64))]
            parts += [(2 + vi, w), (2 + vj, w)]
            if level == "nominal":
                parts.append((2 + C, 2.0 * w * differ))
                width = 3 + C
            elif level == "masi":
                parts.append((2 + C, 2.0 * w * distances[vi, vj]))
                width = 3 + C
            else:
                c, k = np.minimum(vi, vj), np.maximum(vi, vj)
                pair = c * C - c * (c + 1) // 2 + (k - c - 1)
                parts.append((2 + C + np.where(differ, pair, 0), 2.0 * w * differ))
                width = 2 + C + C * (C - 1) // 2
        n_cells = layout.n_cells
        item = p.item[row]
        within = ItemSums.from_entries(
            item=np.concatenate([item for _ in parts]),
            column=np.concatenate([cell * width + off for off, _ in parts]),
            value=np.concatenate([np.broadcast_to(v, len(row)) for _, v in parts]),
            n_items=n_items,
            n_columns=n_cells * width,
        )
        return cls(
            level,
            C,
            n_cells,
            width,
            within,
            _distinct(cell, p.cluster[row], n_cells),
            _distinct(cell, item, n_cells),
            distances,
        )

    def statistics(self, multiplicities=None) -> dict:
        """``alpha``, ``observed``, ``expected``, ``percent_agreement``, ``n_pairs`` and
        ``n_values`` of every cell: arrays ``(n_cells,)``, or ``(b, n_cells)`` for a block of
        item multiplicities."""
        t = self.within.total(multiplicities)
        t = t.reshape(t.shape[:-1] + (self.n_cells, self.width))
        C = self.n_categories
        if self.level == "interval":
            n = t[..., 2]
            d_o, d_e = interval_disagreements(n, t[..., 3], t[..., 4], t[..., 5])
        else:
            n_c = t[..., 2 : 2 + C]
            n = n_c.sum(axis=-1)
            if self.level == "nominal":
                d_o, d_e = nominal_disagreements(n, n_c, t[..., 2 + C])
            elif self.level == "masi":
                d_o, d_e = set_disagreements(n, n_c, t[..., 2 + C], self.distances)
            else:
                d_o, d_e = ordinal_disagreements(n_c, t[..., 2 + C :])
        n_pairs = t[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            percent = np.where(n_pairs > 0, t[..., 1] / n_pairs, np.nan)
        return {
            "alpha": alpha_from_disagreements(d_o, d_e, n),
            "observed": d_o,
            "expected": d_e,
            "percent_agreement": percent,
            "n_pairs": n_pairs,
            "n_values": n,
        }


def _distinct(cell, key, n_cells) -> np.ndarray:
    """Per cell, the number of distinct ``key`` values among its entries."""
    if not len(cell):
        return np.zeros(n_cells, np.int64)
    k = sorted_unique(cell * (int(key.max()) + 1) + key)
    return np.bincount(k // (int(key.max()) + 1), minlength=n_cells)
