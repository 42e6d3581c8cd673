"""Detection, localization and overall cells where (almost) no item holds a disagreement:
the rule of rare disagreements widens them as it widens classification's. On the real
LVIS double annotations 45 detection cells of classes on 4-6 items read 1.00 [1.00, 1.00]
before (both raters found the same objects on every item); two identical annotators on 8
items read 1.00 [1.00, 1.00] in every component."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from thin_corpora import rare_class_drawn_alike

import iaa_frames as iaf
from iaa_frames.core.engine import CellLayout, component_cells
from iaa_frames.core.engine.credit import unit_credits, unit_credits_of_cells
from iaa_frames.stats.intervals import widen_rare_disagreements

SIGMA = ["detection", "localization", "overall"]


def _agreement(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return iaf.agreement(df, n_boot=100, seed=0, progress=False, **kw)


def test_identical_annotators_on_8_items_are_not_certain():
    """No item disagrees anywhere: an item that would disagree is credited as chance per
    item (N E / k), and the low end is 1 - p_U of 8 items (scipy's beta quantile)."""
    df = iaf.simulate(n_items=8, seed=2)
    one = df[df["annotator"] == df["annotator"].iloc[0]].drop(columns="object_id")
    twin = pd.concat([one, one.assign(annotator="copy")], ignore_index=True)
    res = _agreement(twin)
    cell = res.sel(label="(all)", annotator="(all)", component=SIGMA)
    np.testing.assert_array_equal(cell["agreement"].values, 1.0)
    np.testing.assert_array_equal(cell["ci_high"].values, 1.0)
    p_upper = scipy.stats.beta.ppf(0.975, 1, 8)
    np.testing.assert_allclose(cell["ci_low"].values, 1 - p_upper, rtol=1e-9)


def test_a_cell_with_no_disagreement_reaches_below_1_whatever_the_component():
    """Good annotators, one rare class on 5 items drawn alike by both: every defined
    sigma cell with an interval and agreement 1 has a low end below 1."""
    full = rare_class_drawn_alike(n_items=5)
    res = _agreement(full).sel(component=SIGMA)
    value, low, high = (res[v].values for v in ("agreement", "ci_low", "ci_high"))
    perfect = np.isfinite(low) & (value == 1.0)
    assert perfect.sum() >= 3  # the zebra cells at least
    assert (low[perfect] < 1.0).all() and (high[perfect] == 1.0).all()
    zebra = res.sel(label="zebra", annotator="(all)", component="detection")
    assert float(zebra["agreement"]) == 1.0 and float(zebra["ci_low"]) < 1.0


def test_an_event_item_is_credited_as_the_corpus_disagrees():
    """With a unit credit (the corpus's mean distance of a unit in items that disagree),
    a cell with no event item gets the low end 1 - p_U * credit / E: its k items could
    hold up to k p_U disagreeing items of N / k units each."""
    events = {"items": np.zeros(1), "credit": np.zeros(1), "chance_credit": np.ones(1)}
    k, n, e, credit = 5.0, 10.0, 0.9, 0.3
    low, high = widen_rare_disagreements(
        np.ones(1), np.ones(1), events, [n], [e], [k], unit_credit=credit
    )
    p_upper = scipy.stats.beta.ppf(0.975, 1, k)
    assert low[0] == pytest.approx(1 - p_upper * credit / e, rel=1e-12)
    assert high[0] == 1.0


def test_the_unit_credit_is_the_mean_distance_in_items_that_disagree():
    """Brute force with pandas: per component, the mean within distance of the rows of
    the items with a row above 0 (pairings of whole annotations; matched pairs), and the
    same from the cells' "(all)" cell, which the statistics of dask's cells read."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = iaf.pair_tables(iaf.simulate(n_items=12, seed=5), n_chance=200)
    got = unit_credits(t)
    whole = t.sets_within[t.sets_within["label"] < 0]  # pairings of whole annotations
    for name, frame, col in (
        ("detection", whole, "detection"),
        ("overall", whole, "overall"),
        ("localization", t.localization_within, "distance"),
    ):
        disagree = frame.groupby("item")[col].transform(lambda d: (d > 1e-9).any())
        assert got[name] == pytest.approx(frame.loc[disagree, col].mean(), rel=1e-12)
        assert 0 < got[name] <= 1
    layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
    parts = {c: component_cells(t, layout, c) for c in got}
    of_cells = unit_credits_of_cells(parts)
    for name in got:
        assert of_cells[name] == pytest.approx(got[name], rel=1e-12)
