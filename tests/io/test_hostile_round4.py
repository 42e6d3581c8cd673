"""Hostile but valid input, round four: each test names the defect it pins (R1, R2, ...)
and fails before its fix (or is a strict xfail describing what is left)."""

from __future__ import annotations

import json

import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError

KITTI = "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
META = (
    "<meta><task><size>3</size><start_frame>0</start_frame><stop_frame>2</stop_frame></task></meta>"
)


def _box(frame, x):
    return (
        f'<box frame="{frame}" xtl="{x}" ytl="1" xbr="{x + 4}" ybr="5" outside="0" keyframe="1"/>'
    )


# ------------------------------- R1: two tracks of one id are one track twice on a frame
def test_r1_cvat_two_tracks_of_one_id_are_refused(tmp_path):
    p = tmp_path / "job.xml"
    p.write_text(
        f'<annotations>{META}<track id="0" label="car">{_box(0, 1)}</track>'
        f'<track id="0" label="car">{_box(0, 20)}</track></annotations>'
    )
    with pytest.raises(ReaderError, match=r"job\.xml: track\[1\].*track\[0\].*one object per"):
        iaf.read_cvat(p, annotator="ana")


def test_r1_yolo_two_tracker_lines_of_one_id_are_refused(tmp_path):
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "a.txt").write_text("0 0.5 0.5 0.2 0.2 0.9 3\n0 0.2 0.2 0.1 0.1 0.8 3\n")
    with pytest.raises(ReaderError, match=r"a\.txt: line 2: the track 3 .* in line 1"):
        iaf.read_yolo(tmp_path)


def test_r1_distinct_track_ids_still_read(tmp_path):
    p = tmp_path / "job.xml"
    p.write_text(
        f'<annotations>{META}<track id="0" label="car">{_box(0, 1)}</track>'
        f'<track id="1" label="car">{_box(0, 20)}</track></annotations>'
    )
    df = iaf.read_cvat(p, annotator="ana")
    assert sorted(df.groupby("track_id").size().tolist()) == [3, 3]


# ------------------------------------ R2: MOT, one id twice on a frame; other sequences
@pytest.mark.parametrize(
    "text",
    [
        "1,1,10,20,30,40,1,-1,-1,-1\n1,1,50,20,30,40,1,-1,-1,-1\n",
        "1,1,10,20,30,40,1,-1,-1,-1\n1,1,10,20,30,40,1,-1,-1,-1\n",
    ],
)
def test_r2_mot_one_id_twice_on_a_frame_is_refused(tmp_path, text):
    p = tmp_path / "gt.txt"
    p.write_text(text)
    with pytest.raises(ReaderError, match=r"gt\.txt: line 2: the id 1 is on frame 1 .* line 1"):
        iaf.read_mot(p, annotator="ana")


def test_r2_mot_detections_without_id_may_share_a_frame(tmp_path):
    p = tmp_path / "det.txt"
    p.write_text("1,-1,10,20,30,40,0.9,-1,-1,-1\n1,-1,50,20,30,40,0.8,-1,-1,-1\n")
    assert len(iaf.read_mot(p, annotator="det")) == 2


def test_r2_mot_annotators_of_different_sequences_are_refused(tmp_path):
    a = tmp_path / "A" / "MOT17-02-FRCNN" / "gt" / "gt.txt"
    b = tmp_path / "B" / "MOT17-02" / "gt" / "gt.txt"
    for p in (a, b):
        p.parent.mkdir(parents=True)
        p.write_text("1,1,10,20,30,40,1,1,1\n")
    with pytest.raises(ReaderError, match="MOT17-02'.*MOT17-02-FRCNN'.*sequence="):
        iaf.read_mot({"ana": a, "bob": b})
    df = iaf.read_mot({"ana": a, "bob": b}, sequence="s")
    assert df["item"].nunique() == 1


# --------------------------------- R3: KITTI items are paths relative to the given folder
def test_r3_kitti_items_do_not_depend_on_which_subfolders_hold_files(tmp_path):
    for rel in ("ana/seq1/000001.txt", "ana/seq2/000001.txt", "bob/seq1/000001.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(KITTI)
    df = iaf.read_kitti(tmp_path)
    items = df.groupby("annotator")["item"].apply(sorted).to_dict()
    assert items == {"ana": ["seq1/000001", "seq2/000001"], "bob": ["seq1/000001"]}


def test_r3_kitti_hidden_folders_hold_no_labels(tmp_path):
    for rel in ("ana/000001.txt", "ana/.ipynb_checkpoints/000001.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(KITTI)
    assert iaf.read_kitti(tmp_path)["item"].tolist() == ["000001"]


# ---------------------------------- R4: one Potato user's record of an item read twice
def _line(item, user, shapes):
    labels = {"objects": {"_data": json.dumps(shapes)}}
    return json.dumps({"instance_id": item, "user_id": user, "labels": labels})


BOX = {
    "type": "bbox",
    "label": "car",
    "coordinates": {"x": 0.1, "y": 0.1, "width": 0.2, "height": 0.2},
}


@pytest.mark.parametrize("second", [[BOX], []])
def test_r4_potato_one_users_item_twice_is_refused(tmp_path, second):
    p = tmp_path / "annotations.jsonl"
    p.write_text(_line("img1", "al", [BOX]) + "\n" + _line("img1", "al", second) + "\n")
    with pytest.raises(ReaderError, match=r"line 2 .*'al' has a record of the item 'img1'"):
        iaf.read_potato(p)
    with pytest.warns(iaf.errors.DroppedRowsWarning):
        df = iaf.read_potato(p, on_invalid="drop")
    assert len(df) == 1  # the first record, once


# --------------------- R5, R6: fixed in round five (more in test_hostile_round5.py)
def test_r5_yolo_label_files_in_a_subfolder_are_not_lost_silently(tmp_path):
    (tmp_path / "ana" / "sub").mkdir(parents=True)
    (tmp_path / "ana" / "b.txt").write_text("")
    (tmp_path / "ana" / "sub" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    try:
        df = iaf.read_yolo(tmp_path)
    except ReaderError:
        return
    assert df["label"].notna().any() or df.attrs["iaa_reader_dropped"]


def test_r6_potato_coordinates_far_outside_the_image_are_refused(tmp_path):
    box = {
        "type": "bbox",
        "label": "car",
        "coordinates": {"x": 10, "y": 10, "width": 50, "height": 50},
    }
    p = tmp_path / "annotations.jsonl"
    p.write_text(_line("img1", "al", [box]) + "\n")
    with pytest.raises(ReaderError, match="fraction"):
        iaf.read_potato(p)
