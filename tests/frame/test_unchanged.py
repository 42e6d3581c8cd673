"""iaa_frames.frame.unchanged: a snapshot tells a frame unchanged from one that changed,
however it was written to, and the memo of frames lets go of them."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_frames.core.engine.memo import frame_digest
from iaa_frames.frame.unchanged import COPY_ON_WRITE, FrameMemo, Snapshot

pytestmark = pytest.mark.skipif(not COPY_ON_WRITE, reason="pandas copies on write from 3.0")

N = 12


def _frame():
    """A column of every storage: floats and ints (one numpy block each), Arrow strings,
    objects (geometries and None), a masked integer, a category and dates."""
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "x": rng.uniform(0, 9, N),
            "y": rng.uniform(0, 9, N),
            "n": np.arange(N),
            "name": [f"s{i}" for i in range(N)],
            "geometry": [shapely.box(0, 0, i + 1, 1) if i % 2 else None for i in range(N)],
            "masked": pd.array(np.arange(N), dtype="Int64"),
            "cat": pd.Categorical(rng.choice(["a", "b"], N), categories=["a", "b"]),
            "when": pd.date_range("2026-01-01", periods=N),
        }
    )


VALUES = {
    "x": 100.5,
    "y": np.nan,
    "n": -7,
    "name": "changed",
    "geometry": shapely.box(5, 5, 6, 6),
    "masked": pd.NA,
    "cat": "b",
    "when": pd.Timestamp("2030-01-01"),
}


def test_an_untouched_frame_matches_and_a_copy_does_not():
    df = _frame()
    snap = Snapshot.of(df)
    assert snap.matches(df)
    assert not snap.matches(df.copy())  # the same values in other memory: another frame
    assert not snap.matches(df.copy(deep=False))  # other axes objects


@pytest.mark.parametrize("column", list(VALUES))
@pytest.mark.parametrize("how", ["loc", "array"])
def test_a_value_written_to_any_column_either_way_is_seen(column, how):
    df = _frame()
    snap = Snapshot.of(df)
    row = 0 if column != "cat" or df["cat"].iloc[0] != "b" else 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "loc":
            df.loc[row, column] = VALUES[column]
        else:
            df[column].array[row] = VALUES[column]
    assert not snap.matches(df)


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.__setitem__("x", f["y"]),
        lambda f: f.__setitem__("extra", 1),
        lambda f: f.__delitem__("name"),
        lambda f: setattr(f, "columns", ["z", *f.columns[1:]]),
        lambda f: setattr(f, "index", f.index[::-1]),
        lambda f: f.fillna({"masked": 0}, inplace=True),
        lambda f: f.update(pd.DataFrame({"x": f["x"] + 1})),
    ],
    ids=["column set", "added", "deleted", "renamed", "index", "fillna", "update"],
)
def test_a_frame_changed_as_a_whole_is_seen(change):
    df = _frame()
    df.loc[3, "masked"] = pd.NA
    snap = Snapshot.of(df)
    change(df)
    assert not snap.matches(df)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    writes=st.lists(
        st.tuples(
            st.sampled_from(list(VALUES)),
            st.integers(0, N - 1),
            st.booleans(),  # into the column's own array, past the copy on write
            st.booleans(),  # the value the cell holds already (nothing changes)
        ),
        max_size=3,
    )
)
def test_a_snapshot_matches_only_what_holds_the_same_values(writes):
    """Whatever is written where and how, a frame whose values changed never matches;
    a frame never written to always does."""
    df = _frame()
    before = df.copy(deep=True)
    snap = Snapshot.of(df)
    for column, row, into_array, same in writes:
        value = df[column].iloc[row] if same else VALUES[column]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if into_array:
                df[column].array[row] = value
            else:
                df.loc[row, column] = value
    if not writes:
        assert snap.matches(df)
    if not df.equals(before):
        assert not snap.matches(df)


def test_no_snapshot_of_columns_that_share_a_name():
    df = pd.DataFrame([[1.0, 2.0]], columns=["x", "x"])
    assert Snapshot.of(df) is None


def test_the_memo_lets_go_of_its_frames_and_their_memory():
    memo = FrameMemo()
    df = _frame()
    memo.store(df, Snapshot.of(df))
    assert memo.entry(df) is not None and memo.entry(df.copy()) is None
    ref, x = weakref.ref(df), weakref.ref(df["x"].to_numpy().base)
    del df
    gc.collect()
    assert ref() is None and x() is None and len(memo) == 0


def test_the_digest_of_a_frame_follows_its_content():
    df = _frame()
    first = frame_digest(df)
    assert frame_digest(df) == first == frame_digest(df.copy())
    df["x"].array[0] = 55.0  # past the copy on write
    second = frame_digest(df)
    assert second != first and second == frame_digest(df.copy())
    df.loc[0, "x"] = df["x"].iloc[0]  # the same value: the same digest, computed again
    assert frame_digest(df) == second


def test_a_column_that_cannot_be_compared_or_copied_leaves_the_frame_unknown(monkeypatch):
    """An extension array whose equals or copy raises makes no snapshot match, or none
    taken: the caller checks or hashes the frame in full."""
    df = _frame()
    snap, digest = Snapshot.of(df), frame_digest(df.copy())

    def refuse(self, *args):
        raise TypeError("cannot")

    monkeypatch.setattr(pd.arrays.IntegerArray, "equals", refuse)
    assert not snap.matches(df)
    monkeypatch.setattr(pd.arrays.IntegerArray, "copy", refuse)
    assert Snapshot.of(df) is None
    assert frame_digest(df) == digest  # computed, not remembered
