"""read_darwin against hand-written Darwin JSON 2.0 fixtures (tests/fixtures/darwin)."""

import json

import pytest
import shapely

from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io import read_darwin

from test_io_helpers import FIX, row_of


def test_directory_per_annotator():
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_darwin(FIX / "darwin")
    w = rec[0].message
    assert w.counts == {"unsupported_shape": 1}  # the tag
    assert "tag" in w.dropped["detail"].iloc[0]
    bench = row_of(df, object_id="a1b2c3d4-0001")
    assert (bench.x0, bench.y0, bench.x1, bench.y1) == (10, 20, 60, 120)
    assert (bench["annotator"], bench["item"], bench["width"], bench["height"]) == ("ana", "park_01.jpg", 1000, 800)
    pond = row_of(df, object_id="a1b2c3d4-0002")["geometry"]
    # paths filled even-odd: the second path is a hole of the first, the third a separate part
    assert pond.geom_type == "MultiPolygon"
    assert pond.area == pytest.approx(100 * 100 - 50 * 50 + 0.5 * 20 * 20)
    assert not pond.contains(shapely.Point(250, 250))
    assert row_of(df, item="park_02.jpg")["annotator"] == "ana"  # no annotations: coverage
    # the subdirectory names the annotator; the recorded annotators are kept
    team = df[df["annotator"] == "team"]
    assert len(team) == 2 and set(team["annotators"]) == {"bo@example.org", "cy@example.org"}
    assert set(team["item"]) == {"/batch1/park_01.jpg"}  # item.path is kept


def test_recorded_annotators():
    df = read_darwin(FIX / "darwin" / "team")
    assert sorted(df["annotator"]) == ["bo@example.org", "cy@example.org"]


def test_single_file_and_argument():
    df = read_darwin(FIX / "darwin" / "ana" / "park_02.json")
    assert list(df["annotator"]) == ["park_02"]  # nothing else names the annotator
    df = read_darwin(FIX / "darwin" / "ana" / "park_02.json", annotator="ana")
    assert list(df["annotator"]) == ["ana"]


def test_bad_entries(tmp_path):
    doc = json.loads((FIX / "darwin" / "ana" / "park_01.json").read_text())
    doc["annotations"][1]["polygon"]["paths"][0][2] = {"x": "300", "y": 200}
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"p\.json: annotations\[1\] \(id='a1b2c3d4-0002'\): polygon\.paths\[0\]"):
        read_darwin(p)
    doc = json.loads((FIX / "darwin" / "ana" / "park_01.json").read_text())
    del doc["annotations"][0]["name"]
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"annotations\[0\] \(id='a1b2c3d4-0001'\): 'name'"):
        read_darwin(p)
    p.write_text(json.dumps({"dataset": "x", "image": {}, "annotations": []}))
    with pytest.raises(ReaderError, match=r"p\.json: item: missing or invalid 'item' \(Darwin JSON 1\.0"):
        read_darwin(p)


def test_legacy_path_keys(tmp_path):
    square = [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 10, "y": 10}, {"x": 0, "y": 10}]
    hole = [{"x": 2, "y": 2}, {"x": 4, "y": 2}, {"x": 4, "y": 4}, {"x": 2, "y": 4}]
    doc = {"version": "2.0", "item": {"name": "a.jpg", "slots": [{"width": 20, "height": 20}]},
           "annotations": [{"id": "s", "name": "c", "polygon": {"path": square}},
                           {"id": "h", "name": "c", "complex_polygon": {"path": [square, hole]}}]}
    p = tmp_path / "a.json"
    p.write_text(json.dumps(doc))
    df = read_darwin(p, annotator="ana")
    assert row_of(df, object_id="s")["geometry"].area == 100
    assert row_of(df, object_id="h")["geometry"].area == 96
