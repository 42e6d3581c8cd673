"""Alpha cells: the label coincidences of clusters (classification) and the
presence/absence coincidences of every cluster (presence alpha), summed per cell and
item, in closed form over pairs of values (weight ``1 / (m - 1)``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.matching.assignment import pairs_within_runs
from iaa_frames.stats.bootstrap import ItemSums
from iaa_frames.stats.krippendorff import binary_disagreements, nominal_disagreements

from .cells import (
    CellLayout,
    items_per_column,
    one_minus_ratio,
    per_item,
    sparse_rows,
)
from .rows import column


@dataclass(frozen=True, eq=False)
class ClassificationCells:
    """Coincidences of the labels of clusters with >= 2 members, summed per item.

    Columns: ``N`` (groups x categories: the margins n_c) then ``O`` (groups x categories:
    the mass of disagreeing coincidences on each category's side). ``units_per_cell``:
    per cell, the pairable clusters whose pairs of values enter it (a class's cell: the
    clusters with a value of that class in one of the cell's pairs, the units that carry
    the class in its binary {class, other} recoding).
    """

    layout: CellLayout
    within: ItemSums
    units_per_cell: np.ndarray

    @classmethod
    def build(cls, layout: CellLayout, n_items: int, units: pd.DataFrame):
        cluster, item = column(units, "cluster"), column(units, "item")
        annotator, label = column(units, "annotator"), column(units, "label")
        size = np.bincount(cluster) if len(cluster) else np.zeros(0, np.int64)
        pairable = np.flatnonzero(size[cluster] >= 2)
        pairable = pairable[np.lexsort((annotator[pairable], cluster[pairable]))]
        i, j = pairs_within_runs(cluster[pairable])
        i, j = pairable[i], pairable[j]
        groups = layout.groups(annotator[i], annotator[j])
        weight = layout.coincidence_weight(size[cluster[i]])
        G, C = layout.n_groups, layout.n_labels
        x, y = label[i][:, None], label[j][:, None]
        same = x == y
        k = groups.shape[1]
        if type(layout) is CellLayout and not layout.pairwise:
            # the clusters of every cell from their members (no pass over the pairs)
            per_cell = member_units_per_cell(
                layout, cluster[pairable], annotator[pairable], label[pairable]
            )
        else:
            per_cell = units_per_cell(layout, cluster[i], x[:, 0], y[:, 0], groups)
        # margins, per pair and group: the weight on both values' categories (one slot of
        # twice the weight when they are equal)
        # (columns below 2 * G * C: int32 unless that many cells)
        margin = np.empty((len(i), 2 * k), dtype=np.int32 if 2 * G * C < 2**31 else np.int64)
        for side, v in enumerate((x, y)):  # in place: no int64 (pairs x slots) copies
            part = margin[:, side * k : (side + 1) * k]
            np.multiply(groups, C, out=part, casting="unsafe")
            part += v
        # every (pairs x slots) array is released after its last use, before the next
        # step's (1M boxes: 0.2 GB less at once, beside the localization cells)
        del groups, part
        share = np.concatenate(
            [np.broadcast_to(1.0 + same, (len(i), k)), np.broadcast_to(~same, (len(i), k))], axis=1
        )
        share *= weight[:, None]  # in place: the weight on every slot
        # off-diagonal mass, for the pairs whose values differ: the weight on both sides
        differ = np.flatnonzero(~same[:, 0])
        coincidences = sparse_rows(margin, share, 2 * G * C)
        del share
        off_diagonal = sparse_rows(
            G * C + margin[differ],
            np.broadcast_to(weight[differ, None], (len(differ), 2 * k)),
            2 * G * C,
        )
        del margin
        rows = sp.vstack([coincidences, off_diagonal]).tocsr()
        del coincidences, off_diagonal
        within = ItemSums(
            per_item(
                np.concatenate([item[i], item[i][differ]]), n_items, [np.ones(rows.shape[0])], rows
            )
        )
        return cls(layout, within, per_cell)

    def statistics(self, multiplicities=None):
        """(D_o, D_e, alpha) per cell: nominal for "(all)", binary for each class."""
        G, C = self.layout.n_groups, self.layout.n_labels
        t = self.within.total(multiplicities)
        lead = t.shape[:-1]
        margins = t[..., : G * C].reshape(lead + (G, C))
        off_diagonal = t[..., G * C :].reshape(lead + (G, C))
        n = margins.sum(axis=-1)
        nominal = nominal_disagreements(n, margins, off_diagonal.sum(axis=-1))
        binary = binary_disagreements(n[..., None], margins, off_diagonal)
        observed, expected = (
            np.concatenate([nom[..., None, :], np.swapaxes(bin_, -1, -2)], axis=-2).reshape(
                lead + (self.layout.n_cells,)
            )
            for nom, bin_ in zip(nominal, binary)
        )
        return observed, expected, one_minus_ratio(observed, expected)

    def counts(self):
        """(n_units, n_chance): pairable clusters per cell; no chance units."""
        return self.units_per_cell, np.full(self.layout.n_cells, np.nan)

    def item_counts(self):
        """Per cell, the number of items with a pair of values in it (``n_items``): for a
        class, a pair with a value of that class."""
        G, C = self.layout.n_groups, self.layout.n_labels
        margins = self.within.matrix[:, : G * C]
        per_class = items_per_column(margins, slice(0, G * C)).reshape(G, C)
        to_group = sp.csr_matrix(
            (np.ones(G * C), (np.arange(G * C), np.repeat(np.arange(G), C))), shape=(G * C, G)
        )
        per_group = items_per_column(sp.csr_matrix(margins) @ to_group, slice(0, G))
        return np.concatenate([per_group, per_class.T.ravel()])


def units_per_cell(layout: CellLayout, cluster, x, y, groups) -> np.ndarray:
    """Per cell, the distinct clusters among pairs of values (cluster, labels ``x`` and
    ``y``, annotator cells ``groups`` (n, k)): a pair enters label cell "(all)" and the
    cells of both its labels, for each of its annotator cells.

    Examples
    --------
    >>> layout = CellLayout(n_labels=2, n_annotators=2)
    >>> # cluster 0: A says class 0, B class 1; cluster 1: A and B say class 0
    >>> units_per_cell(layout, np.array([0, 1]), np.array([0, 0]), np.array([1, 0]),
    ...                layout.groups(np.array([0, 0]), np.array([1, 1]))).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0]
    """
    n = layout.n_cells
    cluster = np.asarray(cluster, dtype=np.int64)
    label_cells = (np.zeros_like(x), 1 + np.asarray(x), 1 + np.asarray(y))
    n_keys = (int(cluster.max()) + 1) * n if len(cluster) else 0
    if n_keys > 8 * len(cluster) * len(label_cells) * groups.shape[1]:
        # many cells (a crowd's annotators): the distinct (cluster, cell) keys by a sort
        cells = np.stack([lc[:, None] * layout.n_groups + groups for lc in label_cells], 1)
        keys = sorted_unique(cluster[:, None, None] * n + cells)
        return np.bincount(keys % n, minlength=n).astype(np.float64)
    # which (cluster, cell) pairs occur: one flag each (a few bytes per pair of values),
    # set slot by slot (3 label cells x the annotator cells), no (pairs x slots) keys
    seen = np.zeros(n_keys, dtype=bool)
    base = cluster * n
    for label_cell in label_cells:
        for g in range(groups.shape[1]):
            seen[base + (label_cell * layout.n_groups + groups[:, g])] = True
    return seen.reshape(-1, n).sum(axis=0).astype(np.float64)


def member_units_per_cell(layout: CellLayout, cluster, annotator, label) -> np.ndarray:
    """:func:`units_per_cell` of every pair of values of the clusters of the given members
    (cluster, annotator and label of every member of a pairable cluster: two members or
    more, each paired with every other), for a layout whose annotator cells are "(all)"
    and each annotator (not pairwise), from the members instead of their pairs.

    A cluster enters the cell of class ``c`` and annotator ``a`` when one of its pairs
    holds a value of ``c`` and one of ``a``: when it has a member of ``c`` and a member of
    ``a`` (the same member paired with any other, or the two paired together). So a
    cell's count is the number of clusters with both (a product of the clusters'
    class and annotator flags: exact integers), "(all)" counting every cluster. The same
    counts as :func:`units_per_cell` (1M boxes: 1.8M pairs, 0.16 s; their 1M members,
    0.03 s).

    Examples
    --------
    >>> layout = CellLayout(n_labels=2, n_annotators=2)
    >>> # cluster 0: A says class 0, B class 1; cluster 1: A and B say class 0
    >>> member_units_per_cell(layout, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
    ...                       np.array([0, 1, 0, 0])).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0]
    """
    n_labels, n_annotators, G = layout.n_labels, layout.n_annotators, layout.n_groups
    cluster = np.asarray(cluster, dtype=np.int64)
    n_rows = int(cluster.max()) + 1 if len(cluster) else 0  # cluster codes (some unused)

    def flags(code, n_codes):
        """Cluster codes x codes: 1.0 where a member of the cluster has the code."""
        key = cluster * np.int64(n_codes) + np.asarray(code, dtype=np.int64)
        if n_rows * n_codes <= 16 * len(key) + (1 << 20):  # a flag per key, no sort
            seen = np.zeros(n_rows * n_codes, dtype=bool)
            seen[key] = True
            key = np.flatnonzero(seen)
        else:
            key = sorted_unique(key)
        return sp.csr_matrix(
            (np.ones(len(key)), (key // n_codes, key % n_codes)), shape=(n_rows, n_codes)
        )

    by_label, by_annotator = flags(label, max(n_labels, 1)), flags(annotator, n_annotators)
    out = np.zeros((n_labels + 1, G))
    out[0, 0] = sorted_unique(cluster).size
    out[0, 1:] = np.asarray(by_annotator.sum(axis=0)).ravel()
    out[1:, 0] = np.asarray(by_label.sum(axis=0)).ravel()[:n_labels]
    out[1:, 1:] = (by_label.T @ by_annotator).toarray()[:n_labels]
    return out.ravel()


@dataclass(frozen=True, eq=False)
class PresenceCells:
    """Presence/absence coincidences of every cluster (and class unit), summed per item.

    Columns: [n | n_present | o] per cell. A unit with ``r >= 2`` raters of whom ``p`` drew
    a member contributes, in closed form over its rater pairs (weight ``1 / (r - 1)``)::

        "(all)":               n = r,  n_present = p,            o = p (r - p) / (r - 1)
        A, drew nothing:       n = 2,  n_present = p / (r - 1),  o = p / (r - 1)
        A, drew a member: the above plus   n_present += (r - 2) / (r - 1),
                                           o += (r - 2 p) / (r - 1)

    so the annotator cells are a per-(item, label cell) baseline given to every rater of
    the item, plus one correction per member: no (unit x rater) expansion.
    """

    n_cells: int
    within: ItemSums

    @classmethod
    def build(cls, layout: CellLayout, n_items: int, units: pd.DataFrame, coverage: pd.DataFrame):
        C, G, n_lc = max(layout.n_labels, 1), layout.n_groups, layout.n_labels + 1
        cluster, item = column(units, "cluster"), column(units, "item")
        annotator, label = column(units, "annotator"), column(units, "label")
        n_clusters = int(cluster.max()) + 1 if len(cluster) else 0
        class_of, class_keys = pd.factorize(cluster * C + label)
        unit = np.concatenate([cluster, n_clusters + class_of])  # unit of every member
        member = np.concatenate([annotator, annotator])
        n_units = n_clusters + len(class_keys)
        unit_item = np.zeros(n_units, dtype=np.int64)
        unit_item[unit] = np.concatenate([item, item])
        unit_label_cell = np.concatenate([np.zeros(n_clusters, np.int64), 1 + class_keys % C])
        p = np.bincount(unit, minlength=n_units).astype(np.float64)
        cov_item, cov_ann = column(coverage, "item"), column(coverage, "annotator")
        order = np.lexsort((cov_ann, cov_item))
        cov_item, cov_ann = cov_item[order], cov_ann[order]
        r_item = np.bincount(cov_item, minlength=n_items)
        start = np.zeros(n_items, dtype=np.int64)
        np.cumsum(r_item[:-1], out=start[1:])
        r = r_item[unit_item].astype(np.float64)
        ok = r >= 2  # a unit needs two raters to be pairable

        # sums over the units of every (item, label cell)
        group, keys = pd.factorize(unit_item[ok] * n_lc + unit_label_cell[ok])
        g_item, g_cell = keys // n_lc, keys % n_lc * G
        pu, ru = p[ok], r[ok]

        def per_group(v):
            return np.bincount(group, weights=v, minlength=len(keys))

        everyone = (per_group(ru), per_group(pu), per_group(pu * (ru - pu) / (ru - 1)))
        nothing = (
            per_group(np.full(len(pu), 2.0)),
            per_group(pu / (ru - 1)),
            per_group(pu / (ru - 1)),
        )
        # the baseline goes to every rater of the group's item
        rg = r_item[g_item]
        gi = np.repeat(np.arange(len(keys)), rg)
        first = np.zeros(len(keys), dtype=np.int64)
        np.cumsum(rg[:-1], out=first[1:])
        rater = cov_ann[start[g_item[gi]] + np.arange(len(gi)) - first[gi]]
        # one correction per member of a pairable unit
        mu, ma = unit[ok[unit]], member[ok[unit]]
        drew = (np.zeros(len(mu)), (r[mu] - 2) / (r[mu] - 1), (r[mu] - 2 * p[mu]) / (r[mu] - 1))

        n = layout.n_cells
        cells = np.concatenate([g_cell, g_cell[gi] + 1 + rater, unit_label_cell[mu] * G + 1 + ma])
        row = np.concatenate([g_item, g_item[gi], unit_item[mu]])
        # the entries of the three quantities one after the other, written in place in
        # the narrowest index type (millions of entries)
        index = np.int32 if max(3 * n, n_items) < 2**31 else np.int64
        m = len(row)
        rows, columns = np.empty(3 * m, dtype=index), np.empty(3 * m, dtype=index)
        values = np.empty(3 * m)
        for q, parts in enumerate(zip(everyone, nothing, drew)):
            rows[q * m : (q + 1) * m] = row
            np.add(cells, q * n, out=columns[q * m : (q + 1) * m], casting="unsafe")
            at = q * m
            for part, pick in zip(parts, (None, gi, None)):
                v = part if pick is None else part[pick]
                values[at : at + len(v)] = v
                at += len(v)
        # only the entries are left for the conversion (the peak memory of the cells)
        del cells, row, unit, member, unit_item, p, r, ok, g_item, g_cell
        del everyone, nothing, drew, gi, rater, mu, ma, rg, first, pu, ru
        return cls(
            n, ItemSums.from_entries(rows, columns, values, n_items=n_items, n_columns=3 * n)
        )

    def statistics(self, multiplicities=None):
        """(D_o, D_e, presence alpha) per cell."""
        n_cells = self.n_cells
        t = self.within.total(multiplicities)
        n, n_present, o = (t[..., b * n_cells : (b + 1) * n_cells] for b in range(3))
        observed, expected = binary_disagreements(n, n_present, o)
        return observed, expected, one_minus_ratio(observed, expected)
