"""read_labelstudio against a hand-written Label Studio JSON export (tests/fixtures/labelstudio)."""

import json

import numpy as np
import pytest

from iaa_frames.errors import DroppedRowsWarning, ParameterError, ReaderError
from iaa_frames.io import read_labelstudio

from test_io_helpers import FIX, row_of

EXPORT = FIX / "labelstudio" / "export.json"
DOG_PARK = "/data/upload/1/6a1b2c3d-dog_park.jpg"


def _read(path=EXPORT, **kw):
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_labelstudio(path, **kw)
    return df, rec[0].message


def test_export():
    df, w = _read()
    rect = row_of(df, object_id="1001/Dx_aB91ISN")
    # percent of original_width=800, original_height=600
    assert (rect.x0, rect.y0, rect.x1, rect.y1) == (80, 120, 280, 420)
    assert (rect["label"], rect["annotator"], rect["item"]) == ("Dog", "ana@example.org", DOG_PARK)
    assert (rect["width"], rect["height"]) == (800, 600)
    assert rect["quality"] == "sharp"  # a per-region choices result
    assert rect["task"] == 1
    poly = row_of(df, object_id="1001/p0ly9")
    assert poly["label"] == "Cat"
    assert poly["geometry"].area == pytest.approx(0.5 * 200 * 300)
    # rotation=90 (clockwise about the top-left corner (400, 300)) of an 80 x 60 box
    rot = row_of(df, object_id="1002/r0t8")
    assert rot["annotator"] == "11"  # completed_by as a plain user id
    np.testing.assert_allclose([rot.x0, rot.y0, rot.x1, rot.y1], [340, 300, 400, 380], atol=1e-9)
    assert rot["rotation"] == 90
    # task 2: an empty result is a coverage row; the cancelled annotation gives nothing
    cov = df[df["x0"].isna()]
    assert list(zip(cov["item"], cov["annotator"])) == [("/data/upload/1/0f9e8d7c-empty_lot.jpg", "ana@example.org")]
    assert "12" not in set(df["annotator"])
    assert len(df) == 4
    assert w.counts == {"unsupported_result": 1, "cancelled_annotation": 1}
    assert set(w.dropped["annotator"]) == {"ana@example.org", "12"}


def test_item_is_task_id():
    df, _ = _read(item="task")
    assert set(df["item"]) == {1, 2}
    with pytest.raises(ParameterError):
        read_labelstudio(EXPORT, item="nope")


def test_data_key(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    for t in tasks:
        t["data"] = {"img": t["data"]["image"], "n": 3}
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, _ = _read(p)  # the only string value of data
    assert DOG_PARK in set(df["item"])
    for t in tasks:
        t["data"]["caption"] = "text"
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match=r"e\.json: tasks\[0\] \(id=1\): cannot tell which key"):
        read_labelstudio(p)
    df, _ = _read(p, data_key="img")
    assert DOG_PARK in set(df["item"])


def test_multiple_labels_are_counted(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][0]["result"][0]["value"]["rectanglelabels"] = ["Dog", "Cat"]
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, w = _read(p)
    assert w.counts["extra_labels_ignored"] == 1
    assert row_of(df, object_id="1001/Dx_aB91ISN")["label"] == "Dog"


def test_rectangle_labelled_by_a_labels_tag(tmp_path):
    tasks = [{"id": 5, "data": {"image": "a.jpg"}, "annotations": [{"id": 1, "completed_by": 1, "result": [
        {"id": "q", "type": "rectangle", "original_width": 100, "original_height": 100,
         "value": {"x": 0, "y": 0, "width": 10, "height": 10}},
        {"id": "q", "type": "labels", "original_width": 100, "original_height": 100,
         "value": {"x": 0, "y": 0, "width": 10, "height": 10, "labels": ["Car"]}}]}]}]
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df = read_labelstudio(p)
    assert list(df["label"]) == ["Car"] and df["x1"].iloc[0] == 10


def test_wrong_types_name_the_entry(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][1]["result"][0]["value"]["x"] = "50%"
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match=r"e\.json: tasks\[0\] \(id=1\) annotations\[1\] \(id=1002\) result\[0\]: value\.x"):
        read_labelstudio(p)
    tasks = json.loads(EXPORT.read_text())
    tasks[1]["annotations"][0]["completed_by"] = [1]
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match=r"tasks\[1\] \(id=2\) annotations\[0\] \(id=1004\): completed_by"):
        read_labelstudio(p)
    tasks = json.loads(EXPORT.read_text())
    del tasks[1]["annotations"][0]["completed_by"]
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match="missing key 'completed_by'"):
        read_labelstudio(p)


def test_not_a_task_list(tmp_path):
    p = tmp_path / "coco.json"
    p.write_text(json.dumps({"images": []}))
    with pytest.raises(ReaderError, match=r"coco\.json: not a Label Studio JSON export"):
        read_labelstudio(p)
    p.write_text("[]")
    with pytest.raises(ReaderError, match="no tasks"):
        read_labelstudio(p)


def test_relations_and_image_level_results_are_counted(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    result = tasks[0]["annotations"][0]["result"]
    result.append({"from_id": "Dx_aB91ISN", "to_id": "p0ly9", "type": "relation", "direction": "right"})
    result.append({"id": "img1", "from_name": "weather", "to_name": "image", "type": "choices",
                   "value": {"choices": ["sunny"]}})
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, w = _read(p)
    assert w.counts == {"unsupported_result": 3, "cancelled_annotation": 1}
    assert len(df) == 4
