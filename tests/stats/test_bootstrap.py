"""Tests for the cluster bootstrap over items: multiplicities, reweighted sums, and the
intervals of the agreement table against the weight-aware primitives of stats/alpha."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import poststratified_weights, weighted_nominal_alpha

from iaa_frames.core.engine import agreement, agreement_from_tables
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import CopiedItemsWarning, ParameterError
from iaa_frames.simulate import simulate
from iaa_frames.stats.bootstrap import (
    ItemSums,
    PairSums,
    block_size,
    jackknife_blocks,
    multiplicity_blocks,
)
from iaa_frames.stats.intervals import bca_interval, interval_scale
from iaa_frames.stats.samples import percentile_ci, sigma


def replicate_sigma(within, between, within_weights, between_weights):
    """sigma of every replicate (a row of each weight array), one call each."""
    return np.array(
        [
            sigma(within, between, within_weights=a, between_weights=b)
            for a, b in zip(within_weights, between_weights)
        ]
    )


ALL = "(all)"


def localization_rows_of_all(tables):
    """Within rows, chance rows and chance weights of the "(all)" localization cell: the
    uniform stratum's rows, post-stratified (the rule by hand: tests/support/oracles.py)."""
    w, b = tables.localization_within, tables.localization_between.query("in_uniform")
    wy = poststratified_weights(tables, w, b, np.ones(len(b)), pools_classes=True)
    return w, b[wy > 0], wy[wy > 0]


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


def test_pair_sums_drop_pairs_without_entries_bit_for_bit():
    # the rows of pairs (2, 3) and (0, 4) are stored nowhere (an empty row; two rows that
    # cancel): they are dropped, and the totals are bitwise those of the indicator product
    # over the two pairs that remain
    rng = np.random.default_rng(3)
    item_a = np.array([0, 2, 1, 0, 4, 1, 0])
    item_b = np.array([1, 3, 2, 4, 0, 2, 1])
    dense = rng.normal(size=(7, 3))
    dense[1] = 0.0
    dense[3], dense[4] = [1.5, 0.0, -2.0], [-1.5, 0.0, 2.0]
    pairs = PairSums(item_a, item_b, sp.csr_matrix(dense))
    assert list(zip(pairs.item_a.tolist(), pairs.item_b.tolist())) == [(0, 1), (1, 2)]
    assert pairs.matrix.shape == (2, 3)
    per_pair = sp.csr_matrix(np.array([[1, 0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 1, 0]])) @ (
        sp.csr_matrix(dense)
    )
    k = rng.integers(0, 4, size=(5, 5)).astype(float)
    expected = np.asarray(per_pair.T @ (k[:, [0, 1]] * k[:, [1, 2]]).T).T
    np.testing.assert_array_equal(pairs.total(k), expected)
    np.testing.assert_array_equal(pairs.total(), np.asarray(per_pair.sum(axis=0)).ravel())


@pytest.mark.parametrize("budget", [1, 7, 40, 1 << 19])
def test_pair_sums_in_blocks_of_replicates_are_the_product_of_all_bitwise(monkeypatch, budget):
    # the pair weights are formed a few replicates at a time (PAIR_BLOCK_ELEMENTS): each
    # replicate's column is that of the product of all replicates at once, bit for bit
    rng = np.random.default_rng(8)
    item_a, item_b = rng.integers(0, 6, 40), rng.integers(0, 6, 40)
    dense = rng.random((40, 5)) * (rng.random((40, 5)) < 0.5)
    k = rng.integers(0, 4, size=(23, 6)).astype(float)
    pairs = PairSums(item_a, item_b, sp.csr_matrix(dense))
    weights = k[:, pairs.item_a] * k[:, pairs.item_b]
    expected = np.asarray(pairs.matrix.T.tocsr() @ np.ascontiguousarray(weights.T)).T
    monkeypatch.setattr("iaa_frames.stats.bootstrap.PAIR_BLOCK_ELEMENTS", budget)
    monkeypatch.setattr("iaa_frames.stats.bootstrap.PAIR_MIN_BLOCK", 1)
    np.testing.assert_array_equal(pairs.total(np.asfortranarray(k)), expected)


def test_totals_are_summed_once_and_given_as_copies():
    rng = np.random.default_rng(9)
    dense = rng.random((6, 4))
    items = ItemSums(sp.csr_matrix(dense))
    pairs = PairSums(np.arange(6) % 3, np.arange(6) % 2, sp.csr_matrix(dense))
    for sums in (items, pairs):
        first = sums.total()
        np.testing.assert_array_equal(first, np.asarray(sums.matrix.sum(axis=0)).ravel())
        first[:] = -1.0  # a caller's changes do not reach the next caller
        np.testing.assert_array_equal(sums.total(), np.asarray(sums.matrix.sum(axis=0)).ravel())


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
    w, b, wy = localization_rows_of_all(tables)
    reps = replicate_sigma(
        w["distance"],
        b["distance"],
        k[:, w["item"]],
        k[:, b["item_a"]] * k[:, b["item_b"]] * wy,
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


@pytest.fixture(scope="module")
def mislabeled_corpus():
    """The corpus of :func:`corpus` with an annotator whose labels disagree in many items."""
    annotators = {"ann": "good", "bob": "sloppy", "cyd": "mislabeler"}
    df = simulate(n_items=50, annotators=annotators, seed=13)
    tables = pair_tables(df, n_chance=300)
    return tables, agreement_from_tables(tables, n_boot=N_BOOT, seed=5, ci_method="percentile")


def test_label_alpha_equals_the_weighted_primitive(mislabeled_corpus):
    """``label_alpha`` (Krippendorff's nominal alpha of the clusters' labels) is the
    oracle's alpha at unit weights. (This test once compared the classification
    interval with the oracle's bootstrap of alpha, which only held on a corpus without a
    label disagreement, where both read [1, 1]: classification is a sigma, not alpha.)"""
    tables, ds = mislabeled_corpus
    u = tables.units
    size = u.groupby("cluster")["cluster"].transform("size")
    u = u.loc[size >= 2]
    unit = np.unique(u["cluster"], return_inverse=True)[1]
    labels = u["label"].to_numpy()
    want = weighted_nominal_alpha(unit, labels, np.ones(unit.max() + 1))
    got = ds["label_alpha"].sel(component="classification", label=ALL, annotator=ALL)
    assert 0.3 < want < 0.9  # labels that disagree: not the degenerate 1
    assert float(got) == pytest.approx(want, rel=1e-12)


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


def test_bca_intervals_equal_weighted_primitives(corpus):
    tables, _ = corpus
    ds = agreement_from_tables(tables, n_boot=N_BOOT, seed=5)
    assert ds.attrs["ci_method"] == "bca"
    n = len(tables.corpus.items)
    k = reference_multiplicities(tables, 5)
    jk = np.concatenate(list(jackknife_blocks(n))).astype(float)
    w, b, wy = localization_rows_of_all(tables)

    def stat(weights):
        return replicate_sigma(
            w["distance"],
            b["distance"],
            weights[:, w["item"]],
            weights[:, b["item_a"]] * weights[:, b["item_b"]] * wy,
        )

    # the pair-level variance, by hand: weighted chance rows summed per pair of items
    pairs = b.assign(
        a=np.minimum(b["item_a"], b["item_b"]),
        z=np.maximum(b["item_a"], b["item_b"]),
        w=wy,
        wd=wy * b["distance"].to_numpy(),
    )
    per_pair = pairs.groupby(["a", "z"])[["w", "wd"]].sum()
    o, e = w["distance"].mean(), np.average(b["distance"], weights=wy)
    resid = per_pair["wd"] - e * per_pair["w"]
    pair_var = (o / e**2) ** 2 * np.sum(resid**2) / wy.sum() ** 2
    # the cell rests on the items with a matched pair (its n_items), not on every item
    cell_items = w["item"].nunique()
    assert (
        float(ds["n_items"].sel(component="localization", label=ALL, annotator=ALL)) == cell_items
    )
    scale = interval_scale(stat(jk), pair_var, n_items=n, cell_items=cell_items)
    point = sigma(w["distance"], b["distance"], between_weights=wy)
    expected = bca_interval(point, stat(k), stat(jk), scale=scale)
    assert ci(ds, "localization") == pytest.approx(expected)
    assert 0.5 < scale < 1.2


def test_bad_ci_method(corpus):
    with pytest.raises(ParameterError, match="ci_method"):
        agreement_from_tables(corpus[0], n_boot=5, ci_method="studentized")


def test_widened_intervals_stay_at_most_one():
    # near-perfect detection on a small corpus: Student's widening about the BCa median
    # would put the upper bound of some class cells above 1 (measured: 5 cells, up to
    # 1.04); agreement is at most 1, and so is the interval
    df = simulate(n_items=20, annotators={"a": "good", "b": "good", "c": "sloppy"}, seed=0)
    ds = agreement_from_tables(pair_tables(df, n_chance=300), n_boot=100)
    high = ds["ci_high"].values
    assert np.nanmax(high) <= 1.0
    at_one = (high == 1.0) & (ds["agreement"].values < 1.0)
    assert at_one.sum() >= 5  # the widened bounds that reached 1 are kept at 1
    assert (ds["ci_low"].values[at_one] < ds["agreement"].values[at_one]).all()


# ------------------------------------------------------------------ groups of items


def test_cluster_multiplicities_draw_whole_groups():
    clusters = np.array([0, 0, 1, 2, 2, 2, 1])
    k = np.concatenate(list(multiplicity_blocks(7, 500, seed=3, clusters=clusters)))
    # a group's items share its multiplicity; the groups are drawn 3 at a time
    for g in range(3):
        assert (k[:, clusters == g] == k[:, clusters == g][:, :1]).all()
    per_group = k[:, [0, 2, 3]]
    assert (per_group.sum(axis=1) == 3).all()
    # each group's multiplicity is Binomial(3, 1/3): mean 1, variance 2/3
    assert per_group.mean() == pytest.approx(1.0, abs=0.06)
    assert per_group.var() == pytest.approx(2 / 3, abs=0.08)
    # one group per item is the item bootstrap, stream and all
    same = multiplicity_blocks(7, 20, seed=3, clusters=np.arange(7))
    np.testing.assert_array_equal(next(same), next(multiplicity_blocks(7, 20, seed=3)))


def test_cluster_jackknife_leaves_whole_groups_out():
    clusters = np.array([1, 0, 1, 2])
    jack = np.concatenate(list(jackknife_blocks(4, clusters=clusters)))
    assert jack.tolist() == [[1, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 0]]
    np.testing.assert_array_equal(
        np.concatenate(list(jackknife_blocks(5, clusters=np.arange(5)))),
        np.concatenate(list(jackknife_blocks(5))),
    )


def test_grouped_intervals_equal_weighted_primitives_over_groups():
    df = simulate(n_items=24, annotators={"ann": "good", "bob": "sloppy"}, seed=2)
    items = np.sort(df["item"].unique())
    df = df.assign(group=df["item"].map(dict(zip(items, np.arange(24) // 3))))
    tables = pair_tables(df, n_chance=200)
    ds = agreement_from_tables(tables, n_boot=N_BOOT, seed=5, ci_method="percentile")
    clusters = tables.corpus.group_codes()
    k = next(multiplicity_blocks(24, N_BOOT, seed=5, block_size=N_BOOT, clusters=clusters)).astype(
        float
    )
    w, b = tables.localization_within, tables.localization_between.query("in_uniform")
    reps = replicate_sigma(
        w["distance"], b["distance"], k[:, w["item"]], k[:, b["item_a"]] * k[:, b["item_b"]]
    )
    assert ci(ds, "localization") == pytest.approx(percentile_ci(reps))


def test_copies_in_one_group_widen_the_interval():
    # every item copied once: 2n items that hold only n independent images; resampling
    # items treats the copies as independent (too narrow), resampling groups does not
    df = simulate(n_items=20, annotators={"ann": "good", "bob": "sloppy"}, seed=4)
    copy = df.assign(item=df["item"] + "_copy")
    both = pd.concat([df, copy], ignore_index=True).drop(columns="object_id")
    both["group"] = both["item"].str.removesuffix("_copy")
    sel = dict(component="localization", label=ALL, annotator=ALL)
    width = {}
    for name, frame in (("items", both.drop(columns="group")), ("groups", both)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CopiedItemsWarning)
            ds = agreement(frame, n_boot=200, seed=1, n_chance=300)
        width[name] = float(ds["ci_high"].sel(**sel) - ds["ci_low"].sel(**sel))
    assert width["groups"] > 1.2 * width["items"]


def test_pair_totals_of_column_subsets_are_those_of_total():
    """PairSums.totals_of, on the matrix or on some of its columns, gives the columns of
    total(k) bit for bit."""
    rng = np.random.default_rng(5)
    n_rows, n_items = 400, 25
    sums = PairSums.from_entries(
        rng.integers(0, n_items, n_rows),
        rng.integers(0, n_items, n_rows),
        rng.integers(0, n_rows, 900),
        rng.integers(0, 6, 900),
        rng.random(900),
        n_columns=6,
    )
    k = np.asfortranarray(next(multiplicity_blocks(n_items, 70, seed=1)), dtype=np.float64)
    want = sums.total(k)
    whole, part = sums.totals_of(k, [sums.by_column(), sums.by_column(slice(3, None))])
    assert whole.tobytes() == want.tobytes()
    assert part.tobytes() == np.ascontiguousarray(want[:, 3:]).tobytes()


def test_column_items_are_counted_once_and_match_the_nonzero_items():
    from iaa_frames.core.engine.cells import items_per_column

    m = sp.random(30, 8, density=0.3, random_state=7, format="csr")
    m.data[::5] = 0.0  # stored zeros are not items
    sums = ItemSums(m)
    first = sums.column_items(5)
    np.testing.assert_array_equal(first, items_per_column(m, slice(0, 5)))
    first[:] = -1  # a copy: the count kept is not changed
    np.testing.assert_array_equal(sums.column_items(5), items_per_column(m, slice(0, 5)))
    np.testing.assert_array_equal(sums.column_items(8), items_per_column(m, slice(0, 8)))
