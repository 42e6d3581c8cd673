"""iaa_frames.frame.known_valid: a validated frame's polygons are not checked again, and
any change of its geometry column is."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.errors import RepairedGeometryWarning
from iaa_frames.frame.known_valid import polygons_known_valid, remember, same_objects

BOWTIE = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])  # crosses itself: repaired


def _polygons(n=6, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        x, y = rng.uniform(0, 50, 2)
        poly = shapely.Polygon([(x, y), (x + 9, y), (x + 9, y + 7), (x + 3, y + 9)])
        for a in ("a", "b"):
            rows.append({"item": f"i{i % 3}", "annotator": a, "label": "cat", "geometry": poly})
    rows.append({"item": "i0", "annotator": "c", "label": None, "geometry": None})  # coverage
    return pd.DataFrame(rows)


@pytest.fixture
def count_checks(monkeypatch):
    """How many geometries ``shapely.is_valid`` is asked about."""
    seen = []
    real = shapely.is_valid

    def counting(geometry, **kw):
        seen.append(np.size(geometry))
        return real(geometry, **kw)

    monkeypatch.setattr(shapely, "is_valid", counting)
    return seen


def test_a_validated_frame_is_validated_again_without_checking_its_polygons(count_checks):
    out = iaf.validate(_polygons())
    assert sum(count_checks) == 12
    count_checks.clear()
    again = iaf.validate(out)
    assert count_checks == []
    pd.testing.assert_frame_equal(again, out)


def test_the_frame_given_is_known_when_its_polygons_pass_as_they_are(count_checks):
    df = _polygons()
    iaf.validate(df)
    count_checks.clear()
    iaf.validate(df)
    assert count_checks == []


def test_a_frame_a_reader_returns_is_known(count_checks):
    read = iaf.load_sample("coco")  # read_coco of the bundled export
    assert read["geometry"].notna().sum() > 0
    count_checks.clear()
    iaf.validate(read)
    assert count_checks == []


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.__setitem__("geometry", f["geometry"].where(f.index != 0, BOWTIE)),
        lambda f: f.loc.__setitem__((0, "geometry"), BOWTIE),
        lambda f: f.iat.__setitem__((0, f.columns.get_loc("geometry")), BOWTIE),
    ],
    ids=["column", "loc", "iat"],
)
def test_a_geometry_set_in_place_is_checked_and_repaired(change, count_checks):
    out = iaf.validate(_polygons())
    change(out)
    count_checks.clear()
    with pytest.warns(RepairedGeometryWarning):
        again = iaf.validate(out)
    assert sum(count_checks) > 0
    assert again["geometry"].iloc[0].is_valid


def test_a_copy_or_reordered_rows_are_checked_in_full(count_checks):
    out = iaf.validate(_polygons())
    for other in (out.copy(), out.iloc[::-1], out.iloc[1:], pd.concat([out, out.iloc[:1]])):
        count_checks.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            iaf.validate(other, on_invalid="drop")  # the repeated row: its id twice
        assert sum(count_checks) > 0


def test_an_invalid_frame_is_never_remembered_as_valid():
    df = _polygons()
    df.loc[0, "geometry"] = BOWTIE
    with pytest.warns(RepairedGeometryWarning):
        out = iaf.validate(df)
    assert not polygons_known_valid(df)  # its column holds the bowtie
    assert polygons_known_valid(out)
    assert out["geometry"].iloc[0] is not BOWTIE and out["geometry"].iloc[0].is_valid


def test_the_memory_goes_with_the_frame():
    """Neither the frame nor its geometries are kept alive by being remembered."""
    df = _polygons()
    out = iaf.validate(df)
    poly = shapely.box(0, 0, 1, 1)
    out.loc[0, "geometry"] = poly
    remember(out)
    frame_ref, poly_ref = weakref.ref(out), weakref.ref(poly)
    del out, poly, df
    gc.collect()
    assert frame_ref() is None and poly_ref() is None


def test_the_results_are_those_of_a_full_check():
    """The agreement of a validated frame, validated again with the memory and without
    it (a copy), is the same to the bit."""
    df = iaf.simulate(n_items=8, kind="polygon", seed=4)
    out = iaf.validate(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = iaf.agreement(out, n_boot=10, n_chance=200, seed=0, progress=False)
        b = iaf.agreement(out.copy(), n_boot=10, n_chance=200, seed=0, progress=False)
    for name in a.data_vars:
        np.testing.assert_array_equal(a[name].values, b[name].values)


def test_same_objects_is_identity_not_equality():
    a, b = shapely.box(0, 0, 1, 1), shapely.box(0, 0, 1, 1)
    assert a == b
    x = np.array([a, None], dtype=object)
    assert same_objects(x, np.array([a, None], dtype=object))
    assert not same_objects(x, np.array([b, None], dtype=object))
    assert not same_objects(x, x[:1])
