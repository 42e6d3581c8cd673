"""Tests for the agreement Dataset: the public contract of docs/ARCHITECTURE.md ("The result Dataset") (dims, coords,
variables, attrs), reasons for NaN, a netCDF round trip, and the pairwise DataArray."""

from __future__ import annotations

import numbers

import numpy as np
import pytest
import xarray as xr

import iaa_frames
from iaa_frames.core.engine import agreement, pairwise
from iaa_frames.core.engine.result import (
    FEW_ITEMS_NOTE,
    VARIABLES,
    build_pairwise,
    interval_notes,
    notes,
)
from iaa_frames.simulate import simulate
from iaa_frames.stats.intervals import MIN_CI_ITEMS

ALL = "(all)"
DATA_VARIABLES = [
    "agreement",
    "observed",
    "expected",
    "ks",
    "ks_sign",
    "ks_pvalue",
    "n_units",
    "n_items",
    "n_chance",
    "ci_low",
    "ci_high",
    "raw_iou",
    "frac_below_chance",
    "presence_alpha",
    "label_alpha",
    "matched_share",
]


@pytest.fixture(scope="module")
def df():
    # names chosen so that sorting by name differs from order of appearance
    # 120 items: enough chance units (distinct, counted once) for every pairwise cell
    return simulate(
        n_items=120,
        annotators={"zoe": "good", "adam": "sloppy", "mia": "misser"},
        classes=("truck", "bus", "person"),
        seed=2,
    )


@pytest.fixture(scope="module")
def ds(df):
    return agreement(df, n_chance=200, n_boot=20, seed=1)


def test_dims_coords_and_order(ds, df):
    assert ds["agreement"].dims == ("component", "label", "annotator")
    assert ds["component"].values.tolist() == [
        "detection",
        "classification",
        "localization",
        "overall",
    ]
    assert ds["measure"].dims == ("component",)
    assert ds["measure"].values.tolist() == ["sigma", "alpha", "sigma", "sigma"]
    labels = sorted(df["label"].dropna().unique())
    assert ds["label"].values.tolist() == [ALL, *labels]
    assert ds["annotator"].values.tolist() == [ALL, "adam", "mia", "zoe"]


def test_exactly_the_contract_variables_with_attrs(ds):
    assert list(ds.data_vars) == DATA_VARIABLES + ["note", "chance_source"]
    for name in ds.data_vars:
        assert ds[name].dims == ("component", "label", "annotator")
        assert ds[name].attrs["long_name"] and ds[name].attrs["description"], name
    assert list(VARIABLES) == DATA_VARIABLES


def test_dataset_attrs_are_plain_parameters(ds):
    attrs = ds.attrs
    assert attrs["distance"] == "giou" and attrs["match_threshold"] == 0.5
    assert attrs["seed"] == 1 and attrs["n_boot"] == 20 and attrs["n_chance_target"] == 200
    assert attrs["overall"] == "pooled" and attrs["normalization"] == "image size"
    assert attrs["iaa_frames_version"] == iaa_frames.__version__
    for key, value in attrs.items():
        assert isinstance(value, (str, numbers.Number)) and not isinstance(value, bool), key


def test_variables_nan_where_they_do_not_apply(ds):
    for var in ("ks", "ks_sign", "ks_pvalue", "frac_below_chance"):
        assert ds[var].sel(component="classification").isnull().all(), var
    for component in ("detection", "classification", "overall"):
        assert ds["raw_iou"].sel(component=component).isnull().all()
    for component in ("classification", "localization", "overall"):
        assert ds["presence_alpha"].sel(component=component).isnull().all()
    for component in ("detection", "localization", "overall"):
        assert ds["label_alpha"].sel(component=component).isnull().all()
    # where they apply, they are filled on the "(all)" cell
    everything = ds.sel(label=ALL, annotator=ALL)
    assert np.isfinite(everything["raw_iou"].sel(component="localization"))
    assert np.isfinite(everything["presence_alpha"].sel(component="detection"))
    assert np.isfinite(everything["label_alpha"].sel(component="classification"))
    # classification's chance units: the matched chance pairs
    assert (ds["n_chance"].sel(component="classification", label=ALL) >= 30).all()
    sigma_components = ["detection", "localization", "overall"]
    assert np.isfinite(everything["ks"].sel(component=sigma_components)).all()
    assert np.isfinite(everything["ci_low"]).all()


def test_netcdf_round_trip(ds, tmp_path):
    path = tmp_path / "agreement.nc"
    ds.to_netcdf(path)
    with xr.open_dataset(path) as back:
        back = back.load()
    xr.testing.assert_identical(back, ds)
    assert back.attrs == ds.attrs


def test_notes_distinguish_reasons():
    got = notes(
        n_units=np.array([0.0, 1, 40, 40, 40, 40]),
        n_chance_units=np.array([500.0, 500, 3, 500, 500, np.nan]),
        expected=np.array([0.3, 0.3, 0.3, 0.0, 1e-15, 0.2]),
        min_units=2,
        min_chance=30,
        min_expected=1e-12,
    )
    assert got.tolist() == [
        "too few within units (n=0)",
        "too few within units (n=1)",
        "too few chance units (n=3)",
        "no variation: expected disagreement is 0",
        "no variation: expected disagreement is 0",
        "",
    ]


def test_interval_notes_only_on_defined_cells_with_few_items():
    got = interval_notes(
        np.array(["", "", "", "too few within units (n=1)"], dtype=object),
        n_items=np.array([1.0, 3, 4, 1]),
        min_items=4,
    )
    assert got.tolist() == [
        "interval not reported: rests on 1 item (fewer than 4)",
        "interval not reported: rests on 3 items (fewer than 4)",
        "",
        "too few within units (n=1)",
    ]


def test_few_item_guard_is_documented_and_in_the_attrs(ds):
    assert ds.attrs["min_ci_items"] == MIN_CI_ITEMS >= 3
    for var in ("n_items", "ci_low", "ci_high"):
        assert "min_ci_items" in ds[var].attrs["description"], var
    assert FEW_ITEMS_NOTE in ds["note"].attrs["description"]
    # every cell below the guard has NaN bounds and says so; none above it is silenced
    few = (ds["n_items"] < MIN_CI_ITEMS) & ds["agreement"].notnull()
    assert bool(ds["ci_low"].where(few).isnull().all())
    assert bool(ds["note"].where(few, FEW_ITEMS_NOTE).str.startswith(FEW_ITEMS_NOTE).all())
    assert not bool(ds["note"].where(~few, "").str.startswith(FEW_ITEMS_NOTE).any())


def test_perfect_agreement_is_told_apart_from_no_variation():
    # identical lazy-center boxes: localization has no variation (NaN with a reason);
    # their labels are identical and varied: classification alpha is exactly 1
    df = simulate(
        n_items=30,
        annotators={"a": "lazy-center", "b": "lazy-center"},
        layout="single_center",
        seed=3,
    )
    ds = agreement(df, n_chance=100)
    loc = ds.sel(component="localization", label=ALL, annotator=ALL)
    cls = ds.sel(component="classification", label=ALL, annotator=ALL)
    assert np.isnan(loc["agreement"]) and loc["note"].item().startswith("no variation")
    assert float(cls["agreement"]) == 1.0 and cls["note"].item() == ""


def test_pairwise_dataarray(df):
    pw = pairwise(df, component="localization", n_chance=200)
    assert pw.dims == ("annotator_a", "annotator_b")
    assert pw["annotator_a"].values.tolist() == ["adam", "mia", "zoe"]
    assert pw.attrs["component"] == "localization" and pw.attrs["measure"] == "sigma"
    assert pw.attrs["long_name"] and pw.attrs["description"]
    np.testing.assert_array_equal(pw.values, pw.values.T)
    assert np.isnan(np.diag(pw.values)).all()
    assert np.isfinite(pw.values[~np.eye(3, dtype=bool)]).all()
    np.testing.assert_array_equal(pw["note"].values == "not applicable", np.eye(3, dtype=bool))
    # the sloppy annotator's pairs are the worst
    assert float(pw.sel(annotator_a="mia", annotator_b="zoe")) > float(
        pw.sel(annotator_a="adam", annotator_b="zoe")
    )


def test_build_pairwise_keeps_counts_and_notes():
    vals = {
        "agreement": np.array([[np.nan, 0.5], [0.5, np.nan]]),
        "n_units": np.array([[np.nan, 7.0], [7.0, np.nan]]),
        "n_chance": np.array([[np.nan, 40.0], [40.0, np.nan]]),
        "note": np.array([["not applicable", ""], ["", "not applicable"]], dtype=object),
    }
    da = build_pairwise(vals, annotators=["x", "y"], attrs={"component": "overall"})
    assert float(da["n_units"].sel(annotator_a="x", annotator_b="y")) == 7.0
    assert da.attrs["component"] == "overall"
