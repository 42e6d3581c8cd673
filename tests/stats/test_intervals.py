"""Tests for the bootstrap intervals: BCa against scipy, and the width correction
(jackknife variance and degrees of freedom, the pair-level shrink of chance means)."""

from __future__ import annotations

import hypothesis
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.stats

from iaa_frames.errors import ParameterError
from iaa_frames.stats.bootstrap import jackknife_blocks, multiplicity_blocks
from iaa_frames.stats.intervals import (
    bca_interval,
    cubes_by_runs,
    interval_scale,
    jackknife_df,
    jackknife_variance,
    pair_level_shrink,
)
from iaa_frames.stats.samples import percentile_ci

# ------------------------------------------------------------------------------ BCa


def test_bca_equals_scipy_bca_on_its_own_bootstrap_distribution():
    # scipy.stats.bootstrap(method="BCa") with the delete-one jackknife: the same
    # formulas (Efron & Tibshirani 1993, 14.3) on the same replicates
    rng = np.random.default_rng(1)
    data = rng.lognormal(0.0, 0.8, 40)
    res = scipy.stats.bootstrap(
        (data,), np.mean, n_resamples=2000, method="BCa", random_state=np.random.default_rng(7)
    )
    jack = np.array([np.delete(data, i).mean() for i in range(len(data))])
    low, high = bca_interval(data.mean(), res.bootstrap_distribution, jack)
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-9)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-9)
    # skewed data: BCa sits to the right of the percentile interval
    p_low, p_high = percentile_ci(res.bootstrap_distribution)
    assert low > p_low and high > p_high


def test_bca_reduces_to_percentile_without_bias_or_skew():
    reps = np.r_[np.linspace(-1, 1, 401)]
    jack = np.array([-0.1, 0.1, -0.2, 0.2])
    assert bca_interval(0.0, reps, jack) == pytest.approx(percentile_ci(reps))
    # the small-sample widening scales the half-widths by sqrt(n / (n - 1)) (on the
    # statistic itself without a bound)
    low, high = bca_interval(0.0, reps, jack, n_items=5, bound=None)
    assert high - low == pytest.approx(np.sqrt(5 / 4) * 2 * 0.95, rel=1e-9)


def test_bca_widening_acts_on_the_cube_root_of_the_distance_to_the_bound():
    # replicates with the estimate as their median (z0 = 0) and a symmetric jackknife
    # (a = 0): the unwidened bounds are the 2.5 and 97.5 % quantiles; the widening w
    # moves each away from the median m on u(t) = -(1 - t)^(1/3):
    # low = 1 - (c(m) + w (c(q) - c(m)))^3 with c(t) = (1 - t)^(1/3)
    rng = np.random.default_rng(5)
    reps = rng.normal(0.8, 0.1, 2001)  # some replicates above the bound: real cube root
    est = float(np.median(reps))
    jack = est + np.array([-0.02, -0.01, 0.01, 0.02])
    q_low, q_high = np.quantile(reps, [0.025, 0.975])
    cube = np.cbrt
    for w in (1.0, 1.3, 2.5):
        low, high = bca_interval(est, reps, jack, scale=w)
        want_low = 1 - (cube(1 - est) + w * (cube(1 - q_low) - cube(1 - est))) ** 3
        want_high = 1 - (cube(1 - est) - w * (cube(1 - est) - cube(1 - q_high))) ** 3
        assert low == pytest.approx(want_low, rel=1e-9, abs=1e-12)
        assert high == pytest.approx(want_high, rel=1e-9, abs=1e-12)
        lin_low, lin_high = bca_interval(est, reps, jack, scale=w, bound=None)
        assert lin_low == pytest.approx(est - w * (est - q_low), rel=1e-9)
        if w == 1.0:  # no widening: the scale does not matter
            assert (low, high) == pytest.approx((lin_low, lin_high), rel=1e-12)
        else:  # longer towards disagreement, shorter towards the bound than linear
            assert low < lin_low and high < lin_high
    # another bound: the same on the distance to it
    low2, high2 = bca_interval(est + 1.0, reps + 1.0, jack + 1.0, scale=2.5, bound=2.0)
    assert (low2 - 1.0, high2 - 1.0) == pytest.approx((low, high), rel=1e-9)
    with pytest.raises(ParameterError, match="bound"):
        bca_interval(est, reps, jack, bound=float("nan"))


def test_bca_many_statistics_nan_and_shapes():
    rng = np.random.default_rng(0)
    reps = rng.normal(size=(500, 2, 3))
    reps[:, 1, 2] = np.nan
    reps[::2, 0, 1] = np.nan  # half the replicates undefined: ignored
    est = np.zeros((2, 3))
    est[1, 0] = np.nan
    low, high = bca_interval(est, reps, rng.normal(size=(20, 2, 3)))
    assert low.shape == (2, 3)
    assert np.isnan(low[1, 2]) and np.isnan(low[1, 0])
    assert (low[0] < 0).all() and (high[0] > 0).all()
    with pytest.raises(ParameterError):
        bca_interval(0.0, reps[:, 0, 0], reps[:20, 0, 0], level=1.0)


@pytest.mark.parametrize("n_defined", [2, 3, 17])
def test_bca_of_the_defined_estimates_is_that_of_all_bitwise(n_defined):
    # the intervals of NaN estimates are not computed: those of the others are bitwise
    # the intervals computed with every statistic (each statistic's replicates summed
    # one after the other either way), with jackknife values in runs of equal values
    rng = np.random.default_rng(n_defined)
    shape = (3, 8)
    reps = rng.normal(size=(200,) + shape) * rng.uniform(0.01, 1.0, shape)
    # values of many magnitudes: their sums depend on the order of the additions
    values = rng.normal(size=(40,) + shape) * 10.0 ** rng.integers(-6, 7, (40,) + shape)
    jack = np.repeat(values, rng.integers(1, 9, 40), axis=0)[:200]
    est = rng.normal(size=shape) * 0.1
    scale = rng.uniform(1.0, 1.5, shape)
    defined = np.zeros(est.size, dtype=bool)
    defined[rng.choice(est.size, n_defined, replace=False)] = True
    defined = defined.reshape(shape)
    kw = dict(level=0.9, n_items=30, scale=scale, bound=1.0)
    every = bca_interval(est, reps, jack, **kw)
    some = bca_interval(np.where(defined, est, np.nan), reps, jack, **kw)
    for all_, part in zip(every, some):
        assert np.isnan(part[~defined]).all()
        np.testing.assert_array_equal(part[defined], all_[defined])


def test_cubes_are_numpys_cubes_bitwise():
    rng = np.random.default_rng(4)
    d = np.repeat(rng.normal(size=(30, 50)) * 10.0 ** rng.integers(-5, 5, (30, 50)), 7, axis=0)
    d[rng.random(d.shape) < 0.3] = rng.normal(size=1)  # runs broken here and there
    d[5:9, 0], d[3, 1], d[4, 1], d[6, 2] = 0.0, np.nan, np.inf, -0.0
    got, expected = cubes_by_runs(d), d**3
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    fresh = rng.normal(size=(200, 5))  # no runs: numpy's power at once
    assert np.array_equal(cubes_by_runs(fresh), fresh**3)


# ------------------------------------------------------- width of the interval (scale)


def test_jackknife_variance_is_the_bootstrap_variance_of_a_mean():
    # the exact variance of the mean under multinomial resampling is sum (x - mean)^2 / n^2
    x = np.random.default_rng(3).gamma(2.0, size=25)
    jack = (x.sum() - x) / 24
    assert float(jackknife_variance(jack, n_items=25)) == pytest.approx(x.var() / 25)
    # a statistic the jackknife leaves undefined in some replicates: those are ignored
    jack2 = np.r_[jack, np.nan]
    assert float(jackknife_variance(jack2, n_items=25)) == pytest.approx(x.var() / 25)
    assert np.isnan(jackknife_variance([1.0, np.nan], n_items=2))


def test_jackknife_df_falls_with_heavy_tails():
    rng = np.random.default_rng(0)
    normal = rng.normal(size=60)
    heavy = normal.copy()
    heavy[:3] *= 12  # three items carry most of the variance
    df = [float(jackknife_df((x.sum() - x) / 59)) for x in (normal, heavy)]
    assert 30 < df[0] < 120
    assert df[1] < 10
    # even influences: no variation of the squared pseudo-values, infinite df
    assert jackknife_df(np.array([1.0, -1.0, 1.0, -1.0])) == np.inf


def test_pair_level_shrink_bounds():
    shrink = pair_level_shrink([1.0, 1.0, 1.0, 0.0, np.nan], [0.0, 0.5, 2.0, 0.0, 1.0])
    np.testing.assert_allclose(shrink, [1.0, np.sqrt(1 / 3), np.sqrt(1 / 3), 1.0, 1.0])


@pytest.mark.parametrize("item_sd", [0.0, 0.5])
def test_pair_level_shrink_corrects_the_bootstrap_of_a_mean_over_pairs(item_sd):
    # a mean over all pairs of n items of g_i + g_j + h_ij (Hoeffding decomposition):
    # the item bootstrap's variance overstates the pair-level part about three times;
    # scaled by pair_level_shrink^2 it matches the variance over independent corpora
    n, n_corpora, n_boot = 30, 300, 300
    rng = np.random.default_rng(11)
    a, b = np.triu_indices(n, 1)
    jk = np.concatenate(list(jackknife_blocks(n))).astype(float)
    estimates, boot, corrected = [], [], []
    for c in range(n_corpora):  # independent corpora, each with its own bootstrap
        g = rng.normal(0.0, item_sd, n)
        value = 1.0 + g[a] + g[b] + rng.normal(0.0, 1.0, len(a))
        estimates.append(value.mean())
        k = next(multiplicity_blocks(n, n_boot, seed=c, block_size=n_boot)).astype(float)
        w = k[:, a] * k[:, b]
        reps = (w @ value) / w.sum(axis=1)
        jack = (jk[:, a] * jk[:, b]) @ value / (jk[:, a] * jk[:, b]).sum(axis=1)
        resid = value - value.mean()
        p = np.sum(resid**2) / len(a) ** 2
        v = jackknife_variance(jack, n_items=n)
        boot.append(reps.var())
        corrected.append(reps.var() * float(pair_level_shrink(v, p)) ** 2)
    true = np.var(estimates)
    ratio_boot, ratio_corrected = np.mean(boot) / true, np.mean(corrected) / true
    if item_sd == 0.0:
        assert 2.3 < ratio_boot < 3.7  # three times over
    else:
        assert 1.0 < ratio_boot < 1.4  # item effects dominate: a small excess
    assert 0.8 < ratio_corrected < 1.2


def test_interval_scale_is_student_over_normal_without_pairs():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 200))  # 200 statistics, 40 items each
    jack = (x.sum(axis=0) - x) / 39
    scale = interval_scale(jack, 0.0, n_items=40)
    # Student's t on the Satterthwaite df (at most n - 1); no plug-in factor on every item
    df = np.minimum(jackknife_df(jack), 39)
    t_over_z = scipy.stats.t.ppf(0.975, df) / scipy.stats.norm.ppf(0.975)
    np.testing.assert_allclose(scale, t_over_z, rtol=1e-9)
    assert 1.0 < np.median(scale) < 1.06
    # the pair-level part narrows it, never below sqrt(1/3)
    v = jackknife_variance(jack, n_items=40)
    narrowed = interval_scale(jack, 10 * v, n_items=40)
    assert (narrowed < scale).all() and (narrowed >= np.sqrt(1 / 3)).all()
    # a statistic without jackknife variance keeps its width
    assert interval_scale(np.ones((5, 1)), 0.0, n_items=5).tolist() == [1.0]


def _rare_mean(values, k_items, n_items, multiplicities):
    """Mean of ``values`` over the first ``k_items`` items of a corpus of ``n_items``
    (the others hold nothing of the statistic), on replicate multiplicities."""
    k = multiplicities[:, :k_items].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (k @ values) / k.sum(axis=1)


def test_interval_scale_uses_the_items_a_statistic_rests_on():
    # a statistic that changes only with 5 of the 40 items: Student's t with 4 degrees
    # of freedom and the plug-in factor of 5 items relative to 40, sqrt(5 / 4 * 39 / 40)
    rng = np.random.default_rng(3)
    values = rng.normal(size=5)
    jk = np.concatenate(list(jackknife_blocks(40)))
    jack = _rare_mean(values, 5, 40, jk)
    want = scipy.stats.t.ppf(0.975, 4) / scipy.stats.norm.ppf(0.975) * np.sqrt(5 / 4 * 39 / 40)
    assert float(interval_scale(jack, 0.0, n_items=40, cell_items=5)) == pytest.approx(want)
    # by default the statistic is taken to rest on every item: narrower
    assert float(interval_scale(jack, 0.0, n_items=40)) < want - 0.05
    # one item: no interval
    assert np.isnan(interval_scale(jack, 0.0, n_items=40, cell_items=1))


@pytest.mark.parametrize("k_items", [4, 5])
def test_interval_on_few_items_covers_its_level(k_items):
    # a mean over the k items of a 40-item corpus that hold a rare class (normal values):
    # the item bootstrap's BCa interval, with Student's t on k - 1 degrees of freedom and
    # the plug-in correction, covers about 95 %; corrected for the corpus instead it
    # covers less, and never more (same replicates, narrower). 1,000 corpora: MC SE
    # 0.7 pt; with 2,000: k = 4: 96.4 % against 92.3 %, k = 5: 96.9 % against 94.3 %
    # (widened on the cube root of 1 - t; on t itself, as for a statistic without a
    # bound: 96.0 % against 90.8 % and 96.1 % against 93.5 %).
    n, n_corpora, n_boot = 40, 1000, 400
    rng = np.random.default_rng(k_items)
    jk = np.concatenate(list(jackknife_blocks(n))).astype(float)
    covered = {"items": 0, "corpus": 0}
    for c in range(n_corpora):  # independent corpora, each with its own bootstrap
        values = rng.normal(size=k_items)
        k = next(multiplicity_blocks(n, n_boot, seed=c, block_size=n_boot))
        reps = _rare_mean(values, k_items, n, k)
        jack = _rare_mean(values, k_items, n, jk)
        est = values.mean()
        for key, cell_items in (("items", k_items), ("corpus", None)):
            scale = interval_scale(jack, 0.0, n_items=n, cell_items=cell_items)
            low, high = bca_interval(est, reps, jack, scale=scale)
            covered[key] += low <= 0.0 <= high
    assert 0.93 <= covered["items"] / n_corpora <= 0.98
    assert covered["corpus"] / n_corpora < covered["items"] / n_corpora - 0.01


# ------------------------------------------------------- the interval holds its estimate


def test_bca_interval_holds_an_estimate_above_every_replicate():
    # a classification alpha of 0.000 whose replicates all lie below it (a bootstrap
    # biased low): the bias correction used to put both bounds below the estimate,
    # [-0.0064, -0.0062]; the bound on the estimate's side is now the estimate
    rng = np.random.default_rng(0)
    reps = rng.normal(-0.0063, 0.00005, 200)
    jack = rng.normal(0.0, 0.001, 40)
    for scale in (None, 0.6, 1.8):
        low, high = bca_interval(0.0, reps, jack, scale=scale)
        assert low <= 0.0 <= high
        assert low == pytest.approx(np.quantile(reps, 0.975), abs=2e-4)
    # identical replicates away from the estimate: from them to the estimate
    assert bca_interval(0.5, np.full(100, 0.4), jack) == (0.4, 0.5)
    # the same replicates with the estimate among them: nothing to widen
    assert bca_interval(0.4, np.full(100, 0.4), jack, scale=2.0) == (0.4, 0.4)


def test_bca_bias_correction_stops_at_the_estimate():
    # 99 % of the replicates below the estimate (z0 = 2.33 > 1.96): the low bound is the
    # estimate's rank, not above it; the interval of an estimate inside the central 95 %
    # of its replicates is unchanged
    reps = np.linspace(0.0, 1.0, 1001)
    jack = np.array([-0.1, 0.1, -0.2, 0.2])
    low, high = bca_interval(0.99, reps, jack)
    assert low == pytest.approx(0.975, abs=1e-3) and high > 0.99
    assert bca_interval(0.9, reps, jack) == pytest.approx(
        scipy_bca_bounds(0.9, reps, level=0.95), rel=1e-12
    )


def scipy_bca_bounds(est, reps, level):
    """BCa bounds of a symmetric jackknife (a = 0): the percentile points moved by z0."""
    z0 = scipy.stats.norm.ppf(np.mean(reps < est) + 0.5 * np.mean(reps == est))
    z = scipy.stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    return tuple(np.quantile(reps, scipy.stats.norm.cdf(2 * z0 + z)))


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(
    reps=hnp.arrays(
        np.float64,
        hypothesis.strategies.integers(1, 60),
        elements=hypothesis.strategies.one_of(
            hypothesis.strategies.floats(-3.0, 1.0), hypothesis.strategies.just(np.nan)
        ),
    ),
    jack=hnp.arrays(
        np.float64,
        hypothesis.strategies.integers(1, 12),
        elements=hypothesis.strategies.floats(-3.0, 1.0),
    ),
    estimate=hypothesis.strategies.floats(-3.0, 1.0),
    scale=hypothesis.strategies.one_of(
        hypothesis.strategies.none(), hypothesis.strategies.floats(0.3, 4.0)
    ),
    bound=hypothesis.strategies.sampled_from([1.0, None]),
    n_items=hypothesis.strategies.sampled_from([None, 2, 40]),
    level=hypothesis.strategies.sampled_from([0.5, 0.9, 0.95, 0.999]),
)
def test_no_interval_excludes_its_estimate(reps, jack, estimate, scale, bound, n_items, level):
    low, high = bca_interval(
        estimate, reps, jack, scale=scale, bound=bound, n_items=n_items, level=level
    )
    if np.isfinite(low) and np.isfinite(high):
        assert low <= estimate <= high
    else:  # no finite replicate: no interval at all
        assert np.isnan(low) and np.isnan(high) and not np.isfinite(reps).any()
