"""Broken and hostile input: every case is a ReaderError that names the file and the entry,
and nothing hangs or crashes."""

import importlib.util
import json
import shutil
import time

import pandas as pd
import pytest
from helpers import FIX

import iaa_frames as iaf
from iaa_frames.errors import IAAError, InvalidAnnotationError, ReaderError
from iaa_frames.io import read_coco, read_cvat, read_darwin, read_labelstudio, read_voc, read_yolo

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
    # an encoding Python does not know (found by a byte-level fuzz run: LookupError)
    p.write_text(text.replace('encoding="utf-8"', 'encoding="uxf-8"', 1), "utf-8")
    with pytest.raises(ReaderError, match=r"broken\.xml: invalid XML: .*unknown encoding"):
        read_cvat(p)
    voc = tmp_path / "voc" / "ana" / "broken.xml"
    voc.parent.mkdir(parents=True)
    voc.write_text('<?xml version="1.0" encoding="uxf-8"?><annotation/>', "utf-8")
    with pytest.raises(ReaderError, match=r"broken\.xml: invalid XML: .*unknown encoding"):
        read_voc(tmp_path / "voc")


def test_errors_are_value_errors():
    # callers that know nothing of iaa_frames can still catch the failure
    assert issubclass(ReaderError, IAAError) and issubclass(ReaderError, ValueError)


# ================================================================== issue #23, round two
# Each case gives the right number, or one ReaderError naming the file, the entry and the
# fix; skipped records are counted (rows in = kept + dropped).

HOSTILE = FIX / "hostile"


def _agreement(df, component):
    import iaa_frames as iaf

    res = iaf.agreement(df, n_boot=0, n_chance=50)
    return float(res["agreement"].sel(component=component, label="(all)", annotator="(all)"))


# ------------------------------------------------------------------ 1. identifiers stay text


def test_table_keeps_identifiers_as_text(tmp_path):
    from iaa_frames.io import read_table

    p = tmp_path / "ids.csv"
    p.write_text(
        "item,annotator,label,object_id,x0,y0,x1,y1\n"
        "01,007,1,01,0,0,10,10\n"
        "1,007,2,1,20,20,30,30\n"
        "01,7,1,a,0,0,10,10\n"
        "1,7,2,b,20,20,30,30\n"
        "2,7,,,,,,\n"
        "NA,7,None,c,0,0,5,5\n"
    )
    df = read_table(p)
    assert df["item"].tolist() == ["01", "1", "01", "1", "2", "NA"]
    assert df["annotator"].tolist() == ["007", "007", "7", "7", "7", "7"]
    assert df["label"].tolist()[:4] == ["1", "2", "1", "2"] and pd.isna(df["label"].iloc[4])
    assert df["label"].iloc[5] == "None"
    assert df["object_id"].tolist()[:2] == ["01", "1"]
    assert df["x0"].dtype == "float64"


def test_integer_labels_with_a_coverage_row_agree_with_themselves(tmp_path):
    # issue #23: "1.0"/"2.0" in one file and "1"/"2" in the other gave classification -0.198
    import iaa_frames as iaf
    from iaa_frames.io import read_table

    df = iaf.simulate(n_items=30, seed=5, kind="box")
    codes = {lab: str(k + 1) for k, lab in enumerate(sorted(df["label"].dropna().unique()))}
    df = df.assign(label=df["label"].map(codes)).drop(columns=["geometry"])
    ann = sorted(df["annotator"].unique())
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    empty = pd.DataFrame([{"item": "nothing here", "annotator": ann[0]}])  # a coverage row
    first = pd.concat([df[df["annotator"] == ann[0]], empty], ignore_index=True)
    rest = df[(df["annotator"] != ann[0]) & df["x0"].notna()]
    first.to_csv(a, index=False)  # a label column with a gap: pandas would read 1.0, 2.0
    rest.to_csv(b, index=False)  # no gap: pandas would read 1, 2
    back = pd.concat([read_table(a), read_table(b)], ignore_index=True)
    assert set(back["label"].dropna()) == set(codes.values())
    expected = pd.concat([first, rest], ignore_index=True)
    want = _agreement(expected.assign(object_id=range(len(expected))), "classification")
    assert _agreement(back.assign(object_id=range(len(back))), "classification") == want


def test_image_sizes_csv_keeps_item_names(tmp_path):
    from iaa_frames.cli.inputs import read_image_sizes

    p = tmp_path / "sizes.csv"
    p.write_text("item,width,height\n01,640,480\n1,800,600\n")
    sizes = read_image_sizes(p)
    assert sizes["item"].tolist() == ["01", "1"]


# ------------------------------------------------------------------ 3. one file name, two images


def _two_images(tmp_path, same_size=False):
    doc = {
        "images": [
            {"id": 1, "file_name": "a.jpg", "width": 640, "height": 480},
            {"id": 2, "file_name": "a.jpg", "width": 640 if same_size else 800, "height": 600},
        ],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]},
            {"id": 2, "image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10]},
        ],
    }
    p = tmp_path / "two.json"
    p.write_text(json.dumps(doc))
    return p


def test_coco_one_file_name_two_image_records_is_refused(tmp_path):
    p = _two_images(tmp_path)
    with pytest.raises(
        ReaderError,
        match=r"two\.json: images\[1\] \(id=2\): .*'a\.jpg'.*images\[0\] \(id=1\).*item_key='id'",
    ):
        read_coco(p)
    with pytest.raises(ReaderError, match="item_key='id'"):
        read_coco(p, on_invalid="drop")  # a wrong key, not a bad entry: never dropped
    df = read_coco(p, item_key="id")
    assert df["item"].tolist() == ["1", "2"] and df["width"].tolist() == [640.0, 800.0]


def test_cvat_one_image_name_two_image_records_is_refused(tmp_path):
    p = tmp_path / "two.xml"
    p.write_text(
        "<annotations><version>1.1</version><meta><task><assignee>ana</assignee></task></meta>"
        '<image id="0" name="a.jpg" width="640" height="480">'
        '<box label="cat" xtl="0" ytl="0" xbr="10" ybr="10"/></image>'
        '<image id="1" name="a.jpg" width="800" height="600">'
        '<box label="cat" xtl="0" ytl="0" xbr="10" ybr="10"/></image>'
        "</annotations>"
    )
    with pytest.raises(
        ReaderError, match=r"two\.xml: image\[1\] \(name='a\.jpg'\): .*image\[0\].*item_key='id'"
    ):
        read_cvat(p)
    df = read_cvat(p, item_key="id")
    assert df["item"].tolist() == ["0", "1"] and df["width"].tolist() == [640.0, 800.0]


# ------------------------------------------------------------------ 9. RLE bomb


def test_rle_bomb_is_refused_quickly_without_decoding(tmp_path):
    pytest.importorskip("pycocotools")
    import tracemalloc

    p = HOSTILE / "rle_bomb.json"
    assert p.stat().st_size < 1000
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(
        ReaderError,
        match=r"rle_bomb\.json: annotations\[0\] \(id=1\): .*60000 x 60000.*"
        r"3,600,000,000 pixels.*max_mask_pixels=100,000,000",
    ):
        read_coco(p)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 1 and peak < 50e6, (elapsed, peak)
    df, dropped = read_coco(p, on_invalid="drop", return_dropped=True)
    # the dropped record names the entry as the error does, with its id
    assert len(df) == 1 and dropped["entry"].tolist() == ["annotations[0] (id=1)"]
    with pytest.raises(ReaderError, match="max_mask_pixels"):
        read_coco(p, max_mask_pixels=10)
    from iaa_frames.errors import ParameterError

    with pytest.raises(ParameterError, match="max_mask_pixels"):
        read_coco(p, max_mask_pixels=0)


# ------------------------------------------------------------------ 10. track past stop_frame


def test_cvat_track_past_stop_frame_reads_the_declared_frames():
    start = time.perf_counter()
    df, dropped = read_cvat(HOSTILE / "track_past_stop.xml", return_dropped=True)
    assert time.perf_counter() - start < 1
    objects = df[df["x0"].notna()]
    assert len(df) == 100 and len(objects) == 100  # frames 0-99, each with track 0's box
    assert objects["item"].tolist() == [f"frame_{k:06d}" for k in range(100)]
    # CVAT's interpolation toward the keyframe at 3,000,000, cut at the last frame, 99
    assert objects["x0"].iloc[99] == pytest.approx(99 * 3_000_000 / 3_000_000)
    assert sorted(dropped["reason"]) == ["frame_out_of_range", "frame_out_of_range"]
    assert "stop_frame" in " ".join(dropped["detail"])


# ------------------------------------------------------------------ 19. skeleton tracks


def test_cvat_skeleton_track_is_read_once():
    # issue #26: the skeleton's shapes are its joints; its nested element tracks repeat
    # them and are not read again (nor counted as skipped)
    df, dropped = read_cvat(HOSTILE / "skeleton_track.xml", return_dropped=True)
    objects = df[df["x0"].notna()]
    assert sorted(zip(objects["label"], objects["item"])) == [
        ("car", "frame_000000"),
        ("hand", "frame_000000"),
        ("hand", "frame_000001"),  # held to the next keyframe, where it is outside
    ]
    hand = objects[objects["label"] == "hand"]
    assert hand["keypoints_hand_thumb_x"].tolist() == [10.0, 10.0]
    assert hand["keypoints_hand_index_v"].tolist() == [2.0, 2.0]
    assert len(dropped) == 0


# ------------------------------------------------------------------ 13. too many extra columns


def test_too_many_distinct_extra_keys_is_refused(tmp_path):
    from iaa_frames.io.builder import MAX_EXTRA_COLUMNS

    anns = [
        {"id": k, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], f"key{k}": 1}
        for k in range(MAX_EXTRA_COLUMNS + 5)
    ]
    doc = {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 1, "name": "c"}]}
    p = tmp_path / "keys.json"
    p.write_text(json.dumps({**doc, "annotations": anns}))
    start = time.perf_counter()
    with pytest.raises(ReaderError, match=rf"keys\.json: annotations\[{MAX_EXTRA_COLUMNS}\]"):
        read_coco(p)
    assert time.perf_counter() - start < 5


def test_long_labels_name_the_entry(tmp_path):
    from iaa_frames.frame.schema import MAX_NAME_CHARS

    doc = {
        "images": [{"id": 1, "file_name": "a.jpg"}],
        "categories": [{"id": 1, "name": "c" * (MAX_NAME_CHARS + 1)}, {"id": 2, "name": "d"}],
        "annotations": [
            {"id": 5, "image_id": 1, "category_id": 2, "bbox": [0, 0, 10, 10]},
            {"id": 6, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]},
        ],
    }
    p = tmp_path / "long.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"long\.json: annotations\[1\] \(id=6\): .*1,000") as e:
        read_coco(p)
    assert len(str(e.value)) < 3000
    df, dropped = read_coco(p, on_invalid="drop", return_dropped=True)
    assert len(df) == 1 and dropped["reason"].tolist() == ["name_too_long"]


def test_item_names_are_bounded_by_a_paths_length(tmp_path):
    """#41 B5: a 100 kB item name made report() take 100 s; an item name longer than a
    Linux path (4,096 characters) is an invalid row naming it, one of 4,096 is kept."""
    from iaa_frames.frame.schema import MAX_ITEM_CHARS

    ok, long = "d/" * (MAX_ITEM_CHARS // 2), "d/" * (MAX_ITEM_CHARS // 2) + "x"
    assert len(ok) == MAX_ITEM_CHARS
    df = pd.DataFrame(
        {"item": [ok, ok, long], "annotator": ["a", "b", "a"], "label": "c",
         "x0": 0.0, "y0": 0.0, "x1": 10.0, "y1": 10.0}
    )  # fmt: skip
    with pytest.raises(InvalidAnnotationError, match=r"(?s)name_too_long: 1.*4,097 chars"):
        iaf.validate(df)
    check = iaf.check(df)
    assert check.dropped["reason"].tolist() == ["name_too_long"]
    assert iaf.validate(df.iloc[:2])["item"].tolist() == [ok, ok]


# ------------------------------------------------------------------ 14. numeric overflow


BIG = "9" * 400  # above 1.8e308
HUGE = "9" * 5000  # above Python's 4,300-digit limit for int()


@pytest.mark.parametrize("digits", [BIG, HUGE], ids=["1e400", "5000_digits"])
@pytest.mark.parametrize(
    "where, entry",
    [
        ('"bbox": [0, 0, {n}, 10]', r"annotations\[0\]"),
        ('"bbox": [0, 0, 10, 10], "segmentation": [[0, 0, {n}, 0, 5, 5]]', r"annotations\[0\]"),
        ('"bbox": [0, 0, 10, 10], "area": {n}', r"annotations\[0\]"),
    ],
)
def test_coco_overflowing_numbers_name_the_entry(tmp_path, digits, where, entry):
    ann = '{"id": 1, "image_id": 1, "category_id": 1, ' + where.format(n=digits) + "}"
    text = (
        '{"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 1, "name": "c"}],'
        f' "annotations": [{ann}]}}'
    )
    p = tmp_path / "big.json"
    p.write_text(text)
    with pytest.raises(ReaderError, match=rf"big\.json: {entry}.*(too large|finite)"):
        read_coco(p)


@pytest.mark.parametrize("digits", [BIG, HUGE], ids=["1e400", "5000_digits"])
def test_coco_overflowing_image_size(tmp_path, digits):
    p = tmp_path / "big.json"
    images = '[{"id": 1, "file_name": "a.jpg", "width": ' + digits + "}]"
    p.write_text(f'{{"images": {images}, "categories": [], "annotations": []}}')
    with pytest.raises(ReaderError, match=r"big\.json: images\[0\]"):
        read_coco(p)


def test_coco_ids_beyond_int64_stay_text(tmp_path):
    big = 10**30
    doc = {
        "images": [{"id": big}],
        "categories": [{"id": big, "name": "c"}],
        "annotations": [{"id": big, "image_id": big, "category_id": big, "bbox": [0, 0, 5, 5]}],
    }
    p = tmp_path / "ids.json"
    p.write_text(json.dumps(doc))
    df = read_coco(p)
    assert df["item"].tolist() == [str(big)] and df["object_id"].tolist() == [str(big)]
    assert df["label"].tolist() == ["c"]


@pytest.mark.parametrize("digits", [BIG, HUGE], ids=["1e400", "5000_digits"])
def test_labelstudio_and_darwin_overflowing_numbers(tmp_path, digits):
    ls = [
        {
            "id": 1,
            "data": {"image": "a.jpg"},
            "annotations": [
                {
                    "id": 1,
                    "completed_by": 1,
                    "result": [
                        {
                            "id": "r",
                            "type": "rectanglelabels",
                            "original_width": 100,
                            "original_height": 100,
                            "value": {
                                "x": 1,
                                "y": 1,
                                "width": 1,
                                "height": 1,
                                "rectanglelabels": ["a"],
                            },
                        }
                    ],
                }
            ],
        }
    ]
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(ls).replace('"width": 1,', f'"width": {digits},'))
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[0\]"):
        read_labelstudio(p)
    p.write_text(json.dumps(ls).replace('"original_width": 100', f'"original_width": {digits}'))
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[0\]"):
        read_labelstudio(p)
    d = tmp_path / "d.json"
    doc = {
        "version": "2.0",
        "item": {"name": "a.jpg", "slots": [{"width": 100, "height": 100}]},
        "annotations": [{"id": "z", "name": "c", "bounding_box": {"x": 1, "y": 1, "w": 7, "h": 1}}],
    }
    d.write_text(json.dumps(doc).replace('"w": 7', f'"w": {digits}'))
    with pytest.raises(ReaderError, match=r"d\.json: .*annotations"):
        read_darwin(d)


def test_csv_overflowing_numbers_are_invalid_rows(tmp_path):
    from iaa_frames.io import read_table

    p = tmp_path / "big.csv"
    p.write_text(
        "item,annotator,label,x0,y0,x1,y1,width,height\n"
        f"a,x,c,0,0,{BIG},10,100,100\n"
        f"a,y,c,0,0,10,10,{HUGE},100\n"
        "a,z,c,0,0,10,10,100,100\n"
    )
    with pytest.raises(IAAError, match=r"nonfinite_coordinates: 1, invalid_image_size: 1"):
        read_table(p)
    with pytest.warns(Warning):
        df = read_table(p, on_invalid="drop")
    assert df["annotator"].tolist() == ["z"]


# ------------------------------------------------------------------ 15. NaN/inf polygons


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_coco_nonfinite_segmentation_names_the_entry(tmp_path, value):
    text = (
        '{"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 1, "name": "c"}],'
        ' "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9]},'
        ' {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9],'
        f' "segmentation": [[0, 0, {value}, 0, 5, 5]]}}]}}'
    )
    p = tmp_path / "nan.json"
    p.write_text(text)
    with pytest.raises(ReaderError, match=r"nan\.json: annotations\[1\] \(id=2\): .*finite"):
        read_coco(p)
    df, dropped = read_coco(p, on_invalid="drop", return_dropped=True)
    assert len(df) == 1 and dropped["entry"].str.startswith("annotations[1]").all()


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_csv_nonfinite_wkt_is_an_invalid_row(tmp_path, value):
    from iaa_frames.io import read_table

    p = tmp_path / "wkt.csv"
    p.write_text(
        "item,annotator,label,geometry\n"
        'a,x,c,"POLYGON ((0 0, 4 0, 4 3, 0 0))"\n'
        f'a,y,c,"POLYGON ((0 0, {value} 0, 4 3, 0 0))"\n'
    )
    with pytest.raises(IAAError, match="nonfinite_coordinates: 1"):
        read_table(p)
    with pytest.warns(Warning):
        df = read_table(p, on_invalid="drop")
    assert df["annotator"].tolist() == ["x"]


# ------------------------------------------------------------------ 16. lone surrogates


@pytest.mark.parametrize("field", ["file_name", "category", "rater"])
def test_coco_lone_surrogate_names_the_entry(tmp_path, field):
    name = {"file_name": "a\\ud800.jpg", "category": "a.jpg", "rater": "a.jpg"}[field]
    cat = "c\\udfff" if field == "category" else "c"
    extra = ', "rater_id": "r\\ud800"' if field == "rater" else ""
    text = (
        f'{{"images": [{{"id": 1, "file_name": "{name}"}}],'
        f' "categories": [{{"id": 1, "name": "{cat}"}}],'
        f' "annotations": [{{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9]{extra}}}]}}'
    )
    p = tmp_path / "sur.json"
    p.write_text(text)
    with pytest.raises(
        ReaderError, match=r"sur\.json: .*(images|categories|annotations)\[0\].*surrogate"
    ):
        read_coco(p)
    df, dropped = read_coco(p, on_invalid="drop", return_dropped=True)
    assert len(df) == 0 and len(dropped) == 1 and "surrogate" in dropped["detail"].iloc[0]


def test_labelstudio_lone_surrogate_names_the_task(tmp_path):
    p = tmp_path / "ls.json"
    p.write_text(
        '[{"id": 1, "data": {"image": "a\\ud800.jpg"}, "annotations": '
        '[{"id": 1, "completed_by": 1, "result": []}]}]'
    )
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[0\].*surrogate"):
        read_labelstudio(p)


def test_to_parquet_with_a_lone_surrogate_is_an_iaa_error(tmp_path):
    pytest.importorskip("pyarrow")
    import iaa_frames as iaf

    df = pd.DataFrame(
        {
            "item": pd.Series(["a\ud800", "b"], dtype=object),
            "annotator": ["x", "y"],
            "label": ["c", "c"],
            "x0": [0, 0],
            "y0": [0, 0],
            "x1": [1, 1],
            "y1": [1, 1],
        }
    )  # pandas itself refuses the text in a str column: only an object column holds it
    with pytest.raises(IAAError, match=r"row 0.*item.*surrogate|item.*row 0.*surrogate"):
        iaf.to_parquet(df, tmp_path / "out")


# ------------------------------------------------------------------ 17. corrupt parquet, missing


@pytest.mark.parametrize("content", [b"", b"not parquet at all", b"PAR1\x00\x00garbagePAR1"])
def test_corrupt_parquet_is_a_reader_error(tmp_path, content):
    pytest.importorskip("pyarrow")
    from iaa_frames.io import read_table

    p = tmp_path / "bad.parquet"
    p.write_bytes(content)
    with pytest.raises(
        ReaderError, match=r"bad\.parquet: (not a readable Parquet|the file is empty)"
    ):
        read_table(p)
    with pytest.raises(ReaderError, match=r"bad\.parquet"):
        read_table(p, fmt="parquet")


@pytest.mark.parametrize(
    "name",
    [
        "nope.csv",
        pytest.param(
            "nope.parquet",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("pyarrow") is None, reason="the parquet extra is missing"
            ),
        ),
    ],
)
def test_missing_table_is_a_reader_error(tmp_path, name):
    from iaa_frames.io import read_table

    with pytest.raises(ReaderError, match=rf"{name.replace('.', '[.]')}: no such file"):
        read_table(tmp_path / name)


# ------------------------------------------------------------------ 8. writers stay in their folder


@pytest.mark.parametrize("writer", ["write_voc", "write_yolo", "write_darwin", "write_coco"])
@pytest.mark.parametrize(
    "column, name", [("item", "../../x"), ("annotator", "../evil"), ("item", "/abs/x")]
)
def test_writers_refuse_names_that_leave_the_folder(tmp_path, writer, column, name):
    from iaa_frames.errors import ParameterError
    from iaa_frames.io import writers

    if writer == "write_coco" and column == "item":
        pytest.skip("write_coco names its files after the annotators only")
    df = pd.DataFrame(
        {
            "item": ["a", "b"],
            "annotator": ["x", "y"],
            "label": ["c", "c"],
            "x0": [0.0, 0.0],
            "y0": [0.0, 0.0],
            "x1": [5.0, 5.0],
            "y1": [5.0, 5.0],
            "width": [10.0, 10.0],
            "height": [10.0, 10.0],
        }
    )
    df.loc[0, column] = name
    target = tmp_path / "deep" / "er" / "out"
    with pytest.raises(ParameterError, match=rf"{column}.*leave"):
        getattr(writers, writer)(df, target)
    written = {p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()}
    assert written == set()


def test_cvat_track_without_a_declared_range_is_bounded(tmp_path):
    from iaa_frames.io.cvat import MAX_UNDECLARED_FRAMES

    text = (HOSTILE / "track_past_stop.xml").read_text()
    a, z = text.index("<meta>"), text.index("</meta>") + len("</meta>")
    p = tmp_path / "nometa.xml"
    p.write_text(text[:a] + "<meta><task><assignee>ana</assignee></task></meta>" + text[z:])
    start = time.perf_counter()
    with pytest.raises(
        ReaderError, match=rf"nometa\.xml: track\[0\] \(id=0\): .*{MAX_UNDECLARED_FRAMES:,}"
    ):
        read_cvat(p)
    df, dropped = read_cvat(p, on_invalid="drop", return_dropped=True)
    assert time.perf_counter() - start < 2
    assert df["track_id"].dropna().tolist() == [1] and len(dropped) == 1
