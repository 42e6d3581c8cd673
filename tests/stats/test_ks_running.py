"""The replicates' ECDFs at the grid columns with entries, bitwise those of running sums
over every column."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_frames.stats.ks_running import RunningColumns, Screen


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
    from iaa_frames.stats import ks_running

    monkeypatch.setattr(ks_running, "RUN_COLUMNS", run)
    monkeypatch.setattr(ks_running, "MAX_OPEN_SHARE", 1.0)  # never every column
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
