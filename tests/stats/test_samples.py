"""Tests for iaa_frames.stats.samples: arithmetic by hand, scipy/numpy cross-checks, properties."""

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from iaa_frames.errors import ParameterError
from iaa_frames.stats.samples import KSResult, frac_below_chance, ks, percentile_ci, sigma

nan = np.nan

# samples on a coarse grid, so that ties within and across samples are common
samples = hnp.arrays(
    np.float64,
    st.integers(1, 25),
    elements=st.integers(0, 8).map(lambda k: k / 8),
)
weight_lists = st.lists(st.integers(0, 4), min_size=1, max_size=25)


def weights_for(draw_list, n):
    """Cycle a drawn list of integer weights to length n, at least one positive."""
    w = np.resize(np.asarray(draw_list), n)
    if w.sum() == 0:
        w[0] = 1
    return w


# ----------------------------------------------------------------------------- sigma


def test_sigma_arithmetic():
    # 1 - 0.2 / 0.5
    assert sigma([0.1, 0.3], [0.4, 0.6]) == pytest.approx(0.6)
    assert sigma([0.0, 0.0], [0.2, 0.9]) == pytest.approx(1.0)
    assert sigma([0.5], [0.5, 0.5]) == pytest.approx(0.0)


def test_sigma_never_clipped():
    # within twice the chance distance: 1 - 0.8 / 0.4 = -1
    assert sigma([0.8, 0.8], [0.2, 0.6]) == pytest.approx(-1.0)
    assert sigma([3.0], [1.0]) == pytest.approx(-2.0)


def test_sigma_nan_cases():
    assert np.isnan(sigma([], [0.5]))
    assert np.isnan(sigma([0.5], []))
    assert np.isnan(sigma([0.5], [0.0, 0.0]))
    assert sigma([0.2], [0.4, 0.0], between_weights=[1, 1]) == pytest.approx(0.0)
    assert np.isnan(sigma([0.2], [0.4, 0.0], between_weights=[0, 1]))  # chance mean 0
    assert np.isnan(sigma([0.2], [0.4, 0.0], between_weights=[0, 0]))  # no weight


@settings(max_examples=80, deadline=None)
@given(samples, samples, weight_lists, weight_lists)
def test_sigma_integer_weights_equal_repeated_rows(x, y, wx, wy):
    wx, wy = weights_for(wx, x.size), weights_for(wy, y.size)
    mean_between = np.repeat(y, wy).mean()
    expected = 1 - np.repeat(x, wx).mean() / mean_between if mean_between else nan
    got = sigma(x, y, within_weights=wx, between_weights=wy)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


# -------------------------------------------------------------------------------- ks


def test_ks_matches_scipy():
    rng = np.random.default_rng(1)
    for n1, n2 in [(5, 7), (40, 300), (200, 200)]:
        x, y = rng.random(n1), rng.random(n2) * 1.2
        ref = scipy.stats.ks_2samp(x, y)
        res = ks(x, y)
        assert isinstance(res, KSResult)
        assert res.statistic == pytest.approx(ref.statistic, abs=1e-15)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_ks_sign_on_shifted_samples():
    rng = np.random.default_rng(2)
    small, large = rng.normal(0.0, 1.0, 400), rng.normal(1.0, 1.0, 500)
    agree = ks(small, large)  # within smaller than chance: agreement
    disagree = ks(large, small)
    assert agree.sign == 1.0 and disagree.sign == -1.0
    assert agree.statistic > 0.3 and agree.pvalue < 1e-10
    assert disagree.statistic == pytest.approx(agree.statistic, abs=0.02)


def test_ks_sign_matches_ecdf_at_maximum():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x, y = rng.random(rng.integers(3, 30)), rng.random(rng.integers(3, 30))
        res = ks(x, y)
        grid = np.union1d(x, y)
        diff = (x[:, None] <= grid).mean(0) - (y[:, None] <= grid).mean(0)
        assert res.statistic == pytest.approx(np.abs(diff).max(), abs=1e-12)
        # the sign is that of F_within - F_between where |difference| is maximal
        assert res.sign == np.sign(diff[np.argmax(np.abs(diff))])


def test_ks_degenerate():
    assert all(np.isnan(v) for v in ks([], [0.1, 0.2]))
    assert all(np.isnan(v) for v in ks([0.1], []))
    same = ks([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    assert same.statistic == 0.0 and same.sign == 0.0 and same.pvalue == pytest.approx(1.0)


# ---------------------------------------------------------------- frac_below_chance


def test_frac_below_chance_by_hand():
    between = np.arange(1, 21) / 20  # 0.05, 0.10, ..., 1.00
    # the 5 % quantile of 20 values is the smallest one, 0.05; strictly below it: 0.0, 0.01
    within = [0.0, 0.01, 0.05, 0.3, 0.9]
    assert frac_below_chance(within, between) == pytest.approx(2 / 5)
    # q = 0.25: 5th smallest, 0.25; strictly below: 0.0, 0.01, 0.05
    assert frac_below_chance(within, between, q=0.25) == pytest.approx(3 / 5)
    # q = 1: the largest, 1.00, and every within value is below it
    assert frac_below_chance(within, between, q=1.0) == pytest.approx(1.0)
    # q = 0: the smallest, as for q = 0.05
    assert frac_below_chance(within, between, q=0.0) == pytest.approx(2 / 5)


@settings(max_examples=100, deadline=None)
@given(samples, samples, st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0]))
def test_frac_below_chance_matches_numpy_quantile(x, y, q):
    threshold = np.quantile(y, q, method="inverted_cdf")
    assert frac_below_chance(x, y, q=q) == pytest.approx(np.mean(x < threshold), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(samples, samples, weight_lists, weight_lists, st.sampled_from([0.05, 0.2, 0.5]))
def test_frac_below_chance_integer_weights_equal_repeated_rows(x, y, wx, wy, q):
    wx, wy = weights_for(wx, x.size), weights_for(wy, y.size)
    xr, yr = np.repeat(x, wx), np.repeat(y, wy)
    expected = np.mean(xr < np.quantile(yr, q, method="inverted_cdf"))
    got = frac_below_chance(x, y, q=q, within_weights=wx, between_weights=wy)
    assert got == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------- percentile_ci


def test_percentile_ci():
    rng = np.random.default_rng(6)
    reps = rng.normal(size=(1000, 3))
    reps[::7, 1] = nan
    reps[:, 2] = nan
    low, high = percentile_ci(reps, level=0.9)
    assert low.shape == high.shape == (3,)
    np.testing.assert_allclose([low[0], high[0]], np.percentile(reps[:, 0], [5, 95]), rtol=1e-12)
    col = reps[:, 1][~np.isnan(reps[:, 1])]
    np.testing.assert_allclose([low[1], high[1]], np.percentile(col, [5, 95]), rtol=1e-12)
    assert np.isnan(low[2]) and np.isnan(high[2])
    lo1, hi1 = percentile_ci(reps[:, 0])
    assert isinstance(lo1, float)
    assert (lo1, hi1) == pytest.approx(tuple(np.percentile(reps[:, 0], [2.5, 97.5])))
    assert lo1 < low[0] < high[0] < hi1


def test_percentile_ci_edge_cases():
    assert all(np.isnan(v) for v in percentile_ci(np.array([])))
    assert all(np.isnan(v) for v in percentile_ci([nan, nan]))
    with pytest.raises(ParameterError, match="level"):
        percentile_ci([1.0, 2.0], level=95)
    with pytest.raises(ParameterError, match="dimension"):
        percentile_ci(1.0)


# ------------------------------------------------------------------------ validation


def test_validation_errors():
    with pytest.raises(ParameterError, match="1-D"):
        sigma([[0.1]], [0.2])
    with pytest.raises(ParameterError, match="NaN"):
        ks([0.1, nan], [0.2])
    with pytest.raises(ParameterError, match="numeric"):
        sigma(["a"], [0.2])
    with pytest.raises(ParameterError, match="shape"):
        sigma([0.1, 0.2], [0.2], within_weights=[1, 1, 1])
    with pytest.raises(ParameterError, match="non-negative"):
        sigma([0.1], [0.2], between_weights=[-1])
    with pytest.raises(ParameterError, match="q must"):
        frac_below_chance([0.1], [0.2], q=5)


def test_cell_tests_equal_ks_and_frac_below_chance_cell_by_cell():
    """The vectorized per-cell tests equal the one-cell functions (ties, weights, empty
    cells), i.e. scipy's ks_2samp(method="asymp") where the weights are 1."""
    from iaa_frames.stats.samples import cell_tests

    rng = np.random.default_rng(0)
    n_cells = 60
    wv, wc = rng.random(3000).round(2), rng.integers(0, n_cells, 3000)
    bv, bc = rng.random(5000).round(2), rng.integers(0, n_cells, 5000)
    bw = np.where(rng.random(5000) < 0.5, 1.0, rng.random(5000) * 3)
    bw[bc < 30] = 1.0  # half the cells unweighted
    wc[wc == 59] = 58  # a cell with no within entry
    out = cell_tests(wv, wc, bv, bc, bw, n_cells)
    for c in range(n_cells):
        x, y, w = wv[wc == c], bv[bc == c], bw[bc == c]
        if c == 59:
            assert np.isnan(out[:, c]).all()
            continue
        r = ks(x, y, between_weights=w, method="asymp")
        np.testing.assert_allclose(
            out[:, c],
            [r.statistic, r.sign, r.pvalue, frac_below_chance(x, y, between_weights=w)],
            rtol=1e-9,
            atol=1e-12,
        )
        if c < 30:
            ref = scipy.stats.ks_2samp(x, y, method="asymp")
            assert out[0, c] == pytest.approx(ref.statistic)
            assert out[2, c] == pytest.approx(ref.pvalue)


def test_cell_tests_without_p_values_give_the_other_rows_bitwise(monkeypatch):
    """pvalue=False: NaN p-values, no call of scipy's sf, the other rows the same."""
    from iaa_frames.stats import samples

    rng = np.random.default_rng(2)
    wv, wc = rng.random(400).round(2), np.sort(rng.integers(0, 12, 400))
    bv, bc = rng.random(900).round(2), np.sort(rng.integers(0, 12, 900))
    bw = rng.random(900) * 2
    full = samples.cell_tests(wv, wc, bv, bc, bw, 13)

    def refuse(*args, **kwargs):
        raise AssertionError("the sf is not computed without p-values")

    monkeypatch.setattr(samples.scipy.stats.kstwo, "sf", refuse)
    out = samples.cell_tests(wv, wc, bv, bc, bw, 13, pvalue=False)
    assert np.isnan(out[2]).all()
    rows = [0, 1, 3]
    assert np.array_equal(out[rows], full[rows], equal_nan=True)


def test_cell_tests_repeated_cells_share_their_p_value():
    """Cells of the same samples get scipy's p-value each (the sf is computed once per
    distinct (statistic, size) pair); a cell whose sides are equal has statistic 0 and p-value 1."""
    from iaa_frames.stats.samples import cell_tests

    rng = np.random.default_rng(3)
    x, y = rng.random(7).round(1), rng.random(40).round(1)
    same = np.r_[0.1, 0.5]
    k = 5  # cell 0: the same two values on both sides; cells 1..k copies of (x, y)
    wv, wc = np.r_[same, np.tile(x, k)], np.r_[[0, 0], np.repeat(np.arange(1, k + 1), 7)]
    bv, bc = np.r_[same, np.tile(y, k)], np.r_[[0, 0], np.repeat(np.arange(1, k + 1), 40)]
    out = cell_tests(wv, wc, bv, bc, np.ones(len(bv)), k + 1)
    ref = scipy.stats.ks_2samp(x, y, method="asymp")
    assert out[0, 1:] == pytest.approx([ref.statistic] * k)
    assert out[2, 1:] == pytest.approx([ref.pvalue] * k, rel=1e-12)
    # each cell's p-value is the sf of its own statistic, exactly (size round(7*40/47) = 6)
    assert out[2, 1:].tolist() == scipy.stats.kstwo.sf(out[0, 1:], 6).tolist()
    assert out[[0, 2], 0].tolist() == [0.0, 1.0]


def test_cell_tests_in_groups_of_cells_are_bitwise_those_of_all_cells_at_once(monkeypatch):
    """Sorted entries (the engine's) are tested a group of cells at a time, the running
    sum carried from group to group: every output bit equals the single group's, and the
    unsorted route (one lexsort of all entries) agrees to rounding."""
    from iaa_frames.stats import samples
    from iaa_frames.stats.segments import cell_groups

    rng = np.random.default_rng(5)
    n_cells = 40
    wc, bc = np.sort(rng.integers(0, n_cells, 4000)), np.sort(rng.integers(0, n_cells, 3000))
    wc[wc == 7] = 8  # a cell without within entries inside a group
    bc[bc == 9] = 10  # and one without chance entries
    wv, bv = rng.random(4000).round(3), rng.random(3000).round(3)
    bw = np.where(rng.random(3000) < 0.5, 1.0, rng.random(3000) * 3)
    wv = wv[np.lexsort((wv, wc))]
    order = np.lexsort((bv, bc))
    bv, bw = bv[order], bw[order]
    whole = samples.cell_tests(wv, wc.astype(np.int32), bv, bc, bw, n_cells)
    assert cell_groups(np.searchsorted(wc, np.arange(n_cells + 1)), 250)[1:]
    for budget in (1, 97, 250, 1000):
        monkeypatch.setattr(samples, "CHUNK_ENTRIES", budget)
        grouped = samples.cell_tests(wv, wc, bv, bc, bw, n_cells)
        assert grouped.tobytes() == whole.tobytes()
        # the entries' distances gathered from one distance per row, group by group
        rows = np.argsort(rng.random(4000))
        per_row = np.empty(4000)
        per_row[rows] = wv
        gathered = samples.cell_tests(per_row, wc, bv, bc, bw, n_cells, within_rows=rows)
        assert gathered.tobytes() == whole.tobytes()
    shuffled = rng.permutation(4000)
    unsorted = samples.cell_tests(wv[shuffled], wc[shuffled], bv, bc, bw, n_cells)
    np.testing.assert_allclose(unsorted, whole, rtol=1e-12, atol=1e-15)
    per_row = np.r_[wv[shuffled], 0.5]
    by_rows = samples.cell_tests(
        per_row, wc[shuffled], bv, bc, bw, n_cells, within_rows=np.arange(4000)
    )
    assert by_rows.tobytes() == unsorted.tobytes()


def test_cell_tests_presorted_entries_give_the_checked_result_bitwise(monkeypatch):
    """presorted=True (entries grouped by cell, values ascending, as the engine's KS
    lists): the order is not checked, and the result is the one of the checked path."""
    from iaa_frames.stats import samples

    rng = np.random.default_rng(4)
    wc, bc = np.sort(rng.integers(0, 12, 400)), np.sort(rng.integers(0, 12, 900))
    wv = rng.random(400).round(2)
    bv = rng.random(900).round(2)
    wv, bv = wv[np.lexsort((wv, wc))], bv[np.lexsort((bv, bc))]
    bw = rng.random(900) * 2
    rows = rng.permutation(400)
    values = np.empty(400)
    values[rows] = wv  # the within values read through their rows, as the engine does
    checked = samples.cell_tests(values, wc, bv, bc, bw, 13, within_rows=rows)

    def refuse(*args, **kwargs):
        raise AssertionError("presorted entries are not checked")

    monkeypatch.setattr(samples, "_sorted_in_chunks", refuse)
    got = samples.cell_tests(values, wc, bv, bc, bw, 13, within_rows=rows, presorted=True)
    assert np.array_equal(got, checked, equal_nan=True)


def test_count_below_sorted_is_each_segments_count():
    """The bisection of all segments at once counts, per ascending segment, the values
    strictly below its threshold: ties, empty segments, thresholds outside the values."""
    from iaa_frames.stats.samples import count_below_sorted

    rng = np.random.default_rng(6)
    sizes = rng.choice([0, 1, 2, 3, 7, 64, 1000], 50)
    edges = np.r_[0, np.cumsum(sizes)]
    values = np.concatenate([np.sort(rng.random(n).round(1)) for n in sizes])
    threshold = rng.choice([-1.0, 0.0, 0.3, 0.35, 0.5, 1.0, np.inf], 50)
    got = count_below_sorted(values, edges, threshold)
    want = [(values[a:b] < t).sum() for a, b, t in zip(edges[:-1], edges[1:], threshold)]
    assert got.tolist() == want
    assert count_below_sorted(np.zeros(0), np.zeros(1, np.int64), np.zeros(0)).size == 0
