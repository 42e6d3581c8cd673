"""Broken and hostile input: every case is a ReaderError that names the file and the entry,
and nothing hangs or crashes."""

import json
import shutil
import time

import pytest
from helpers import FIX

from iaa_frames.errors import IAAError, ReaderError
from iaa_frames.io import (
    read_coco,
    read_cvat,
    read_darwin,
    read_labelstudio,
    read_voc,
    read_yolo,
)

FILE_READERS = {
    "coco": read_coco,
    "cvat": read_cvat,
    "labelstudio": read_labelstudio,
    "darwin": read_darwin,
}
DIR_READERS = {"voc": read_voc, "yolo": read_yolo}
ALL_READERS = {**FILE_READERS, **DIR_READERS}

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<{root}><filename>&lol9;</filename></{root}>
"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<{root}><filename>&xxe;</filename></{root}>
"""


# ------------------------------------------------------------------ paths and empty files


@pytest.mark.parametrize("name", sorted(ALL_READERS))
def test_path_that_does_not_exist(tmp_path, name):
    missing = tmp_path / "nope" / "missing.json"
    with pytest.raises(ReaderError, match=r"missing\.json: no such"):
        ALL_READERS[name](missing)


@pytest.mark.parametrize("name", sorted(FILE_READERS))
def test_empty_file(tmp_path, name):
    p = tmp_path / "empty.json"
    p.write_bytes(b"")
    with pytest.raises(ReaderError, match=r"empty\.json: the file is empty"):
        FILE_READERS[name](p)


@pytest.mark.parametrize("name", ["coco", "labelstudio", "darwin"])
def test_whitespace_only_json(tmp_path, name):
    p = tmp_path / "blank.json"
    p.write_text(" \n\t\n")
    with pytest.raises(ReaderError, match=r"blank\.json: the file is empty"):
        FILE_READERS[name](p)


def test_empty_voc_file(tmp_path):
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "a.xml").write_bytes(b"")
    with pytest.raises(ReaderError, match=r"a\.xml: the file is empty"):
        read_voc(tmp_path)


def test_a_directory_where_a_file_is_expected(tmp_path):
    with pytest.raises(ReaderError, match="is a directory"):
        read_coco(tmp_path)


# ------------------------------------------------------------------ truncated and malformed JSON


def test_truncated_coco_names_the_annotation(tmp_path):
    text = (FIX / "coco" / "ana.json").read_text()
    cut = text.index('"id": 102')  # inside annotations[1]
    p = tmp_path / "cut.json"
    p.write_text(text[: cut + 20])
    with pytest.raises(ReaderError, match=r"cut\.json: annotations\[1\]: truncated JSON"):
        read_coco(p)


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
def test_truncated_anywhere_is_a_reader_error(tmp_path, fraction):
    for name, src in (
        ("coco", FIX / "coco" / "ana.json"),
        ("labelstudio", FIX / "labelstudio" / "export.json"),
        ("darwin", FIX / "darwin" / "ana" / "park_01.json"),
    ):
        text = src.read_text()
        p = tmp_path / f"{name}.json"
        p.write_text(text[: int(len(text) * fraction)])
        with pytest.raises(ReaderError, match=rf"{name}\.json"):
            FILE_READERS[name](p)


def test_truncated_labelstudio_names_the_task(tmp_path):
    text = (FIX / "labelstudio" / "export.json").read_text()
    p = tmp_path / "ls.json"
    p.write_text(text[: text.index("empty_lot")])
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[1\]: truncated JSON"):
        read_labelstudio(p)


def test_syntax_error_gives_line_and_column(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(
        '{"images": [\n  {"id": 1, "file_name": "a.jpg"},\n  {"id": 2 "file_name": "b.jpg"}\n]}'
    )
    with pytest.raises(
        ReaderError, match=r"bad\.json: images\[1\]: invalid JSON at line 3, column 12"
    ):
        read_coco(p)


def test_extra_data_after_document(tmp_path):
    p = tmp_path / "two.json"
    p.write_text('{"images": [{"id": 1, "file_name": "a.jpg"}]} {"more": 1}')
    with pytest.raises(ReaderError, match="extra data"):
        read_coco(p)


def test_not_json_at_all(tmp_path):
    p = tmp_path / "job.json"
    shutil.copy(FIX / "cvat" / "job_12.xml", p)
    with pytest.raises(ReaderError, match=r"job\.json: not a JSON object or array"):
        read_coco(p)


def test_not_utf8(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes('[{"id": 1, "data": {"image": "caf\u00e9.jpg"}}]'.encode("latin-1"))
    with pytest.raises(ReaderError, match=r"latin1\.json: not UTF-8"):
        read_labelstudio(p)


def test_deeply_nested_json_does_not_crash(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text('{"images": [], "annotations": [' + "[" * 200_000 + "]" * 200_000 + "]}")
    with pytest.raises(ReaderError, match=r"deep\.json: annotations\[0\]"):
        read_coco(p)


def test_nan_coordinates_name_the_entry(tmp_path):
    doc = (
        (FIX / "coco" / "ana.json")
        .read_text()
        .replace("[100.5, 200.0, 50.0, 25.5]", "[NaN, 200.0, 50.0, 25.5]")
    )
    p = tmp_path / "nan.json"
    p.write_text(doc)
    with pytest.raises(
        ReaderError, match=r"nan\.json: annotations\[0\] \(id=101\): .*NaN or infinite"
    ):
        read_coco(p)


# ------------------------------------------------------------------ wrong types, missing keys


def _coco(tmp_path, edit):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    edit(doc)
    p = tmp_path / "edited.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda d: d["annotations"][0].update(bbox="100,200,50,25"),
            r"annotations\[0\] \(id=101\): bbox must be a list",
        ),
        (
            lambda d: d["annotations"][0].update(bbox=[1, 2, "3", 4]),
            r"annotations\[0\] \(id=101\): bbox must hold 4 numbers",
        ),
        (
            lambda d: d["annotations"][1].update(category_id=[1]),
            r"annotations\[1\] \(id=102\): category_id must be",
        ),
        (
            lambda d: d["annotations"][1].update(segmentation=[[1, 2, 3]]),
            r"annotations\[1\] \(id=102\): segmentation\[0\] has an odd number",
        ),
        (
            lambda d: d["annotations"][1].update(segmentation="poly"),
            r"annotations\[1\] \(id=102\): segmentation must be",
        ),
        (
            lambda d: d["annotations"][2].update(iscrowd="no"),
            r"annotations\[2\] \(id=103\): iscrowd must be 0 or 1",
        ),
        (
            lambda d: d["annotations"].append(7),
            r"annotations\[3\]: an annotation must be a JSON object",
        ),
        (lambda d: d.update(images={"id": 1}), r"images: 'images' must be a list"),
        (
            lambda d: d["images"][1].update(width="800px"),
            r"images\[1\] \(id=2\): width must be a number",
        ),
        (lambda d: d["images"][1].pop("id"), r"images\[1\]: missing key 'id'"),
        (lambda d: d["categories"][0].pop("name"), r"categories\[0\]: missing key 'name'"),
        (
            lambda d: d["annotations"][0].pop("image_id"),
            r"annotations\[0\] \(id=101\): missing key 'image_id'",
        ),
        (
            lambda d: d["annotations"][0].update(image_id=99),
            r"annotations\[0\] \(id=101\): image_id 99 is not in 'images'",
        ),
        (
            lambda d: d["annotations"][2].update(category_id=9),
            r"annotations\[2\] \(id=103\): category_id 9 is not defined in 'categories'",
        ),
        (lambda d: d.pop("categories"), r"edited\.json: no 'categories'"),
        (
            lambda d: [d["annotations"][0].pop(k) for k in ("bbox", "segmentation")],
            r"annotations\[0\] \(id=101\): has neither bbox nor segmentation",
        ),
    ],
)
def test_coco_wrong_types_and_missing_keys(tmp_path, edit, message):
    with pytest.raises(
        ReaderError,
        match=r"edited\.json: " + message if not message.startswith("edited") else message,
    ):
        read_coco(_coco(tmp_path, edit))


@pytest.mark.parametrize(
    "doc",
    [
        {},
        {"info": {"year": 2024}},
        {"images": [], "annotations": []},
        {"images": []},
        {"annotations": [], "categories": []},
    ],
)
def test_coco_export_with_neither_images_nor_annotations(tmp_path, doc):
    p = tmp_path / "nothing.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError, match=r"nothing\.json: .*(neither|no images and no annotations)"
    ):
        read_coco(p)


def test_labelstudio_wrong_types(tmp_path):
    p = tmp_path / "ls.json"
    for tasks, message in [
        (["not a task"], r"tasks\[0\]: a task must be a JSON object"),
        (
            [{"id": 3, "data": {"image": "a.jpg"}, "annotations": {"id": 1}}],
            r"tasks\[0\] \(id=3\): 'annotations' must be a list",
        ),
        (
            [
                {
                    "id": 3,
                    "data": {"image": "a.jpg"},
                    "annotations": [{"id": 1, "completed_by": 1, "result": {}}],
                }
            ],
            r"tasks\[0\] \(id=3\) annotations\[0\] \(id=1\): 'result' must be a list",
        ),
        (
            [
                {
                    "id": 3,
                    "data": {"image": "a.jpg"},
                    "annotations": [
                        {
                            "id": 1,
                            "completed_by": 1,
                            "result": [
                                {
                                    "id": "r",
                                    "type": "polygonlabels",
                                    "value": {"points": [[1, 2], [3]], "polygonlabels": ["a"]},
                                }
                            ],
                        }
                    ],
                }
            ],
            r"tasks\[0\] \(id=3\) annotations\[0\] \(id=1\) result\[0\]: value\.points holds \[3\]",
        ),
        ([{"id": 3, "data": {}, "annotations": []}], r"tasks\[0\] \(id=3\): cannot tell which key"),
    ]:
        p.write_text(json.dumps(tasks))
        with pytest.raises(ReaderError, match=r"ls\.json: " + message):
            read_labelstudio(p)


def test_darwin_wrong_types(tmp_path):
    p = tmp_path / "d.json"
    for doc, message in [
        ([1, 2], "not Darwin JSON"),
        (
            {"version": "2.0", "item": {"name": "a.jpg"}, "annotations": {"x": 1}},
            r"annotations: must be a list",
        ),
        (
            {"version": "2.0", "item": {"name": "a.jpg", "slots": [{"width": "wide"}]}},
            r"item\.slots\[0\]: width must be a number",
        ),
        (
            {
                "version": "2.0",
                "item": {"name": "a.jpg"},
                "annotations": [
                    {"id": "z", "name": "c", "bounding_box": {"x": 1, "y": 1, "w": None, "h": 1}}
                ],
            },
            r"annotations\[0\] \(id='z'\): bounding_box\.w must be a number",
        ),
    ]:
        p.write_text(json.dumps(doc))
        with pytest.raises(ReaderError, match=r"d\.json: " + message):
            read_darwin(p)


# ------------------------------------------------------------------ hostile XML


@pytest.mark.parametrize("payload", [BILLION_LAUGHS, XXE], ids=["billion_laughs", "xxe"])
@pytest.mark.parametrize("fmt", ["cvat", "voc"])
def test_xml_entities_are_refused_quickly(tmp_path, payload, fmt):
    start = time.perf_counter()
    if fmt == "cvat":
        p = tmp_path / "evil.xml"
        p.write_text(payload.format(root="annotations"))
        with pytest.raises(ReaderError, match=r"evil\.xml: unsafe XML refused.*Entit"):
            read_cvat(p)
    else:
        (tmp_path / "ana").mkdir()
        p = tmp_path / "ana" / "evil.xml"
        p.write_text(payload.format(root="annotation"))
        with pytest.raises(ReaderError, match=r"evil\.xml: unsafe XML refused.*Entit"):
            read_voc(tmp_path)
    assert time.perf_counter() - start < 5


def test_malformed_xml(tmp_path):
    p = tmp_path / "broken.xml"
    text = (FIX / "cvat" / "job_12.xml").read_text()
    p.write_text(text[: len(text) // 2])
    with pytest.raises(ReaderError, match=r"broken\.xml: (truncated|invalid) .*XML at line \d+"):
        read_cvat(p)
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    with pytest.raises(ReaderError, match=r"broken\.xml: invalid XML"):
        read_cvat(p)


def test_errors_are_value_errors():
    # callers that know nothing of iaa_frames can still catch the failure
    assert issubclass(ReaderError, IAAError) and issubclass(ReaderError, ValueError)
