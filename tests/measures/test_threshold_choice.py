"""Tests for iaa_frames.measures.threshold_choice: the data-driven threshold (Youden's J of
same-item pairs against chance pairs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.measures import threshold_choice
from iaa_frames.measures.threshold_choice import GRID, suggest_threshold, threshold_separation


def trio(profile):
    return {"a": profile, "b": profile, "c": profile}


@pytest.fixture(scope="module")
def tables():
    df = iaf.simulate(n_items=40, seed=4, annotators=trio({"jitter": 0.15, "miss": 0.02}))
    return pair_tables(df, match_threshold=0.0, n_chance=400, seed=1)


def test_shares_equal_brute_force(tables):
    sep = threshold_separation(tables)
    w = tables.localization_within["iou"].to_numpy()
    b = tables.localization_between
    c = b.loc[b["in_uniform"], "iou"].to_numpy()
    for t in (0.01, 0.1, 0.29, 0.5, 0.77, 1.0):
        row = sep[np.isclose(sep["threshold"], t)].iloc[0]
        assert row["within"] == pytest.approx(np.mean(w >= t))
        assert row["chance"] == pytest.approx(np.mean(c >= t))
        assert row["youden_j"] == pytest.approx(np.mean(w >= t) - np.mean(c >= t))
    assert sep.attrs == {"n_within": len(w), "n_chance": len(c)}
    assert np.all(np.diff(sep["within"]) <= 0) and np.all(np.diff(sep["chance"]) <= 0)
    # at τ = 0 nothing is gated: every assigned pair is in the within table
    assert len(w) == int(tables.sets_within.query("label == -1")[["n_a", "n_b"]].min(axis=1).sum())


def test_frame_and_tables_give_the_same_answer(tables):
    df = iaf.simulate(n_items=40, seed=4, annotators=trio({"jitter": 0.15, "miss": 0.02}))
    assert suggest_threshold(df, n_chance=400, seed=1) == suggest_threshold(tables)
    pd.testing.assert_frame_equal(
        threshold_separation(df, n_chance=400, seed=1), threshold_separation(tables)
    )


def test_more_jitter_suggests_a_lower_threshold():
    got = [
        suggest_threshold(
            iaf.simulate(n_items=30, seed=2, annotators=trio({"jitter": j})), n_chance=300
        )
        for j in (0.0, 0.05, 0.15, 0.3)
    ]
    assert got == sorted(got, reverse=True) and got[0] - got[-1] > 0.4
    assert all(0 < g <= 1 for g in got)


def test_the_middle_of_the_best_run(monkeypatch):
    j = np.zeros(len(GRID))
    j[20:31] = 0.9  # a plateau 0.21 .. 0.31
    j[25] = 0.905  # its best point
    j[70:80] = 0.899  # another near-best run, not adjacent: ignored

    def fake(*args, **kwargs):
        return pd.DataFrame({"threshold": GRID, "within": j, "chance": 0 * j, "youden_j": j})

    monkeypatch.setattr(threshold_choice, "threshold_separation", fake)
    assert suggest_threshold(None) == 0.26
    assert suggest_threshold(None, tolerance=0.0) == 0.26
    j[:] = 0.5  # flat everywhere: the middle of the whole grid
    assert suggest_threshold(None) == 0.5


def test_errors(tables):
    df = iaf.simulate(n_items=6, seed=0)
    with pytest.raises(ParameterError, match="match_threshold=0"):
        threshold_separation(pair_tables(df, n_chance=50))
    for bad in (-0.1, 1.0, True, "0.1"):
        with pytest.raises(ParameterError, match="tolerance"):
            suggest_threshold(tables, tolerance=bad)
    empty = iaf.simulate(n_items=4, seed=0, objects_per_item=0)
    with pytest.raises(iaf.IAAError):
        suggest_threshold(empty, n_chance=20)
