"""read_darwin against hand-written Darwin JSON 2.0 fixtures (tests/fixtures/darwin)."""

import json
import warnings

import pytest
import shapely
from helpers import FIX, row_of

from iaa_frames.errors import AnnotatorNameWarning, DroppedRowsWarning, ReaderError
from iaa_frames.io import read_darwin


def test_directory_per_annotator():
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_darwin(FIX / "darwin")
    w = rec[0].message
    assert w.counts == {"unsupported_shape": 1}  # the tag
    assert "tag" in w.dropped["detail"].iloc[0]
    bench = row_of(df, object_id="a1b2c3d4-0001")
    assert (bench.x0, bench.y0, bench.x1, bench.y1) == (10, 20, 60, 120)
    assert (bench["annotator"], bench["item"], bench["width"], bench["height"]) == (
        "ana",
        "park_01.jpg",
        1000,
        800,
    )
    pond = row_of(df, object_id="a1b2c3d4-0002")["geometry"]
    # paths filled even-odd: the second path is a hole of the first, the third a separate part
    assert pond.geom_type == "MultiPolygon"
    assert pond.area == pytest.approx(100 * 100 - 50 * 50 + 0.5 * 20 * 20)
    assert not pond.contains(shapely.Point(250, 250))
    assert row_of(df, item="park_02.jpg")["annotator"] == "ana"  # no annotations: coverage
    # the subdirectory names the annotator; the recorded annotators are kept
    team = df[df["annotator"] == "team"]
    assert len(team) == 2 and set(team["annotators"]) == {"bo@example.org", "cy@example.org"}
    assert set(team["item"]) == {"park_01.jpg"}  # item_key="name": the base name
    with pytest.warns(DroppedRowsWarning):
        df = read_darwin(FIX / "darwin", item_key="path")
    assert set(df.loc[df["annotator"] == "team", "item"]) == {"/batch1/park_01.jpg"}


def test_recorded_annotators():
    df = read_darwin(FIX / "darwin" / "team")
    assert sorted(df["annotator"]) == ["bo@example.org", "cy@example.org"]


def test_single_file_and_argument():
    with pytest.warns(AnnotatorNameWarning):
        df = read_darwin(FIX / "darwin" / "ana" / "park_02.json")
    assert list(df["annotator"]) == ["park_02"]  # nothing else names the annotator
    df = read_darwin(FIX / "darwin" / "ana" / "park_02.json", annotator="ana")
    assert list(df["annotator"]) == ["ana"]


def test_bad_entries(tmp_path):
    doc = json.loads((FIX / "darwin" / "ana" / "park_01.json").read_text())
    doc["annotations"][1]["polygon"]["paths"][0][2] = {"x": "300", "y": 200}
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError, match=r"p\.json: annotations\[1\] \(id='a1b2c3d4-0002'\): polygon\.paths\[0\]"
    ):
        read_darwin(p)
    doc = json.loads((FIX / "darwin" / "ana" / "park_01.json").read_text())
    del doc["annotations"][0]["name"]
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"annotations\[0\] \(id='a1b2c3d4-0001'\): 'name'"):
        read_darwin(p)
    p.write_text(json.dumps({"dataset": "x", "image": {}, "annotations": []}))
    with pytest.raises(
        ReaderError, match=r"p\.json: item: missing or invalid 'item' \(Darwin JSON 1\.0"
    ):
        read_darwin(p)


def test_legacy_path_keys(tmp_path):
    square = [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 10, "y": 10}, {"x": 0, "y": 10}]
    hole = [{"x": 2, "y": 2}, {"x": 4, "y": 2}, {"x": 4, "y": 4}, {"x": 2, "y": 4}]
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "slots": [{"width": 20, "height": 20}]},
        "annotations": [
            {"id": "s", "name": "c", "polygon": {"path": square}},
            {"id": "h", "name": "c", "complex_polygon": {"path": [square, hole]}},
        ],
    }
    p = tmp_path / "a.json"
    p.write_text(json.dumps(doc))
    df = read_darwin(p, annotator="ana")
    assert row_of(df, object_id="s")["geometry"].area == 100
    assert row_of(df, object_id="h")["geometry"].area == 96


def test_export_without_annotators_is_one_annotator_not_one_per_file():
    # a V7 Darwin 2.0 export of three images written without 'annotators' (the default):
    # one annotator for the whole export, named after its directory, and a warning says so
    d = FIX / "darwin_export"
    with pytest.warns(AnnotatorNameWarning, match=r"3 file\(s\) of the export 'darwin_export'"):
        df = read_darwin(d)
    assert set(df["annotator"]) == {"darwin_export"}
    assert sorted(df["item"]) == ["street_01.jpg", "street_02.jpg", "street_03.jpg"]
    person = row_of(df, item="street_02.jpg")
    assert person["geometry"].area == 80 * 200 and (person["width"], person["height"]) == (
        1280,
        720,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_darwin(d, annotator="ana")
    assert set(df["annotator"]) == {"ana"}
    # one file alone: its stem names the export
    with pytest.warns(AnnotatorNameWarning, match="'street_01'"):
        one = read_darwin(d / "street_01.json")
    assert set(one["annotator"]) == {"street_01"}


def test_on_invalid_drop_skips_bad_annotations(tmp_path):
    doc = json.loads((FIX / "darwin_export" / "street_01.json").read_text())
    doc["annotations"].append(
        {"id": "x1", "name": "car", "bounding_box": {"x": "a", "y": 0, "w": 1, "h": 1}}
    )
    p = tmp_path / "street_01.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError, match=r"street_01\.json: annotations\[1\] \(id='x1'\): bounding_box\.x"
    ):
        read_darwin(p, annotator="a")
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_darwin(p, annotator="a", on_invalid="drop")
    assert rec[0].message.counts == {"unreadable_entry": 1}
    assert len(df) == 1 and df["label"].tolist() == ["car"]


# V7 Darwin JSON 2.0 lines and keypoints (issue #26): the fixture tests/fixtures/darwin_lines
# is hand-written in the shape V7's parser reads (darwin-py, _parse_darwin_annotation in
# darwin/utils/utils.py: "line": {"path": [{x, y}, ...]}, "keypoint": {x, y}), two
# annotators of one road image.


def _doc(*annotations):
    return {
        "version": "2.0",
        "item": {"name": "r.jpg", "path": "/", "slots": [{"width": 100, "height": 50}]},
        "annotations": list(annotations),
    }


def test_lines_and_keypoints():
    from iaa_frames.explore.item import item_view
    from iaa_frames.geometry.kinds import POLYLINE, kind_of_rows, polyline_vertices

    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_darwin(FIX / "darwin_lines")
    assert rec[0].message.counts == {"degenerate_polyline": 1, "unsupported_shape": 1}
    assert (
        "skeleton" in rec[0].message.dropped.set_index("reason").loc["unsupported_shape", "detail"]
    )
    assert sorted(kind_of_rows(df)) == ["point", "point", "polyline", "polyline", "polyline"]
    lane = row_of(df, object_id="5e1f0c2a-0001")
    assert (lane["annotator"], lane["label"], lane["width"], lane["height"]) == (
        "ana", "lane", 1920, 1080,
    )  # fmt: skip
    verts = polyline_vertices(POLYLINE, lane[list(POLYLINE.columns)].to_numpy(float))
    assert verts.tolist() == [[400, 1080], [620.5, 800], [800, 600], [900, 500]]
    assert (lane.x0, lane.y0, lane.x1, lane.y1) == (400, 500, 900, 1080)
    sign = row_of(df, object_id="5e1f0c2a-0003")
    assert (sign["pt_x"], sign["pt_y"], sign.x0, sign.x1) == (1500.25, 620.75, 1500.25, 1500.25)
    assert sign[list(POLYLINE.columns)].isna().all()
    # the pipeline matches them: lane with lane, sign with sign; ana's road edge unmatched
    view = item_view(df, "road_01.jpg")
    pairs = {tuple(sorted(p)) for p in view.pairs[["object_id_a", "object_id_b"]].to_numpy()}
    assert pairs == {("5e1f0c2a-0001", "7a2b9d4e-0001"), ("5e1f0c2a-0003", "7a2b9d4e-0002")}
    assert row_of(view.objects, object_id="5e1f0c2a-0002")["conflict"] == "unmatched"


def test_long_lines_closed_lines_and_boxes_beside_them(tmp_path):
    from iaa_frames.geometry.kinds import POLYLINE

    long = [{"x": float(i), "y": 10.0} for i in range(41)]  # 41 points, 40 px straight
    loop = [{"x": 10, "y": 10}, {"x": 20, "y": 10}, {"x": 20, "y": 20}, {"x": 10, "y": 10}]
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_doc(
        {"id": "long", "name": "lane", "line": {"path": long}},
        {"id": "loop", "name": "lane", "line": {"path": loop},
         "bounding_box": {"x": 0, "y": 0, "w": 99, "h": 49}},
    )))  # fmt: skip
    df = read_darwin(p, annotator="ana")
    xy = POLYLINE.vertices(
        row_of(df, object_id="long")[list(POLYLINE.columns)].to_numpy(float)[None]
    )
    # resampled to 32 points at equal arc length along the line
    assert xy[0, :, 0].tolist() == pytest.approx([40 * i / 31 for i in range(32)])
    assert (xy[0, :, 1] == 10).all()
    closed = row_of(df, object_id="loop")
    # a line back to its start keeps its last point (a line is open), and the bounding_box
    # written beside it is not what is read
    assert (closed["pl_3_x"], closed["pl_3_y"]) == (10, 10)
    assert (closed.x0, closed.y0, closed.x1, closed.y1) == (10, 10, 20, 20)


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        ({"line": [{"x": 0, "y": 0}]}, r"line must be a JSON object \{path: .*got list"),
        ({"line": {"points": []}}, r"line must be a JSON object \{path: .*got no 'path'"),
        ({"line": {"path": [{"x": 0, "y": 0}, {"x": "4", "y": 1}]}}, r"line\.path holds"),
        ({"line": {"path": {"x": 0, "y": 0}}}, r"line\.path must be a list"),
        ({"keypoint": {"x": 3}}, r"keypoint holds \{'x': 3\}, not a point"),
        ({"keypoint": [3, 4]}, r"keypoint must be a JSON object \{x, y\}, got list"),
        ({"keypoint": {"x": 3, "y": float("inf")}}, r"keypoint holds a non-finite"),
    ],
)
def test_malformed_lines_and_keypoints_fail_with_one_line(tmp_path, annotation, message):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_doc({"id": "k9", "name": "lane", **annotation})))
    with pytest.raises(
        ReaderError, match=r"r\.json: annotations\[0\] \(id='k9'\): " + message
    ) as e:
        read_darwin(p, annotator="ana")
    assert "\n" not in str(e.value)
