# Over 400 lines: one review round; each section pins one defect of a reader with its hostile input.
"""Hostile input, round six: each test names the defect it pins and fails before its fix."""

from __future__ import annotations

import json
import shutil
import time

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError

POTATO = iaf.sample_path("potato")


def _write_json(path, doc):
    path.write_text(json.dumps(doc))
    return path


# ------------------------- LS1: a keypoint whose parentID is a list or an object
def _ls_keypoint(parent):
    joint = {
        "id": "k1",
        "type": "keypointlabels",
        "from_name": "kp",
        "to_name": "image",
        "original_width": 200,
        "original_height": 100,
        "parentID": parent,
        "value": {"x": 10, "y": 10, "keypointlabels": ["nose"]},
    }
    ann = {"id": 10, "completed_by": 3, "result": [joint]}
    return [{"id": 1, "data": {"image": "a.jpg"}, "annotations": [ann]}]


@pytest.mark.parametrize("parent", [[1], {"id": "r1"}])
def test_ls1_keypoint_parent_that_is_no_region_id_names_the_result(tmp_path, parent):
    p = _write_json(tmp_path / "ls.json", _ls_keypoint(parent))
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[0\] .*result\[0\]: parentID must be"):
        iaf.read_labelstudio(p)


# ------------------------- PO1: a Potato config whose sections have the wrong shape
def _potato_config(tmp_path, old, new):
    root = tmp_path / "project"
    shutil.copytree(POTATO, root)
    config = root / "config.yaml"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new))
    return config


@pytest.mark.parametrize(
    "old, new, match",
    [
        (
            "        type: boolean",
            "        type: boolean\n    skeletons: [a, b]",
            r"annotation_schemes\[0\]\.skeletons: must be a mapping",
        ),
        (
            "  annotators:\n    - id: detector",
            "  annotators: 5\n  x:\n    - id: detector",
            r"machine_annotators\.annotators: must be a list",
        ),
        (
            "annotation_schemes:\n  - annotation_type",
            "annotation_schemes:\n  x:\n    annotation_type",
            r"annotation_schemes: must be a list",
        ),
        (
            "    name: objects",
            "    name: [objects]",
            r"annotation_schemes\[0\]\.name: must be a non-empty string",
        ),
        (
            "item_properties:\n  id_key: id\n  text_key: image",
            "item_properties: [id, image]",
            r"item_properties: must be a mapping",
        ),
    ],
    ids=["skeletons_list", "annotators_int", "schemes_mapping", "name_list", "properties_list"],
)
def test_po1_potato_config_of_the_wrong_shape_names_the_key(tmp_path, old, new, match):
    config = _potato_config(tmp_path, old, new)
    with pytest.raises(ReaderError, match=r"config\.yaml: " + match):
        iaf.read_potato(config)


# ------------------------- DA1: a Darwin polygon of several scrambled paths
def _scrambled(n, dx, seed):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 100, (n, 2)) + [dx, 0]
    return [{"x": float(x), "y": float(y)} for x, y in xy]


def test_da1_darwin_paths_that_cross_themselves_everywhere_are_refused(tmp_path):
    """A scrambled path of a multi-path polygon was repaired with make_valid in the reader,
    before the tangled_polygon guard of validate: 150 vertices took seconds, 400 minutes."""
    paths = [_scrambled(150, 0, 1), _scrambled(150, 200, 2)]
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "path": "/", "slots": [{"width": 400, "height": 200}]},
        "annotations": [
            {"id": "p1", "name": "car", "annotators": [{"email": "ana@x.org"}],
             "polygon": {"paths": paths}},
        ],
    }  # fmt: skip
    (tmp_path / "ana").mkdir()
    p = _write_json(tmp_path / "ana" / "a.json", doc)
    with pytest.raises(
        ReaderError,
        match=r"a\.json: annotations\[0\] \(id='p1'\): polygon\.paths\[0\]'s outline crosses itself",
    ):
        iaf.read_darwin(p)


def test_da1_darwin_polygon_of_many_paths_reads_in_time_proportional_to_it(tmp_path):
    """The paths were united one at a time, each redoing the growing result: 4,000
    triangles (240 kB) took 36 s, 20,000 minutes; pairwise rounds take well under 1 s."""
    paths = [
        [{"x": x, "y": y}, {"x": x + 5, "y": y}, {"x": x, "y": y + 5}]
        for x, y in ((i % 100 * 10, i // 100 * 10) for i in range(4000))
    ]
    hole = [{"x": 0, "y": 0}, {"x": 2, "y": 0}, {"x": 0, "y": 2}]  # inside the first
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "path": "/", "slots": [{"width": 1000, "height": 1000}]},
        "annotations": [
            {"id": "p1", "name": "car", "annotators": [{"email": "ana@x.org"}],
             "polygon": {"paths": [*paths, hole]}},
        ],
    }  # fmt: skip
    (tmp_path / "ana").mkdir()
    p = _write_json(tmp_path / "ana" / "a.json", doc)
    start = time.perf_counter()
    df = iaf.read_darwin(p)
    assert time.perf_counter() - start < 15
    assert df["geometry"].iloc[0].area == pytest.approx(4000 * 12.5 - 2)


# ------------------------- CO1: COCO attributes whose columns collide
def _coco_doc(**ann):
    return {
        "images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 80}],
        "categories": [{"id": 3, "name": "cat"}],
        "annotations": [
            {"id": 7, "image_id": 1, "category_id": 3, "bbox": [10, 20, 30, 40], **ann}
        ],
    }


@pytest.mark.parametrize(
    "ann",
    [
        {"attr_item": "x", "attributes": {"item": "y"}},
        {"attributes": {"item": "x", "attr_item": "y"}},
        {"attributes": {"attr_item": "x", "item": "y"}},
    ],
    ids=["key_and_attribute", "attribute_and_prefixed", "prefixed_and_attribute"],
)
def test_co1_coco_attributes_never_overwrite_one_another(tmp_path, ann):
    """The attribute ``item`` goes to ``attr_item``: another ``attr_item`` (an annotation
    key or an attribute) silently replaced one of the two values."""
    df = iaf.read_coco(_write_json(tmp_path / "ann.json", _coco_doc(**ann)))
    row = df.iloc[0]
    values = {row[c] for c in df.columns if c.startswith("attr_")}
    assert values == {"x", "y"}


# ------------------------- ID1: object ids 7 and "7" in one file
def test_id1_coco_ids_7_and_text_7_in_one_file_are_one_id(tmp_path):
    """Read alone, the file kept ``7`` and ``"7"`` as two ids (one int, one str); read with
    another file (ids prefixed ``ann/7``) or through CSV, they were one: the duplicate
    depended on how the file was read."""
    doc = _coco_doc()
    doc["annotations"].append({**doc["annotations"][0], "id": "7", "bbox": [50, 20, 30, 40]})
    p = _write_json(tmp_path / "ann.json", doc)
    with pytest.raises(
        ReaderError, match=r"ann\.json: annotations\[1\] \(id=7\): the object_id is not unique"
    ):
        iaf.read_coco(p)


# ------------------------- CO2: an empty rater in a COCO rater_list
def test_co2_coco_rater_list_with_an_empty_name_is_refused(tmp_path):
    """An empty ``rater_id`` was refused, an empty name in ``rater_list`` gave a coverage
    row of the annotator ``""``."""
    doc = _coco_doc(rater_id="ana")
    doc["images"][0]["rater_list"] = ["ana", ""]
    p = _write_json(tmp_path / "ann.json", doc)
    with pytest.raises(
        ReaderError,
        match=r"ann\.json: images\[0\] \(id=1\): rater_list must be a list of rater ids",
    ):
        iaf.read_coco(p)


# ------------------------- JS1: a JSON object that writes one key twice
_ANN = '{"id": 7, "image_id": 1, "category_id": 3, "bbox": [10, 20, 30, 40]'
_HEAD = '{"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 3, "name": "cat"}], '


@pytest.mark.parametrize(
    "text, match",
    [
        (
            _HEAD + '"annotations": [' + _ANN + ', "bbox": [500, 20, 30, 40]}]}',
            r"annotations\[0\]: a JSON object writes the key 'bbox' twice",
        ),
        (
            _HEAD + '"annotations": [' + _ANN + "}], " + '"annotations": [' + _ANN + "}]}",
            r"annotations: the top-level key 'annotations' is written twice",
        ),
    ],
    ids=["in_an_annotation", "at_the_top_level"],
)
def test_js1_coco_repeated_json_keys_are_refused(tmp_path, text, match):
    """``json`` keeps the last of two values of one key, silently (the first box read as
    the second); two top-level ``annotations`` arrays were both streamed, where every JSON
    reader (pycocotools) keeps only the last."""
    p = tmp_path / "ann.json"
    p.write_text(text)
    with pytest.raises(ReaderError, match=r"ann\.json: " + match):
        iaf.read_coco(p)


def test_js1_labelstudio_region_that_repeats_a_key_is_refused(tmp_path):
    task = (
        '[{"id": 1, "data": {"image": "a.jpg"}, "annotations": [{"id": 10, "completed_by": 3, '
        '"result": [{"id": "r1", "type": "rectanglelabels", "original_width": 200, '
        '"original_height": 100, "value": {"x": 10, "x": 60, "y": 20, "width": 25, '
        '"height": 50, "rectanglelabels": ["cat"]}}]}]}]'
    )
    p = tmp_path / "ls.json"
    p.write_text(task)
    with pytest.raises(
        ReaderError,
        match=r"ls\.json: tasks\[0\]: a JSON object writes the key 'x' twice \(10, then 60\)",
    ):
        iaf.read_labelstudio(p)


def test_js1_a_key_written_twice_with_one_value_loses_nothing_and_is_read(tmp_path):
    task = (
        '[{"id": 1, "data": {"image": "a.jpg"}, "annotations": [{"id": 10, "completed_by": 3, '
        '"result": [{"id": "r1", "type": "rectanglelabels", "original_width": 200, '
        '"original_height": 100, "value": {"x": 10, "x": 10, "y": 20, "width": 25, '
        '"height": 50, "rectanglelabels": ["cat"]}}]}]}]'
    )
    p = tmp_path / "ls.json"
    p.write_text(task)
    df = iaf.read_labelstudio(p)
    assert df[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [20.0, 20.0, 70.0, 70.0]


# ------------------------- BL1: an item or an annotator that is a blank name
def test_bl1_activitynet_video_id_that_is_empty_is_refused(tmp_path):
    doc = {"database": {"": {"duration": 10.0, "annotations": [{"segment": [1, 2], "label": "a"}]}}}
    p = _write_json(tmp_path / "anet.json", doc)
    with pytest.raises(
        ReaderError, match=r"anet\.json: database\[''\] annotations\[0\]: the item '' is empty"
    ):
        iaf.read_activitynet(p)


def test_bl1_labelstudio_annotator_of_spaces_is_refused_or_dropped(tmp_path):
    rect = {
        "id": "r1",
        "type": "rectanglelabels",
        "original_width": 200,
        "original_height": 100,
        "value": {"x": 10, "y": 20, "width": 25, "height": 50, "rectanglelabels": ["cat"]},
    }
    anns = [
        {"id": 10, "completed_by": "   ", "result": [rect]},
        {"id": 11, "completed_by": "ana", "result": [rect]},
    ]
    p = _write_json(
        tmp_path / "ls.json", [{"id": 1, "data": {"image": "a.jpg"}, "annotations": anns}]
    )
    with pytest.raises(
        ReaderError,
        match=r"ls\.json: tasks\[0\] .*annotations\[0\] .*: the annotator '   ' is only whitespace",
    ):
        iaf.read_labelstudio(p)
    df, dropped = iaf.read_labelstudio(p, on_invalid="drop", return_dropped=True)
    assert df["annotator"].tolist() == ["ana"]
    assert "only whitespace" in dropped["detail"].iloc[0]


# ------------------------- YO1: a class file that names one class twice
@pytest.mark.parametrize(
    "name, text",
    [("classes.txt", "car\nperson\ncar\n"), ("data.yaml", "names: [car, person, car]\n")],
)
def test_yo1_yolo_class_file_naming_a_class_twice_is_refused(tmp_path, name, text):
    """Classes 0 and 2 both named ``car`` were read as one label: the objects of two
    classes silently agreed with each other."""
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n2 0.5 0.5 0.2 0.2\n")
    (tmp_path / name).write_text(text)
    match = name.replace(".", r"\.") + r": the class name 'car' is given twice \(classes 0 and 2\)"
    with pytest.raises(ReaderError, match=match):
        iaf.read_yolo(tmp_path)


# ------------------------- CSV1: a CSV table whose header and rows disagree
_HEADER = "item,annotator,label,x0,y0,x1,y1\n"


def test_csv1_rows_longer_than_the_header_are_refused(tmp_path):
    """Every row with two values more than the header: pandas took the first two as the
    index and read ``car`` as the item, ``1`` as the annotator, ``2`` as the label."""
    p = tmp_path / "t.csv"
    p.write_text(_HEADER + "a,ana,car,1,2,3,4,5,6\nb,ben,car,1,2,3,4,5,6\n")
    with pytest.raises(
        ReaderError, match=r"t\.csv: line 2: the rows hold 2 value\(s\) more than the header"
    ):
        iaf.read_table(p)


def test_csv1_a_column_named_twice_in_the_header_is_refused(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("item,annotator,label,x0,y0,x1,y1,x0\na,ana,car,1,2,3,4,9\n")
    with pytest.raises(
        ReaderError, match=r"t\.csv: line 1: the header names the column 'x0' twice"
    ):
        iaf.read_table(p)


# ------------------------- VI1: a few keyframes that fill in millions of boxes
def _cvat_tracks(tmp_path, n_tracks, n_frames):
    box = '<box frame="0" xtl="1" ytl="2" xbr="10" ybr="20" outside="0" occluded="0" keyframe="1"/>'
    tracks = "".join(f'<track id="{i}" label="car">{box}</track>' for i in range(n_tracks))
    frames = f"<start_frame>0</start_frame><stop_frame>{n_frames - 1}</stop_frame>"
    meta = f"<job>{frames}<assignee>ana</assignee></job>"
    p = tmp_path / "video.xml"
    p.write_text(f'<?xml version="1.0"?><annotations><meta>{meta}</meta>{tracks}</annotations>')
    return p


def _ls_tracks(tmp_path, n_tracks, n_frames):
    key = {"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5, "enabled": True}
    value = {"framesCount": n_frames, "labels": ["car"], "sequence": [key]}
    results = [{"id": f"t{i}", "type": "videorectangle", "value": value} for i in range(n_tracks)]
    ann = {"id": 1, "completed_by": 1, "result": results}
    return _write_json(
        tmp_path / "video.json", [{"id": 1, "data": {"video": "v.mp4"}, "annotations": [ann]}]
    )


@pytest.mark.parametrize(
    "reader, export, entry",
    [
        (iaf.read_cvat, _cvat_tracks, r"video\.xml: track\[2\] \(id=2\) box\[0\] \(frame=0\)"),
        (iaf.read_labelstudio_video, _ls_tracks, r"video\.json: tasks\[0\] .*result\[2\]"),
    ],
    ids=["cvat", "labelstudio_video"],
)
def test_vi1_boxes_filled_in_between_keyframes_are_bounded(tmp_path, reader, export, entry):
    """One keyframe per track, each held to the last of 1,000 frames: 3 tracks fill in
    2,997 boxes. Without a bound a 3 kB export of 10 tracks and 100,000 frames made
    1,000,000 rows (0.9 GB); 100 tracks ran out of memory."""
    p = export(tmp_path, 3, 1000)
    with pytest.raises(
        ReaderError, match=entry + r": the tracks fill in 2,997 boxes .*max_boxes=2,500"
    ):
        reader(p, max_boxes=2500)
    assert len(reader(p, max_boxes=3000)) == 3000


@pytest.mark.parametrize(
    "reader, export",
    [(iaf.read_cvat, _cvat_tracks), (iaf.read_labelstudio_video, _ls_tracks)],
    ids=["cvat", "labelstudio_video"],
)
def test_vi1_the_default_bound_refuses_before_allocating(tmp_path, reader, export):
    """One keyframe held over 3,000,000 frames: refused before a box is made."""
    p = export(tmp_path, 1, 3_000_000)
    start = time.perf_counter()
    with pytest.raises(ReaderError, match=r"fill in 2,999,999 boxes .*above max_boxes=2,000,000"):
        reader(p, max_frames=3_000_000)
    assert time.perf_counter() - start < 10


# ------------------------- NA1: a blank line between the class names of a names file
def test_na1_yolo_classes_with_a_blank_line_between_names_is_refused(tmp_path):
    """``car``, a blank line, ``person``: darknet numbers the blank line as class 1, the
    reader passed over it and named class 1 ``person``: every object of class 1 got the
    name of class 2."""
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "a.txt").write_text("1 0.5 0.5 0.2 0.2\n")
    (tmp_path / "classes.txt").write_text("car\n\nperson\n\n")
    with pytest.raises(
        ReaderError, match=r"classes\.txt: line 2: a blank line between class names"
    ):
        iaf.read_yolo(tmp_path)


def test_na1_mot_labels_with_a_blank_line_between_names_is_refused(tmp_path):
    (tmp_path / "labels.txt").write_text("Pedestrian\n\nCar\n")
    p = tmp_path / "ana.txt"
    p.write_text("1,1,10,10,20,20,1,3,1\n")
    with pytest.raises(ReaderError, match=r"labels\.txt: line 2: a blank line between class names"):
        iaf.read_mot(p, annotator="ana")


# ------------------------- DA2: a Darwin item.path that is no string
@pytest.mark.parametrize("folder", [["a"], {"a": 1}, 5])
def test_da2_darwin_item_path_that_is_no_string_is_refused(tmp_path, folder):
    """``str()`` of it made the item ``"['a']/a.jpg"``, which no other export names."""
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "path": folder},
        "annotations": [
            {"id": "1", "name": "car", "bounding_box": {"x": 1, "y": 2, "w": 3, "h": 4}}
        ],
    }
    (tmp_path / "ana").mkdir()
    p = _write_json(tmp_path / "ana" / "a.json", doc)
    with pytest.raises(ReaderError, match=r"a\.json: item\.path: must be the item's folder"):
        iaf.read_darwin(p, annotator="ana")
