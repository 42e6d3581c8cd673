"""The one-sided KS test of agreement with a cluster bootstrap over items.

The replicates' ECDFs at the grid columns with entries, bitwise those of running sums
over every column.

Grids, bins and observed differences of many cells at once.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats
from oracles import ks_agreement_tests_loop

from iaa_frames.errors import ParameterError
from iaa_frames.stats import kstest
from iaa_frames.stats.kstest import (
    RunningColumns,
    Screen,
    cell_grids,
    check_entries,
    grid_bins,
    ks_agreement_entries,
    ks_agreement_test,
    ks_agreement_tests,
    segment_sums,
    within_count_blocks,
    within_counts,
)


def every_column(product, starts, sizes):
    """The reference: running sums over every column, restarted at every cell by
    subtracting the sum before its first column, over the cell's total (as the test
    computed them column by column)."""
    cum = np.cumsum(product, axis=0)
    ends = starts + sizes - 1
    base = np.where((starts > 0)[:, None], cum[np.maximum(starts - 1, 0)], 0.0)
    cum -= np.repeat(base, sizes, axis=0)
    total = cum[ends]
    with np.errstate(invalid="ignore", divide="ignore"):
        cum /= np.repeat(total, sizes, axis=0)
    return cum.T, total.T


@pytest.mark.parametrize("empty", [0.0, 0.3, 0.7, 0.95])
@pytest.mark.parametrize(("seed", "block"), [(0, 6), (1, 5), (2, 1)])
def test_ecdfs_at_the_kept_columns_are_those_of_every_column_bitwise(empty, seed, block):
    # replicates summed in pairs (complex numbers): an odd block gets a column of zeros
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, 25)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    width = int(sizes.sum())
    # fractional weights (the float sums depend on their order) and empty columns,
    # some cells without any entry, some whose first columns are empty
    product = rng.random((width, block)) * rng.integers(0, 4, (width, block))
    has = rng.random(width) >= empty
    has[np.repeat(rng.random(len(sizes)) < 0.1, sizes)] = False
    product[~has] = 0.0
    ref, ref_total = every_column(product, starts, sizes)
    cols = RunningColumns(has, starts, sizes)
    shares, total = cols.shares(product[cols.kept])
    np.testing.assert_array_equal(total, ref_total)
    ok = total > 0  # a cell of total 0 is not used (its ECDF is 0 / 0)
    got = cols.values(shares)
    assert np.array_equal(got[np.repeat(ok, sizes, axis=1)], ref[np.repeat(ok, sizes, axis=1)])
    for rows in {block, block + block % 2}:  # the block's rows, or one more (no copy)
        out = np.full((rows, width), np.nan)
        assert np.array_equal(cols.values(shares, out=out)[:block], got, equal_nan=True)


def test_float32_products_give_the_float64_sums():
    rng = np.random.default_rng(5)
    sizes = np.array([3, 5, 4])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    product = rng.integers(0, 1000, (12, 4)).astype(np.float32)
    product[[1, 6, 7]] = 0
    has = product.any(axis=1)
    cols = RunningColumns(has, starts, sizes)
    shares, total = cols.shares(product[cols.kept])
    ref, ref_total = every_column(product.astype(np.float64), starts, sizes)
    np.testing.assert_array_equal(cols.values(shares), ref)
    np.testing.assert_array_equal(total, ref_total)


def _dense_hits(x_cols, y_cols, x_product, y_product, observed, starts, threshold, widen):
    """The reference of :class:`Screen`: every column's widened difference, its maximum
    per cell, against the threshold (as the test computed them before the screen)."""
    fx, tx = x_cols.shares(x_product)
    x = x_cols.values(fx).copy()
    fy, ty = y_cols.shares(y_product)
    diff = x - y_cols.values(fy)
    diff -= observed
    t = np.maximum.reduceat(diff, starts, axis=1)
    t *= widen
    ok = (tx > 0) & (ty > 0)
    return ok & (t >= threshold), ok


@pytest.mark.parametrize("run", [1, 3, 16])
@pytest.mark.parametrize("seed", range(6))
def test_screen_decides_as_every_column_bitwise(monkeypatch, run, seed):
    # bounds per run of columns, then the columns of the open runs one by one, against
    # the differences at every column; thresholds at the replicates' own maxima (the
    # ties of >=), just above them and random, empty columns on both sides
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "RUN_COLUMNS", run)
    monkeypatch.setattr(kstest, "MAX_OPEN_SHARE", 1.0)  # never every column
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 60, 30)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    width, block = int(sizes.sum()), int(rng.choice([5, 6]))
    x_has, y_has = rng.random(width) < rng.random(), rng.random(width) < 0.8
    x_cols, y_cols = RunningColumns(x_has, starts, sizes), RunningColumns(y_has, starts, sizes)
    xp = rng.integers(0, 5, (width, block)).astype(np.float32)
    yp = rng.random((width, block)) * rng.integers(0, 3, (width, block))
    observed = rng.normal(0.0, 0.2, width)
    widen = float(rng.choice([1.0, np.sqrt(7 / 6)]))
    xk, yk = xp[x_cols.kept], yp[y_cols.kept]
    # the widened maxima of one replicate (rounded as the test rounds them), as thresholds
    fx, _ = x_cols.shares(xk)
    x = x_cols.values(fx).copy()
    fy, _ = y_cols.shares(yk)
    t = np.maximum.reduceat(x - y_cols.values(fy) - observed, starts, axis=1) * widen
    pick = rng.integers(0, block, len(sizes))
    threshold = t[pick, np.arange(len(sizes))]
    threshold[::3] = np.nextafter(threshold[::3], np.inf)
    threshold[1::5] = rng.uniform(-0.5, 1.0, threshold[1::5].size)
    threshold = np.where(np.isfinite(threshold), threshold, 0.3)
    want, ok = _dense_hits(x_cols, y_cols, xk, yk, observed, starts, threshold, widen)
    screen = Screen(x_cols, y_cols, starts, sizes, observed, threshold, widen)
    k = block + block % 2  # the sums of an odd block carry a replicate of zeros
    xs = x_cols.running(np.concatenate([xk, np.zeros((len(xk), k - block), xk.dtype)], 1))
    ys = y_cols.running(np.concatenate([yk, np.zeros((len(yk), k - block))], 1))
    got = screen.exceeds(xs, ys, ok)
    np.testing.assert_array_equal(got, want)
    assert want.any() and (ok & ~want).any()  # hits at the ties, and misses


def test_shares_read_at_some_columns_are_those_of_every_column():
    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 30, 12)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    width = int(sizes.sum())
    has = rng.random(width) < 0.5
    cols = RunningColumns(has, starts, sizes)
    product = rng.random((cols.kept.size, 4))
    cell = np.repeat(np.arange(len(sizes)), sizes)
    sums = cols.running(product)
    rep = rng.integers(0, 4, 50)
    col = rng.integers(0, width, 50)
    at = cols.at(*sums, rep, cols.columns(col), cell[col])
    shares, total = cols.shares(product)
    ok = total[rep, cell[col]] > 0
    np.testing.assert_array_equal(at[ok], cols.values(shares)[rep, col][ok])


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
    monkeypatch.setattr(kstest, "CHUNK_ENTRIES", chunk)
    monkeypatch.setattr(kstest, "_MARK_BYTES", mark_bytes)
    rng = np.random.default_rng(chunk)
    n_cells, n_items = 11, 9
    wc = np.sort(rng.integers(0, n_cells, 120))
    wr = rng.permutation(120)
    wi = rng.integers(0, n_items, 120).astype(np.int32)
    got = kstest._distinct_items(wi, wr, wc, n_cells, n_items)
    expected = [len(set(wi[wr[wc == c]].tolist())) for c in range(n_cells)]
    assert got.tolist() == expected


@pytest.mark.parametrize("chunk", [5, 40, 1 << 20])
@pytest.mark.parametrize("in_order", [True, False])
def test_within_count_blocks_stack_into_the_counts_by_row(monkeypatch, chunk, in_order):
    # each group of cells counted by item (scipy's conversion from COO), one block per
    # group from grid column 0 on: stacked, the counts by row, with one or many groups,
    # entries in the order of their bins within a cell or not, untested cells among them
    monkeypatch.setattr(kstest, "CHUNK_ENTRIES", chunk)
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
    np.testing.assert_array_equal(kstest._distinct_values(x), np.unique(x))
    assert kstest._distinct_values(np.zeros(0)).size == 0


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
    want = kstest.cell_differences(*args, **kw)
    got = kstest.cell_differences(*args, **kw, distinct=distinct)
    for a, b in zip(want[:6], got[:6]):
        np.testing.assert_array_equal(a, b)


def clustered(rng, n_items=20, per_item=5, n_between=120, shift=0.0, spread=1.0, shared=True):
    """Distances with strong item effects. Within rows of item i: u_i + e; chance rows
    of items (i, j): (v_i + v_j) / sqrt(2) + e, with v = u (``shared``: the chance rows
    reuse the items' effects) or independent effects. Both have the same marginal law
    (no agreement) unless ``shift`` moves the within rows down."""
    u = rng.normal(0.0, spread, n_items)
    v = u if shared else rng.normal(0.0, spread, n_items)
    wi = np.repeat(np.arange(n_items), per_item)
    x = u[wi] + rng.normal(0.0, 0.3, wi.size) - shift
    a = rng.integers(0, n_items, n_between)
    b = (a + rng.integers(1, n_items, n_between)) % n_items
    y = (v[a] + v[b]) / np.sqrt(2.0) + rng.normal(0.0, 0.3, n_between)
    return x, y, wi, a, b


def test_statistic_is_the_one_sided_ks_statistic():
    rng = np.random.default_rng(0)
    x, y, wi, a, b = clustered(rng, shift=0.5)
    res = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    # scipy's "greater": max over t of F_within(t) - F_between(t)
    ref = scipy.stats.ks_2samp(x, y, alternative="greater")
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)
    assert res.n_resamples == 199


@pytest.mark.parametrize("shared", [True, False])
def test_false_positive_rate_under_clustering(shared):
    # the cluster bootstrap keeps the level (Monte-Carlo standard error about 1.5
    # points); where the chance rows do not share the within rows' item effects, scipy
    # (independent rows) rejects far too often
    rng = np.random.default_rng(1)
    ours, naive = [], []
    for r in range(200):
        x, y, wi, a, b = clustered(rng, shared=shared)
        ours.append(
            ks_agreement_test(
                x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=r
            ).pvalue
            < 0.05
        )
        naive.append(scipy.stats.ks_2samp(x, y, alternative="greater").pvalue < 0.05)
    assert np.mean(ours) <= 0.08
    if not shared:
        assert np.mean(naive) >= 0.15


def test_power_against_agreement():
    rng = np.random.default_rng(2)
    rejected = [
        ks_agreement_test(
            *clustered(rng, shift=1.5)[:2],
            within_item=np.repeat(np.arange(20), 5),
            between_item_a=np.zeros(120, int),
            between_item_b=np.ones(120, int),
            seed=r,
        ).pvalue
        < 0.05
        for r in range(20)
    ]
    assert np.mean(rejected) >= 0.9
    # disagreement (within above chance) is not agreement
    x, y, wi, a, b = clustered(rng, shift=-2.0)
    res = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    assert res.pvalue > 0.5


def test_too_few_items_gives_no_pvalue():
    rng = np.random.default_rng(3)
    x, y, wi, a, b = clustered(rng, n_items=6)
    two = np.isin(wi, [0, 1])
    res = ks_agreement_test(
        x[two], y, within_item=wi[two], between_item_a=a, between_item_b=b, n_items=6
    )
    assert np.isfinite(res.statistic) and np.isnan(res.pvalue) and res.n_resamples == 0
    three = np.isin(wi, [0, 1, 2])
    assert np.isfinite(
        ks_agreement_test(
            x[three], y, within_item=wi[three], between_item_a=a, between_item_b=b, n_items=6
        ).pvalue
    )


def test_empty_samples():
    res = ks_agreement_test(
        [], [0.1, 0.2], within_item=[], between_item_a=[0, 1], between_item_b=[1, 0]
    )
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_seeded_and_cells_equal_single_tests():
    rng = np.random.default_rng(4)
    x, y, wi, a, b = clustered(rng, shift=0.2)
    one = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=9)
    again = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=9)
    assert one == again
    cells_w = [np.arange(x.size), np.flatnonzero(wi < 10), np.flatnonzero(wi < 2)]
    cells_b = [np.arange(y.size), np.flatnonzero(a < 10), np.arange(y.size)]
    stat, p, used = ks_agreement_tests(
        x,
        y,
        within_item=wi,
        between_item_a=a,
        between_item_b=b,
        within_cells=cells_w,
        between_cells=cells_b,
        n_items=20,
        seed=9,
    )
    for c in range(3):
        single = ks_agreement_test(
            x[cells_w[c]],
            y[cells_b[c]],
            within_item=wi[cells_w[c]],
            between_item_a=a[cells_b[c]],
            between_item_b=b[cells_b[c]],
            n_items=20,
            seed=9,
        )
        assert stat[c] == pytest.approx(single.statistic)
        assert p[c] == pytest.approx(single.pvalue, nan_ok=True)
        assert used[c] == single.n_resamples
    assert np.isnan(p[2])


def test_coarse_grid_for_large_samples():
    rng = np.random.default_rng(5)
    x, y, wi, a, b = clustered(rng, n_items=50, per_item=40, n_between=3000, shift=0.3)
    fine = ks_agreement_test(
        x, y, within_item=wi, between_item_a=a, between_item_b=b, max_grid=100_000
    )
    coarse = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    assert coarse.statistic <= fine.statistic + 1e-12
    assert coarse.statistic == pytest.approx(fine.statistic, abs=0.01)
    assert (coarse.pvalue < 0.05) == (fine.pvalue < 0.05)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_resamples": 0}, "n_resamples"),
        ({"seed": -1}, "seed"),
        ({"min_items": 0}, "min_items"),
        ({"n_items": 1}, "n_items"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        ks_agreement_test(
            [0.1, 0.2, 0.3],
            [0.5, 0.6],
            within_item=[0, 1, 2],
            between_item_a=[0, 1],
            between_item_b=[1, 2],
            **kwargs,
        )


def test_bad_item_codes():
    with pytest.raises(ParameterError, match="within_item"):
        ks_agreement_test(
            [0.1, 0.2], [0.5], within_item=[0], between_item_a=[0], between_item_b=[1]
        )
    with pytest.raises(ParameterError, match="finite"):
        ks_agreement_test([np.nan], [0.5], within_item=[0], between_item_a=[0], between_item_b=[1])


def _random_cells(rng, *, weighted, discrete, max_grid):
    """Rows with ties (discrete) or not, cells of random rows (some empty, repeated rows,
    few items), weights with zeros (some cells weigh nothing)."""
    n_items = int(rng.integers(1, 12))
    nx, ny = int(rng.integers(0, 300)), int(rng.integers(0, 700))
    draw = (lambda k: rng.integers(0, 25, k) / 7) if discrete else rng.random
    x, y = draw(nx), draw(ny)
    wi = rng.integers(0, n_items, nx)
    a, b = rng.integers(0, n_items, ny), rng.integers(0, n_items, ny)

    def cell(size):
        if not size or rng.random() < 0.15:
            return np.zeros(0, dtype=np.int64)
        return rng.choice(size, int(rng.integers(0, size + 1)), replace=bool(rng.random() < 0.3))

    n_cells = int(rng.integers(1, 15))
    wc = [cell(nx) for _ in range(n_cells)]
    bc = [cell(ny) for _ in range(n_cells)]
    bw = [rng.random(c.size) * (rng.random(c.size) < 0.8) for c in bc] if weighted else None
    kwargs = dict(
        within_item=wi,
        between_item_a=a,
        between_item_b=b,
        within_cells=wc,
        between_cells=bc,
        between_weights=bw,
        n_items=n_items + int(rng.integers(0, 2)),
        seed=int(rng.integers(0, 5)),
        min_items=int(rng.integers(1, 4)),
        max_grid=max_grid,
        n_resamples=int(rng.choice([19, 99])),
    )
    return x, y, kwargs


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("discrete", [False, True])
@pytest.mark.parametrize("max_grid", [2, 7, 256])
def test_cells_at_once_equal_the_loop_over_cells_bitwise(weighted, discrete, max_grid):
    # the vectorized grids, bins and observed differences against the former
    # implementation, one cell at a time (tests/support/oracles.py): statistics, p-values and
    # replicate counts bitwise equal, with empty cells, weightless cells, cells under
    # min_items and cells with more distinct values than max_grid (quantile grids)
    rng = np.random.default_rng([weighted, discrete, max_grid])
    seen = np.zeros(4, dtype=bool)  # [empty cell, NaN p below min_items, p-value, quantile grid]
    for _ in range(25):
        x, y, kwargs = _random_cells(rng, weighted=weighted, discrete=discrete, max_grid=max_grid)
        want = ks_agreement_tests_loop(x, y, **kwargs)
        got = ks_agreement_tests(x, y, **kwargs)
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        stat, p = want[0], want[1]
        seen |= [
            np.isnan(stat).any(),
            (~np.isnan(stat) & np.isnan(p)).any(),
            (~np.isnan(p)).any(),
            any(
                np.unique(np.r_[x[w], y[b]]).size > max_grid
                for w, b in zip(kwargs["within_cells"], kwargs["between_cells"])
            ),
        ]
    # every kind of cell was met (25 distinct values never need a quantile grid of 256)
    assert seen[:3].all() and (seen[3] or (discrete and max_grid >= 25))


def _interleave(rng, rows, cell):
    """The entries in a random order of cells that keeps each cell's rows in order."""
    slots = cell[rng.permutation(cell.size)]  # a random sequence of the cell labels
    at = np.argsort(slots, kind="stable")  # the slot of each grouped entry
    out_rows, out_cell = np.empty_like(rows), np.empty_like(cell)
    out_rows[at], out_cell[at] = rows, cell
    return out_rows, out_cell, at


def test_entries_equal_the_cells_lists_in_any_order_of_cells():
    # cells as entries, grouped or interleaved (each cell's rows in order): the same
    # results bitwise as the lists of cells
    rng = np.random.default_rng(4)
    for weighted in (False, True):
        x, y, kwargs = _random_cells(rng, weighted=weighted, discrete=True, max_grid=7)
        want = ks_agreement_tests(x, y, **kwargs)
        wc, bc, bw = (kwargs.pop(k) for k in ("within_cells", "between_cells", "between_weights"))
        w_rows, b_rows = np.concatenate(wc).astype(np.int64), np.concatenate(bc).astype(np.int64)
        w_cell = np.repeat(np.arange(len(wc)), [len(c) for c in wc])
        b_cell = np.repeat(np.arange(len(bc)), [len(c) for c in bc])
        w_rows, w_cell, _ = _interleave(rng, w_rows, w_cell)
        b_rows, b_cell, at = _interleave(rng, b_rows, b_cell)
        weight = None
        if bw is not None:
            weight = np.empty(b_rows.size)
            weight[at] = np.concatenate(bw)
        got = ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            between_weight=weight,
            n_cells=len(wc),
            **kwargs,
        )
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(within_cell=[0, 5]), "within entries"),
        (dict(between_rows=[0, 9]), "between entries"),
        (dict(between_weight=[1.0]), "between_weights"),
        (dict(between_weight=[1.0, -1.0]), "between_weights"),
    ],
)
def test_bad_entries(kwargs, match):
    args = dict(
        within_item=[0, 1],
        between_item_a=[0, 1],
        between_item_b=[1, 0],
        within_rows=[0, 1],
        within_cell=[0, 0],
        between_rows=[0, 1],
        between_cell=[0, 0],
        n_cells=2,
    )
    with pytest.raises(ParameterError, match=match):
        ks_agreement_entries([0.1, 0.2], [0.3, 0.4], **{**args, **kwargs})


def test_weights_must_match_the_chance_rows_of_each_cell():
    with pytest.raises(ParameterError, match="one per chance row"):
        ks_agreement_tests(
            [0.1, 0.2],
            [0.3, 0.4],
            within_item=[0, 1],
            between_item_a=[0, 1],
            between_item_b=[1, 0],
            within_cells=[[0, 1], [0]],
            between_cells=[[0, 1], [1]],
            between_weights=[[1.0], [1.0, 2.0]],  # same total, not one per row
        )


def test_entries_tested_in_chunks_of_cells_are_bitwise_those_of_all_at_once(monkeypatch):
    """The within keys, distinct items, observed differences and histogram counts are
    formed a group of cells at a time (CHUNK_ENTRIES): the statistics and p-values are
    bit for bit those of one group, with untested cells among the tested ones."""
    from iaa_frames.stats import kstest

    rng = np.random.default_rng(11)
    n_cells, n_items = 12, 30
    wi, x = rng.integers(0, n_items, 600), rng.random(600).round(2)
    a, b = rng.integers(0, n_items, 400), rng.integers(0, n_items, 400)
    y = rng.random(400).round(2)
    wc = np.sort(rng.integers(0, n_cells, 2000))
    wc[wc == 4] = 5
    wr = rng.integers(0, 600, 2000)
    wr[wc == 3] = wr[wc == 3] % 2  # cell 3: rows of two items only (not tested)
    wi[:2] = [0, 1]
    bc = np.sort(rng.integers(0, n_cells, 1500))
    br, bw = rng.integers(0, 400, 1500), rng.random(1500) + 0.5

    def run():
        return kstest.ks_agreement_entries(
            x,
            y,
            within_item=wi,
            between_item_a=a,
            between_item_b=b,
            within_rows=wr,
            within_cell=wc,
            between_rows=br,
            between_cell=bc,
            between_weight=bw,
            n_cells=n_cells,
            n_items=n_items,
            n_resamples=40,
            seed=3,
        )

    whole = run()
    assert np.isnan(whole[1][3]) and np.isfinite(whole[1][[0, 1, 2]]).all()
    for budget in (1, 150, 700):
        monkeypatch.setattr(kstest, "CHUNK_ENTRIES", budget)
        for got, want in zip(run(), whole):
            assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("draw", ["ks_multiplicities", "ks_multiplicities_bytes"])
def test_shared_multiplicities_give_the_tests_drawn_inside_bitwise(draw):
    # the replicates drawn once (ks_multiplicities, or the same in one byte a value) and
    # passed in: the p-values and replicate counts of the test that draws its own, block
    # by block
    from iaa_frames.stats import kstest

    rng = np.random.default_rng(11)
    tested = 0
    for _ in range(8):
        x, y, kwargs = _random_cells(rng, weighted=True, discrete=False, max_grid=7)
        n = kwargs["n_items"]
        shared = getattr(kstest, draw)(n, kwargs["n_resamples"], seed=kwargs["seed"])
        assert shared.dtype == (np.int32 if draw == "ks_multiplicities" else np.uint8)
        assert (shared.sum(axis=1) == n).all()
        want = ks_agreement_tests(x, y, **kwargs)
        w_rows = np.concatenate([np.asarray(c, dtype=np.int64) for c in kwargs["within_cells"]])
        w_cell = np.repeat(
            np.arange(len(kwargs["within_cells"])), [len(c) for c in kwargs["within_cells"]]
        )
        b_rows = np.concatenate([np.asarray(c, dtype=np.int64) for c in kwargs["between_cells"]])
        b_cell = np.repeat(
            np.arange(len(kwargs["between_cells"])), [len(c) for c in kwargs["between_cells"]]
        )
        common = {
            k: kwargs[k]
            for k in (
                "within_item",
                "between_item_a",
                "between_item_b",
                "n_items",
                "seed",
                "min_items",
                "max_grid",
                "n_resamples",
            )
        }
        got = ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            between_weight=np.concatenate(kwargs["between_weights"]),
            n_cells=len(kwargs["within_cells"]),
            multiplicities=shared,
            **common,
        )
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        tested += np.count_nonzero(~np.isnan(got[1]))
    assert tested  # some p-values compared
    with pytest.raises(ParameterError, match="multiplicities must have shape"):
        ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            n_cells=len(kwargs["within_cells"]),
            multiplicities=shared[:, :-1],
            **common,
        )


@pytest.mark.parametrize("block_bytes", [1, 28 * 50 * 7, 64 << 20])
def test_multiplicities_in_bytes_are_those_in_int32(monkeypatch, block_bytes):
    # one replicate a block, seven, or all: the values of ks_multiplicities
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "_BYTES_BLOCK", block_bytes)
    for n, b, seed in [(50, 199, 0), (1, 3, 2), (0, 4, 1), (333, 17, 9)]:
        want = kstest.ks_multiplicities(n, b, seed=seed)
        got = kstest.ks_multiplicities_bytes(n, b, seed=seed)
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_multiplicities_too_large_for_a_byte_are_kept_in_int32(monkeypatch):
    # a multiplicity above the byte's range (here: above 1) turns the table into int32,
    # the blocks already stored included
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "_BYTE_MAX", 1)
    monkeypatch.setattr(kstest, "_BYTES_BLOCK", 28 * 40)  # one replicate a block
    want = kstest.ks_multiplicities(40, 6, seed=3)
    got = kstest.ks_multiplicities_bytes(40, 6, seed=3)
    assert got.dtype == np.int32 and want.max() > 1
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("budget", [1, 40_000])
def test_blocks_of_replicates_do_not_change_the_tests(monkeypatch, budget):
    # one replicate a block (a budget of 1 byte), or a few, against all in one block: the
    # same statistics, p-values and replicate counts bit for bit
    from iaa_frames.stats import kstest

    rng = np.random.default_rng(5)
    cases = [_random_cells(rng, weighted=True, discrete=d, max_grid=7) for d in (False, True)]
    want = [ks_agreement_tests(x, y, **kwargs) for x, y, kwargs in cases]
    monkeypatch.setattr(kstest, "KS_BLOCK_BYTES", budget)
    assert kstest.ks_block_size(199, n_items=50, n_pairs=10, width=5) == max(
        1, budget // 820
    )  # 8 x 50 + 16 x 10 + 52 x 5 bytes
    got = [ks_agreement_tests(x, y, **kwargs) for x, y, kwargs in cases]
    for w_case, g_case in zip(want, got):
        for w, g in zip(w_case, g_case):
            assert np.array_equal(w, g, equal_nan=True)


@pytest.mark.parametrize(("run", "share"), [(1, 1.0), (4, 1.0), (16, 1.0), (4, 0.0)])
def test_screened_replicates_give_the_tests_of_every_column_bitwise(monkeypatch, run, share):
    # the screen of the replicates (a bound per run of grid columns, the columns of the
    # open runs one by one: share 1.0 never computes every column, 0.0 as soon as one run
    # is open) against the loop over cells, which computes every column
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "RUN_COLUMNS", run)
    monkeypatch.setattr(kstest, "MAX_OPEN_SHARE", share)
    rng = np.random.default_rng([run, int(share)])
    rejected = 0
    for discrete in (False, True, False, True):
        x, y, kwargs = _random_cells(rng, weighted=True, discrete=discrete, max_grid=7)
        want = ks_agreement_tests_loop(x, y, **kwargs)
        got = ks_agreement_tests(x, y, **kwargs)
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        rejected += np.count_nonzero(want[1] > 1.0 / (1 + want[2]))  # some replicate reached
    assert rejected  # replicates that reach the statistic were met


@pytest.mark.parametrize("size", [1, 50, 10**6])
def test_unique_codes_are_numpys(size):
    # flags per code (few codes) or numpy's sort (many): the same arrays
    from iaa_frames.stats.kstest import unique_codes

    rng = np.random.default_rng(size)
    for n in (0, 1, 30, 5000):
        values = rng.integers(0, size, n)
        want, got = np.unique(values, return_inverse=True), unique_codes(values, size)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
