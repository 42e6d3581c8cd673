"""iaa_frames.frame.known_valid: a validated frame is not checked again while it is
unchanged, its polygons not while its geometry column holds the same objects, and any
change is checked."""

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

import iaa_frames as iaf
from iaa_frames.errors import IAAError, RepairedGeometryWarning
from iaa_frames.frame.known_valid import known_valid, polygons_known_valid, remember
from iaa_frames.frame.unchanged import COPY_ON_WRITE, same_objects

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


# ----------------------------------------------------------------- the whole frame

needs_cow = pytest.mark.skipif(not COPY_ON_WRITE, reason="pandas copies on write from 3.0")


def _boxes(n=40, seed=0):
    """Boxes of three annotators, with extras of every storage: a masked integer, a
    category, a string and an object column."""
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(0, 500, (2, n))
    df = pd.DataFrame(
        {
            "item": [f"img{i % 7}" for i in range(n)],
            "annotator": [("a", "b", "c")[i % 3] for i in range(n)],
            "label": rng.choice(["car", "person"], n),
            "x0": x,
            "y0": y,
            "x1": x + rng.uniform(5, 40, n),
            "y1": y + rng.uniform(5, 40, n),
            "iscrowd": pd.array(rng.integers(0, 2, n), dtype="Int64"),
            "source": pd.Categorical(rng.choice(["web", "scan"], n)),
            "note": [f"n{i}" for i in range(n)],
            "tags": [("t", i) for i in range(n)],
        }
    )
    return df


def _full(frame):
    """The validation of ``frame`` with every check (a deep copy is never remembered)."""
    return iaf.check(frame.copy(deep=True))


def _assert_same(a, b):
    pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert a.frame.attrs == b.frame.attrs
    pd.testing.assert_frame_equal(a.dropped, b.dropped)
    assert (a.repaired, a.counts) == (b.repaired, b.counts)


def _assert_checked_as_in_full(frame):
    """``check(frame)`` gives what the full check of its deep copy gives, or its error."""
    try:
        expected = _full(frame)
    except IAAError as exc:
        with pytest.raises(type(exc)):
            iaf.check(frame)
        return
    _assert_same(iaf.check(frame), expected)


@needs_cow
@pytest.mark.parametrize("name", ["coco", "coco_raters", "cvat", "labelstudio", "voc", "yolo"])
def test_a_read_frame_validated_again_is_what_every_check_gives(name):
    read = iaf.load_sample(name)
    assert known_valid(read)
    fast = iaf.check(read)
    _assert_same(fast, _full(read))
    assert fast.frame is not read and known_valid(fast.frame)
    assert not known_valid(read.copy())


@needs_cow
def test_a_validated_frame_with_extras_of_every_storage_is_known():
    out = iaf.validate(_boxes())
    assert known_valid(out)
    _assert_same(iaf.check(out), _full(out))
    again = iaf.validate(out)
    again.loc[0, "x0"] = -1.0  # the copy returned is the caller's: the frame stays known
    assert known_valid(out) and out.loc[0, "x0"] != -1.0


# every way to change a validated frame in place; each must make it checked again
CHANGES = {
    "loc number": lambda f: f.loc.__setitem__((f.index[0], "x1"), f["x0"].iloc[0] - 1),
    "iloc number": lambda f: f.iloc.__setitem__((1, f.columns.get_loc("y1")), np.nan),
    "iat label": lambda f: f.iat.__setitem__((0, f.columns.get_loc("label")), "(all)"),
    "loc annotator": lambda f: f.loc.__setitem__((f.index[2], "annotator"), " "),
    "masked extra": lambda f: f.loc.__setitem__((f.index[0], "iscrowd"), pd.NA),
    "category extra": lambda f: f.loc.__setitem__(
        (f.index[0], "source"), "web" if f["source"].iloc[0] == "scan" else "scan"
    ),
    "object extra": lambda f: f.loc.__setitem__((f.index[0], "tags"), "x\x00y"),
    "column set": lambda f: f.__setitem__("x0", f["x1"] + 1),
    "column added": lambda f: f.__setitem__("extra", 1),
    "column deleted": lambda f: f.__delitem__("note"),
    "renamed": lambda f: f.rename(columns={"label": "category"}, inplace=True),
    "index set": lambda f: setattr(f, "index", f.index[::-1]),
    "fillna": lambda f: f.fillna({"iscrowd": 5}, inplace=True),
    "update": lambda f: f.update(pd.DataFrame({"x1": f["x1"].clip(upper=250)})),
    # writes into a column's own array, which pandas lets through without a copy
    "array number": lambda f: f["x1"].array.__setitem__(0, f["x0"].iloc[0] - 1),
    "array geometry": lambda f: f["geometry"].array.__setitem__(0, BOWTIE),
    "array masked": lambda f: f["iscrowd"].array.__setitem__(0, pd.NA),
    "array string": lambda f: f["label"].array.__setitem__(0, "(all)"),
    "array category": lambda f: f["source"].array.__setitem__(
        0, "web" if f["source"].iloc[0] == "scan" else "scan"
    ),
}


@needs_cow
@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
def test_a_frame_changed_in_place_is_checked_again(change):
    df = _boxes()
    df.loc[3, "iscrowd"] = pd.NA
    out = iaf.validate(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CHANGES[change](out)
    assert not known_valid(out)
    _assert_checked_as_in_full(out)


@needs_cow
def test_a_box_inverted_after_validation_is_refused():
    out = iaf.validate(_boxes())
    out.loc[0, "x1"] = out.loc[0, "x0"] - 10
    with pytest.raises(IAAError, match="inverted|x0 < x1"):
        iaf.validate(out)


@needs_cow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    changes=st.lists(
        st.tuples(
            st.sampled_from(["x0", "y0", "x1", "y1", "label", "annotator", "item", "iscrowd"]),
            st.integers(0, 39),
            st.sampled_from([0.0, -3.0, 1e300, np.nan, "", "cat", " (all) ", None]),
            st.booleans(),  # into the column's own array, past the copy on write
        ),
        max_size=3,
    ),
    revalidate=st.booleans(),
)
def test_any_values_set_after_validation_give_what_every_check_gives(changes, revalidate):
    """Whatever is set where, by ``loc`` or into a column's array, and whether the frame
    was validated again in between, the validation of the frame is that of its deep copy
    (or the same error)."""
    frame = iaf.validate(_boxes(seed=1))
    if revalidate:
        frame = iaf.validate(frame)
    for column, row, value, into_array in changes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if into_array:
                    frame[column].array[frame.index.get_loc(row)] = value
                else:
                    frame.loc[row, column] = value
            except (TypeError, ValueError, OverflowError):
                continue  # a value the column's dtype refuses (1e300 in an Int64)
    _assert_checked_as_in_full(frame)


@needs_cow
def test_a_frame_remembered_whole_holds_no_more_memory_after_it_is_released():
    out = iaf.validate(_boxes())
    block = out["x0"].to_numpy().base  # the float columns' 2-D block
    assert block is not None
    ref, x0 = weakref.ref(out), weakref.ref(block)
    del block
    del out
    gc.collect()
    assert ref() is None and x0() is None
