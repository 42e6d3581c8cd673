"""Cluster bootstrap over items: replicate weights of the stored table rows.

A replicate draws ``n_items`` items with replacement; item ``i`` is drawn ``k_i`` times
(its *multiplicity*). Nothing geometric is recomputed: the rows of the stored pair and unit
tables are reweighted. When items come in groups (the ``group`` column: frames of one
video, copies of one image), the items of a group are not independent: a replicate draws
the groups with replacement instead, and every item of a group drawn ``k`` times has
multiplicity ``k`` (``clusters=`` of :func:`multiplicity_blocks` and
:func:`jackknife_blocks`).

* A row that belongs to one item (a within-item pair, a cluster, a pair of values in a
  cluster) weighs ``k_i``: the item's rows appear ``k_i`` times in the resampled corpus.
* A between-item (chance) row pairing items ``i`` and ``j`` weighs ``k_i * k_j``: the number
  of copies of that pairing among the pairings of the resampled corpus, so the chance
  sample is reweighted exactly as the corpus it stands for.

Every statistic of the agreement table is a function of *sums* of row values (counts,
sums of distances, coincidences) that are linear in these weights. A table is therefore
summarised once, as a sparse matrix of per-item (or per-row) contributions to every cell
(:class:`ItemSums`, :class:`PairSums`), and a block of replicates costs one sparse-dense
product.

The intervals built on the replicates are in :mod:`iaa_frames.stats.intervals`.

Examples
--------
>>> import numpy as np
>>> from iaa_frames.stats.bootstrap import ItemSums, multiplicity_blocks
>>> sums = ItemSums.from_entries(item=[0, 1, 1], column=[0, 0, 1], value=[1.0, 2.0, 5.0],
...                              n_items=2, n_columns=2)
>>> sums.total()
array([3., 5.])
>>> sums.total(np.array([[2, 0], [0, 2]]))
array([[ 2.,  0.],
       [ 4., 10.]])
>>> [block.shape for block in multiplicity_blocks(4, 5, seed=0, block_size=2)]
[(2, 4), (2, 4), (1, 4)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import InitVar, dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .grouped_sums import sum_rows_by_key

__all__ = [
    "ItemSums",
    "PairSums",
    "block_size",
    "jackknife_blocks",
    "multiplicity_blocks",
]

#: Key of the bootstrap's random stream, so that it differs from the chance sample's even
#: when both use the same seed.
_STREAM = 0xB0075
#: Replicates are processed in blocks of about this many (replicate x column) elements.
BLOCK_ELEMENTS = 1 << 22
#: Pair weights (pairs x replicates) :meth:`PairSums.total` forms at a time: a block
#: that stays in the cache while the product reads it (LVIS, 13,673 pairs of items:
#: blocks of 38 replicates, a quarter faster than the 200 at once; the replicates'
#: columns are computed alone, so the blocks do not change them).
PAIR_BLOCK_ELEMENTS = 1 << 19
#: Fewest replicates of a block of :meth:`PairSums.total` (unless memory bounds it lower).
PAIR_MIN_BLOCK = 32
#: Largest number of groups of the jackknife that estimates the BCa acceleration.
JACKKNIFE_GROUPS = 200


def block_size(n_boot: int, width: int) -> int:
    """Replicates per block so that a (block, width) float array stays near
    :data:`BLOCK_ELEMENTS` elements.

    Examples
    --------
    >>> block_size(200, 1 << 21)
    2
    """
    return int(max(1, min(n_boot, BLOCK_ELEMENTS // max(width, 1))))


def multiplicity_blocks(
    n_items: int, n_boot: int, *, seed: int = 0, block_size: int = 64, clusters=None
) -> Iterator[np.ndarray]:
    """Item multiplicities of ``n_boot`` replicates, in blocks of replicates.

    Each replicate draws ``n_items`` items uniformly with replacement; row ``b`` of a
    block holds how many times each item was drawn (it sums to ``n_items``). The draws
    come from one seeded stream consumed in replicate order, so the replicates do not
    depend on ``block_size``.

    Parameters
    ----------
    n_items : int
        Number of items (clusters of the bootstrap).
    n_boot : int
        Number of replicates.
    seed : int, default 0
        Seed of the stream (``numpy.random.default_rng([seed, _STREAM])``, distinct from
        the stream of the chance sample with the same seed).
    block_size : int, default 64
        Replicates per block (the last block may be smaller).
    clusters : array-like of int, shape (n_items,), optional
        The cluster (group) of every item, ``0 .. C - 1``: each replicate draws the
        ``C`` clusters with replacement, and every item takes the multiplicity of its
        cluster (rows then sum to the number of items of the drawn clusters). Without
        it every item is a cluster (the same stream as with ``clusters=arange(n_items)``).

    Yields
    ------
    numpy.ndarray of int32, shape (b, n_items)

    Examples
    --------
    >>> blocks = list(multiplicity_blocks(3, 2, seed=1))
    >>> blocks[0].sum(axis=1).tolist()
    [3, 3]
    >>> k = next(multiplicity_blocks(4, 3, seed=1, clusters=[0, 0, 1, 1]))
    >>> bool((k[:, 0] == k[:, 1]).all() and (k[:, 2] == k[:, 3]).all())
    True
    """
    if clusters is not None:
        clusters = np.asarray(clusters, dtype=np.int64)
        n_clusters = int(clusters.max(initial=-1)) + 1
        for k in multiplicity_blocks(n_clusters, n_boot, seed=seed, block_size=block_size):
            k = k[:, clusters]  # the clusters' block is not held while the items' is used
            yield k
        return
    rng = np.random.default_rng([seed, _STREAM])
    for start in range(0, n_boot, block_size):  # blocks of replicates, not items
        # the draws are released before the block is yielded (not held while it is used)
        yield _drawn_block(rng, min(block_size, n_boot - start), n_items)


def _drawn_block(rng: np.random.Generator, b: int, n_items: int) -> np.ndarray:
    """The multiplicities of the next ``b`` replicates of the stream ``rng`` (int32,
    shape (b, n_items)); the int64 draws are offset in place and freed on return."""
    if not n_items:
        return np.zeros((b, 0), dtype=np.int32)
    draws = rng.integers(0, n_items, size=(b, n_items))
    draws += (np.arange(b) * n_items)[:, None]
    counts = np.bincount(draws.ravel(), minlength=b * n_items)
    del draws
    return counts.reshape(b, n_items).astype(np.int32)


def jackknife_blocks(
    n_items: int, *, n_groups: int = JACKKNIFE_GROUPS, block_size: int = 64, clusters=None
) -> Iterator[np.ndarray]:
    """Item multiplicities of a grouped delete-a-group jackknife, in blocks.

    Items are dealt into ``g = min(n_items, n_groups)`` groups by code (item ``i`` in
    group ``i % g``); replicate ``j`` leaves group ``j`` out (multiplicity 0) and keeps
    every other item once. With ``n_items <= n_groups`` it is the delete-one jackknife.

    Parameters
    ----------
    n_items : int
        Number of items.
    n_groups : int, default 200
        Largest number of groups.
    block_size : int, default 64
        Replicates per block.
    clusters : array-like of int, shape (n_items,), optional
        The cluster (group) of every item, ``0 .. C - 1``: clusters are dealt into the
        jackknife groups (cluster ``c`` in group ``c % g``, ``g = min(C, n_groups)``)
        and leave together. Without it every item is a cluster.

    Yields
    ------
    numpy.ndarray of int32, shape (b, n_items)

    Examples
    --------
    >>> np.concatenate(list(jackknife_blocks(3))).tolist()
    [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    >>> next(jackknife_blocks(4, n_groups=2)).tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0]]
    >>> next(jackknife_blocks(3, clusters=[0, 1, 0])).tolist()
    [[0, 1, 0], [1, 0, 1]]
    """
    if clusters is None:
        cluster, n_clusters = np.arange(n_items), n_items
    else:
        cluster = np.asarray(clusters, dtype=np.int64)
        n_clusters = int(cluster.max(initial=-1)) + 1
    g = min(n_clusters, n_groups)
    group = cluster % max(g, 1)
    for start in range(0, g, block_size):  # blocks of replicates, not items
        j = np.arange(start, min(g, start + block_size))
        yield (group[None, :] != j[:, None]).astype(np.int32)


def _codes(values) -> np.ndarray:
    """Integer codes in their own integer type (int32 entries are not copied to int64
    and back), other types as int64."""
    arr = np.asarray(values)
    return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)


@dataclass(frozen=True, eq=False)
class ItemSums:
    """Per-item contributions to a set of columns (cells x quantities).

    ``matrix[i, c]`` is the sum of column ``c``'s row values over the rows of item ``i``;
    a replicate's column totals are ``k @ matrix`` for multiplicities ``k``.
    """

    matrix: sp.csr_matrix

    @cached_property
    def _sums(self) -> np.ndarray:
        """The column totals, summed on the first call (the statistics read them several
        times)."""
        return np.asarray(self.matrix.sum(axis=0)).ravel()

    def column_items(self, stop: int) -> np.ndarray:
        """Per column below ``stop``, the number of items whose sum in it is not 0 (an
        item "enters" a cell when one of its rows counts in it), counted once per
        ``stop``: cells that share these sums share the count (the engine's KS tests
        and its result read it). A copy.

        Examples
        --------
        >>> ItemSums(sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))).column_items(2)
        array([2., 1.])
        """
        counted = self.__dict__.setdefault("_column_items", {})
        if stop not in counted:
            block = sp.csc_matrix(self.matrix[:, :stop])
            block.eliminate_zeros()
            counted[stop] = np.diff(block.indptr).astype(np.float64)
        return counted[stop].copy()

    @classmethod
    def from_entries(cls, item, column, value, *, n_items: int, n_columns: int) -> ItemSums:
        """Sum ``value`` into ``(item, column)``; duplicates add up.

        Parameters
        ----------
        item, column : array-like of int
            Item code and column of every entry.
        value : array-like of float
            Value of every entry.
        n_items, n_columns : int
            Shape of the matrix.
        """
        m = sp.coo_matrix(
            (np.asarray(value, dtype=np.float64), (_codes(item), _codes(column))),
            shape=(n_items, n_columns),
        ).tocsr()
        m.sum_duplicates()
        return cls(m)

    def total(self, multiplicities: np.ndarray | None = None) -> np.ndarray:
        """Column totals: ``(n_columns,)``, or ``(b, n_columns)`` for a (b, n_items) block of
        multiplicities."""
        if multiplicities is None:
            return self._sums.copy()
        k = np.asarray(multiplicities, dtype=np.float64)
        return np.asarray(self.matrix.T @ k.T).T


@dataclass(frozen=True, eq=False)
class PairSums:
    """Per-row contributions of rows that pair two items (chance rows).

    Row ``r`` weighs ``k[item_a[r]] * k[item_b[r]]`` in a replicate with multiplicities
    ``k``. The weight is the same for every row of one unordered pair of items, so rows
    are summed per pair when built: a replicate costs one weight per pair of items, not
    per row. After construction ``item_a``, ``item_b`` and ``matrix`` hold one row per
    distinct pair of items (``item_a <= item_b``) with a stored entry: a pair whose rows
    count in no column (chance rows drawn for cells of another layout, such as the
    pairs of annotators) would only cost its weight in every replicate.

    With ``scales`` (each None or one factor per row), the rows are those of
    ``hstack([diag(s) @ matrix for s in scales])``, summed without building that matrix.
    """

    item_a: np.ndarray
    item_b: np.ndarray
    matrix: sp.csr_matrix

    scales: InitVar[tuple | None] = None

    def __post_init__(self, scales):
        a = np.asarray(self.item_a, dtype=np.int64)
        b = np.asarray(self.item_b, dtype=np.int64)
        n = int(max(a.max(initial=0), b.max(initial=0))) + 1
        pair, matrix = sum_rows_by_key(
            np.minimum(a, b) * n + np.maximum(a, b), self.matrix, scales or (None,)
        )
        stored = np.diff(matrix.indptr) > 0
        if not stored.all():  # the others add nothing to any sum, in any replicate
            pair, matrix = pair[stored], matrix[stored]
        object.__setattr__(self, "item_a", pair // n)
        object.__setattr__(self, "item_b", pair % n)
        object.__setattr__(self, "matrix", matrix)

    @cached_property
    def _by_column(self) -> sp.csr_matrix:
        """The matrix transposed (columns x pairs), built on the first replicate."""
        return self.matrix.T.tocsr()

    @cached_property
    def _sums(self) -> np.ndarray:
        """The column totals, summed on the first call (the statistics read them several
        times)."""
        return np.asarray(self.matrix.sum(axis=0)).ravel()

    @classmethod
    def from_entries(cls, item_a, item_b, row, column, value, *, n_columns: int) -> PairSums:
        """Sum ``value`` into ``(row, column)``; rows pair ``item_a[row]`` and
        ``item_b[row]``.

        Parameters
        ----------
        item_a, item_b : array-like of int, shape (n_rows,)
            The two items of every row.
        row, column : array-like of int
            Row and column of every entry.
        value : array-like of float
            Value of every entry.
        n_columns : int
            Number of columns.
        """
        item_a = np.asarray(item_a, dtype=np.int64)
        m = sp.coo_matrix(
            (
                np.asarray(value, dtype=np.float64),
                (np.asarray(row, dtype=np.int64), np.asarray(column, dtype=np.int64)),
            ),
            shape=(len(item_a), n_columns),
        ).tocsr()
        m.sum_duplicates()
        return cls(item_a, np.asarray(item_b, dtype=np.int64), m)

    def total(self, multiplicities: np.ndarray | None = None) -> np.ndarray:
        """Column totals: ``(n_columns,)``, or ``(b, n_columns)`` for a (b, n_items) block of
        multiplicities (row weights ``k_a * k_b``, built in sub-blocks of
        :data:`PAIR_BLOCK_ELEMENTS`)."""
        if multiplicities is None:
            return self._sums.copy()
        return self.totals_of(multiplicities, [self._by_column])[0]

    def by_column(self, columns=slice(None)) -> sp.csr_matrix:
        """The given columns of the matrix, transposed (columns x pairs, CSR): what
        :meth:`totals_of` multiplies."""
        if columns == slice(None):
            return self._by_column
        return sp.csr_matrix(self._by_column[columns])

    def totals_of(self, multiplicities: np.ndarray, matrices) -> list:
        """The totals ``(b, columns)`` of every (columns x pairs) matrix of ``matrices``
        (:meth:`by_column` of these sums, or of others over the same pairs) for a (b,
        n_items) block of multiplicities, each block's pair weights formed once for all
        of them: those of :meth:`total`, bit for bit (a product sums every column
        alone)."""
        k = np.asarray(multiplicities, dtype=np.float64)
        # a cache-sized block of replicates, of at least PAIR_MIN_BLOCK (each block reads
        # the whole matrix: the 1M boxes' chance pairs would read it forty times), and
        # at most the block that bounds memory
        pairs = max(len(self.item_a), 1)
        fits = max(PAIR_BLOCK_ELEMENTS // pairs, PAIR_MIN_BLOCK)
        step = int(max(1, min(len(k), fits, block_size(len(k), pairs))))
        # items x replicates: rows of a block of item-major multiplicities (the engine's)
        # are gathered whole, and the (pairs x block) weights multiply as they are
        kt = k.T
        parts = [[] for _ in matrices]
        for start in range(0, len(k), step):  # blocks of replicates, not rows
            kb = kt[:, start : start + step]
            weights = kb[self.item_a]
            weights *= kb[self.item_b]  # in place: two (pairs x block) arrays, not three
            for part, mt in zip(parts, matrices):  # a few matrices
                part.append(np.asarray(mt @ weights).T)
            del weights
        return [
            np.concatenate(part, axis=0) if part else np.zeros((0, mt.shape[0]))
            for part, mt in zip(parts, matrices)
        ]
