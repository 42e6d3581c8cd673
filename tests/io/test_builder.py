"""The frame builder shared by the readers: polygons built in batches come out the same; a
coordinate no shape can have is refused before its row is added."""

import math

import numpy as np
import pytest
import shapely

from iaa_frames.io.builder import FrameBuilder, finish
from iaa_frames.io.paths import ENTRY_ERRORS, CoordinateError, entry_error


def test_polygons_are_built_the_same_in_any_batch_size():
    b = FrameBuilder("test")
    square = [0, 0, 10, 0, 10, 10, 0, 10]
    hole = [2, 2, 4, 2, 4, 4, 2, 4]
    b.add_polygon("i", "a", "x", [[square]])
    b.add_polygon(
        "i", "a", "x", [[square, hole], [[20, 20, 30, 20, 30, 30]]]
    )  # holed part + triangle
    b.add_box("i", "a", "x", 0, 0, 1, 1)
    b.add_polygon("j", "a", "y", [[hole], [square[:6]], [[50, 50, 60, 50, 60, 60]]])
    whole = b.geometry_column(b.n, batch=10_000)
    for batch in (1, 2, 3):
        parts = b.geometry_column(b.n, batch=batch)
        assert all(
            (g is None and h is None) or shapely.equals(g, h)
            for g, h in zip(parts, whole, strict=True)
        )
    assert whole[2] is None
    assert whole[0].area == 100
    assert whole[1].geom_type == "MultiPolygon" and whole[1].area == 100 - 4 + 50
    assert np.isclose(whole[3].area, 4 + 50 + 50)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_polygon_coordinate_that_is_not_finite_leaves_no_row(bad):
    b = FrameBuilder("test")
    b.add_polygon("i", "a", "x", [[[0, 0, 10, 0, 10, 10]]])
    with pytest.raises(CoordinateError) as exc:
        b.add_polygon("i", "a", "x", [[[0, 0, 10, 0, 10, 10]], [[1, 1, bad, 2, 3, 3]]])
    assert isinstance(exc.value, ENTRY_ERRORS)  # the readers catch it with the others
    assert str(entry_error(exc.value, "f.json", "annotations[3]")) == (
        f"f.json: annotations[3]: a polygon coordinate is {bad!r}, not a finite number"
    )
    assert b.n == 1 and len(b.part_row) == 1  # nothing of the refused row
    assert b.geometry_column(b.n)[0].area == 50


def test_extra_names_and_texts_utf8_cannot_encode_are_kept_escaped():
    # found by a byte-level fuzz run: a Label Studio result whose from_name held a lone
    # surrogate (a broken \uXXXX escape) became an extra column no text index can hold
    b = FrameBuilder("test")
    bad = "q\ud800uality"
    b.add_box("i", "a", "x", 0, 0, 1, 1, extras={bad: "g\udfffood", "note": "ok"})
    b.add_box("i", "a", "x", 0, 0, 2, 2, extras={bad: None, "q\\ud800uality": 3})
    b.attributes[bad] = None
    df = finish(b)
    escaped = "q\\ud800uality"  # the key as written, taken by the second row: prefixed
    assert ["attr_" + escaped, escaped] == [c for c in df.columns if "uality" in c]
    assert df["attr_" + escaped].tolist()[0] == "g\\udfffood"
    assert df[escaped].tolist()[1] == 3 and df["note"].tolist()[0] == "ok"
    assert df.attrs["iaa_attributes"] == ["attr_" + escaped]


def test_finite_coordinates_whose_sum_overflows_are_kept():
    b = FrameBuilder("test")
    b.add_polygon("i", "a", "x", [[[1e308, 0, 1.7e308, 0, 1.7e308, 1e308]]])
    assert b.n == 1
