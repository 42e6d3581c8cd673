# Over 400 lines: the KS test's cells step by step (entries, grids, bins, observed differences,
# within counts by row and by item), each bitwise a loop over cells.
"""Grids, bins and observed ECDF differences of many cells at once, for the KS test of
agreement (:mod:`iaa_frames.stats.kstest`).

A cell is a subset of the within rows and of the chance rows; an *entry* is a row in one
cell. Every cell's grid (its distinct pooled values, or ``max_grid`` inverted-CDF pooled
quantiles when it has more) and every entry's bin come from one sort of integer keys
``cell * span + rank of the value``; the observed differences
``F_within - F_between`` are cumulative sums along the rows of a padded
(cells x grid) array, block by block, so each runs as the cell's own: the results are
bitwise those of a loop over cells, without one.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.arrays import sorted_unique
from iaa_frames.errors import ParameterError

from .counts import counts_of_codes
from .segments import cell_groups, search_cells

WHICH = ("within entries", "between entries")

__all__ = [
    "cell_differences",
    "cell_entries",
    "cell_grids",
    "check_entries",
    "check_rows",
    "grid_bins",
    "segment_sums",
    "within_counts",
    "within_count_blocks",
]


def segment_sums(values, cell, n_cells):
    """``values[cell == c].sum()`` for every cell, bitwise as numpy's pairwise sum of each
    cell's values (``cell`` sorted): the cells are gathered by length, one 2-D sum per
    distinct length (few of them), not a loop over cells."""
    count = np.bincount(cell, minlength=n_cells)
    start = np.cumsum(count) - count
    out = np.zeros(n_cells)
    for size in np.unique(count[count > 0]):
        which = np.flatnonzero(count == size)
        out[which] = values[start[which][:, None] + np.arange(size)].sum(axis=1)
    return out


def cell_grids(key, n_cells, span, max_grid):
    """Every cell's grid as sorted keys ``cell * span + rank``: its distinct pooled values,
    or ``max_grid`` inverted-CDF quantiles of them and the largest when there are more
    (as ``np.quantile(..., method="inverted_cdf")`` on each cell)."""
    return _grids_of(sorted_unique(key), n_cells, span, max_grid)


def _grids_of(pooled, n_cells, span, max_grid):
    """:func:`cell_grids` of the sorted distinct keys ``pooled``."""
    cell = pooled // span
    m = np.bincount(cell, minlength=n_cells)
    big = np.flatnonzero(m > max_grid)
    if not big.size:
        return pooled
    keep = np.ones(pooled.size, dtype=bool)
    start = np.cumsum(m) - m
    is_big = np.zeros(n_cells, dtype=bool)
    is_big[big] = True
    keep[is_big[cell]] = False
    q = np.linspace(0, 1, max_grid)
    index = m[big, None] * q[None, :] - 1  # numpy's inverted_cdf virtual index
    below = np.floor(index)
    pick = np.where(index - below == 0, below, below + 1).astype(np.int64)
    pick = np.clip(pick, 0, None)
    pick = np.column_stack([pick, m[big] - 1]) + start[big, None]
    keep[pick.ravel()] = True
    return pooled[keep]


def cell_entries(cells, dtype=np.int64):
    """(entries, cell of each entry, size of each cell) of a sequence of cells."""
    parts = [np.asarray(c, dtype=dtype).ravel() for c in cells]
    sizes = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
    rows = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return rows, np.repeat(np.arange(len(parts)), sizes), sizes


def check_rows(within, between, within_item, between_item_a, between_item_b):
    """The distances (finite floats) and item codes (non-negative integers) of all rows.

    Examples
    --------
    >>> check_rows([0.5], [0.1, 0.2], [0], [0, 1], [1, 0])[2][1].tolist()
    [0, 1]
    """
    x = np.asarray(within, dtype=np.float64).ravel()
    y = np.asarray(between, dtype=np.float64).ravel()
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ParameterError("distances must be finite")
    codes = []
    for values, n, name in (
        (within_item, x.size, "within_item"),
        (between_item_a, y.size, "between_item_a"),
        (between_item_b, y.size, "between_item_b"),
    ):
        arr = np.asarray(values)
        if arr.shape != (n,) or (
            arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0)
        ):
            raise ParameterError(f"{name} must be {n} non-negative integer item codes")
        # the within items in their own signed type (the engine's int32: no int64 copy of
        # every within row; they only enter int64 sums), the chance items in int64 (their
        # pairs' codes a * n_items + b need it)
        keep = name == "within_item" and arr.dtype.kind == "i"
        codes.append(arr if keep else arr.astype(np.int64))
    return x, y, tuple(codes)


def _integers(values) -> np.ndarray:
    """A 1-D array of integer codes, in its own integer type (no int64 copy of int32
    entries); other types as int64."""
    arr = np.asarray(values).ravel()
    return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)


def check_entries(x, y, within, between, weight, n_cells):
    """The within and chance entries checked, grouped by cell (a stable sort: each
    cell's rows keep their order), with the chance entries' weights (default 1).

    Examples
    --------
    >>> (wr, wc), (br, bc, bw) = check_entries(np.zeros(2), np.zeros(1), ([1, 0], [1, 0]),
    ...                                         ([0], [1]), None, 2)
    >>> wr.tolist(), wc.tolist(), bw.tolist()
    ([0, 1], [0, 1], [1.0])
    """
    out = []
    for (rows, cell), size, name in zip((within, between), (x.size, y.size), WHICH):
        rows, cell = _integers(rows), _integers(cell)
        if rows.shape != cell.shape or (
            rows.size
            and (rows.min() < 0 or rows.max() >= size or cell.min() < 0 or cell.max() >= n_cells)
        ):
            raise ParameterError(
                f"{name}: one cell per row, rows in [0, {size}) and cells in [0, {n_cells})"
            )
        out.append([rows, cell])
    rows = out[1][0]
    bw = np.ones(rows.size) if weight is None else np.asarray(weight, dtype=np.float64).ravel()
    if bw.shape != rows.shape or not (np.isfinite(bw).all() and (bw >= 0).all()):
        raise ParameterError("between_weights must be finite, >= 0, one per chance row")
    out[1].append(bw)
    for entries in out:
        if entries[1].size and (entries[1][1:] < entries[1][:-1]).any():
            order = np.argsort(entries[1], kind="stable")
            entries[:] = [a[order] for a in entries]
    return tuple(out[0]), tuple(out[1])


def cell_differences(
    x, y, wi, within, between, *, n_cells, n_items, min_items, max_grid, distinct=None
):
    """Grid sizes, bins, one-sided statistics and observed differences of all cells.

    Parameters
    ----------
    x, y : ndarray of float
        Within and chance distances of all rows.
    wi : ndarray of int
        Item of every within row.
    within : (rows, cell) of ndarray of int
        The within entries, grouped by cell (each cell's rows in their order).
    between : (rows, cell, weight)
        The chance entries, grouped by cell, with their weights.
    n_cells, n_items, min_items, max_grid : int
        As in :func:`iaa_frames.stats.kstest.ks_agreement_tests`.
    distinct : ndarray of float, shape (n_cells,), optional
        Per cell, the distinct items among its within entries, when the caller has
        counted them (the engine's per-item sums:
        :meth:`iaa_frames.core.engine.sigma.SigmaCells.item_counts`); else counted here
        (:func:`_distinct_items`; 1M boxes: 0.1 s a component).

    Returns
    -------
    statistic : ndarray, shape (n_cells,)
        ``max(0, max_t F_within(t) - F_between(t))``; NaN where a side is empty or weighs 0.
    size : ndarray of int, shape (n_cells,)
        Points in every cell's grid.
    bin_w, bin_b : ndarray of int
        Bin (within its cell's grid) of every kept within and chance entry.
    observed : ndarray of float
        The differences at the grid points of the tested cells, one after the other.
    tested : ndarray of bool, shape (n_cells,)
        Cells with both sides and within rows of at least ``min_items`` items.
    within, between
        The entries kept (those of cells with both sides), as given.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.5])
    >>> out = cell_differences(x, y, np.arange(3), (np.arange(3), np.zeros(3, int)),
    ...                        (np.arange(2), np.zeros(2, int), np.ones(2)), n_cells=1,
    ...                        n_items=3, min_items=3, max_grid=256)
    >>> out[0].tolist(), out[1].tolist(), out[4].round(3).tolist()
    ([0.5], [4], [0.333, 0.167, 0.5, 0.0])
    """
    wr, wc = within
    br, bc, bw = between
    # the entries of each cell from a search of the grouped cells (no pass over them)
    n_w = np.diff(search_cells(wc, np.arange(n_cells + 1))).astype(np.float64)
    total = segment_sums(bw, bc, n_cells)  # bitwise each cell's weights.sum()
    valid = (n_w > 0) & (total > 0)
    statistic = np.full(n_cells, np.nan)
    if not valid.any():
        none = np.zeros(0, dtype=np.int64)
        size = np.zeros(n_cells, dtype=np.int64)
        return statistic, size, none, none, np.zeros(0), valid, (wr, wc), (br, bc, bw)
    # the entries of cells left out (only where some cell with entries is)
    if ((n_w > 0) & ~valid).any():
        keep_w = valid[wc]
        wr, wc = wr[keep_w], wc[keep_w]
        del keep_w
    keep_b = valid[bc]
    if not keep_b.all():
        br, bc, bw = br[keep_b], bc[keep_b], bw[keep_b]
    del keep_b
    # keys cell * span + rank of the value: one sort orders every cell's pooled values
    # (ranks among all rows' values, which order the values of every cell alike)
    # (the distinct values of each side merged: no sorted copy of both sides at once;
    # the ranks in int32 where they fit, a chunk at a time)
    values = _sorted_union(_distinct_values(x), _distinct_values(y))
    span = np.int64(values.size)
    rank_x, rank_y = _ranks(values, x), _ranks(values, y)
    del values
    # a group of whole cells at a time: the grid of a cell and the bins of its entries
    # depend on its entries alone
    size = np.zeros(n_cells, dtype=np.int64)
    # bins within a cell's grid (int32: a grid has far fewer points)
    bin_w, bin_b = np.empty(len(wr), dtype=np.int32), np.empty(len(br), dtype=np.int32)
    w_at = search_cells(wc, np.arange(n_cells + 1))
    b_at = search_cells(bc, np.arange(n_cells + 1))
    for c0, c1 in cell_groups(w_at, CHUNK_ENTRIES):  # a loop over groups of cells
        w, b = slice(w_at[c0], w_at[c1]), slice(b_at[c0], b_at[c1])
        kw, kb = _keys(rank_x, wr[w], wc[w], span), _keys(rank_y, br[b], bc[b], span)
        grid = _grids_of(
            _sorted_union(sorted_unique(kw), sorted_unique(kb)), n_cells, span, max_grid
        )
        part = np.bincount(grid // span, minlength=n_cells)  # 0 outside the group
        size += part
        g_start = np.cumsum(part) - part
        # the first grid point at or above, within the cell
        bin_w[w] = grid_bins(grid, kw) - g_start[wc[w]]
        bin_b[b] = grid_bins(grid, kb) - g_start[bc[b]]
        del kw, kb, grid
    del rank_x, rank_y
    # items among each cell's within rows
    if distinct is None:
        distinct = _distinct_items(wi, wr, wc, n_cells, n_items)
    tested_mask = valid & (np.asarray(distinct) >= min_items)
    # observed differences: cells in blocks of a padded (cells x grid) array, whose
    # cumulative sums along a row run as each cell's own
    cells = np.flatnonzero(valid)
    width = int(size[cells].max())
    per_block = max(1, (1 << 20) // width)
    # blocks of at most per_block cells and about CHUNK_ENTRIES within entries
    first = search_cells(wc, cells)
    block_of = np.arange(cells.size) // per_block * (wc.size // CHUNK_ENTRIES + 1)
    block_of += first // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(np.diff(block_of)) + 1, cells.size]
    observed = []
    for lo, hi in zip(edges[:-1], edges[1:]):  # a loop over blocks of cells
        block = cells[lo:hi]
        k = block.size
        w0, w1 = search_cells(wc, [block[0], block[-1] + 1])
        b0, b1 = search_cells(bc, [block[0], block[-1] + 1])
        # the block's row of every within entry: its cells' entries one after the other
        # (the cells between are invalid: no entry), repeated, not searched
        row_w = np.repeat(np.arange(k), n_w[block].astype(np.int64))
        row_b = np.searchsorted(block, bc[b0:b1])
        hx = np.bincount(row_w * width + bin_w[w0:w1], minlength=k * width)
        hy = np.bincount(row_b * width + bin_b[b0:b1], weights=bw[b0:b1], minlength=k * width)
        diff = (
            np.cumsum(hx.reshape(k, width), axis=1) / n_w[block, None]
            - np.cumsum(hy.reshape(k, width), axis=1) / total[block, None]
        )
        statistic[block] = np.maximum(diff.max(axis=1), 0.0)
        t = tested_mask[block]
        observed.append(diff[t][np.arange(width) < size[block[t], None]])
    observed = np.concatenate(observed)
    return statistic, size, bin_w, bin_b, observed, tested_mask, (wr, wc), (br, bc, bw)


def grid_bins(grid, key):
    """``numpy.searchsorted(grid, key)``: the number of grid points below every key. Keys
    in ascending order (the engine's entries, sorted by (cell, value)) count them from
    a search of the few grid points among the many keys instead.

    Examples
    --------
    >>> grid_bins(np.array([2, 5]), np.array([1, 2, 3, 5, 6])).tolist()
    [0, 0, 1, 1, 2]
    """
    if len(key) < 2 or (key[1:] < key[:-1]).any():
        return np.searchsorted(grid, key)
    # grid point i is below the keys from the first one above it on
    first_above = np.searchsorted(key, grid, side="right")
    out = np.bincount(first_above, minlength=len(key) + 1)[: len(key)]
    return np.cumsum(out, out=out)


#: Entries whose keys are formed at a time (bounds the temporaries on millions of entries).
CHUNK_ENTRIES = 1 << 20


def _keys(rank, rows, cell, span) -> np.ndarray:
    """``cell * span + rank[rows]`` (int64), formed :data:`CHUNK_ENTRIES` at a time."""
    out = np.empty(len(rows), dtype=np.int64)
    for lo in range(0, len(rows), CHUNK_ENTRIES):  # a loop over chunks of entries
        part = slice(lo, lo + CHUNK_ENTRIES)
        np.multiply(cell[part], span, out=out[part], dtype=np.int64, casting="unsafe")
        out[part] += rank[rows[part]]
    return out


def _ranks(values, x) -> np.ndarray:
    """``numpy.searchsorted(values, x)``, in int32 when the ranks fit, formed
    :data:`CHUNK_ENTRIES` at a time (no int64 array of them all)."""
    out = np.empty(len(x), dtype=np.int32 if len(values) < 2**31 else np.int64)
    for lo in range(0, len(x), CHUNK_ENTRIES):  # a loop over chunks of rows
        out[lo : lo + CHUNK_ENTRIES] = np.searchsorted(values, x[lo : lo + CHUNK_ENTRIES])
    return out


def _sorted_union(a, b) -> np.ndarray:
    """The sorted distinct values of two sorted arrays of distinct values (the smaller
    one's new values inserted into the larger one, no sort)."""
    if len(a) < len(b):
        a, b = b, a
    at = np.searchsorted(a, b)
    new = (at == len(a)) | (a[np.minimum(at, max(len(a) - 1, 0))] != b) if len(a) else b == b
    return np.insert(a, at[new], b[new]) if new.any() else a


def _distinct_values(x) -> np.ndarray:
    """``numpy.unique(x)`` of finite floats; ascending ``x`` (the engine's KS lists) by
    one comparison of neighbours instead of a sort. (Only the values' order is read of
    them: a zero of either sign compares the same.)

    Examples
    --------
    >>> _distinct_values(np.array([0.1, 0.1, 0.3])).tolist()
    [0.1, 0.3]
    """
    if x.size < 2 or not (x[1:] >= x[:-1]).all():
        return np.unique(x)
    return x[np.r_[True, x[1:] != x[:-1]]]


def _distinct_items(wi, wr, wc, n_cells, n_items) -> np.ndarray:
    """Per cell, the number of distinct items ``wi[wr]`` among its entries (cells
    ``wc`` grouped in ascending order), a group of whole cells at a time."""
    n = np.int64(max(n_items, 1))
    start = search_cells(wc, np.arange(n_cells + 1))
    window = start[:-1] // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(window[1:] != window[:-1]) + 1, n_cells]
    distinct = np.zeros(n_cells, dtype=np.int64)
    for c0, c1 in zip(edges[:-1], edges[1:]):  # a loop over groups of cells
        part = slice(start[c0], start[c1])
        if (c1 - c0) * n <= _MARK_BYTES:
            # a flag per (cell, item) of the group, set by its entries: no sort
            seen = np.zeros((c1 - c0) * n, dtype=bool)
            code = (wc[part] - c0).astype(np.int64)
            code *= n
            code += wi[wr[part]]
            seen[code] = True
            del code
            distinct[c0:c1] += np.count_nonzero(seen.reshape(c1 - c0, n), axis=1)
            del seen
            continue
        pairs = sorted_unique(wc[part] * n + wi[wr[part]])
        distinct += np.bincount(pairs // n, minlength=n_cells)
    return distinct


#: Largest (cells x items) flags of a group of cells :func:`_distinct_items` sets (bytes);
#: beyond, the group's (cell, item) codes are sorted.
_MARK_BYTES = 1 << 24


def _cell_groups(wc, offset, tested_mask):
    """Groups of whole tested cells of about :data:`CHUNK_ENTRIES` within entries each
    (entries grouped by cell, ascending ``wc``): each group's slice of the entries, its
    last cell and its first grid column."""
    tested = np.flatnonzero(tested_mask)
    lo = search_cells(wc, tested, side="left")  # every tested cell's entries
    hi = search_cells(wc, tested, side="right")
    window = lo // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(window[1:] != window[:-1]) + 1, len(tested)]
    for t0, t1 in zip(edges[:-1], edges[1:]):  # a loop over groups of cells
        yield slice(lo[t0], hi[t1 - 1]), tested[t1 - 1], offset[tested[t0]]


def _count_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
    """The counts of :func:`within_counts` a group of whole tested cells of about
    :data:`CHUNK_ENTRIES` entries at a time: for each group, its first grid column and
    the counts of its grid columns (rows) x items (CSR)."""
    for part, last, row0 in _cell_groups(wc, offset, tested_mask):
        cell = wc[part]
        # the entries' flat codes column * n + item, formed in one array (the counts'
        # only copy of the entries: no column and item arrays beside it)
        code = offset[cell] - row0
        code += bin_w[part]
        code *= np.int64(n)
        code += wi[wr[part]]
        keep = tested_mask[cell]  # the entries of untested cells among them left out
        if not keep.all():
            code = code[keep]
        del cell, keep
        # float32 counts (exact below 2**24): the matrix is multiplied in float32
        m = counts_of_codes(code, (offset[last] + size[last] - row0, n), np.float32)
        del code
        yield int(row0), m
        del m


def within_counts(bin_w, wr, wc, wi, offset, size, tested_mask, n) -> sp.csr_matrix:
    """The (grid column x item) counts of the within entries of the tested cells: the
    :func:`~iaa_frames.stats.counts.count_matrix` of their columns ``offset[cell] + bin``
    and items ``wi[row]`` (entries grouped by cell, ascending), built for a group of
    whole cells of about :data:`CHUNK_ENTRIES` entries at a time: the same matrix,
    without the temporaries of all entries at once (for
    :func:`iaa_frames.stats.kstest.ks_agreement_entries`). The counts are float32 where
    exact (:func:`~iaa_frames.stats.counts.count_matrix`)."""
    width = int(size[tested_mask].sum())
    data, indices, per_row = [], [], []
    for _, m in _count_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
        data.append(m.data)
        indices.append(m.indices)
        per_row.append(np.diff(m.indptr))
        del m
    indptr = np.zeros(width + 1, dtype=np.int64)
    if per_row:
        np.cumsum(np.concatenate(per_row), out=indptr[1:])
    join = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)
    return sp.csr_matrix(
        (join(data, np.float32), join(indices, np.int32), indptr), shape=(width, n)
    )


def within_count_blocks(bin_w, wr, wc, wi, offset, size, tested_mask, n) -> list:
    """:func:`within_counts` stored by item, as vertical blocks, one per group of whole
    tested cells: a list of ``(first grid column, CSC counts of the group's grid columns
    x items)``, each group counted once by item (:func:`_item_chunks`: scipy's conversion
    from COO, a counting sort) and never assembled into one matrix
    (:meth:`iaa_frames.stats.counts.CountMatrix.of_row_blocks` multiplies them block by
    block).

    Examples
    --------
    >>> args = (np.array([0, 1, 0]), np.array([0, 1, 2]), np.array([0, 0, 1]),
    ...         np.array([1, 0, 1]), np.array([0, 2]), np.array([2, 1]),
    ...         np.array([True, True]), 2)
    >>> blocks = within_count_blocks(*args)
    >>> whole = sp.vstack([m for _, m in blocks])
    >>> [r for r, _ in blocks], (whole != within_counts(*args)).nnz
    ([0], 0)
    """
    return list(_item_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n))


def _item_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
    """The counts of :func:`_count_chunks` by item (CSC, float32: a group holds far
    fewer than 2**24 entries), each group of cells with its first grid column: scipy's
    conversion from COO, a counting sort by item that keeps the entries' order (by
    grid column where the entries come sorted, as the engine's), then sums the
    duplicates (sorting an item's columns first where they are not)."""
    for part, last, row0 in _cell_groups(wc, offset, tested_mask):
        shape = (int(offset[last] + size[last] - row0), n)
        # the entries' grid columns (int32 where they fit, as scipy would store them)
        small = max(shape) <= np.iinfo(np.int32).max
        cell = wc[part]
        column = (offset - row0).astype(np.int32 if small else np.int64)[cell]
        column += bin_w[part]
        item = wi[wr[part]]
        keep = tested_mask[cell]  # the entries of untested cells among them left out
        if not keep.all():
            column, item = column[keep], item[keep]
        del cell, keep
        m = sp.coo_matrix(
            (np.ones(len(column), dtype=np.float32), (column, item)), shape=shape
        ).tocsc()
        del column, item
        m.sum_duplicates()  # canonical: each item's columns ascending, once
        yield int(row0), m
        del m
