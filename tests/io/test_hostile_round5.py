"""Hostile but valid input, round five: each test names the defect it pins and fails
before its fix (or is a strict xfail describing what is left)."""

from __future__ import annotations

import json
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError

KITTI = "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"


def _write(root, files: dict) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


# ------------------------------------ R5: YOLO label files in subfolders are reported
def test_r5_yolo_subfolder_label_files_are_named_in_the_warning(tmp_path):
    _write(tmp_path, {"ana/b.txt": "0 0.5 0.5 0.2 0.2\n", "ana/sub/a.txt": "0 0.5 0.5 0.2 0.2\n"})
    with pytest.warns(DroppedRowsWarning, match="label_file_not_read: 1") as rec:
        df = iaf.read_yolo(tmp_path)
    assert df["item"].tolist() == ["b"]
    (w,) = [r.message for r in rec if isinstance(r.message, DroppedRowsWarning)]
    assert w.dropped["file"].str.endswith("sub/a.txt").tolist() == [True]
    assert df.attrs["iaa_reader_dropped"] == {"label_file_not_read": 1}


def test_r5_yolo_export_with_only_subfolder_files_names_them(tmp_path):
    _write(tmp_path, {"ana/sub/a.txt": "0 0.5 0.5 0.2 0.2\n", "bob/a.txt": "0 0.5 0.5 0.2 0.2\n"})
    with pytest.raises(ReaderError, match=r"ana: no \.txt label files .*sub/a\.txt"):
        iaf.read_yolo(tmp_path)


def test_r5_yolo_stray_label_beside_annotator_exports_is_ambiguous(tmp_path):
    line = "0 0.5 0.5 0.2 0.2\n"
    _write(tmp_path, {"stray.txt": line, "ana/a.txt": line, "bob/a.txt": line})
    with pytest.raises(ReaderError, match=r"stray\.txt.*\(ana, bob\).*annotator="):
        iaf.read_yolo(tmp_path)
    with pytest.warns(DroppedRowsWarning, match="label_file_not_read: 2"):
        df = iaf.read_yolo(tmp_path, annotator="one")  # one export: said so
    assert df["item"].tolist() == ["stray"]


def test_r5_yolo_darknet_obj_folders_and_hidden_folders_are_not_reported(tmp_path):
    line = "0 0.5 0.5 0.2 0.2\n"
    _write(tmp_path, {"a.txt": line, "obj_train_data/b.txt": line, ".cache/c.txt": line})
    df = iaf.read_yolo(tmp_path, annotator="ana")
    assert sorted(df["item"]) == ["a", "b"] and df.attrs["iaa_reader_dropped"] == {}


# ------------------------------- R6: coordinates far outside the image are another unit
def _potato(tmp_path, coords, kind="bbox"):
    shape = {"type": kind, "label": "car", "coordinates": coords}
    labels = {"objects": {"_data": json.dumps([shape])}}
    p = tmp_path / "annotations.jsonl"
    p.write_text(json.dumps({"instance_id": "img1", "user_id": "al", "labels": labels}) + "\n")
    return p


@pytest.mark.parametrize(
    ("kind", "coords"),
    [
        ("bbox", {"x": 0.5, "y": 0.1, "width": 2.0, "height": 0.2}),
        ("polygon", [{"x": 0.1, "y": 0.1}, {"x": 300, "y": 0.1}, {"x": 0.2, "y": 0.3}]),
        ("landmark", {"x": 0.5, "y": -4}),
        ("ellipse", {"cx": 0.5, "cy": 0.5, "rx": 12, "ry": 0.1, "angle": 0}),
    ],
)
def test_r6_potato_shapes_far_outside_the_image_are_refused_or_counted(tmp_path, kind, coords):
    p = _potato(tmp_path, coords, kind)
    with pytest.raises(ReaderError, match=r"shapes\[0\].*image (width|height)s past.*fractions"):
        iaf.read_potato(p)
    with pytest.warns(DroppedRowsWarning, match="unreadable_entry: 1"):
        df = iaf.read_potato(p, on_invalid="drop")
    assert df["label"].isna().all()  # the item stays covered


def test_r6_potato_small_excursions_are_kept_as_written(tmp_path):
    p = _potato(tmp_path, {"x": -0.05, "y": 0.9, "width": 0.5, "height": 0.2})
    df = iaf.read_potato(p)
    assert df[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == pytest.approx([-0.05, 0.9, 0.45, 1.1])


def _ls(tmp_path, result):
    result = {"id": "r1", "from_name": "label", "to_name": "image", **result}
    ann = {"id": 1, "completed_by": 1, "result": [result]}
    tasks = [{"id": 1, "data": {"image": "a.jpg"}, "annotations": [ann]}]
    p = tmp_path / "export.json"
    p.write_text(json.dumps(tasks))
    return p


@pytest.mark.parametrize(
    "result",
    [
        {"type": "rectanglelabels", "value": {"x": 10, "y": 10, "width": 200, "height": 20}},
        {"type": "polygonlabels", "value": {"points": [[1, 1], [50, 1], [50, 900]]}},
        {"type": "ellipselabels", "value": {"x": 50, "y": 50, "radiusX": 300, "radiusY": 5}},
    ],
)
def test_r6_labelstudio_percent_far_outside_the_image_is_refused(tmp_path, result):
    kind = result["type"]
    result["value"][kind] = ["car"]
    size = {"original_width": 100, "original_height": 100}
    p = _ls(tmp_path, {**result, **size})
    with pytest.raises(ReaderError, match=r"result\[0\].*past the image's edge.*percent"):
        iaf.read_labelstudio(p)
    with pytest.warns(DroppedRowsWarning, match="unreadable_entry: 1"):
        df = iaf.read_labelstudio(p, on_invalid="drop")
    assert df["label"].isna().all()


def test_r6_labelstudio_rotated_rectangle_at_the_edge_is_kept(tmp_path):
    value = {"x": 90, "y": 0, "width": 60, "height": 60, "rotation": 45, "rectanglelabels": ["a"]}
    p = _ls(tmp_path, {"type": "rectanglelabels", "value": value})
    df = iaf.read_labelstudio(p)
    assert df["x1"].iloc[0] > 100  # past the edge, kept as written


# ------------------------------------------------------------ KITTI: the 2D box
def test_kitti_inverted_2d_box_is_refused_or_counted(tmp_path):
    f = tmp_path / "ana" / "000001.txt"
    _write(
        tmp_path, {"ana/000001.txt": KITTI.replace("587.01 173.33 614.12", "614.12 173.33 587.01")}
    )
    with pytest.raises(ReaderError, match=r"000001\.txt: line 1: the 2D box is inverted"):
        iaf.read_kitti(f.parent)
    with pytest.warns(DroppedRowsWarning, match="unreadable_entry: 1"):
        df = iaf.read_kitti(f.parent, on_invalid="drop")
    assert df["label"].isna().all() and df["item"].tolist() == ["000001"]


# ------------------------------- KITTI: a stray label file beside annotator folders
def test_kitti_stray_file_beside_annotator_folders_is_ambiguous(tmp_path):
    _write(tmp_path, {"notes.txt": KITTI, "ana/000001.txt": KITTI, "bob/000001.txt": KITTI})
    with pytest.raises(ReaderError, match=r"notes\.txt.*\(ana, bob\).*annotator="):
        iaf.read_kitti(tmp_path)
    df = iaf.read_kitti(tmp_path, annotator="one")  # one annotator's folder: said so
    assert sorted(df["item"]) == ["ana/000001", "bob/000001", "notes"]
    assert set(df["annotator"]) == {"one"}


def test_kitti_invalid_stray_file_is_named_too(tmp_path):
    _write(tmp_path, {"readme.txt": "see the devkit\n", "ana/000001.txt": KITTI})
    with pytest.raises(ReaderError, match=r"readme\.txt.*\(ana\)"):
        iaf.read_kitti(tmp_path)


# ------------------------------------------------------------------ V7 Darwin
def _darwin(name, anns, *, folder="/", slots=None):
    slots = slots or [{"slot_name": "0", "width": 100, "height": 80}]
    return json.dumps(
        {
            "version": "2.0",
            "item": {"name": name, "path": folder, "slots": slots},
            "annotations": anns,
        }
    )


def _bb(i, x, slot="0"):
    return {
        "id": i,
        "name": "cat",
        "slot_names": [slot],
        "bounding_box": {"x": x, "y": 10, "w": 20, "h": 20},
        "annotators": [{"email": "ana@x"}],
    }


def test_darwin_items_of_v7_folders_are_read_with_their_export(tmp_path):
    _write(
        tmp_path,
        {
            "exp/a.json": _darwin("a.jpg", [_bb("1", 1)]),
            "exp/sub/b.json": _darwin("b.jpg", [_bb("2", 1)], folder="/sub"),
            "exp/.v7/metadata.json": "{}",
        },
    )
    df = iaf.read_darwin(tmp_path / "exp")
    assert sorted(df["item"]) == ["a.jpg", "b.jpg"] and set(df["annotator"]) == {"ana@x"}


def test_darwin_export_of_folders_only_is_not_a_folder_of_annotators(tmp_path):
    _write(
        tmp_path,
        {
            "s1/a.json": _darwin("a.jpg", [_bb("1", 1)], folder="/s1"),
            "s2/b.json": _darwin("b.jpg", [_bb("2", 1)], folder="/s2"),
        },
    )
    df = iaf.read_darwin(tmp_path)
    assert set(df["annotator"]) == {"ana@x"}  # the recorded annotator, not s1 and s2


def test_darwin_annotations_on_another_slot_are_counted_not_merged(tmp_path):
    slots = [
        {"slot_name": "0", "width": 100, "height": 80},
        {"slot_name": "1", "width": 1000, "height": 800},
    ]
    p = tmp_path / "a.json"
    p.write_text(_darwin("a.jpg", [_bb("1", 1), _bb("2", 500, slot="1")], slots=slots))
    with pytest.warns(DroppedRowsWarning, match="other_slot: 1"):
        df = iaf.read_darwin(p)
    assert df["object_id"].tolist() == ["1"]


# ------------------------------------------------------------ Supervisely point clouds
def _sly(tmp_path, figures):
    p = tmp_path / "scene.pcd.json"
    objects = [{"key": "o1", "classTitle": "car"}]
    p.write_text(json.dumps({"objects": objects, "figures": figures}))
    return p


def _cuboid(key, x=1.0, yaw=0.3, who="ana"):
    geometry = {
        "position": {"x": x, "y": 2, "z": 0.5},
        "rotation": {"x": 0, "y": 0, "z": yaw},
        "dimensions": {"x": 4, "y": 1.8, "z": 1.5},
    }
    return {"key": key, "objectKey": "o1", "geometryType": "cuboid_3d", "labelerLogin": who,
            "geometry": geometry}  # fmt: skip


@pytest.mark.parametrize(("x", "yaw"), [("1.5", 0.3), (1.0, True)])
def test_supervisely_strings_and_booleans_are_no_coordinates(tmp_path, x, yaw):
    p = _sly(tmp_path, [_cuboid("f1", x=x, yaw=yaw)])
    with pytest.raises(ReaderError, match=r"figures\[0\]: geometry\.(position\.x|rotation\.z)"):
        iaf.read_supervisely_pointcloud(p)


def test_supervisely_one_object_drawn_twice_by_one_annotator_is_refused(tmp_path):
    p = _sly(tmp_path, [_cuboid("f1"), _cuboid("f2", x=30.0), _cuboid("f3", who="bob")])
    with pytest.raises(ReaderError, match=r"figures\[1\]: the object 'o1' of 'ana' .*figures\[0\]"):
        iaf.read_supervisely_pointcloud(p)
    with pytest.warns(DroppedRowsWarning, match="unreadable_entry: 1"):
        df = iaf.read_supervisely_pointcloud(p, on_invalid="drop")
    assert sorted(zip(df["annotator"], df["cuboid_x"])) == [("ana", 1.0), ("bob", 1.0)]


# ------------------------------------------------------------------ supervision
BOXES = [[10.0, 10, 50, 40], [60, 10, 90, 40]]


@pytest.mark.parametrize("names", [None, ["car", "bus", "truck"]])
@pytest.mark.parametrize("bad", [1.7, float("nan")])
def test_supervision_class_ids_that_are_no_integers_are_refused(names, bad):
    sv = pytest.importorskip("supervision")
    det = sv.Detections(xyxy=np.array(BOXES), class_id=np.array([0.0, bad]))
    with pytest.raises(iaf.errors.InvalidAnnotationError, match=r"\]\[1\]: the class_id is not"):
        iaf.from_supervision({("i", "a"): det}, class_names=names)
    with pytest.warns(DroppedRowsWarning, match="bad_class_id: 1"):
        df = iaf.from_supervision({("i", "a"): det}, class_names=names, on_invalid="drop")
    assert df["label"].tolist() == ["0" if names is None else "car"]


def test_supervision_probability_masks_are_refused():
    sv = pytest.importorskip("supervision")
    mask = np.full((2, 100, 100), 0.2, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # supervision's own deprecation of float masks
        det = sv.Detections(xyxy=np.array(BOXES), class_id=np.array([0, 0]), mask=mask)
    with pytest.raises(iaf.errors.ParameterError, match="mask holds values other than 0 and 1"):
        iaf.from_supervision({("i", "a"): det})


def test_supervision_item_given_as_number_and_text_gets_no_false_coverage_row():
    sv = pytest.importorskip("supervision")
    det = sv.Detections(xyxy=np.array(BOXES[:1]), class_id=np.array([0]))
    with pytest.warns(iaf.errors.IAAWarning, match="mixes text and numbers"):
        df = iaf.from_supervision({(1, "a"): det, ("1", "b"): det})
    assert df["label"].notna().all() and len(df) == 2


# ------------------------------------------------- FiftyOne, on sample-like objects
def _sample(path, **fields):
    return SimpleNamespace(filepath=path, metadata=SimpleNamespace(width=200, height=100), **fields)


def _det(box, **kw):
    return SimpleNamespace(label="car", bounding_box=box, id=None, **kw)


def _dets(*dets):
    return SimpleNamespace(detections=list(dets))


def _line(points):
    return SimpleNamespace(label="r", points=[points], closed=True, filled=False, id=None)


@pytest.mark.parametrize(
    "field",
    [
        _dets(_det([10, 20, 50, 50])),  # pixels where fractions belong
        SimpleNamespace(polylines=[_line([(10, 10), (50, 10), (50, 60)])]),
    ],
)
def test_fiftyone_pixels_written_as_relative_coordinates_are_refused(field):
    samples = [_sample("/a.jpg", ana=field)]
    with pytest.raises(ReaderError, match=r"sample '/a\.jpg', ana\..*\[0\]: the x coordinate 10"):
        iaf.from_fiftyone(samples, fields=["ana"])
    with pytest.warns(DroppedRowsWarning, match="off_canvas: 1"):
        df = iaf.from_fiftyone(samples, fields=["ana"], on_invalid="drop")
    assert df["label"].isna().all() and df["item"].tolist() == ["/a.jpg"]


@pytest.mark.parametrize(
    ("det", "match"),
    [
        (_det([True, 0.1, 0.2, 0.2]), "bounding_box is"),
        (_det([0.1, 0.1, 0.2, 0.2], confidence="high"), "confidence is 'high'"),
    ],
)
def test_fiftyone_values_that_are_no_numbers_are_reader_errors(det, match):
    with pytest.raises(ReaderError, match=match):
        iaf.from_fiftyone([_sample("/a.jpg", ana=_dets(det))], fields=["ana"])


@pytest.mark.parametrize("item", ["filepath", "filename"])
def test_fiftyone_two_samples_of_one_item_are_refused(item):
    second = "/a.jpg" if item == "filepath" else "/other/a.jpg"
    samples = [
        _sample("/a.jpg", ana=_dets(_det([0.1, 0.1, 0.2, 0.2]))),
        _sample(second, ana=_dets(_det([0.5, 0.5, 0.2, 0.2]))),
    ]
    with pytest.raises(ReaderError, match=r"sample 1 names the item '.*a\.jpg' as sample 0"):
        iaf.from_fiftyone(samples, fields=["ana"], item=item)


def test_fiftyone_field_set_on_no_sample_is_refused():
    samples = [_sample("/a.jpg", ana=_dets(_det([0.1, 0.1, 0.2, 0.2])))]
    with pytest.raises(ReaderError, match=r"'anna' are set on no sample"):
        iaf.from_fiftyone(samples, fields=["ana", "anna"])


# --------------------------------------------------------- Label Studio video tracks
def _kf(frame, x):
    return {"frame": frame, "x": x, "y": 10, "width": 20, "height": 30, "enabled": True}


def _track(rid, x):
    value = {"framesCount": 3, "labels": ["p"], "sequence": [_kf(1, x)]}
    return {"id": rid, "type": "videorectangle", "value": value}


def _video_tasks(tmp_path, *tasks):
    out = [
        {"id": t, "data": {"video": video}, "annotations": [{"completed_by": 3, "result": res}]}
        for t, (video, res) in enumerate(tasks, 1)
    ]
    p = tmp_path / "video.json"
    p.write_text(json.dumps(out))
    return p


@pytest.mark.parametrize(
    ("tasks", "match"),
    [
        ((("/1/v.mp4", [_track("r1", 0)]), ("/2/v.mp4", [_track("r2", 50)])), "'3' has an annot"),
        ((("/v.mp4", [_track("r1", 0), _track("r1", 50)]),), r"result\[1\]: the track 'r1'"),
        ((("/v.mp4", [_track("r1", 500)]),), r"sequence\[0\]: the x coordinate 500 .*percent"),
    ],
)
def test_labelstudio_video_work_read_twice_or_off_the_video_is_refused(tmp_path, tasks, match):
    with pytest.raises(ReaderError, match=match):
        iaf.read_labelstudio_video(_video_tasks(tmp_path, *tasks))


def test_labelstudio_video_reports_drops_in_the_frames_attrs(tmp_path):
    p = _video_tasks(tmp_path, ("/v.mp4", [_track("r1", 0), {"id": "c", "type": "choices"}]))
    with pytest.warns(DroppedRowsWarning):
        df = iaf.read_labelstudio_video(p)
    assert df.attrs["iaa_reader_dropped"] == {"unsupported_result": 1}


# ------------------------------------------------- read_table, a column of JSON boxes
def test_table_of_boxes_with_two_rows_of_one_item_and_annotator_is_refused(tmp_path):
    p = tmp_path / "hits.csv"
    p.write_text(
        "item,annotator,label,boxes\n"
        'a.jpg,w1,car,"[[0,0,4,2]]"\na.jpg,w2,car,[]\na.jpg,w1,car,"[[10,10,14,12]]"\n'
    )
    with pytest.raises(ReaderError, match=r"row 3, column 'boxes': .*'w1' .*\(row 1\)"):
        iaf.read_table(p, boxes="boxes")
    with pytest.warns(DroppedRowsWarning, match="read_twice: 1"):
        df = iaf.read_table(p, boxes="boxes", on_invalid="drop")
    assert df.loc[df["annotator"] == "w1", "x0"].tolist() == [0.0]


def _skeleton_task(rect_value):
    """A Label Studio task: a person rectangle (``rect_value``) and two joints on it."""
    size = {"original_width": 200, "original_height": 100}
    rect = {
        "id": "p1",
        "type": "rectanglelabels",
        "from_name": "box",
        "to_name": "img",
        "value": {**rect_value, "rectanglelabels": ["person"]},
        **size,
    }
    joints = [
        {
            "id": f"k{i}",
            "type": "keypointlabels",
            "from_name": "kp",
            "to_name": "img",
            "parentID": "p1",
            "value": {"x": x, "y": 40.0, "keypointlabels": [name]},
            **size,
        }
        for i, (name, x) in enumerate((("nose", 20.0), ("neck", 22.0)))
    ]
    annotation = {"id": 7, "completed_by": 1, "result": [rect, *joints]}
    return [{"id": 1, "data": {"image": "a.png"}, "annotations": [annotation]}]


def test_labelstudio_skeleton_whose_rectangle_is_unreadable_is_not_silent(tmp_path):
    """The joints of a rectangle region form that rectangle's skeleton; an unreadable
    rectangle (its width not a number) was dropped without a word and the joints kept
    without its box. It is a ReaderError naming the rectangle's result, or a counted drop."""
    bad = {"x": 10.0, "y": 20.0, "width": "wide", "height": 30.0}
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(_skeleton_task(bad)))
    with pytest.raises(ReaderError, match=r"result\[0\]"):
        iaf.read_labelstudio(path)
    df = iaf.read_labelstudio(path, on_invalid="drop")
    assert sum(df.attrs["iaa_reader_dropped"].values()) == 1
    good = tmp_path / "ok.json"
    good.write_text(
        json.dumps(_skeleton_task({"x": 10.0, "y": 20.0, "width": 20.0, "height": 30.0}))
    )
    assert iaf.read_labelstudio(good).shape[0] == 1


# --------------------------------------- R5b: a JSON box cell that repeats a key is refused
def test_table_of_boxes_whose_json_box_repeats_a_key_is_refused(tmp_path):
    p = tmp_path / "hits.csv"
    p.write_text(
        "item,annotator,label,boxes\n"
        'a.jpg,w1,car,"[{""x"": 1, ""y"": 2, ""w"": 3, ""h"": 4}]"\n'
        'a.jpg,w2,car,"[{""x"": 1, ""x"": 500, ""y"": 2, ""w"": 3, ""h"": 4}]"\n'
    )
    with pytest.raises(ReaderError, match=r"hits\.csv: row 2, column 'boxes': .*key 'x'"):
        iaf.read_table(p, boxes="boxes")
    with pytest.warns(DroppedRowsWarning, match="repeated_key: 1"):
        df = iaf.read_table(p, boxes="boxes", on_invalid="drop")
    assert df["annotator"].tolist() == ["w1"]
    assert df.attrs["iaa_reader_dropped"] == {"repeated_key": 1}


# ------------------------------ R5b: FiftyOne annotators 3 and "3" are one annotator, "3"
def test_fiftyone_annotators_3_and_text_3_are_one_annotator_named_in_a_warning():
    samples = [
        _sample(
            "/a.jpg",
            gt=_dets(_det([0.1, 0.1, 0.2, 0.2], who=3), _det([0.5, 0.5, 0.2, 0.2], who="3")),
        )
    ]
    with pytest.warns(iaf.IAAWarning, match=r"annotator.* 3 and '3'"):
        df = iaf.from_fiftyone(samples, fields="gt", annotator_attribute="who")
    assert df["annotator"].tolist() == ["3", "3"]
    assert df["object_id"].nunique() == 2
    with pytest.warns(iaf.IAAWarning, match=r"3 and '3'"):
        df = iaf.from_fiftyone(
            [_sample("/a.jpg", gt=_dets())], fields="gt", annotator_attribute="who",
            annotators=[3, "3"],
        )  # fmt: skip
    assert df["annotator"].tolist() == ["3"]
    two = _sample("/a.jpg", f1=_dets(_det([0.1, 0.1, 0.2, 0.2])), f2=_dets())
    with pytest.warns(iaf.IAAWarning, match=r"3 and '3'"):
        df = iaf.from_fiftyone([two], fields={"f1": 3, "f2": "3"})
    assert df["annotator"].tolist() == ["3"]


# ------------------- R5b: V7 Darwin annotations listing several annotators are reported
def test_darwin_annotation_of_several_annotators_reports_the_others(tmp_path):
    people = [{"email": "ana@x.org"}, {"email": "bo@x.org"}, {"full_name": "Cy"}]
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "path": "/", "slots": [{"width": 100, "height": 80}]},
        "annotations": [
            {"id": "u1", "name": "cat", "annotators": people,
             "bounding_box": {"x": 1, "y": 2, "w": 3, "h": 4}},
            {"id": "u2", "name": "cat", "annotators": people[1:2],
             "bounding_box": {"x": 1, "y": 2, "w": 3, "h": 4}},
        ],
    }  # fmt: skip
    p = tmp_path / "a.json"
    p.write_text(json.dumps(doc))
    with pytest.warns(DroppedRowsWarning, match="other_annotator: 2") as rec:
        df = iaf.read_darwin(p)
    assert sorted(df["annotator"]) == ["ana@x.org", "bo@x.org"]  # one row per annotation
    assert df.attrs["iaa_reader_dropped"] == {"other_annotator": 2}
    (w,) = [r.message for r in rec if isinstance(r.message, DroppedRowsWarning)]
    assert w.dropped["annotator"].tolist() == ["bo@x.org", "Cy"]
    assert w.dropped["entry"].str.contains("u1").all()
    assert "ana@x.org" in w.dropped["detail"].iat[0]
