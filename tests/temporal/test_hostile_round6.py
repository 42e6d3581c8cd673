"""Hostile review, round 6 (second wave), of ``agreement_over_time``: a window size that
is not a count, and a time column that cannot be a column's name."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf


def _frame(n_items: int = 8) -> pd.DataFrame:
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10 + i + k * 3, y0=10,
             x1=50 + i + k * 3, y1=60, width=200, height=100, time=float(i // 3))
        for i in range(n_items)
        for k, a in enumerate("ABC")
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("min_items", [None, "x", [1, 2], 0, -1, True, 2.5])
def test_min_items_must_be_a_count_of_items(min_items):
    with pytest.raises(iaf.ParameterError, match=r"min_items must be an integer >= 1"):
        iaf.agreement_over_time(_frame(), freq=3, min_items=min_items, n_boot=2, n_chance=20)


def test_min_items_is_checked_through_the_accessor_too():
    with pytest.raises(iaf.ParameterError, match=r"min_items must be an integer >= 1"):
        _frame().iaa.agreement_over_time(freq=3, min_items=None, n_boot=2, n_chance=20)


def test_a_list_for_time_is_a_parameter_error_not_an_unhashable_type():
    with pytest.raises(iaf.ParameterError, match=r"time must be the name of a column"):
        iaf.agreement_over_time(_frame(), time=["time"], freq=3, n_boot=2, n_chance=20)


def test_min_items_one_still_keeps_every_window():
    res = iaf.agreement_over_time(_frame(), freq=1, min_items=1, n_boot=2, n_chance=20)
    assert np.asarray(res["n_items"]).tolist() == [3, 3, 2]


def _tracks() -> pd.DataFrame:
    df = _frame(6)
    return df.assign(group="v1", track_id=1, frame=df["item"].str[1:].astype(int))


def test_a_list_for_repeat_is_a_parameter_error():
    df = pd.concat([_frame().assign(round=1), _frame().assign(round=2)], ignore_index=True)
    with pytest.raises(iaf.ParameterError, match=r"repeat must be the name of a column"):
        iaf.intra_agreement(df, repeat=["round"], n_boot=2, n_chance=20)


@pytest.mark.parametrize("function", [iaf.track_agreement, iaf.track_figures])
def test_a_list_for_track_or_frame_is_a_parameter_error(function):
    with pytest.raises(iaf.ParameterError, match=r"track must be the name of a column"):
        function(_tracks(), track=["track_id"], n_chance=20)
    with pytest.raises(iaf.ParameterError, match=r"frame must be None or the name of a column"):
        function(_tracks(), frame=["frame"], n_chance=20)


def test_one_window_per_item_past_the_most_windows_is_refused_before_any_work():
    from iaa_frames.temporal.over_time import MAX_WINDOWS

    n = MAX_WINDOWS + 1
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10, y0=10, x1=50, y1=60, width=200,
             height=100, time=float(i))
        for i in range(n)
        for a in "AB"
    ]  # fmt: skip
    with pytest.raises(iaf.ParameterError, match=r"1,001 windows of 1 items or more: at most "):
        iaf.agreement_over_time(pd.DataFrame(rows), freq=1, min_items=1, n_boot=2, n_chance=20)


def test_every_nan_drop_has_a_flag_note():
    same = _frame(9)  # every annotator draws the same box: some components undefined
    same["x0"] = 10.0 + 7 * same["item"].str[1:].astype(float)
    same["x1"] = same["x0"] + 40
    res = iaf.agreement_over_time(same, freq=1, min_items=3, n_boot=5, n_chance=20)
    nan = np.isnan(res["drop"].values)
    assert nan.any()
    notes = res["flag_note"].transpose(*res["drop"].dims).values
    assert all(isinstance(n, str) and n for n in notes[nan])
    assert (notes[~nan] == "").all()


def test_one_window_says_there_is_no_baseline():
    res = iaf.agreement_over_time(_frame(), freq=100, min_items=1, n_boot=5, n_chance=20)
    assert res.sizes["window"] == 1 and np.isnan(res["drop"].values).all()
    assert set(res["flag_note"].values.ravel()) == {
        "one window: no earlier windows to compare the latest with"
    }


def test_no_replicates_says_why_the_margins_are_nan():
    res = iaf.agreement_over_time(_frame(), freq=1, min_items=1, n_boot=0, n_chance=20)
    finite = np.isfinite(res["drop"].values)
    assert finite.any() and np.isnan(res["drop_margin"].values[finite]).all()
    notes = res["flag_note"].transpose(*res["drop"].dims).values[finite]
    assert set(notes) == {"n_boot=0: no replicates, so no margins"}
