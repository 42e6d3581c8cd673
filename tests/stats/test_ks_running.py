"""The replicates' ECDFs at the grid columns with entries, bitwise those of running sums
over every column."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_frames.stats.ks_running import RunningColumns


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
