"""Cells whose chance rate is borrowed (a class on the pooled rate) and whose annotators
never disagree: the rule of rare disagreements widens them too. On the real LVIS double
annotations, 39 classification cells of classes on 4-6 items read 1.00 [1.00, 1.00]
before: with no chance disagreement of their own, their event credit was NaN and the
rule never fired."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats
from thin_corpora import rare_class_drawn_alike

import iaa_frames as iaf
from iaa_frames.stats.intervals import widen_rare_disagreements


def test_a_borrowed_rate_credits_an_item_with_chance_per_item():
    """No event in k items, no chance credit of its own: an item that disagrees as chance
    does brings N E / k, so the low end is 1 - p_U, the Clopper-Pearson upper bound of
    the share of k items with an event (scipy's beta quantile)."""
    events = {
        "items": np.zeros(3),
        "credit": np.zeros(3),
        "chance_credit": np.full(3, np.nan),
    }
    k = np.array([4.0, 5.0, 12.0])
    low, high = widen_rare_disagreements(
        np.ones(3), np.ones(3), events, [24.0, 30.0, 80.0], [0.033, 0.5, 0.2], k
    )
    p_upper = scipy.stats.beta.ppf(0.975, 1, k)
    np.testing.assert_allclose(low, 1 - p_upper, rtol=1e-12)
    np.testing.assert_array_equal(high, 1.0)
    # a chance credit of its own is kept as it was
    own = events | {"chance_credit": np.array([2.0, np.nan, np.nan])}
    low2, _ = widen_rare_disagreements(
        np.ones(3), np.ones(3), own, [24.0, 30.0, 80.0], [0.033, 0.5, 0.2], k
    )
    assert low2[0] == 1 - 2.0 * 4 * p_upper[0] / (24 * 0.033)
    np.testing.assert_array_equal(low2[1:], low[1:])


def test_a_rare_class_on_the_pooled_rate_is_not_certain():
    """A class on 5 items, tiny boxes that both annotators draw alike where nothing else
    is (no chance pair of its own: its chance rate is the pooled one): agreement 1 and
    the low end 1 - p_U of 5 items (it read 1.00 [1.00, 1.00])."""
    full = rare_class_drawn_alike(n_items=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = iaf.agreement(full, n_boot=100, seed=0, progress=False)
    cell = res.sel(component="classification", label="zebra", annotator="(all)")
    assert str(cell["chance_source"].item()) == "pooled"
    assert float(cell["agreement"]) == 1.0 and float(cell["ci_high"]) == 1.0
    assert float(cell["ci_low"]) == pytest.approx(1 - scipy.stats.beta.ppf(0.975, 1, 5))
