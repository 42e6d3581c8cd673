"""Grids, bins and observed differences of many cells at once."""

import numpy as np
import pytest
import scipy.sparse as sp

from iaa_frames.errors import ParameterError
from iaa_frames.stats import ks_cells
from iaa_frames.stats.ks_cells import (
    cell_grids,
    check_entries,
    grid_bins,
    segment_sums,
    within_count_blocks,
    within_counts,
)


def test_segment_sums_are_each_cells_numpy_sum_bitwise():
    # numpy sums pairwise, so a sum over the concatenation differs in the last bits: the
    # segments must equal each cell's own .sum(), for lengths across the pairwise blocks
    rng = np.random.default_rng(0)
    sizes = rng.choice([0, 1, 7, 8, 9, 127, 128, 129, 300, 1000], 40)
    cell = np.repeat(np.arange(sizes.size), sizes)
    values = rng.random(cell.size) * rng.random(cell.size)
    got = segment_sums(values, cell, sizes.size + 2)
    start = np.cumsum(sizes) - sizes
    want = [values[a : a + n].sum() for a, n in zip(start, sizes)] + [0.0, 0.0]
    assert np.array_equal(got, want)


@pytest.mark.parametrize("seed", range(20))
def testgrid_bins_are_searchsorted_for_sorted_and_unsorted_keys(seed):
    # ties between keys and grid points, keys below and above the grid, empty sides
    rng = np.random.default_rng(seed)
    grid = np.unique(rng.integers(0, 30, rng.integers(0, 12)))
    key = rng.integers(-3, 34, rng.integers(0, 200))
    for k in (np.sort(key), key):
        got = grid_bins(grid, k)
        assert got.dtype == np.int64
        assert got.tolist() == np.searchsorted(grid, k).tolist()


@pytest.mark.parametrize("max_grid", [2, 3, 10, 256])
def test_grids_are_numpys_inverted_cdf_quantiles(max_grid):
    # a cell with more distinct values than max_grid keeps np.quantile(inverted_cdf) of
    # them and the largest; the others keep all their distinct values
    rng = np.random.default_rng(max_grid)
    span = 10_000
    sizes = [1, max_grid, max_grid + 1, 3 * max_grid + 5, 2000]
    cells = [np.unique(rng.integers(0, span, n)) for n in sizes]
    key = np.concatenate([c * span + v for c, v in enumerate(cells)])
    got = cell_grids(rng.permutation(np.r_[key, key[:50]]), len(cells), span, max_grid)
    want = []
    for c, v in enumerate(cells):
        if v.size > max_grid:
            q = np.quantile(v, np.linspace(0, 1, max_grid), method="inverted_cdf")
            v = np.unique(np.r_[q, v[-1]])
        want.append(c * span + v)
    assert np.array_equal(got, np.concatenate(want))


def test_entries_are_grouped_by_cell_keeping_each_cells_order():
    within = ([4, 3, 2, 1, 0], [1, 0, 1, 0, 1])
    between = ([0, 1, 2], [1, 1, 0])
    (wr, wc), (br, bc, bw) = check_entries(np.zeros(5), np.zeros(3), within, between, None, 2)
    assert wr.tolist() == [3, 1, 4, 2, 0] and wc.tolist() == [0, 0, 1, 1, 1]
    assert br.tolist() == [2, 0, 1] and bw.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ParameterError, match="within entries"):
        check_entries(np.zeros(5), np.zeros(3), ([0], [2]), between, None, 2)


def _count_args(seed, in_order=True):
    """Random within entries of 9 cells (untested ones among them) on 13 items, grouped
    by cell, in the order of their bins within a cell (the engine's) or not: the
    arguments of the within counts."""
    rng = np.random.default_rng(seed)
    n_cells, n_items = 9, 13
    size = rng.integers(1, 12, n_cells)
    tested = rng.random(n_cells) < 0.8
    tested[0] = True
    wc = np.sort(rng.integers(0, n_cells, 300))
    bins = rng.integers(0, size[wc])
    if in_order:
        bins = bins[np.lexsort((bins, wc))]
    wr = rng.permutation(300)
    wi = rng.integers(0, n_items, 300).astype(np.int32)
    offset = np.zeros(n_cells, dtype=np.int64)
    offset[tested] = np.cumsum(size[tested]) - size[tested]
    return (bins.astype(np.int32), wr, wc, wi, offset, size, tested, n_items)


@pytest.mark.parametrize("mark_bytes", [0, 1 << 24])
@pytest.mark.parametrize("chunk", [5, 1 << 20])
def test_distinct_items_per_cell_by_flags_or_by_sort(monkeypatch, mark_bytes, chunk):
    # the items of each cell's entries counted once, whether flagged or sorted, in one
    # group of cells or many; empty cells count 0
    monkeypatch.setattr(ks_cells, "CHUNK_ENTRIES", chunk)
    monkeypatch.setattr(ks_cells, "_MARK_BYTES", mark_bytes)
    rng = np.random.default_rng(chunk)
    n_cells, n_items = 11, 9
    wc = np.sort(rng.integers(0, n_cells, 120))
    wr = rng.permutation(120)
    wi = rng.integers(0, n_items, 120).astype(np.int32)
    got = ks_cells._distinct_items(wi, wr, wc, n_cells, n_items)
    expected = [len(set(wi[wr[wc == c]].tolist())) for c in range(n_cells)]
    assert got.tolist() == expected


@pytest.mark.parametrize("chunk", [5, 40, 1 << 20])
@pytest.mark.parametrize("in_order", [True, False])
def test_within_count_blocks_stack_into_the_counts_by_row(monkeypatch, chunk, in_order):
    # each group of cells counted by item (scipy's conversion from COO), one block per
    # group from grid column 0 on: stacked, the counts by row, with one or many groups,
    # entries in the order of their bins within a cell or not, untested cells among them
    monkeypatch.setattr(ks_cells, "CHUNK_ENTRIES", chunk)
    args = _count_args(chunk, in_order)
    blocks = within_count_blocks(*args)
    starts = [r for r, _ in blocks]
    heights = [m.shape[0] for _, m in blocks]
    assert starts[0] == 0 and starts == list(np.cumsum([0] + heights[:-1]))
    assert len(blocks) > 1 or chunk == 1 << 20
    assert all(m.format == "csc" for _, m in blocks)
    whole = sp.vstack([m for _, m in blocks]).tocsc()
    expected = within_counts(*args).tocsc()
    assert whole.shape == expected.shape and (whole != expected).nnz == 0


@pytest.mark.parametrize("presorted", [True, False])
def test_distinct_values_are_numpys_unique(presorted):
    rng = np.random.default_rng(3)
    x = rng.choice(rng.random(50), 400)
    x = np.sort(x) if presorted else x
    np.testing.assert_array_equal(ks_cells._distinct_values(x), np.unique(x))
    assert ks_cells._distinct_values(np.zeros(0)).size == 0


def test_distinct_items_given_or_counted_give_the_same_differences():
    """The cells' distinct items, given by the caller (the engine's per-item sums), give
    what cell_differences counts itself, bit for bit."""
    rng = np.random.default_rng(4)
    n_rows, n_items, n_cells = 300, 12, 5
    x, y = np.sort(rng.random(n_rows)), np.sort(rng.random(80))
    wi = rng.integers(0, n_items, n_rows)
    wc = np.sort(rng.integers(0, n_cells, 900))
    wr = np.concatenate([np.sort(rng.choice(n_rows, (wc == c).sum())) for c in range(n_cells)])
    bc = np.repeat(np.arange(n_cells), 80)
    br = np.tile(np.arange(80), n_cells)
    args = (x, y, wi, (wr, wc), (br, bc, np.ones(br.size)))
    kw = dict(n_cells=n_cells, n_items=n_items, min_items=3, max_grid=16)
    distinct = np.array([len(np.unique(wi[wr[wc == c]])) for c in range(n_cells)], float)
    want = ks_cells.cell_differences(*args, **kw)
    got = ks_cells.cell_differences(*args, **kw, distinct=distinct)
    for a, b in zip(want[:6], got[:6]):
        np.testing.assert_array_equal(a, b)
