"""Keypoints in the readers: COCO person keypoints, CVAT skeletons, Label Studio keypoints."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError
from iaa_frames.geometry.kinds import KEYPOINTS, get_kind, kind_of_rows

FIXTURES = __import__("pathlib").Path(__file__).parents[1] / "fixtures"
COCO = {"ana": FIXTURES / "coco/keypoints_ana.json", "ben": FIXTURES / "coco/keypoints_ben.json"}


def _read_coco(paths=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", iaf.errors.DroppedRowsWarning)
        return iaf.read_coco(paths or COCO, return_dropped=True, **kw)


def test_coco_person_keypoints_read_as_skeletons():
    df, dropped = _read_coco()
    objects = df[df["x0"].notna()]
    assert set(kind_of_rows(objects)) == {"keypoints"}
    raw = json.loads(COCO["ana"].read_text())
    ann = raw["annotations"][0]
    row = objects[(objects["annotator"] == "ana") & (objects["object_id"] == "ana/101")].iloc[0]
    flat = ann["keypoints"]
    got = [row[f"kp_{j}_{c}"] for j in KEYPOINTS.keypoints for c in "xyv"]
    assert got == [float(v) for v in flat]
    assert row["kp_area"] == ann["area"]
    # the box is the bounds of the labelled joints, not the annotation's bbox
    xy = np.array(flat).reshape(-1, 3)
    on = xy[xy[:, 2] > 0]
    assert [row.x0, row.y0, row.x1, row.y1] == [*on[:, :2].min(0), *on[:, :2].max(0)]
    # num_keypoints 0 is skipped and counted (COCOeval ignores it too), its image covered
    assert dropped["reason"].tolist() == ["keypoints_none_labelled"]
    cover = df[(df["item"] == "000000000885.jpg") & (df["annotator"] == "ana")]
    assert len(cover) == 1 and cover["x0"].isna().all()


def test_coco_keypoints_off_reads_boxes_and_polygons():
    df, _ = _read_coco(keypoints=False)
    objects = df[df["x0"].notna()]
    assert set(kind_of_rows(objects)) == {"polygon"}
    assert "kp_nose_x" not in df.columns


def test_coco_keypoints_agreement_end_to_end():
    df, _ = _read_coco()
    res = iaf.agreement(df, seed=0, n_boot=0)
    assert float(res.raw_iou.sel(component="localization", label="(all)", annotator="(all)")) > 0.5


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a["annotations"][0].update(keypoints=[1, 2]), "keypoints must be a list of numbers x, y, v"),
        (lambda a: a["annotations"][0]["keypoints"].__setitem__(2, 5), "a visibility 0, 1 or 2"),
        (lambda a: a["annotations"][0].update(keypoints=[10, 10, 2] * 4), "4 keypoints, but the category 'person' names 17"),
        (lambda a: a["categories"][0].update(skeleton=[[0, 1]]), "skeleton must be a list of [joint, joint] pairs"),
    ],
)  # fmt: skip
def test_coco_malformed_keypoints_fail_with_one_line(tmp_path, change, message):
    raw = json.loads(COCO["ana"].read_text())
    change(raw)
    with pytest.raises(ReaderError) as info:
        iaf.read_coco(_write(tmp_path, "bad.json", raw))
    text = str(info.value)
    assert message in text and "bad.json" in text and "\n" not in text


def test_coco_other_skeleton_registers_its_kind(tmp_path):
    raw = {
        "images": [{"id": 1, "file_name": "f.jpg", "width": 100, "height": 100}],
        "categories": [{"id": 1, "name": "Fish", "keypoints": ["head", "tail"], "skeleton": [[1, 2]]}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "area": 50.0, "bbox": [10, 10, 30, 5],
             "num_keypoints": 2, "keypoints": [10, 12, 2, 40, 14, 1]}
        ],
    }  # fmt: skip
    df = iaf.read_coco(_write(tmp_path, "fish.json", raw))
    kind = get_kind("keypoints_fish")
    assert kind.keypoints == ("head", "tail") and kind.skeleton == ((0, 1),)
    assert df[list(kind.columns)].iloc[0].tolist() == [10.0, 12.0, 2.0, 40.0, 14.0, 1.0, 50.0]


def test_cvat_skeletons_on_images():
    df, dropped = iaf.read_cvat(FIXTURES / "cvat/skeletons_images.xml", return_dropped=True)
    kind = get_kind("keypoints_hand")
    assert kind.keypoints == ("wrist", "thumb", "index")
    hands = df[df["label"] == "hand"].reset_index(drop=True)
    assert len(hands) == 2
    # image 0: index occluded (v 1); image 1: joints listed in another order, index outside
    assert hands.loc[0, [c for c in kind.columns if c.endswith("_v")]].tolist() == [2.0, 2.0, 1.0]
    assert hands.loc[1, "keypoints_hand_wrist_x"] == 352.0
    assert hands.loc[1, "keypoints_hand_index_v"] == 0.0
    # the scale: the area of the box of the labelled joints
    assert hands.loc[1, "keypoints_hand_area"] == pytest.approx((352.0 - 330.1) * (262.3 - 190.0))
    cups = df[df["label"] == "cup"]  # the box beside them, and a standalone <points>
    assert len(cups) == 2 and cups["ps_n"].tolist()[1] == 1.0
    assert cups["ps_0_x"].tolist()[1] == 420.0 and len(dropped) == 0


VIDEO = """<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta><job><id>7</id><size>5</size><mode>interpolation</mode><start_frame>0</start_frame>
  <stop_frame>4</stop_frame><assignee><username>dee</username></assignee>
  <original_size><width>640</width><height>480</height></original_size></job></meta>
  <track id="0" label="hand" source="manual">
    <skeleton frame="0" keyframe="1" outside="0" occluded="0" z_order="0">
      <points label="wrist" occluded="0" outside="0" points="100.0,100.0"/>
      <points label="thumb" occluded="1" outside="0" points="90.0,80.0"/>
      <points label="index" occluded="0" outside="1" points="110.0,70.0"/>
    </skeleton>
    <skeleton frame="4" keyframe="1" outside="0" occluded="0" z_order="0">
      <points label="wrist" occluded="0" outside="0" points="140.0,100.0"/>
      <points label="thumb" occluded="0" outside="0" points="130.0,84.0"/>
      <points label="index" occluded="0" outside="0" points="150.0,70.0"/>
    </skeleton>
    <track id="1" label="wrist" source="manual">
      <points frame="0" keyframe="1" outside="0" occluded="0" points="100.0,100.0" z_order="0"/>
    </track>
  </track>
</annotations>
"""


def test_cvat_skeleton_track_interpolates_joints(tmp_path):
    df, dropped = iaf.read_cvat(_write(tmp_path, "video.xml", VIDEO), return_dropped=True)
    hands = df[df["label"] == "hand"].sort_values("item")
    assert len(hands) == 5 and len(dropped) == 0
    # the wrist moves linearly from x 100 to 140; the thumb too; index unlabelled until 4
    assert hands["keypoints_hand_wrist_x"].tolist() == [100.0, 110.0, 120.0, 130.0, 140.0]
    assert hands["keypoints_hand_thumb_y"].tolist() == [80.0, 81.0, 82.0, 83.0, 84.0]
    assert hands["keypoints_hand_index_v"].tolist() == [0.0, 0.0, 0.0, 0.0, 2.0]
    assert hands["keypoints_hand_thumb_v"].tolist() == [1.0, 1.0, 1.0, 1.0, 2.0]


def test_cvat_malformed_skeleton_fails_with_one_line(tmp_path):
    bad = VIDEO.replace('points="90.0,80.0"', 'points="90.0,80.0;1,2"')
    with pytest.raises(ReaderError) as info:
        iaf.read_cvat(_write(tmp_path, "bad.xml", bad))
    text = str(info.value)
    assert "a skeleton element holds one point, got 2" in text and "\n" not in text
    assert "bad.xml" in text


def test_labelstudio_keypoints():
    path = FIXTURES / "labelstudio/keypoints.json"
    df, dropped = iaf.read_labelstudio(path, return_dropped=True)
    assert len(dropped) == 0
    assert set(kind_of_rows(df)) == {"keypoints"}
    raw = json.loads(path.read_text())
    first = raw[0]["annotations"][0]["result"]
    rect, nose = first[0], first[1]
    row = df[df["object_id"] == "501/Ra1"].iloc[0]
    assert row["label"] == "person"  # the rectangle's label, its area the scale
    w, h = rect["original_width"], rect["original_height"]
    assert row["kp_area"] == pytest.approx(
        rect["value"]["width"] * w / 100 * rect["value"]["height"] * h / 100
    )
    assert row["kp_nose_x"] == pytest.approx(nose["value"]["x"] * w / 100)
    assert row["kp_nose_v"] == 2.0 and row["kp_left_ankle_v"] == 0.0
    ben = df[df["object_id"] == "502/Rb1"].iloc[0]
    assert ben["kp_left_eye_v"] == 0.0  # not placed by ben
    loose = df[df["object_id"] == "503/keypoints/0"].iloc[0]  # no rectangle: one object
    assert loose["label"] == "kp"


def test_labelstudio_malformed_keypoint_fails_with_one_line(tmp_path):
    raw = json.loads((FIXTURES / "labelstudio/keypoints.json").read_text())
    raw[0]["annotations"][0]["result"][1]["value"]["x"] = "left"
    with pytest.raises(ReaderError) as info:
        iaf.read_labelstudio(_write(tmp_path, "bad.json", raw))
    text = str(info.value)
    assert "bad.json" in text and "result[1]" in text and "\n" not in text
