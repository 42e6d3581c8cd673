"""read_yolo against hand-written YOLO fixtures (tests/fixtures/yolo)."""

import shutil

import numpy as np
import pandas as pd
import pytest
from helpers import FIX, row_of

from iaa_frames.errors import AnnotatorNameWarning, DroppedRowsWarning, ParameterError, ReaderError
from iaa_frames.io import read_yolo, read_yolo_classes

SIZES = {"img_a": (640, 480), "img_b": (640, 480)}


def test_boxes_polygons_and_coverage():
    df = read_yolo(FIX / "yolo", classes=["car", "person", "bicycle"], image_sizes=SIZES)
    car = row_of(df, annotator="ana", label="car")
    # 0 0.5 0.5 0.25 0.2 on 640 x 480
    assert (car.x0, car.y0, car.x1, car.y1) == (240, 192, 400, 288)
    assert (car["width"], car["height"], car["item"]) == (640, 480, "img_a")
    person = row_of(df, annotator="ana", label="person")
    np.testing.assert_allclose([person.x0, person.y0, person.x1, person.y1], [32, 48, 96, 144])
    bike = row_of(df, annotator="ben", label="bicycle")
    assert bike["geometry"].geom_type == "Polygon"
    np.testing.assert_allclose([bike.x0, bike.y0, bike.x1, bike.y1], [64, 48, 192, 192])
    assert row_of(df, annotator="ben", label="car")["score"] == 0.87
    cov = df[df["x0"].isna()]
    assert list(zip(cov["item"], cov["annotator"], strict=True)) == [
        ("img_b", "ana")
    ]  # the empty .txt
    assert len(df) == 5


def test_classes_from_files_and_default_lookup():
    assert read_yolo_classes(FIX / "yolo" / "classes.txt") == ["car", "person", "bicycle"]
    assert read_yolo_classes(FIX / "yolo" / "data.yaml") == ["car", "person", "bicycle"]
    a = read_yolo(FIX / "yolo", classes=FIX / "yolo" / "data.yaml", image_sizes=SIZES)
    b = read_yolo(FIX / "yolo", image_sizes=SIZES)  # classes.txt found in the parent directory
    pd.testing.assert_frame_equal(a, b)
    c = read_yolo(FIX / "yolo", classes={0: "car", 1: "person", 2: "bicycle"}, image_sizes=SIZES)
    pd.testing.assert_frame_equal(a, c)


@pytest.mark.parametrize(
    "text",
    [
        "names: [car, 'person', \"bicycle\"]  # flow list\n",
        "nc: 3\nnames:\n  - car\n  - person\n  - bicycle\nval: x\n",
        "names:\n  0: car\n  1: person\n  2: bicycle\n",
    ],
)
def test_yaml_names_forms(tmp_path, text):
    p = tmp_path / "data.yaml"
    p.write_text(text)
    assert read_yolo_classes(p) == ["car", "person", "bicycle"]


def test_yaml_unsupported_form_is_a_clear_error(tmp_path):
    p = tmp_path / "data.yaml"
    p.write_text("names: !!python/object car\n")
    with pytest.raises(ReaderError, match=r"data\.yaml: line 1: names must be"):
        read_yolo_classes(p)
    p.write_text("train: x\n")
    with pytest.raises(ReaderError, match="no 'names:'"):
        read_yolo_classes(p)


def test_without_sizes_coordinates_stay_normalized():
    df = read_yolo(FIX / "yolo", classes=["car", "person", "bicycle"])
    car = row_of(df, annotator="ana", label="car")
    np.testing.assert_allclose([car.x0, car.y0, car.x1, car.y1], [0.375, 0.4, 0.625, 0.6])
    assert (df["width"] == 1).all() and (df["height"] == 1).all()


def test_image_sizes_as_dataframe_and_missing_size():
    sizes = pd.DataFrame(
        {"item": ["img_a.jpg", "img_b.jpg"], "width": [640, 640], "height": [480, 480]}
    )
    df = read_yolo(FIX / "yolo", image_sizes=sizes)
    assert row_of(df, annotator="ana", label="car").x1 == 400
    with pytest.raises(ReaderError, match=r"img_b\.txt: no size for image 'img_b'"):
        read_yolo(FIX / "yolo", image_sizes={"img_a": (640, 480)})
    with pytest.raises(ParameterError):
        read_yolo(FIX / "yolo", image_sizes={"img_a": (640, -1)})


def test_bad_lines_name_file_and_line(tmp_path):
    shutil.copytree(FIX / "yolo", tmp_path / "y")
    p = tmp_path / "y" / "ana" / "img_a.txt"
    p.write_text("0 0.5 0.5 0.25 0.2\n7 0.1 0.2 0.1 0.2\n")
    with pytest.raises(ReaderError, match=r"img_a\.txt: line 2: class index 7 is not defined"):
        read_yolo(tmp_path / "y")
    p.write_text("0 0.5 0.5 0.25\n")
    with pytest.raises(ReaderError, match=r"img_a\.txt: line 1: 4 values"):
        read_yolo(tmp_path / "y")
    p.write_text("\n0 0.5 x 0.25 0.2\n")
    with pytest.raises(ReaderError, match=r"line 2: non-numeric"):
        read_yolo(tmp_path / "y")
    p.write_text("0 0.5 0.5 -0.25 0.2\n")
    with pytest.raises(ReaderError, match=r"img_a\.txt: line 1.*outside \[0, 1\]"):
        read_yolo(tmp_path / "y")


# -- the layouts the tools write -------------------------------------------------------------

ULTRA = FIX / "yolo_ultralytics"
DARKNET = FIX / "yolo_darknet"


def test_ultralytics_layout_with_splits_obb_and_segments():
    # data.yaml + labels/train, labels/val: the README's read_yolo(root) reads it whole
    with pytest.warns(AnnotatorNameWarning, match="directory name 'yolo_ultralytics'"):
        df = read_yolo(ULTRA)
    assert set(df["annotator"]) == {"yolo_ultralytics"}
    # items are the images the layout pairs with the labels (images/train/...)
    assert sorted(set(df["item"])) == ["000000000009.jpg", "000000000036.jpg", "P0861.png"]
    assert sorted(df["label"].dropna()) == ["car", "person", "person", "plane"]
    person = row_of(df, item="000000000009.jpg", label="person")
    np.testing.assert_allclose(
        [person.x0, person.x1], [0.481719 - 0.690625 / 2, 0.481719 + 0.690625 / 2]
    )
    # the oriented box of Ultralytics' OBB docs: four corners, a polygon
    plane = row_of(df, label="plane")
    assert plane["geometry"].geom_type == "Polygon" and len(plane["geometry"].exterior.coords) == 5
    np.testing.assert_allclose(plane["geometry"].bounds, [0.776131, 0.743961, 0.782371, 0.752174])
    seg = df[(df["item"] == "P0861.png") & (df["label"] == "person")].iloc[0]
    assert seg["geometry"].area == pytest.approx(0.2 * 0.3)
    assert df[df["item"] == "000000000036.jpg"]["x0"].isna().all()  # empty val label: coverage
    df = read_yolo(ULTRA, annotator="ana", item_key="stem")
    assert set(df["annotator"]) == {"ana"} and "P0861" in set(df["item"])


def test_darknet_layout_reads_lists_as_lists():
    # obj.names, obj.data and train.txt (a list of image paths, never a label file)
    df = read_yolo(DARKNET, annotator="cvat-job-4")
    assert sorted(set(df["item"])) == ["frame_000000.jpg", "frame_000001.jpg", "frame_000002.jpg"]
    assert sorted(df["label"].dropna()) == ["car", "car", "person"]
    assert df[df["item"] == "frame_000001.jpg"]["x0"].isna().all()


def test_darknet_list_naming_a_missing_label(tmp_path):
    d = tmp_path / "export"
    shutil.copytree(DARKNET, d)
    (d / "train.txt").write_text(
        "data/obj_train_data/frame_000000.jpg\ndata/obj_train_data/gone.jpg\n"
    )
    with pytest.raises(ReaderError, match=r"train\.txt: line 2: no label file 'gone\.txt'"):
        read_yolo(d, annotator="a")


def test_several_annotators_each_an_ultralytics_export(tmp_path):
    for name in ("ana", "ben"):
        shutil.copytree(ULTRA, tmp_path / name)
    df = read_yolo(tmp_path)
    assert set(df["annotator"]) == {"ana", "ben"}
    assert set(df.loc[df["annotator"] == "ben", "item"]) == set(
        df.loc[df["annotator"] == "ana", "item"]
    )


def test_on_invalid_drop_skips_bad_lines(tmp_path):
    d = tmp_path / "export"
    shutil.copytree(DARKNET, d)
    (d / "obj_train_data" / "frame_000002.txt").write_text(
        "0 0.5 0.5 0.25\n7 0.5 0.5 0.1 0.1\n1 0.5 0.5 0.1 0.1\n"
    )
    with pytest.raises(ReaderError, match=r"frame_000002\.txt: line 1: 4 values"):
        read_yolo(d, annotator="a")
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_yolo(d, annotator="a", on_invalid="drop")
    w = rec[0].message
    assert w.counts == {"unreadable_entry": 2}
    assert list(w.dropped["entry"]) == ["line 1", "line 2"]
    assert "person" in set(df.loc[df["item"] == "frame_000002.jpg", "label"])


def test_images_sharing_a_stem_keep_their_own_sizes(tmp_path):
    """#41 S13: image_sizes was keyed by file stem, so labels/train/a and labels/val/a
    got the last size given. Each now gets its own by its item, and a size given by an
    ambiguous stem alone is an error naming the item to key it by; T3: a non-numeric
    width is a ParameterError naming the entry (was a ValueError traceback)."""
    root = tmp_path / "ana"
    for split in ("train", "val"):
        (root / "labels" / split).mkdir(parents=True)
        (root / "labels" / split / "a.txt").write_text("0 0.5 0.5 0.5 0.5\n")
    kw = dict(classes=["car"], annotator="ana", item_key="path")
    sizes = {"labels/train/a.jpg": (100, 100), "labels/val/a.jpg": (400, 200)}
    df = read_yolo(root, image_sizes=sizes, **kw)
    got = df.set_index("item")[["width", "x1"]].sort_index()
    assert got.to_dict("index") == {
        "labels/train/a": {"width": 100.0, "x1": 75.0},
        "labels/val/a": {"width": 400.0, "x1": 300.0},
    }
    frame = pd.DataFrame({"item": list(sizes), "width": [100, 400], "height": [100, 200]})
    assert read_yolo(root, image_sizes=frame, **kw).equals(df)
    with pytest.raises(ReaderError, match=r"stem 'a' different sizes; key them by the item"):
        read_yolo(root, image_sizes={"train/a.jpg": (1, 1), "val/a.png": (2, 2)}, **kw)
    one = read_yolo(root, image_sizes={"a": (50, 50)}, **kw)
    assert (one["width"] == 50).all()
    bad = frame.assign(width=["wide", 400])
    with pytest.raises(ParameterError, match=r"image_sizes\['labels/train/a.jpg'\] must be"):
        read_yolo(root, image_sizes=bad, **kw)
