"""KS tests of a sigma component from a compact within sample, a few cells at a time.

For its KS tests, :class:`iaa_frames.engine.SigmaCells` keeps a rows x cells matrix of
the within rows and tests every cell at once, which at ten million objects takes several
gigabytes. :class:`WithinSample` keeps, per within row, only its item, its two annotators
and its class, in narrow integer types, and lists the rows of a cell when asked;
:class:`SampledSigmaCells` runs the same tests (:func:`iaa_frames.stats.cell_tests`,
:func:`iaa_frames.kstest.ks_agreement_tests`) on groups of cells of at most
:data:`CHUNK_ENTRIES` within entries together.

The tests of a cell depend on its rows, not on their order: the p-value of the cluster
bootstrap, the fraction below chance and the counts are exact sums, and the KS statistic
is the same running sum of the same steps, except that in a group after the first the
sum starts from zero instead of from the rounding residue of the cells before it (a
difference of the order of 1e-16). A corpus whose cells hold fewer than
:data:`CHUNK_ENTRIES` entries in all is tested in one group: bitwise what the engine gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import SigmaCells
from ..kstest import ks_agreement_tests
from ..stats import cell_tests

__all__ = ["CHUNK_ENTRIES", "SampledSigmaCells", "WithinSample"]

#: Largest number of (within row, cell) entries tested together: about 1.5 GB of
#: temporary arrays in the tests.
CHUNK_ENTRIES = 12_000_000


def _ranges(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(start, count)])``, vectorized."""
    count = np.asarray(count, dtype=np.int64)
    first = np.cumsum(count) - count
    return np.repeat(np.asarray(start, dtype=np.int64) - first, count) + np.arange(count.sum())


class WithinSample:
    """The within rows of a sigma component: per row its item, annotators and class
    (``label``, -1 for none).

    Row ``r`` belongs to the label cells ``1 + label[r]`` (``label`` -1 is the label cell
    "(all)") and, when ``all_rows``, also to "(all)" (localization: every matched pair
    counts in "(all)", and in its class when both objects carry it); and to the annotator
    groups "(all)", ``1 + annotator_a[r]`` and ``1 + annotator_b[r]`` (cells
    ``label_cell * (n_annotators + 1) + group``, as in :class:`iaa_frames.engine.CellLayout`).

    Examples
    --------
    >>> import numpy as np
    >>> s = WithinSample(np.array([0, 0, 1]), np.array([0, 0, 1]), np.array([1, 2, 2]),
    ...                  np.array([0, -1, 0]), n_annotators=3, n_labels=1, all_rows=True)
    >>> s.cell_size.tolist()    # (all) x [(all), a0, a1, a2], then class 0 x the same
    [3, 2, 2, 2, 2, 1, 2, 1]
    >>> rows, count = s.rows(np.array([0, 6]))
    >>> rows.tolist(), count.tolist()
    ([0, 1, 2, 2, 0], [3, 2])
    """

    def __init__(self, item, annotator_a, annotator_b, label, *, n_annotators: int,
                 n_labels: int, all_rows: bool):
        self.item = np.asarray(item)
        self.annotator_a = np.asarray(annotator_a)
        self.annotator_b = np.asarray(annotator_b)
        self.label = np.asarray(label)
        self.n_annotators = int(n_annotators)
        self.n_groups = self.n_annotators + 1
        self.n_label_cells = int(n_labels) + 1
        self.all_rows = bool(all_rows)
        cell = self.label.astype(np.int64) + 1
        index = np.int32 if len(cell) < 2 ** 31 else np.int64
        self._by_label = np.argsort(cell, kind="stable").astype(index)
        self._label_start = np.r_[0, np.cumsum(np.bincount(cell, minlength=self.n_label_cells))]
        A = self.n_annotators
        size = np.zeros((self.n_label_cells, self.n_groups), dtype=np.int64)
        size[:, 0] = np.diff(self._label_start)
        size[:, 1:] = (np.bincount(cell * A + self.annotator_a, minlength=A * len(size))
                       + np.bincount(cell * A + self.annotator_b, minlength=A * len(size))) \
            .reshape(len(size), A)
        if self.all_rows:
            size[0, 0] = len(cell)
            size[0, 1:] = (np.bincount(self.annotator_a, minlength=A)
                           + np.bincount(self.annotator_b, minlength=A))
        self.cell_size = size.ravel()
        self._cached = None  # (label cell, its rows grouped by annotator)

    def __len__(self) -> int:
        return len(self.item)

    def _label_rows(self, label_cell: int) -> np.ndarray:
        if self.all_rows and label_cell == 0:
            return np.arange(len(self.item), dtype=self._by_label.dtype)
        return self._by_label[self._label_start[label_cell]:self._label_start[label_cell + 1]]

    def _by_annotator(self, label_cell: int):
        """The rows of a label cell, each listed under both its annotators, grouped by
        annotator: (rows, start of each annotator's group)."""
        if self._cached is None or self._cached[0] != label_cell:
            self._cached = None
            r = self._label_rows(label_cell)
            keys = np.concatenate([self.annotator_a[r], self.annotator_b[r]])
            order = np.argsort(keys, kind="stable")
            rows = np.concatenate([r, r])[order]
            start = np.r_[0, np.cumsum(np.bincount(keys, minlength=self.n_annotators))]
            self._cached = (label_cell, rows, start)
        return self._cached[1], self._cached[2]

    def rows(self, cells: np.ndarray):
        """The rows of the given cells (ascending), one cell after the other.

        Returns
        -------
        rows : ndarray of int
        count : ndarray of int64, the number of rows of each cell
        """
        cells = np.asarray(cells, dtype=np.int64)
        out, count = [], np.zeros(len(cells), dtype=np.int64)
        for label_cell in np.unique(cells // self.n_groups):  # a loop over classes
            at = np.flatnonzero(cells // self.n_groups == label_cell)
            group = cells[at] % self.n_groups
            if group[0] == 0:
                r = self._label_rows(int(label_cell))
                out.append(r)
                count[at[0]] = len(r)
            ann = group[group > 0] - 1
            if len(ann):
                rows, start = self._by_annotator(int(label_cell))
                n = start[ann + 1] - start[ann]
                out.append(rows[_ranges(start[ann], n)])
                count[at[group > 0]] = n
        return (np.concatenate(out) if out else np.zeros(0, np.int64)), count

    def chunks(self, cells: np.ndarray, budget: int = CHUNK_ENTRIES):
        """The cells (ascending) in consecutive groups of at most ``budget`` entries (a
        larger cell alone)."""
        cells = np.sort(np.asarray(cells, dtype=np.int64))
        size = self.cell_size[cells]
        groups, start, total = [], 0, 0
        for k, n in enumerate(size):  # a loop over cells
            if total and total + n > budget:
                groups.append(cells[start:k])
                start, total = k, 0
            total += int(n)
        if len(cells):
            groups.append(cells[start:])
        return groups

    def release(self) -> None:
        """Drop the cached grouping of rows by annotator."""
        self._cached = None


@dataclass(frozen=True, eq=False)
class SampledSigmaCells(SigmaCells):
    """:class:`iaa_frames.engine.SigmaCells` whose KS tests read a :class:`WithinSample`.

    The sums (``within``, ``between``), the chance rows and the counts are those of the
    engine; ``within_distance``, ``within_members`` and ``within_item`` are left empty,
    and :meth:`tests` lists each cell's within rows from ``sample`` and their distances
    from ``sample_distance`` (in the sample's row order), ``chunk_entries`` entries at a
    time.
    """

    sample: WithinSample | None = None
    sample_distance: np.ndarray | None = None
    chunk_entries: int = CHUNK_ENTRIES

    def tests(self, cells, seed: int = 0):
        """KS statistic, sign, p-value and fraction below chance of the given cells, as
        :meth:`iaa_frames.engine.SigmaCells.tests` computes them."""
        out = np.full((4, self.n_cells), np.nan)
        cells = np.asarray(cells, dtype=np.int64)
        bp, bi = self.between_members.indptr, self.between_members.indices
        bw = self.between_members.data
        for chunk in self.sample.chunks(cells, self.chunk_entries):
            rows, w_n = self.sample.rows(chunk)
            x = self.sample_distance[rows]
            w_cell = np.repeat(np.arange(len(chunk)), w_n)
            b_n = bp[chunk + 1] - bp[chunk]
            b_at = _ranges(bp[chunk], b_n)
            b_cell = np.repeat(np.arange(len(chunk)), b_n)
            out[:, chunk] = cell_tests(x, w_cell, self.between_distance[bi[b_at]], b_cell,
                                       bw[b_at], len(chunk))
            # the p-value: the one-sided cluster-bootstrap test, for the cells whose chance
            # units are unweighted (a pooled class keeps the weighted asymptotic p-value)
            plain = [k for k, c in enumerate(chunk) if np.all(bw[bp[c]:bp[c + 1]] == 1)]
            if plain:
                w_start = np.cumsum(w_n) - w_n
                out[2, chunk[plain]] = ks_agreement_tests(
                    x, self.between_distance, within_item=self.sample.item[rows],
                    between_item_a=self.between_items[0], between_item_b=self.between_items[1],
                    within_cells=[np.arange(w_start[k], w_start[k] + w_n[k]) for k in plain],
                    between_cells=[bi[bp[c]:bp[c + 1]] for c in chunk[plain]],
                    n_items=self.n_items, seed=seed)[1]
            del rows, x
        self.sample.release()
        return out
