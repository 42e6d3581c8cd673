"""Tests for the cluster bootstrap over items: multiplicities, reweighted sums, and the
intervals of the agreement table against the weight-aware primitives of stats/alpha."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import weighted_nominal_alpha

from iaa_frames.bootstrap import (
    ItemSums,
    PairSums,
    bca_interval,
    block_size,
    interval_scale,
    jackknife_blocks,
    jackknife_df,
    jackknife_variance,
    multiplicity_blocks,
    pair_level_shrink,
)
from iaa_frames.engine import agreement, agreement_from_tables
from iaa_frames.errors import ParameterError
from iaa_frames.pairs import pair_tables
from iaa_frames.simulate import simulate
from iaa_frames.stats import percentile_ci, sigma


def replicate_sigma(within, between, within_weights, between_weights):
    """sigma of every replicate (a row of each weight array), one call each."""
    return np.array(
        [
            sigma(within, between, within_weights=a, between_weights=b)
            for a, b in zip(within_weights, between_weights)
        ]
    )


ALL = "(all)"


# ---------------------------------------------------------------------- multiplicities


def test_multiplicities_resample_items_with_replacement():
    k = np.concatenate(list(multiplicity_blocks(50, 400, seed=7, block_size=64)))
    assert k.shape == (400, 50)
    assert (k.sum(axis=1) == 50).all()
    # a fixed item is left out of a replicate with probability (1 - 1/n)^n ~ 0.364
    assert np.mean(k == 0) == pytest.approx((1 - 1 / 50) ** 50, abs=0.02)
    assert k.mean() == pytest.approx(1.0)


def test_multiplicities_are_seeded_and_independent_of_blocks():
    one = np.concatenate(list(multiplicity_blocks(30, 20, seed=3, block_size=20)))
    many = np.concatenate(list(multiplicity_blocks(30, 20, seed=3, block_size=3)))
    np.testing.assert_array_equal(one, many)
    other = np.concatenate(list(multiplicity_blocks(30, 20, seed=4, block_size=20)))
    assert not np.array_equal(one, other)


def test_block_size_bounds_memory():
    assert block_size(200, 10) == 200
    assert block_size(200, 1 << 22) == 1
    assert block_size(200, 1 << 20) == 4


# ------------------------------------------------------------------- reweighted sums


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 30), st.integers(1, 5), st.integers(0, 2**31))
def test_sums_equal_explicit_weighted_sums(n_items, n_rows, n_cols, seed):
    rng = np.random.default_rng(seed)
    item_a, item_b = rng.integers(0, n_items, n_rows), rng.integers(0, n_items, n_rows)
    col = rng.integers(0, n_cols, n_rows)
    val = rng.normal(size=n_rows)
    k = rng.integers(0, 4, size=(3, n_items))
    dense = np.zeros((n_rows, n_cols))
    dense[np.arange(n_rows), col] = val
    items = ItemSums.from_entries(item_a, col, val, n_items=n_items, n_columns=n_cols)
    np.testing.assert_allclose(items.total(), dense.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(items.total(k), k[:, item_a] @ dense, atol=1e-12)
    pairs = PairSums.from_entries(item_a, item_b, np.arange(n_rows), col, val, n_columns=n_cols)
    np.testing.assert_allclose(pairs.total(), dense.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(pairs.total(k), (k[:, item_a] * k[:, item_b]) @ dense, atol=1e-12)
    assert sp.issparse(items.matrix) and items.matrix.shape == (n_items, n_cols)


# ------------------------------------------------------- intervals vs the primitives


N_BOOT = 60


@pytest.fixture(scope="module")
def corpus():
    df = simulate(n_items=50, annotators={"ann": "good", "bob": "sloppy", "cyd": "misser"}, seed=13)
    tables = pair_tables(df, n_chance=300)
    return tables, agreement_from_tables(tables, n_boot=N_BOOT, seed=5, ci_method="percentile")


def reference_multiplicities(tables, seed):
    return next(
        multiplicity_blocks(len(tables.corpus.items), N_BOOT, seed=seed, block_size=N_BOOT)
    ).astype(float)


def ci(ds, component, label=ALL, annotator=ALL):
    sel = dict(component=component, label=label, annotator=annotator)
    return float(ds["ci_low"].sel(**sel)), float(ds["ci_high"].sel(**sel))


def test_sigma_intervals_equal_weighted_primitives(corpus):
    tables, ds = corpus
    k = reference_multiplicities(tables, 5)
    w, b = tables.localization_within, tables.localization_between.query("in_uniform")
    reps = replicate_sigma(
        w["distance"], b["distance"], k[:, w["item"]], k[:, b["item_a"]] * k[:, b["item_b"]]
    )
    assert ci(ds, "localization") == pytest.approx(percentile_ci(reps))
    # an annotator's detection cell: the pairings that involve it
    bob = int(np.flatnonzero(tables.corpus.annotators == "bob")[0])
    w, b = (
        t[(t["label"] == -1) & ((t["annotator_a"] == bob) | (t["annotator_b"] == bob))]
        for t in (tables.sets_within, tables.sets_between)
    )
    reps = replicate_sigma(
        w["detection"], b["detection"], k[:, w["item"]], k[:, b["item_a"]] * k[:, b["item_b"]]
    )
    assert ci(ds, "detection", ALL, "bob") == pytest.approx(percentile_ci(reps))


def test_alpha_intervals_equal_weighted_primitives(corpus):
    tables, ds = corpus
    k = reference_multiplicities(tables, 5)
    u = tables.units
    size = u.groupby("cluster")["cluster"].transform("size")
    u = u.loc[size >= 2]
    unit = np.unique(u["cluster"], return_inverse=True)[1]
    item_of_unit = u.groupby("cluster")["item"].first().sort_index().to_numpy()
    labels = u["label"].to_numpy()
    reps = np.array([weighted_nominal_alpha(unit, labels, w) for w in k[:, item_of_unit]])
    assert ci(ds, "classification") == pytest.approx(percentile_ci(reps))


def test_intervals_contain_the_estimate_and_are_seeded(corpus):
    tables, ds = corpus
    value, low, high = (ds[v].values for v in ("agreement", "ci_low", "ci_high"))
    defined = ~np.isnan(value) & (ds["n_units"].values >= 20)
    assert defined.sum() >= 20
    inside = (low[defined] <= value[defined]) & (value[defined] <= high[defined])
    assert inside.mean() >= 0.95
    assert np.isnan(low[np.isnan(value)]).all()
    again = agreement_from_tables(tables, n_boot=N_BOOT, seed=5, ci_method="percentile")
    np.testing.assert_array_equal(again["ci_low"].values, low)
    other = agreement_from_tables(tables, n_boot=N_BOOT, seed=6, ci_method="percentile")
    assert not np.array_equal(other["ci_low"].values[defined], low[defined])
    # the point estimates do not depend on the bootstrap
    np.testing.assert_array_equal(other["agreement"].values, value)
    assert ds.attrs["n_boot"] == N_BOOT and ds.attrs["ci_level"] == 0.95
    assert ds.attrs["ci_method"] == "percentile"


def test_no_bootstrap_no_interval(corpus):
    tables, _ = corpus
    ds = agreement_from_tables(tables, n_boot=0)
    assert ds["ci_low"].isnull().all() and ds["ci_high"].isnull().all()


@pytest.mark.slow
def test_intervals_are_wider_with_fewer_items():
    annotators = {"ann": "good", "bob": "sloppy", "cyd": "mislabeler"}
    small = agreement(simulate(n_items=30, annotators=annotators, seed=1), n_chance=300, n_boot=100)
    large = agreement(
        simulate(n_items=240, annotators=annotators, seed=1), n_chance=300, n_boot=100
    )
    for component in ("detection", "classification", "localization", "overall"):
        lo_s, hi_s = ci(small, component)
        lo_l, hi_l = ci(large, component)
        # about sqrt(8) ~ 2.8 times wider; ask for 1.5
        assert hi_s - lo_s > 1.5 * (hi_l - lo_l), component


def test_progress_bar_can_be_forced_and_turned_off(corpus, capsys):
    tables, _ = corpus
    agreement_from_tables(tables, n_boot=5, progress=True)
    assert "bootstrap" in capsys.readouterr().err
    agreement_from_tables(tables, n_boot=5, progress=False)
    assert "bootstrap" not in capsys.readouterr().err
    agreement_from_tables(tables, n_boot=5)  # short work: no bar by default
    assert "bootstrap" not in capsys.readouterr().err


# ------------------------------------------------------------------------------ BCa


def test_jackknife_blocks_leave_one_group_out():
    blocks = np.concatenate(list(jackknife_blocks(5, block_size=2)))
    np.testing.assert_array_equal(blocks, 1 - np.eye(5, dtype=int))
    grouped = np.concatenate(list(jackknife_blocks(1000, n_groups=200, block_size=64)))
    assert grouped.shape == (200, 1000)
    assert (grouped.sum(axis=1) == 995).all()  # each group holds 5 items
    assert (grouped.sum(axis=0) == 199).all()  # each item left out exactly once


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
    # the small-sample widening scales the half-widths by sqrt(n / (n - 1))
    low, high = bca_interval(0.0, reps, jack, n_items=5)
    assert high - low == pytest.approx(np.sqrt(5 / 4) * 2 * 0.95, rel=1e-9)


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


def test_bca_intervals_equal_weighted_primitives(corpus):
    tables, _ = corpus
    ds = agreement_from_tables(tables, n_boot=N_BOOT, seed=5)
    assert ds.attrs["ci_method"] == "bca"
    n = len(tables.corpus.items)
    k = reference_multiplicities(tables, 5)
    jk = np.concatenate(list(jackknife_blocks(n))).astype(float)
    w, b = tables.localization_within, tables.localization_between.query("in_uniform")

    def stat(weights):
        return replicate_sigma(
            w["distance"],
            b["distance"],
            weights[:, w["item"]],
            weights[:, b["item_a"]] * weights[:, b["item_b"]],
        )

    # the pair-level variance, by hand: chance rows summed per unordered pair of items
    pairs = b.assign(a=np.minimum(b["item_a"], b["item_b"]), z=np.maximum(b["item_a"], b["item_b"]))
    per_pair = pairs.groupby(["a", "z"])["distance"].agg(["size", "sum"])
    o, e = w["distance"].mean(), b["distance"].mean()
    resid = per_pair["sum"] - e * per_pair["size"]
    pair_var = (o / e**2) ** 2 * np.sum(resid**2) / len(b) ** 2
    scale = interval_scale(stat(jk), pair_var, n_items=n)
    expected = bca_interval(sigma(w["distance"], b["distance"]), stat(k), stat(jk), scale=scale)
    assert ci(ds, "localization") == pytest.approx(expected)
    assert 0.5 < scale < 1.2


def test_bad_ci_method(corpus):
    with pytest.raises(ParameterError, match="ci_method"):
        agreement_from_tables(corpus[0], n_boot=5, ci_method="studentized")


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
    estimates, boot, corrected = [], [], []
    for c in range(n_corpora):  # independent corpora, each with its own bootstrap
        g = rng.normal(0.0, item_sd, n)
        value = 1.0 + g[a] + g[b] + rng.normal(0.0, 1.0, len(a))
        estimates.append(value.mean())
        k = next(multiplicity_blocks(n, n_boot, seed=c, block_size=n_boot)).astype(float)
        w = k[:, a] * k[:, b]
        reps = (w @ value) / w.sum(axis=1)
        jk = np.concatenate(list(jackknife_blocks(n))).astype(float)
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
    df = jackknife_df(jack)
    np.testing.assert_allclose(
        scale, scipy.stats.t.ppf(0.975, df) / scipy.stats.norm.ppf(0.975), rtol=1e-9
    )
    assert 1.0 < np.median(scale) < 1.06
    # the pair-level part narrows it, never below sqrt(1/3) of the Student width
    v = jackknife_variance(jack, n_items=40)
    narrowed = interval_scale(jack, 10 * v, n_items=40)
    assert (narrowed < scale).all() and (narrowed >= np.sqrt(1 / 3)).all()
    # a statistic without jackknife variance keeps its width
    assert interval_scale(np.ones((5, 1)), 0.0, n_items=5).tolist() == [1.0]
