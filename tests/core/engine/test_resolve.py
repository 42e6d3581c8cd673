"""Tests for :mod:`iaa_frames.core.engine.resolve`: every view that is given a frame takes its
pair tables from the one memo, so a view after another with the same parameters computes
nothing again (counted by the memo's hits and misses)."""

from __future__ import annotations

import pytest
import xarray as xr

import iaa_frames as iaf
from iaa_frames.core.engine import memo, resolve
from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.settings.parameters import MatchSettings

PARAMS = dict(n_chance=60, seed=1)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=10, annotators={"ann": "good", "bob": "sloppy"}, seed=3)


@pytest.fixture(autouse=True)
def fresh():
    memo.clear()
    yield
    memo.clear()


def test_conflicts_after_sigma_reuse_the_tables(df):
    iaf.sigma(df, n_boot=0, **PARAMS)
    assert memo.info() == {"size": 1, "maxsize": memo.MAXSIZE, "hits": 0, "misses": 1}
    got = iaf.conflicts(df, **PARAMS)
    assert memo.info()["misses"] == 1 and memo.info()["hits"] == 1  # nothing matched again
    fresh = iaf.conflicts(iaf.pair_tables(df, **PARAMS))
    assert got.equals(fresh)


@pytest.mark.parametrize(
    "view",
    [
        lambda df: iaf.conflict_counts(df, **PARAMS),
        lambda df: iaf.confusion(df, **PARAMS),
        lambda df: iaf.item_agreement(df, **PARAMS),
        lambda df: iaf.label_alpha(df, **PARAMS),
        lambda df: iaf.items(df, **PARAMS),
        lambda df: iaf.accuracy(df, reference="ann", **PARAMS),
        lambda df: df.iaa.conflicts(**PARAMS),
        lambda df: df.iaa.items(**PARAMS),
        lambda df: iaf.sigma(df, n_boot=0, **PARAMS),
    ],
)
def test_every_view_of_a_frame_after_another_computes_nothing_again(df, view):
    iaf.conflicts(df, **PARAMS)
    view(df)
    view(df.copy())  # the same content: the same tables
    assert memo.info()["misses"] == 1


def test_other_parameters_or_content_are_other_tables(df):
    iaf.conflicts(df, **PARAMS)
    iaf.conflicts(df, n_chance=61, seed=1)
    iaf.conflicts(df.assign(x0=df["x0"] + 1.0), **PARAMS)
    assert memo.info()["misses"] == 3


def test_a_result_finds_its_tables_and_tables_are_themselves(df):
    res = df.iaa.agreement(n_boot=0, **PARAMS)
    e = resolve.entry_of(df, MatchSettings(**PARAMS))
    assert resolve.entry_of(res) is e and resolve.tables_of(e.tables) is e.tables
    assert resolve.entry_of(e) is e
    sweep = df.iaa.agreement(n_boot=0, match_threshold=[0.3, 0.5], **PARAMS)
    assert resolve.entry_of(sweep.sel(threshold=0.5)) is e
    with pytest.raises(ParameterError, match=r"needs one threshold"):
        resolve.entry_of(sweep, view="items()")
    with pytest.raises(IAAError, match="not available"):
        resolve.entry_of(xr.Dataset())
    with pytest.raises(ParameterError, match="data must be a tidy annotation frame"):
        resolve.entry_of([1, 2])
