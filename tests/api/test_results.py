"""Tests for :mod:`iaa_frames.api.results`: the cached computations equal the plain functions on
fresh tables (one threshold and sweeps), name their tables, and check what the memo would
otherwise hide."""

from __future__ import annotations

import pandas as pd
import pytest
import xarray as xr

from iaa_frames.api import results as cached
from iaa_frames.core.engine import agreement, pairwise
from iaa_frames.core.engine import memo as cache
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.items import items
from iaa_frames.settings.parameters import MatchSettings
from iaa_frames.simulate import simulate

ONE = MatchSettings(n_chance=60, seed=2)
SWEEP = MatchSettings(match_threshold=[0.6, 0.2], n_chance=60, seed=2)


@pytest.fixture(scope="module")
def df():
    return simulate(n_items=10, annotators={"a": "good", "b": "sloppy", "c": "misser"}, seed=5)


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _untagged(ds):
    ds = ds.copy()
    ds.attrs.pop("tables_key")
    return ds


def test_agreement_equals_the_engine(df):
    one = cached.agreement(df, ONE, n_boot=8)
    xr.testing.assert_identical(_untagged(one), agreement(df, n_boot=8, **ONE.as_kwargs()))
    assert cache.lookup(one.attrs["tables_key"]).tables.params["match_threshold"] == 0.5
    sweep = cached.agreement(df, SWEEP, n_boot=8)
    xr.testing.assert_identical(_untagged(sweep), agreement(df, n_boot=8, **SWEEP.as_kwargs()))
    keys = sweep.attrs["tables_key"].split()
    assert [cache.lookup(k).tables.params["match_threshold"] for k in keys] == [0.2, 0.6]


def test_pairwise_and_items_equal_the_functions(df):
    got = cached.pairwise(df, SWEEP, component="overall", label="car")
    xr.testing.assert_identical(
        got, pairwise(df, component="overall", label="car", **SWEEP.as_kwargs())
    )
    tables = pair_tables(df, **ONE.as_kwargs())
    pd.testing.assert_frame_equal(
        cached.items(df, ONE, component="classification", top=3),
        items(tables, component="classification", top=3),
    )
    assert cached.tables(df, ONE) is cached.tables(df.copy(), ONE)


def test_n_boot_is_checked_at_the_boundary_before_the_memo(df):
    """The entry points check n_boot before the memo is asked (the functions here,
    below the boundary, check nothing again)."""
    import iaa_frames as iaf

    kwargs = ONE.as_kwargs()
    cached.agreement(df, ONE, n_boot=1)
    for call in (df.iaa.agreement, df.iaa.sigma, lambda **kw: iaf.ks(df, **kw)):
        for bad in (True, -1, 2.0):  # True would find the result of n_boot=1
            with pytest.raises(ParameterError, match="n_boot must be an integer >= 0"):
                call(n_boot=bad, **kwargs)


def test_one_threshold_only_where_the_result_has_no_threshold_dimension(df):
    for call in (lambda: cached.tables(df, SWEEP), lambda: cached.items(df, SWEEP)):
        with pytest.raises(ParameterError, match="several thresholds are accepted"):
            call()
