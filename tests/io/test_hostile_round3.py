"""Hostile and unusual input, round three (issue #41): each test names the defect it pins
(S1, S2, ... of the issue) and fails before its fix."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import FIX

import iaa_frames as iaf
from iaa_frames.errors import IAAError, ReaderError

COCO = FIX / "coco" / "ana.json"
LS = FIX / "labelstudio" / "export.json"


def _coco_doc():
    return json.loads(COCO.read_text())


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


# ----------------------------------------------- S1: attributes never replace a frame column


@pytest.mark.parametrize("key", ["width", "height", "label", "annotator", "item", "x0"])
def test_s1_coco_annotation_key_named_like_a_column_keeps_the_column(tmp_path, key):
    doc = _coco_doc()
    doc["annotations"][0][key] = 999 if key != "annotator" else "mallory"
    p = _write(tmp_path / "a.json", doc)
    other = _write(tmp_path / "b.json", _coco_doc())
    df = iaf.read_coco({"ana": p, "ben": other})
    clean = iaf.read_coco({"ana": COCO, "ben": COCO})
    for col in ("item", "annotator", "label", "x0", "width", "height"):
        assert df[col].equals(clean[col]), col
    assert set(df["annotator"]) == {"ana", "ben"}
    assert f"attr_{key}" in df.columns
    assert df[f"attr_{key}"].notna().sum() == 1


def test_s1_labelstudio_region_result_named_like_a_column(tmp_path):
    tasks = json.loads(LS.read_text())
    region = tasks[0]["annotations"][0]["result"][1]  # a per-region choice of region r1
    region["from_name"] = "width"
    clean = iaf.read_labelstudio(LS, on_invalid="drop")
    p = _write(tmp_path / "ls.json", tasks)
    df = iaf.read_labelstudio(p, on_invalid="drop")
    assert df["width"].equals(clean["width"])
    assert "attr_width" in df.columns and "attr_width" in df.attrs["iaa_attributes"]
    assert "width" not in df.attrs["iaa_attributes"]
    region["from_name"] = "label"
    df = iaf.read_labelstudio(_write(tmp_path / "ls2.json", tasks), on_invalid="drop")
    assert df["label"].equals(clean["label"])


def test_s1_builder_renames_reserved_extras():
    from iaa_frames.io.builder import FrameBuilder, finish

    b = FrameBuilder("example")
    f = b.add_file("x.json")
    b.attributes["label"] = None
    b.add_box(
        "a",
        "ana",
        "cat",
        0,
        0,
        2,
        2,
        file_idx=f,
        entry=0,
        extras={"label": "dog", "pt_x": 1.0, "pt_y": 1.0, "attr_label": 3},
    )
    df = finish(b)
    assert df["label"].tolist() == ["cat"]
    assert df["x1"].tolist() == [2.0]  # pt_x/pt_y did not make the box a point
    assert {"attr_label", "attr_attr_label", "attr_pt_x"} <= set(df.columns)


# ------------------------------------- S7, T7: one identifier policy, containers refused


def _frame(**cols):
    base = {
        "item": ["a", "b"],
        "annotator": ["x", "y"],
        "label": ["c", "c"],
        "x0": [0, 0],
        "y0": [0, 0],
        "x1": [1, 1],
        "y1": [1, 1],
    }
    return pd.DataFrame({**base, **cols})


def test_s7_item_0_and_text_0_are_one_item():
    with pytest.warns(iaf.errors.IAAWarning, match="'0'"):
        out = iaf.validate(_frame(item=[0, "0"]))
    assert out["item"].tolist() == ["0", "0"]


def test_s7_labels_1_and_1_0_are_one_class():
    out = iaf.validate(_frame(label=[1, 1.0]))
    assert out["label"].tolist() == ["1", "1"]
    floats = iaf.validate(_frame(label=[1.0, 2.5]))  # a float column, as read_csv gives
    assert floats["label"].tolist() == ["1", "2.5"]


def test_s7_numeric_items_keep_their_order_mixed_ones_become_text():
    assert iaf.validate(_frame(item=[10, 2]))["item"].tolist() == [10, 2]
    with pytest.warns(iaf.errors.IAAWarning, match="'1'"):
        out = iaf.validate(_frame(item=[1, "1"]))
    assert out["item"].tolist() == ["1", "1"]
    assert iaf.validate(_frame(item=[1, "b"]))["item"].tolist() == ["1", "b"]


@pytest.mark.parametrize("column", ["item", "annotator", "label"])
@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, (1, 2), b"x"])
def test_t7_a_container_identifier_is_a_schema_error(column, value):
    df = _frame(**{column: [value, "v"]})
    with pytest.raises(iaf.errors.SchemaError, match=rf"row 0 \({column} "):
        iaf.validate(df)


# ----------------------------------------------- S3: a compressed RLE shorter than its mask


@pytest.mark.parametrize("counts", ["52", "0" * 3 + "1", "a?", "\u00e9"])
def test_s3_short_or_malformed_compressed_rle_is_refused(tmp_path, counts):
    pytest.importorskip("pycocotools")
    doc = _coco_doc()
    doc["annotations"][0]["segmentation"] = {"size": [480, 640], "counts": counts}
    p = _write(tmp_path / "rle.json", doc)
    with pytest.raises(ReaderError, match=r"annotations\[0\].*segmentation.counts"):
        iaf.read_coco(p)


def test_s3_a_full_compressed_rle_is_read():
    from pycocotools import mask as mask_utils

    m = np.zeros((6, 5), np.uint8, order="F")
    m[1:4, 2:4] = 1
    counts = mask_utils.encode(m)["counts"].decode()
    from iaa_frames.io.masks import rle_geometry

    geom = rle_geometry("x.json", "a", {"size": [6, 5], "counts": counts})
    assert geom.area == 6 and geom.bounds == (2.0, 1.0, 4.0, 4.0)


# ------------------------------------------------------------------ YOLO: S2, S6, S10, I2


def _yolo(root, name, files, classes=None):
    d = root / name
    d.mkdir(parents=True)
    for stem, text in files.items():
        (d / f"{stem}.txt").write_text(text)
    if classes is not None:
        (d / "classes.txt").write_text("\n".join(classes) + "\n")
    return d


def test_s2_each_annotator_keeps_its_own_classes_file(tmp_path):
    _yolo(tmp_path, "ana", {"a": "0 0.5 0.5 0.2 0.2\n"}, ["cat", "dog"])
    _yolo(tmp_path, "ben", {"a": "1 0.5 0.5 0.2 0.2\n"}, ["dog", "cat"])
    df = iaf.read_yolo(tmp_path)
    assert df.set_index("annotator")["label"].to_dict() == {"ana": "cat", "ben": "cat"}


def test_s2_an_annotator_without_classes_beside_one_with_is_refused(tmp_path):
    _yolo(tmp_path, "ana", {"a": "0 0.5 0.5 0.2 0.2\n"}, ["cat"])
    _yolo(tmp_path, "ben", {"a": "0 0.5 0.5 0.2 0.2\n"})
    with pytest.raises(ReaderError, match="'ben' has no class file"):
        iaf.read_yolo(tmp_path)


def test_s6_tracker_lines_are_boxes_with_a_track_id(tmp_path):
    _yolo(tmp_path, "ana", {"a": "0 0.5 0.5 0.2 0.2 0.9 7\n0 0.2 0.2 0.1 0.1 0.8 1\n"})
    df = iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"])
    assert df["geometry"].isna().all()
    assert df["track_id"].tolist() == [7, 1] and df["score"].tolist() == [0.9, 0.8]
    np.testing.assert_allclose(df[["x0", "x1"]].to_numpy()[0], [0.4, 0.6])


def test_s6_a_triangle_stays_a_triangle(tmp_path):
    _yolo(tmp_path, "ana", {"a": "0 0.1 0.1 0.5 0.1 0.3 0.6\n"})
    df = iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"])
    assert df["geometry"].iloc[0].geom_type == "Polygon"


def test_s6_six_values_among_scored_segments_are_refused(tmp_path):
    _yolo(tmp_path, "ana", {"a": "0 0.1 0.1 0.5 0.1 0.3 0.6 0.9\n0 0.1 0.1 0.5 0.1 0.7\n"})
    with pytest.raises(ReaderError, match=r"a\.txt: line 2: 6 values in a file of segment"):
        iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"])
    df = iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"], on_invalid="drop")
    assert df["score"].tolist() == [0.9]  # the segment with its score


@pytest.mark.parametrize("line", ["0 1.5 0.5 0.2 0.2", "0 0.5 0.5 0.2 -0.2", "0 0 0 2 0 0 3"])
def test_s10_coordinates_outside_the_unit_square_are_refused(tmp_path, line):
    _yolo(tmp_path, "ana", {"a": line + "\n"})
    with pytest.raises(ReaderError, match=r"line 1: the coordinate .* outside \[0, 1\]"):
        iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"])


@pytest.mark.parametrize("token", ["0_2", "1_0", "\u0661", "\uff10.5"])
def test_s17_yolo_numbers_are_plain_ascii(tmp_path, token):
    _yolo(tmp_path, "ana", {"a": f"0 0.5 {token} 0.2 0.2\n"})
    with pytest.raises(ReaderError, match="non-numeric"):
        iaf.read_yolo(tmp_path / "ana", annotator="ana", classes=["cat"])


@pytest.mark.parametrize("entry", ["../../secret.jpg", "ABS"])
def test_i2_darknet_list_entries_stay_inside_the_export(tmp_path, entry):
    secret = tmp_path / "secret.txt"
    secret.write_text("0 0.5 0.5 0.2 0.2\n")
    (tmp_path / "secret.jpg").write_bytes(b"")
    d = tmp_path / "exp" / "ana"
    (d / "obj_train_data").mkdir(parents=True)
    (d / "obj_train_data" / "x.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (d / "obj.names").write_text("cat\n")
    name = str(tmp_path / "secret.jpg") if entry == "ABS" else entry
    (d / "train.txt").write_text(f"data/obj_train_data/x.jpg\n{name}\n")
    (d / "obj.data").write_text("train = data/train.txt\nnames = data/obj.names\n")
    with pytest.raises(ReaderError, match="no label file 'secret.txt'"):
        iaf.read_yolo(d, annotator="ana")


# ----------------------------------------------- S4, S5: the same work read twice is named


def test_s4_two_voc_files_naming_one_image_are_refused(tmp_path):
    d = tmp_path / "voc" / "ana"
    d.mkdir(parents=True)
    src = FIX / "voc" / "ana" / "000005.xml"
    (d / "000005.xml").write_bytes(src.read_bytes())
    (d / "copy_of_000005.xml").write_bytes(src.read_bytes())
    with pytest.raises(ReaderError, match=r"'ana' on the item '000005.jpg'.*read twice"):
        iaf.read_voc(tmp_path / "voc")


def test_s4_one_file_given_twice_to_a_reader_is_refused():
    with pytest.raises(ReaderError, match="the same file given twice"):
        iaf.read_cvat([FIX / "cvat" / "job_12.xml", FIX / "cvat" / "job_12.xml"])


def test_s5_two_unassigned_cvat_exports_are_not_one_annotator(tmp_path):
    text = (FIX / "cvat" / "job_12.xml").read_text()
    start, stop = text.index("<assignee>"), text.index("</assignee>") + len("</assignee>")
    text = text[:start] + text[stop:]
    start, stop = text.index("<owner>"), text.index("</owner>") + len("</owner>")
    text = text[:start] + text[stop:]
    paths = []
    for who in ("ana", "ben"):
        (tmp_path / who).mkdir()
        p = tmp_path / who / "annotations.xml"  # CVAT's download name
        p.write_text(text)
        paths.append(p)
    with (
        pytest.warns(iaf.errors.AnnotatorNameWarning),
        pytest.raises(ReaderError, match="'annotations'.*read twice.*annotator="),
    ):
        iaf.read_cvat(paths)
    df = iaf.read_cvat({"ana": paths[0], "ben": paths[1]})  # named: two annotators
    assert set(df["annotator"]) == {"ana", "ben"}


def test_s4_one_labelstudio_user_annotating_a_task_twice(tmp_path):
    tasks = json.loads(LS.read_text())
    ann = tasks[0]["annotations"]
    again = json.loads(json.dumps(ann[1]))
    again["id"] = 1999
    ann.append(again)  # user 11 annotated task 1 twice
    p = _write(tmp_path / "ls.json", tasks)
    with pytest.raises(ReaderError, match=r"annotations\[3\] \(id=1999\).*'11'.*already"):
        iaf.read_labelstudio(p)
    df = iaf.read_labelstudio(p, on_invalid="drop")
    assert not df["object_id"].astype(str).str.startswith("1999/").any()
    assert len(df) == len(iaf.read_labelstudio(LS, on_invalid="drop"))


# ------------------------------------------------------- T9: a path that is no path


@pytest.mark.parametrize(
    "reader",
    ["read_coco", "read_cvat", "read_table", "read_kitti", "read_supervisely_pointcloud"],
)
@pytest.mark.parametrize("arg", [42, None, 3.5, b"x.json", [42], {"ana": 42}])
def test_t9_a_path_that_is_no_path_is_a_clear_error(reader, arg):
    import iaa_frames.io as io

    with pytest.raises(IAAError, match="expected|needs a path"):
        getattr(io, reader)(arg)


# ------------------------------------------- D1: to_parquet removes only its own files


def test_d1_to_parquet_overwrite_never_removes_a_file_it_did_not_write(tmp_path):
    pytest.importorskip("pyarrow")
    df = iaf.simulate(n_items=3, seed=0)
    mine = tmp_path / "input.parquet"
    df.drop(columns="geometry").to_parquet(mine)
    other = tmp_path / "part-00007.parquet"  # named like ours, but not ours
    other.write_bytes(mine.read_bytes())
    before = mine.read_bytes()
    with pytest.raises(FileExistsError, match="did not write"):
        iaf.to_parquet(df, tmp_path, overwrite=True)
    assert mine.read_bytes() == before and other.exists()
    out = tmp_path / "out"
    iaf.to_parquet(df, out)
    iaf.to_parquet(df.iloc[:4], out, overwrite=True)  # its own files: replaced
    assert len(iaf.read_parquet(out)) == 4


# ------------------------------------------------ D2: writers never replace a file unasked


@pytest.mark.parametrize("writer", ["write_coco", "write_cvat", "write_voc", "write_darwin"])
def test_d2_writers_refuse_to_replace_a_file(tmp_path, writer):
    from iaa_frames.io import writers

    df = iaf.simulate(n_items=2, annotators={"ana": "good"}, seed=0)
    write = getattr(writers, writer)
    write(df, tmp_path)
    target = next(p for p in tmp_path.rglob("*") if p.is_file())
    target.write_text("the user's own file")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write(df, tmp_path)
    assert target.read_text() == "the user's own file"
    write(df, tmp_path, overwrite=True)
    assert target.read_text() != "the user's own file"


def test_d2_consensus_to_coco_and_to_cvat_need_overwrite(tmp_path):
    df = iaf.simulate(n_items=6, annotators={"ana": "good", "ben": "good"}, seed=1)
    cons = iaf.consensus(df) if hasattr(iaf, "consensus") else None
    if cons is None:
        pytest.skip("no iaf.consensus")
    for write in (cons.to_coco, cons.to_cvat):
        (path,) = write(tmp_path)
        path.write_text("mine")
        with pytest.raises(FileExistsError, match="overwrite=True"):
            write(tmp_path)
        assert path.read_text() == "mine"
        write(tmp_path, overwrite=True)


# --------------------------------------------------- B1, S12: frame ranges and track ids


def test_b1_cvat_declared_frame_range_is_bounded(tmp_path):
    p = tmp_path / "huge.xml"
    p.write_text(
        "<annotations><version>1.1</version><meta><job><start_frame>0</start_frame>"
        "<stop_frame>999999999</stop_frame><assignee>ana</assignee></job></meta>"
        "</annotations>"
    )
    with pytest.raises(ReaderError, match="max_frames"):
        iaf.read_cvat(p)
    small = p.read_text().replace("999999999", "9")
    p.write_text(small)
    assert len(iaf.read_cvat(p)) == 10
    with pytest.raises(ReaderError, match="max_frames=5"):
        iaf.read_cvat(p, max_frames=5)
    # a range too long for Python's len(range) (found by a 1,500-example fuzz run: an
    # OverflowError), with or without a frame step
    for meta in ("", "<frame_filter>step=3</frame_filter>"):
        p.write_text(small.replace("<stop_frame>9<", f"{meta}<stop_frame>{10**30}<"))
        with pytest.raises(ReaderError, match=r"0\.\.1,000,000,000,000,000,000,000,000,000,000"):
            iaf.read_cvat(p)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("1,1.2,10,20,30,40\n1,1.7,50,20,30,40\n", "the id an integer"),
        ("1,1e30,10,20,30,40\n", "the id an integer"),
        ("1e30,1,10,20,30,40\n", "max_frames"),
        ("1,1,1_0,20,30,40\n", "plain ASCII"),
        ("1,\u0661,10,20,30,40\n", "plain ASCII"),
    ],
)
def test_s12_mot_ids_are_integers_and_frames_bounded(tmp_path, lines, message):
    p = tmp_path / "gt.txt"
    p.write_text(lines)
    with pytest.raises(ReaderError, match=message):
        iaf.read_mot(p, annotator="ana")


def test_s12_mot_seq_length_is_bounded(tmp_path):
    (tmp_path / "gt").mkdir()
    (tmp_path / "seqinfo.ini").write_text("[Sequence]\nname=s\nseqLength=1000000000\n")
    p = tmp_path / "gt" / "gt.txt"
    p.write_text("1,1,10,20,30,40\n")
    with pytest.raises(ReaderError, match="seqLength"):
        iaf.read_mot(p, annotator="ana")


@pytest.mark.parametrize("value", ["1_0", "\u0661\u0660", "\uff11"])
def test_s17_xml_numbers_are_plain_ascii(tmp_path, value):
    src = (FIX / "voc" / "ana" / "000005.xml").read_text()
    d = tmp_path / "ana"
    d.mkdir()
    (d / "000005.xml").write_text(src.replace("<xmin>263</xmin>", f"<xmin>{value}</xmin>"))
    with pytest.raises(ReaderError, match="is not a number"):
        iaf.read_voc({"ana": d})


# ------------------------------------------------------ S8 Darwin, S18 Supervisely


def test_s8_darwin_never_invents_an_annotator_for_one_unattributed_annotation(tmp_path):
    doc = json.loads((FIX / "darwin" / "ana" / "park_01.json").read_text())
    first, second = doc["annotations"][:2]
    first["annotators"] = [{"email": "ana@example.org", "full_name": "Ana"}]
    doc["annotations"] = [first, second]  # the second records no annotator
    export = tmp_path / "export"
    export.mkdir()
    _write(export / "park_01.json", doc)
    with pytest.raises(ReaderError, match=r"annotations\[1\].*records no annotator"):
        iaf.read_darwin(export)
    df = iaf.read_darwin(export, on_invalid="drop")
    assert set(df["annotator"]) == {"ana@example.org"}  # not "export"


def test_s18_supervisely_object_without_class_title(tmp_path):
    src = FIX / "supervisely_pointcloud" / "ds0" / "ann" / "scene_1.pcd.json"
    doc = json.loads(src.read_text())
    del doc["objects"][0]["classTitle"]
    p = _write(tmp_path / "scene_1.pcd.json", doc)
    with pytest.raises(ReaderError, match="no classTitle"):
        iaf.read_supervisely_pointcloud(p)


# ----------------------------------------------------------- S14: image sizes are bounded


@pytest.mark.parametrize("size", [1e200, 1e-200, 5e9])
def test_s14_absurd_image_sizes_are_invalid(size):
    df = _frame(width=[size, 100.0], height=[100.0, 100.0])
    assert iaf.check(df).counts == {"invalid_image_size": 1}


def test_s14_coco_image_of_absurd_size_names_the_entry(tmp_path):
    doc = _coco_doc()
    doc["images"][0]["width"] = 1e200
    with pytest.raises(ReaderError, match="width/height is not a number from 1e-6 to 1e9"):
        iaf.read_coco(_write(tmp_path / "a.json", doc))


# ----------------------------------------------- S16: a NaN box is no "drew nothing" row


@pytest.mark.parametrize("cell", ["[[NaN, NaN, NaN, NaN]]", '[{"x": NaN, "y": 1, "w": 2, "h": 3}]'])
def test_s16_a_nan_box_is_a_bad_box_not_a_coverage_row(cell):
    from iaa_frames.io.box_lists import explode_boxes

    df = pd.DataFrame({"item": ["a.jpg"], "annotator": ["w1"], "boxes": [cell]})
    with pytest.raises(ReaderError, match="not a finite number"):
        explode_boxes(df, "boxes")
    rows, dropped = explode_boxes(df, "boxes", dropping=True)
    assert rows.empty and dropped["reason"].tolist() == ["bad_box"]


# ------------------------------------------------------- S20: a NUL character in a name


@pytest.mark.parametrize("column", ["item", "annotator", "label"])
def test_s20_a_nul_in_a_name_is_refused(column):
    df = _frame(**{column: ["ca\0t", "dog"]})
    with pytest.raises(iaf.errors.InvalidAnnotationError, match="NUL"):
        iaf.validate(df)
    arrow = df.astype({column: "string[pyarrow]"})
    with pytest.raises(iaf.errors.InvalidAnnotationError, match="NUL"):
        iaf.validate(arrow)


def test_s20_report_never_writes_two_labels_as_one(tmp_path):
    df = iaf.simulate(n_items=6, annotators={"ana": "good", "ben": "good"}, seed=0)
    labels = df["label"].astype(object)
    df["label"] = labels.where(labels != labels.dropna().iloc[0], labels.dropna().iloc[0] + "\0x")
    with pytest.raises(iaf.errors.IAAError, match="NUL"):
        iaf.report(df, tmp_path / "r", n_boot=0, n_chance=50)


# ------------------------------------------ S9: overlapping parts are united, as pycocotools


def test_s9_overlapping_coco_polygon_parts_are_their_union(tmp_path):
    doc = _coco_doc()
    doc["annotations"][1]["segmentation"] = [
        [0, 0, 20, 0, 20, 20, 0, 20],
        [10, 10, 30, 10, 30, 30, 10, 30],
    ]
    df = iaf.read_coco(_write(tmp_path / "a.json", doc))
    geom = df.loc[df["object_id"] == 102, "geometry"].iloc[0]
    assert geom.area == pytest.approx(700.0)  # 400 + 400 - 100, not 600
    pytest.importorskip("pycocotools")
    from pycocotools import mask as mask_utils

    rles = mask_utils.frPyObjects(doc["annotations"][1]["segmentation"], 480, 640)
    assert mask_utils.area(mask_utils.merge(rles)) == pytest.approx(geom.area, rel=0.1)


def test_s9_repair_unites_parts_and_keeps_a_bowtie_repair():
    from shapely.geometry import MultiPolygon, Polygon, box

    bowtie = Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    df = _frame(
        geometry=[MultiPolygon([box(0, 0, 2, 2), box(1, 1, 3, 3)]), bowtie],
        x0=[None, None],
        y0=[None, None],
        x1=[None, None],
        y1=[None, None],
    )
    out = iaf.validate(df, on_invalid="drop")
    assert out["geometry"].iloc[0].area == pytest.approx(7.0)
    assert out["geometry"].iloc[1].area == pytest.approx(2.0)
