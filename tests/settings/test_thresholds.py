"""Tests for iaa_frames.settings.thresholds: what match_threshold accepts, the threshold
coordinate, stacking results of single thresholds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from iaa_frames.errors import ParameterError
from iaa_frames.settings.thresholds import (
    THRESHOLD_ATTRS,
    check_thresholds,
    concat_thresholds,
    has_threshold_dim,
    nearest_threshold,
    with_threshold,
)


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.5, ((0.5,), True)),
        (0, ((0.0,), True)),
        (1, ((1.0,), True)),
        (np.float32(0.25), ((0.25,), True)),
        (np.array(0.75), ((0.75,), True)),
        ([0.7, 0.3, 0.5], ((0.3, 0.5, 0.7), False)),
        ((0.5, 0.5, 0.1), ((0.1, 0.5), False)),
        (np.array([0.9, 0.1]), ((0.1, 0.9), False)),
        (pd.Index([0.2, 0.4]), ((0.2, 0.4), False)),
        (pd.Series([0.6]), ((0.6,), False)),
        (range(2), ((0.0, 1.0), False)),
        ((t / 10 for t in (3, 1)), ((0.1, 0.3), False)),
        ([np.int64(1), 0.5], ((0.5, 1.0), False)),
    ],
)
def test_check_thresholds_accepts(value, expected):
    taus, scalar = check_thresholds(value)
    assert (taus, scalar) == expected
    assert all(type(t) is float for t in taus)


@pytest.mark.parametrize(
    "value",
    [
        [],
        (),
        np.array([]),
        "0.5",
        b"0.5",
        [0.1, "0.2"],
        [0.1, None],
        [[0.1]],
        True,
        [False, 0.5],
        1.0001,
        -1e-9,
        float("nan"),
        [0.2, float("inf")],
        object(),
        np.array([[0.1, 0.2]]),
        1 + 0j,
    ],
)
def test_check_thresholds_rejects(value):
    with pytest.raises(ParameterError, match="match_threshold"):
        check_thresholds(value)


def test_with_threshold_adds_a_scalar_coordinate_with_attrs():
    ds = with_threshold(xr.Dataset({"v": ("x", [1.0, 2.0])}), 0.3)
    assert ds["threshold"].dims == () and float(ds["threshold"]) == 0.3
    assert ds["threshold"].attrs == THRESHOLD_ATTRS
    assert not has_threshold_dim(ds) and ds["v"].dims == ("x",)


def _part(tau, value, note="", key="k"):
    ds = xr.Dataset(
        {"v": (("c",), [value, value + 1.0]), "note": (("c",), np.array([note, ""], dtype=object))},
        coords={"c": ["a", "b"], "m": ("c", ["s", "t"])},
        attrs={"match_threshold": tau, "seed": 0, "tables_key": key},
    )
    return with_threshold(ds, tau)


def test_concat_thresholds_stacks_and_keeps_shared_coordinates():
    out = concat_thresholds([_part(0.3, 1.0, "x", "k1"), _part(0.6, 5.0, "", "k2")])
    assert has_threshold_dim(out) and out["v"].dims == ("threshold", "c")
    assert out["threshold"].values.tolist() == [0.3, 0.6]
    assert out["threshold"].attrs == THRESHOLD_ATTRS
    assert out["m"].dims == ("c",)  # does not depend on τ: no threshold dim
    assert out.attrs == {"match_threshold": [0.3, 0.6], "seed": 0}  # tables_key dropped
    np.testing.assert_array_equal(out["v"].values, [[1.0, 2.0], [5.0, 6.0]])
    assert out["note"].sel(threshold=0.3, c="a").item() == "x"
    xr.testing.assert_identical(out.sel(threshold=0.6).drop_attrs(), _part(0.6, 5.0).drop_attrs())


def test_concat_thresholds_of_dataarrays_stacks_their_cell_coordinates():
    parts = [
        with_threshold(
            xr.DataArray(
                [t, 2 * t],
                dims="a",
                coords={"a": ["x", "y"], "n": ("a", [t, t])},
                attrs={"match_threshold": t},
            ),
            t,
        )
        for t in (0.2, 0.4)
    ]
    out = concat_thresholds(parts)
    assert out.dims == ("threshold", "a") and out["n"].dims == ("threshold", "a")
    assert out.attrs["match_threshold"] == [0.2, 0.4]


def test_concat_thresholds_needs_increasing_thresholds_and_the_same_cells():
    with pytest.raises(ParameterError, match="increasing"):
        concat_thresholds([_part(0.6, 1.0), _part(0.3, 1.0)])
    with pytest.raises(ParameterError, match="increasing"):
        concat_thresholds([_part(0.3, 1.0), _part(0.3, 1.0)])
    other = _part(0.6, 1.0).assign_coords(c=["a", "z"])
    with pytest.raises(ValueError):  # different cells: never silently aligned
        concat_thresholds([_part(0.3, 1.0), other])


@pytest.mark.parametrize(
    "taus, expected",
    [
        ([0.3, 0.5, 0.7], 0.5),
        ([0.45, 0.55], 0.45),
        ([0.1, 0.2], 0.2),
        ([0.9], 0.9),
        (np.array([0.8, 0.52]), 0.52),
    ],
)
def test_nearest_threshold(taus, expected):
    assert nearest_threshold(taus) == expected
