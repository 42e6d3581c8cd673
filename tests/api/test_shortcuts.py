"""Tests for :mod:`iaa_frames.api.shortcuts`: each slice is the right variable at the right
component with its qualifying variables as coordinates, sweeps keep their threshold
dimension, and bad input raises uniform errors."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import iaa_frames as iaf
from iaa_frames.api import shortcuts
from iaa_frames.errors import ParameterError

PARAMS = dict(n_chance=100, seed=1, n_boot=20)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=15, annotators={"a": "good", "b": "mislabeler"}, seed=3)


@pytest.fixture(scope="module")
def res(df):
    return iaf.agreement(df, **PARAMS)


@pytest.mark.parametrize(
    "function, variable, component, coords",
    [
        (
            shortcuts.sigma_of,
            "agreement",
            "detection",
            ("ci_low", "ci_high", "n_units", "n_chance", "note"),
        ),
        (
            shortcuts.sigma_of,
            "agreement",
            "overall",
            ("ci_low", "ci_high", "n_units", "n_chance", "note"),
        ),
        (shortcuts.ks_of, "ks", "localization", ("ks_sign", "ks_pvalue", "note")),
        (
            shortcuts.alpha_of,
            "agreement",
            "classification",
            ("ci_low", "ci_high", "n_units", "note"),
        ),
        (shortcuts.alpha_of, "presence_alpha", "detection", ()),
    ],
)
def test_slices_carry_the_variable_and_its_qualifiers(res, function, variable, component, coords):
    da = function(res, component=component)
    cell = res.sel(component=component)
    assert da.dims == ("label", "annotator")
    np.testing.assert_array_equal(da.values, cell[variable].values)
    assert str(da["component"].values) == component
    for name in coords:
        np.testing.assert_array_equal(da[name].values, cell[name].values)
        assert da[name].attrs == res[name].attrs
    assert set(da.coords) - set(cell[variable].coords) == set(coords)
    assert da.name == {"sigma_of": "sigma", "ks_of": "ks", "alpha_of": "alpha"}[function.__name__]


def test_defaults_are_localization_and_classification(res):
    assert str(shortcuts.sigma_of(res)["component"].values) == "localization"
    assert str(shortcuts.ks_of(res)["component"].values) == "localization"
    assert str(shortcuts.alpha_of(res)["component"].values) == "classification"


def test_frame_functions_slice_the_result_of_the_same_parameters(df, res):
    for name, of in (
        ("sigma", shortcuts.sigma_of),
        ("ks", shortcuts.ks_of),
        ("alpha", shortcuts.alpha_of),
    ):
        xr.testing.assert_identical(
            getattr(iaf, name)(df, component="detection", **PARAMS), of(res, component="detection")
        )


def test_a_sweep_keeps_its_threshold_dimension(df):
    sweep = iaf.sigma(df, match_threshold=[0.7, 0.4], **PARAMS)
    assert sweep.dims == ("threshold", "label", "annotator")
    assert sweep["threshold"].values.tolist() == [0.4, 0.7]
    one = iaf.sigma(df, match_threshold=0.4, **PARAMS)
    np.testing.assert_array_equal(sweep.sel(threshold=0.4).values, one.values)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda r: shortcuts.sigma_of(r, component="classification"), "component must be one of"),
        (lambda r: shortcuts.alpha_of(r, component="overall"), "component must be one of"),
        (lambda r: shortcuts.ks_of(r, component=None), "component must be one of"),
        (lambda r: shortcuts.sigma_of(r[["ks"]]), r"lacks the variable\(s\) \['agreement'\]"),
        (lambda r: shortcuts.alpha_of(r.to_dataframe()), "expected the agreement result"),
    ],
)
def test_bad_input(res, call, message):
    with pytest.raises(ParameterError, match=message):
        call(res)


def test_a_bad_component_raises_before_anything_is_computed():
    from iaa_frames.core.engine import memo

    memo.clear()
    with pytest.raises(ParameterError, match="component must be one of"):
        iaf.ks(iaf.simulate(n_items=2, seed=0), component="classification")
    assert memo.info()["misses"] == 0 and memo.cached() == []
