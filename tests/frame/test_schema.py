"""Tests for the tidy frame: from_records, validate, check."""

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.frame.schema import INVALID_REASONS

BOWTIE = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])  # self-intersecting


def _box(item, annotator, label, x0, y0, x1, y1, **kw):
    return dict(item=item, annotator=annotator, label=label, x0=x0, y0=y0, x1=x1, y1=y1, **kw)


def _hostile_frame():
    """One frame that mixes every kind of bad row with good ones (rows labelled by intent)."""
    rows = [
        ("ok_box", _box("i1", "ann", "cat", 0, 0, 10, 10)),
        (
            "ok_poly",
            dict(item="i1", annotator="bob", label="cat", geometry=shapely.box(1, 1, 9, 9)),
        ),
        ("ok_coverage", dict(item="i2", annotator="ann", label=None)),
        ("repaired", dict(item="i2", annotator="bob", label="dog", geometry=BOWTIE)),
        ("missing_item", _box(None, "ann", "cat", 0, 0, 1, 1)),
        ("non_string_annotator", _box("i1", 7.5, "cat", 0, 0, 1, 1)),
        ("missing_annotator", _box("i1", None, "cat", 0, 0, 1, 1)),
        ("nonfinite_coordinates", _box("i1", "ann", "cat", np.nan, 0, 1, 1)),
        ("nonfinite_coordinates", _box("i1", "ann", "cat", 0, 0, np.inf, 1)),
        ("inverted_box", _box("i1", "ann", "cat", 5, 0, 1, 1)),
        ("zero_area", _box("i1", "ann", "cat", 1, 0, 1, 1)),
        (
            "zero_area",
            dict(
                item="i1",
                annotator="ann",
                label="cat",
                geometry=shapely.Polygon([(0, 0), (1, 1), (2, 2)]),
            ),
        ),
        ("reserved_label", _box("i1", "ann", iaf.ALL, 0, 0, 1, 1)),
        ("missing_label", _box("i1", "ann", None, 0, 0, 1, 1)),
        ("missing_geometry", dict(item="i1", annotator="ann", label="cat")),
        (
            "not_polygonal",
            dict(
                item="i1",
                annotator="ann",
                label="cat",
                geometry=shapely.MultiLineString([[(0, 0), (1, 1)], [(2, 2), (3, 3)]]),
            ),
        ),
        ("not_a_geometry", dict(item="i1", annotator="ann", label="cat", geometry="POLYGON")),
        ("invalid_image_size", _box("i1", "ann", "cat", 0, 0, 1, 1, width=-3)),
    ]
    intents = [r[0] for r in rows]
    df = pd.DataFrame([r[1] for r in rows])
    df["object_id"] = [f"o{i}" for i in range(len(df))]
    # two rows sharing an id: both are dropped (keeping one would depend on row order)
    extra = pd.DataFrame(
        [
            _box("i3", "ann", "cat", 0, 0, 1, 1, object_id="dup"),
            _box("i3", "bob", "cat", 0, 0, 1, 1, object_id="dup"),
        ]
    )
    df = pd.concat([df, extra], ignore_index=True)
    intents += ["duplicate_object_id", "duplicate_object_id"]
    df["note"] = intents  # an extra column, carried through
    return df, intents


def test_every_row_is_accounted_for_on_a_hostile_frame():
    df, intents = _hostile_frame()
    res = iaf.check(df)
    assert len(res.frame) + len(res.dropped) == len(df)
    assert set(res.frame.index).isdisjoint(res.dropped.index)
    # each dropped row was dropped for the reason it was built to trigger
    assert (res.dropped["reason"] == res.dropped["note"]).all(), res.dropped[["reason", "note"]]
    kept_intents = set(res.frame["note"])
    assert kept_intents == {"ok_box", "ok_poly", "ok_coverage", "repaired"}
    expected_counts = pd.Series(intents).value_counts().drop(list(kept_intents)).to_dict()
    assert res.counts == expected_counts
    assert res.repaired == 1
    assert set(res.counts) <= set(INVALID_REASONS)


def test_raise_names_row_and_reason():
    df, _ = _hostile_frame()
    with pytest.raises(iaf.InvalidAnnotationError) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", iaf.RepairedGeometryWarning)
            iaf.validate(df)
    msg = str(info.value)
    assert "row 4" in msg and "the item is missing" in msg
    assert "row 5" in msg and "annotator is neither a string nor an integer id" in msg
    assert f"{len(df) - 4} invalid row(s)" in msg
    assert issubclass(iaf.InvalidAnnotationError, ValueError)


def test_drop_warns_with_counts_and_rows():
    df, _ = _hostile_frame()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = iaf.validate(df, on_invalid="drop")
    kinds = {type(r.message) for r in rec}
    assert kinds == {iaf.DroppedRowsWarning, iaf.RepairedGeometryWarning}
    w = [r.message for r in rec if isinstance(r.message, iaf.DroppedRowsWarning)][0]
    assert sum(w.counts.values()) == len(w.dropped) == len(df) - len(out)
    assert out.attrs["iaa_dropped"] == w.counts
    assert out.attrs["iaa_repaired"] == 1


def test_repair_keeps_polygonal_area():
    df = pd.DataFrame([dict(item="i", annotator="a", label="x", geometry=BOWTIE)])
    with pytest.warns(iaf.RepairedGeometryWarning):
        out = iaf.validate(df)
    g = out["geometry"].iloc[0]
    assert g.is_valid and g.geom_type in ("Polygon", "MultiPolygon")
    # the bow-tie is two triangles of area 1 each
    assert g.area == pytest.approx(2.0)
    assert out[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [0, 0, 2, 2]


def test_missing_columns_is_a_schema_error():
    with pytest.raises(iaf.SchemaError, match="annotator"):
        iaf.validate(
            pd.DataFrame({"item": [1], "label": ["a"], "x0": [0], "y0": [0], "x1": [1], "y1": [1]})
        )
    with pytest.raises(iaf.SchemaError, match="x1"):
        iaf.validate(
            pd.DataFrame({"item": [1], "annotator": ["a"], "label": ["a"], "x0": [0], "y0": [0]})
        )
    with pytest.raises(iaf.SchemaError, match="DataFrame"):
        iaf.validate([1, 2])
    with pytest.raises(iaf.ParameterError, match="on_invalid"):
        iaf.validate(pd.DataFrame(), on_invalid="ignore")


def test_mixed_boxes_polygons_coverage_and_extras():
    records = [
        _box("a", "ann", "cat", 0, 0, 10, 10, width=100, height=50, colour="red"),
        dict(item="a", annotator="bob", label="cat", points=[(0, 0), (10, 0), (10, 10)]),
        dict(
            item="a",
            annotator="cid",
            label="dog",
            points=[[(0, 0), (1, 0), (1, 1)], [(5, 5), (6, 5), (6, 6)]],
        ),
        dict(item="b", annotator="ann"),
    ]
    # the rows without a size get their item's (tests/frame/test_schema_hostile.py)
    with pytest.warns(iaf.IAAWarning, match="image size of the other rows of the same item"):
        df = iaf.from_records(records)
    assert list(df.columns[:11]) == [
        "item",
        "annotator",
        "label",
        "object_id",
        "x0",
        "y0",
        "x1",
        "y1",
        "geometry",
        "width",
        "height",
    ]
    assert df["colour"].iloc[0] == "red"
    assert df["geometry"].iloc[0] is None
    assert df["geometry"].iloc[1].geom_type == "Polygon"
    assert df["geometry"].iloc[2].geom_type == "MultiPolygon"
    assert df[["x0", "y0", "x1", "y1"]].iloc[2].tolist() == [0, 0, 6, 6]
    assert iaf.is_object(df).tolist() == [True, True, True, False]
    assert df["object_id"].is_unique
    assert df["width"].tolist()[:3] == [100, 100, 100] and np.isnan(df["width"].iloc[3])


def test_integer_annotator_ids_become_strings():
    # pd.read_csv gives int64 for a column of user ids, float64 when it has gaps, and
    # object columns may mix ids and names
    import io

    csv = "item,annotator,label,x0,y0,x1,y1\na,7,cat,0,0,1,1\na,12,cat,0,0,1,1\nb,,,,,,\n"
    with pytest.warns(iaf.DroppedRowsWarning):  # the row without annotator
        df = iaf.validate(pd.read_csv(io.StringIO(csv)), on_invalid="drop")
    assert df["annotator"].tolist() == ["7", "12"]
    ints = pd.DataFrame([_box("a", 7, "cat", 0, 0, 1, 1), _box("a", 8, "cat", 0, 0, 1, 1)])
    assert iaf.validate(ints)["annotator"].tolist() == ["7", "8"]
    mixed = pd.DataFrame(
        [
            _box("a", 7, "cat", 0, 0, 1, 1),
            _box("a", "ana", "cat", 0, 0, 1, 1),
            _box("a", np.int64(9), "cat", 0, 0, 1, 1),
        ]
    )
    assert iaf.validate(mixed)["annotator"].tolist() == ["7", "ana", "9"]
    nullable = pd.DataFrame([_box("a", 1, "cat", 0, 0, 1, 1), _box("b", 2, None, *[np.nan] * 4)])
    nullable["annotator"] = nullable["annotator"].astype("Int64")
    assert iaf.validate(nullable)["annotator"].tolist() == ["1", "2"]
    # a fractional id or a boolean is not an id
    for bad in (7.5, True):
        with pytest.raises(iaf.InvalidAnnotationError, match="neither a string nor an integer"):
            iaf.validate(pd.DataFrame([_box("a", bad, "cat", 0, 0, 1, 1)]))


def test_from_records_with_wrong_keys_is_a_schema_error():
    # the same SchemaError as validate(), naming what is missing and the keys found
    with pytest.raises(iaf.SchemaError, match=r"missing required column\(s\): item.*'image'"):
        iaf.from_records(
            [{"image": "a", "annotator": "x", "label": "cat", "x0": 0, "y0": 0, "x1": 1, "y1": 1}]
        )
    with pytest.raises(iaf.SchemaError, match=r"x0, y0, x1, y1 or geometry.*'bbox'"):
        iaf.from_records([{"item": "a", "annotator": "x", "label": "cat", "bbox": [0, 0, 1, 1]}])
    with pytest.raises(iaf.SchemaError, match="label"):
        iaf.from_records([{"item": "a", "annotator": "x", "x0": 0, "y0": 0, "x1": 1, "y1": 1}])
    # coverage rows alone need only item and annotator
    cov = iaf.from_records([{"item": "a", "annotator": "x"}, {"item": "b", "annotator": "y"}])
    assert not iaf.is_object(cov).any() and len(cov) == 2
    assert len(iaf.from_records([])) == 0


def test_labels_are_strings_and_annotator_dtype():
    df = iaf.from_records([_box("a", "ann", 3, 0, 0, 1, 1)])
    assert df["label"].iloc[0] == "3"
    assert pd.api.types.is_string_dtype(df["annotator"])


# -- properties ---------------------------------------------------------------------------


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    rows = []
    for i in range(n):
        kind = draw(st.sampled_from(["box", "bad_box", "cov", "poly"]))
        item = draw(st.sampled_from(["i1", "i2", "i3"]))
        ann = draw(st.sampled_from(["a", "b", "c"]))
        x0, y0 = draw(st.floats(0, 100)), draw(st.floats(0, 100))
        w, h = draw(st.floats(-5, 50)), draw(st.floats(0.5, 50))
        row = dict(item=item, annotator=ann, object_id=f"id{i}")
        if kind in ("box", "bad_box"):
            row.update(
                label="cat",
                x0=x0,
                y0=y0,
                x1=x0 + (w if kind == "bad_box" else abs(w) + 1),
                y1=y0 + h,
            )
        elif kind == "poly":
            row.update(label="dog", geometry=shapely.box(x0, y0, x0 + abs(w) + 1, y0 + h))
        else:
            row.update(label=None)
        rows.append(row)
    df = pd.DataFrame(rows)
    for c in ("x0", "y0", "x1", "y1"):
        if c not in df:
            df[c] = np.nan
    return df


def _normalized(out):
    out = out.sort_values("object_id").reset_index(drop=True)
    out["geometry"] = shapely.to_wkb(out["geometry"].to_numpy())
    return out


@settings(max_examples=60, deadline=None)
@given(frames(), st.randoms(use_true_random=False))
def test_validate_is_idempotent_and_order_free(df, rnd):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", iaf.IAAWarning)
        once = iaf.validate(df, on_invalid="drop")
        twice = iaf.validate(once, on_invalid="drop")
        order = list(range(len(df)))
        rnd.shuffle(order)
        shuffled = iaf.validate(df.iloc[order], on_invalid="drop")
    pd.testing.assert_frame_equal(once, twice)
    pd.testing.assert_frame_equal(_normalized(once), _normalized(shuffled))
    assert len(once) + len(iaf.check(df).dropped) == len(df)


def test_validation_result_repr_counts_without_printing_frames():
    import iaa_frames as iaf

    bad = iaf.simulate(n_items=3, seed=0)
    bad.loc[0, "x1"] = bad.loc[0, "x0"] - 1  # an inverted box
    res = iaf.check(bad)
    text = repr(res)
    assert "\n" not in text and text.startswith(f"<ValidationResult: {len(res.frame):,} valid")
    assert "1 dropped" in text


# ------------------------------------------------------------------ the group column


def _boxes(items, groups):
    n = len(items)
    return pd.DataFrame(
        {
            "item": items,
            "annotator": ["a"] * n,
            "label": ["cat"] * n,
            "x0": [0.0] * n,
            "y0": [0.0] * n,
            "x1": [1.0] * n,
            "y1": [1.0] * n,
            "group": groups,
        }
    )


def test_group_ids_become_strings_and_missing_stays_missing():
    out = iaf.validate(_boxes(["i", "j", "j", "k"], [7, 7.0, None, np.nan]))
    assert out["group"].iloc[:2].tolist() == ["7", "7"]
    assert out["group"].iloc[2:].isna().all()
    assert pd.api.types.is_string_dtype(out["group"])
    pd.testing.assert_frame_equal(iaf.validate(out), out)  # idempotent


def test_an_item_in_two_groups_raises_naming_it():
    df = _boxes(["i", "i", "j", "k", "k"], ["v1", "v2", "v1", "v3", None])
    for on_invalid in ("raise", "drop"):  # not a row problem: dropping cannot fix it
        with pytest.raises(iaf.errors.InvalidAnnotationError) as err:
            iaf.validate(df, on_invalid=on_invalid)
        message = str(err.value)
        assert "item 'i' (groups 'v1', 'v2')" in message
        assert "'j'" not in message and "'k'" not in message  # only the culprit


def test_a_group_that_is_not_a_name_raises():
    with pytest.raises(iaf.errors.InvalidAnnotationError, match=r"row 1 \(item 'j'"):
        iaf.validate(_boxes(["i", "j"], ["v1", ("a", "b")]))


def test_without_a_group_column_none_is_added():
    df = _boxes(["i"], ["v"]).drop(columns="group")
    assert "group" not in iaf.validate(df).columns


def test_lines_and_points_in_geometry_are_read_as_their_kinds():
    # a LineString is a polyline, a Point a point, a MultiPoint a point set; the vectorized
    # conversion equals polyline_params / point_set_params of each shape
    from iaa_frames.geometry.kinds import POINT_SET, POLYLINE, point_set_params, polyline_params

    rng = np.random.default_rng(0)
    lines = [rng.uniform(0, 100, (int(rng.integers(2, 45)), 2)) for _ in range(30)]
    sets = [rng.uniform(0, 100, (int(rng.integers(1, 33)), 2)) for _ in range(10)]
    geoms = (
        [shapely.LineString(xy) for xy in lines]
        + [shapely.MultiPoint(xy) for xy in sets]
        + [shapely.Point(3, 4), shapely.box(0, 0, 5, 5)]
    )
    df = pd.DataFrame({"item": "i", "annotator": "a", "label": "l", "geometry": geoms})
    df["item"] = [f"i{k}" for k in range(len(df))]
    out = iaf.validate(df)
    want = np.array([polyline_params(POLYLINE, xy) for xy in lines])
    np.testing.assert_allclose(out.loc[:29, list(POLYLINE.columns)], want, rtol=0, atol=1e-9)
    want = np.array([point_set_params(POINT_SET, xy) for xy in sets])
    np.testing.assert_array_equal(out.loc[30:39, list(POINT_SET.columns)], want)
    assert out.loc[40, ["pt_x", "pt_y", "x0", "y1"]].tolist() == [3, 4, 3, 4]
    assert out["geometry"].iloc[:41].isna().all() and out["geometry"].iloc[41].area == 25
    assert iaf.validate(out).equals(out)  # validating again changes nothing
    # what no kind holds stays a geometry that is not a polygon
    bad = pd.DataFrame(
        {
            "item": ["a", "b"],
            "annotator": "x",
            "label": "l",
            "geometry": [shapely.LineString(), shapely.MultiPoint(rng.uniform(0, 9, (33, 2)))],
        }
    )
    with pytest.raises(iaf.errors.InvalidAnnotationError, match="not_polygonal: 2"):
        iaf.validate(bad)
    # beside a line read as a polyline, other rows keep what they were (a string stays
    # not a geometry)
    mixed = pd.DataFrame(
        {
            "item": ["a", "b"],
            "annotator": "x",
            "label": "l",
            "geometry": [shapely.LineString([(0, 0), (1, 1)]), "POLYGON"],
        }
    )
    assert iaf.check(mixed).counts == {"not_a_geometry": 1}


def test_the_invalid_row_error_names_a_remedy_that_works():
    """The error agreement() gives on a NaN box names a call that, followed to the letter,
    makes agreement() work (issue #42: it used to name an argument agreement refuses)."""
    df = iaf.simulate(n_items=8, seed=0)
    df.loc[df.index[df["x0"].notna()][0], "x1"] = np.nan
    with pytest.raises(iaf.errors.InvalidAnnotationError) as caught:
        iaf.agreement(df, n_boot=0, n_chance=50)
    remedy = str(caught.value).split("Drop them first with ")[1].split(" (a warning")[0]
    assert remedy == "df = iaa_frames.validate(df, on_invalid='drop')"
    namespace = {"iaa_frames": iaf, "df": df}
    with pytest.warns(iaf.errors.DroppedRowsWarning):
        exec(remedy, namespace)  # noqa: S102 (the message's own remedy, run as written)
    res = iaf.agreement(namespace["df"], n_boot=0, n_chance=50)
    assert np.isfinite(
        float(res["agreement"].sel(component="detection", label="(all)", annotator="(all)"))
    )
