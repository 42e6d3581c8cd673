"""cell_intervals: the engine's bootstrap interval of cells kept as per-item sums."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_frames.stats.bootstrap import ItemSums, multiplicity_blocks
from iaa_frames.stats.cell_intervals import cell_intervals, interval_attrs
from iaa_frames.stats.intervals import MIN_CI_ITEMS


def _means(n_items=30, seed=0):
    """Two cells: the mean of a value over every item, and over the first three items."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.6, 0.15, n_items)
    item = np.r_[np.arange(n_items), np.arange(3)]
    column = np.r_[np.zeros(n_items, int), np.ones(3, int)]
    value = np.r_[x, x[:3]]
    sums = ItemSums.from_entries(
        item=np.r_[item, item], column=np.r_[column * 2, column * 2 + 1],
        value=np.r_[np.ones(len(item)), value], n_items=n_items, n_columns=4,
    )  # fmt: skip

    def statistics(k=None):
        t = sums.total(k)
        with np.errstate(invalid="ignore", divide="ignore"):  # a cell without its items
            return {"mean": t[..., 1::2] / t[..., 0::2]}

    return x, statistics


def test_percentile_interval_is_that_of_the_replicates_by_hand():
    x, statistics = _means()
    est = statistics()["mean"]
    (low, high), = cell_intervals(
        statistics, {"mean": est}, n_items=30, cell_items={"mean": np.array([30, 3])},
        n_boot=400, seed=3, ci_method="percentile",
    ).values()  # fmt: skip
    k = np.concatenate(list(multiplicity_blocks(30, 400, seed=3)))
    by_hand = (k @ x) / k.sum(axis=1)
    np.testing.assert_allclose([low[0], high[0]], np.percentile(by_hand, [2.5, 97.5]))
    # the cell on three items gets no interval
    assert np.isnan(low[1]) and np.isnan(high[1]) and 3 < MIN_CI_ITEMS


def test_bca_covers_the_mean_and_follows_the_seed():
    hits = 0
    for seed in range(40):
        _, statistics = _means(seed=seed)
        est = statistics()["mean"]
        low, high = cell_intervals(
            statistics, {"mean": est}, n_items=30, cell_items={"mean": np.array([30, 3])},
            n_boot=300, seed=seed,
        )["mean"]  # fmt: skip
        assert low[0] <= est[0] <= high[0] <= 1.0
        hits += int(low[0] <= 0.6 <= high[0])
    assert 34 <= hits <= 40  # 95 % of 40: 38
    _, statistics = _means()
    est = {"mean": statistics()["mean"]}
    items = {"mean": np.array([30, 3])}
    one = cell_intervals(statistics, est, n_items=30, cell_items=items, n_boot=50, seed=1)
    two = cell_intervals(statistics, est, n_items=30, cell_items=items, n_boot=50, seed=1)
    other = cell_intervals(statistics, est, n_items=30, cell_items=items, n_boot=50, seed=2)
    np.testing.assert_array_equal(one["mean"][0], two["mean"][0])
    assert not np.array_equal(one["mean"][0], other["mean"][0], equal_nan=True)


def test_no_replicates_no_bounds_and_groups_resample_together():
    _, statistics = _means()
    est = {"mean": statistics()["mean"]}
    items = {"mean": np.array([30, 3])}
    low, high = cell_intervals(statistics, est, n_items=30, cell_items=items, n_boot=0, seed=0)[
        "mean"
    ]
    assert np.isnan(low).all() and np.isnan(high).all()
    # items in 3 groups of 10: a cell resting on every item rests on 3 groups; its interval
    # is still reported (30 items), and wider than with independent items
    groups = np.repeat(np.arange(3), 10)
    grouped = cell_intervals(
        statistics, est, n_items=30, cell_items=items, n_boot=200, seed=0,
        clusters=groups, n_clusters=3,
    )["mean"]  # fmt: skip
    free = cell_intervals(statistics, est, n_items=30, cell_items=items, n_boot=200, seed=0)["mean"]
    assert np.isfinite(grouped[0][0])
    assert grouped[1][0] - grouped[0][0] != pytest.approx(free[1][0] - free[0][0])


def test_interval_attrs():
    assert interval_attrs(n_boot=10, seed=2, ci_method="percentile") == {
        "n_boot": 10,
        "bootstrap_seed": 2,
        "ci_level": 0.95,
        "ci_method": "percentile",
        "min_ci_items": MIN_CI_ITEMS,
    }
