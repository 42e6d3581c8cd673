"""read_potato: Potato's store, project folder and exports; its shapes; hostile input."""

import csv
import json
import math
import os
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import potato_project
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io.masks import mask_to_geometry
from iaa_frames.io.potato import read_potato
from iaa_frames.io.potato_shapes import decode_rle

SAMPLE = iaf.sample_path("potato")
#: where an unpacked potato-annotation wheel may be (pip download --no-deps potato-annotation)
POTATO_SRC = os.environ.get("POTATO_SRC", "/tmp/potato/src")


@pytest.fixture(scope="module")
def sample():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the sample reads with nothing skipped or repaired
        return read_potato(SAMPLE)


def state(user, items, *, schema="objects", origin=None, behavior=None):
    d = {
        "user_id": user,
        "instance_id_to_label_to_value": {
            item: [
                [{"schema": schema, "name": "_data"}, v if isinstance(v, str) else json.dumps(v)]
            ]
            for item, v in items.items()
        },
    }
    if behavior is not None:
        d["instance_id_to_behavioral_data"] = behavior
    if origin is not None:
        d["origin"] = origin
    return d


def write_store(root: Path, states: dict) -> Path:
    out = root / "annotation_output"
    for user, st in states.items():
        (out / user).mkdir(parents=True)
        (out / user / "user_state.json").write_text(json.dumps(st))
    return out


def box(x, y, w, h, label="car", **kw):
    return {
        "type": "bbox",
        "label": label,
        "coordinates": {"x": x, "y": y, "width": w, "height": h},
        **kw,
    }


# ------------------------------------------------------------------ the sample project


def test_sample_project_reads(sample):
    df = sample
    assert sorted(df["annotator"].unique()) == ["ana", "ben", "detector"]
    assert df["item"].nunique() == 40
    assert set(df["label"].dropna()) == {"car", "person", "bicycle"}
    cov = set(map(tuple, df.loc[df["x0"].isna(), ["item", "annotator"]].to_numpy()))
    assert {("img_039", "ana"), ("img_039", "ben")} <= cov  # nothing to draw
    assert {("img_005", "ben"), ("img_017", "ben")} <= cov  # saved empty
    assert df.attrs["iaa_attributes"] == ["occluded"] and df["occluded"].notna().any()
    assert dict(df.groupby("annotator")["rater_origin"].first()) == {
        "ana": "human",
        "ben": "human",
        "detector": "tool",
    }
    # one vocabulary across readers: a tool or an LLM is a machine
    assert dict(df.groupby("annotator")["rater_kind"].first()) == {
        "ana": "human",
        "ben": "human",
        "detector": "machine",
    }
    assert isinstance(df["time"].dtype, pd.DatetimeTZDtype) and df["time"].notna().all()
    assert (
        df["mask_width"].notna().sum() > 0
        and (df.loc[df["source"] == "ai", "confidence"] > 0).all()
    )
    # the sizes: from the data file, and from the masks for img_002 and img_007
    sizes = df.groupby("item")[["width", "height"]].first()
    assert tuple(sizes.loc["img_002"]) == (1024.0, 768.0) and tuple(sizes.loc["img_007"]) == (
        800.0,
        600.0,
    )


def test_sample_is_what_the_generator_writes(tmp_path):
    fresh = potato_project.write(tmp_path / "potato")
    files = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*") if p.is_file())
    for rel in files:
        assert (fresh / rel).read_bytes() == (SAMPLE / rel).read_bytes(), rel


def hand_frame():
    """The sample's annotations as a tidy frame built here from the generator's shapes."""
    anns, images = potato_project.annotations()
    size = {item: wh for item, wh, _ in images}
    rows = []
    for user, items in anns.items():
        for item, (shapes, _t) in items.items():
            w, h = size[item]
            base = {"item": item, "annotator": user, "width": float(w), "height": float(h)}
            if not shapes:
                rows.append({**base, "label": None, "geometry": None})
            for s in shapes:
                row = {**base, "label": s["label"], "geometry": None}
                if s["type"] == "bbox":
                    c = s["coordinates"]
                    row.update(x0=c["x"] * w, y0=c["y"] * h)
                    row.update(x1=row["x0"] + c["width"] * w, y1=row["y0"] + c["height"] * h)
                elif s["type"] == "polygon":
                    row["geometry"] = shapely.Polygon(
                        [(p["x"] * w, p["y"] * h) for p in s["coordinates"]]
                    )
                else:  # a row-major mask, decoded by hand
                    counts = s["rle"]["counts"]
                    flat = np.zeros(h * w, bool)
                    pos = 0
                    for k, n in enumerate(counts):
                        flat[pos : pos + n] = k % 2 == 1
                        pos += n
                    row["geometry"] = mask_to_geometry(flat.reshape(h, w))
                rows.append(row)
    return pd.DataFrame(rows)


def test_agreement_equals_the_frame_built_by_hand(sample):
    ours = iaf.agreement(sample, n_boot=20, progress=False)
    hand = iaf.agreement(hand_frame(), n_boot=20, progress=False)
    for var in ("agreement", "ci_low", "ci_high", "n_units"):
        np.testing.assert_allclose(ours[var].values, hand[var].values, rtol=1e-9, atol=1e-12)


def test_agreement_over_time_reads_the_time_column(sample):
    res = iaf.agreement_over_time(sample, freq="W", n_boot=10)
    assert res.sizes["window"] >= 3


def test_jsonl_export_reads_as_the_store(sample):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_potato(
            SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl",
            data_files=SAMPLE / "data" / "images.jsonl",
        )
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height", "rater_kind"]
    key = ["annotator", "item", "x0", "y0"]
    a = sample[cols].sort_values(key).reset_index(drop=True)
    b = df[cols].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert df["time"].isna().all()  # the exports carry no times


def test_csv_export_reads(tmp_path, sample):
    lines = (SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl").read_text()
    path = tmp_path / "annotations.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance_id", "user_id", "annotator_origin", "objects._data"])
        for line in lines.splitlines():
            r = json.loads(line)
            w.writerow([r["instance_id"], r["user_id"], r["annotator_origin"]["kind"],
                        r["labels"]["objects"]["_data"]])  # fmt: skip
    df = read_potato(path, data_files=SAMPLE / "data" / "images.jsonl")
    assert (
        len(df) == len(sample)
        and df.groupby("annotator")["rater_origin"].first()["detector"] == "tool"
    )


@pytest.mark.parametrize("name", ["annotations.jsonl", "annotations.csv", "annotations.tsv"])
@pytest.mark.parametrize("where", ["header", "middle"])
def test_an_export_that_is_not_utf8_names_the_file(tmp_path, name, where):
    # found by a byte-level fuzz run: a Latin-1 byte in a jsonl export escaped as a
    # UnicodeDecodeError
    text = (SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl").read_bytes()
    if not name.endswith(".jsonl"):
        sep = b"," if name.endswith(".csv") else b"\t"
        text = sep.join([b"instance_id", b"user_id"]) + b"\n" + b"img_000" + sep + b"ana\n" * 3
    at = 3 if where == "header" else len(text) // 2
    path = tmp_path / name
    path.write_bytes(text[:at] + b"caf\xe9" + text[at:])
    with pytest.raises(ReaderError, match=rf"{name}: after line \d+: the file is not UTF-8 text"):
        read_potato(path)


@pytest.mark.parametrize("name", ["images.jsonl", "images.csv", "images.json"])
def test_a_data_file_that_is_not_utf8_names_the_file(tmp_path, name):
    export = SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl"
    text = (SAMPLE / "data" / "images.jsonl").read_bytes()
    if name.endswith(".csv"):
        text = b"id,width,height\nimg_000,640,480\n" * 2
    elif name.endswith(".json"):
        text = b"[" + b",".join(text.splitlines()) + b"]"
    data = tmp_path / name
    data.write_bytes(text[: len(text) // 2] + b"caf\xe9" + text[len(text) // 2 :])
    with pytest.raises(ReaderError, match=rf"{name}: .*not UTF-8"):
        read_potato(export, data_files=data)


def test_a_store_or_a_config_reads_as_the_project(sample):
    store = read_potato(SAMPLE / "annotation_output")  # finds the config in its parent
    by_config = read_potato(SAMPLE / "config.yaml")
    for df in (store, by_config):
        pd.testing.assert_frame_equal(df, sample)
    one = read_potato(SAMPLE / "annotation_output" / "ben" / "user_state.json")
    assert set(one["annotator"]) == {"ben"}


# ------------------------------------------------------------------ written by Potato itself


def test_a_store_written_by_potatos_own_save_reads(tmp_path):
    if not Path(POTATO_SRC, "potato", "user_state_management.py").exists():
        pytest.skip("Potato's source is not unpacked (set POTATO_SRC)")
    sys.path.insert(0, POTATO_SRC)
    try:
        from potato.interaction_tracking import AnnotationChange, BehavioralData
        from potato.item_state_management import Label
        from potato.user_state_management import InMemoryUserState
    except ImportError as exc:  # pragma: no cover - Potato's own imports
        pytest.skip(f"Potato's modules do not import here: {exc}")
    finally:
        sys.path.remove(POTATO_SRC)
    mask = np.zeros((4, 5), bool)
    mask[1:3, 1:4] = True
    shapes = {
        "ana": [box(0.1, 0.2, 0.3, 0.4, attributes={"occluded": True}, source="human"),
                {"type": "mask", "label": "person", "rle": {
                    "counts": potato_project.rle_row_major(mask), "size": [4, 5]}}],
        "bot": [box(0.12, 0.2, 0.3, 0.4, source="ai", confidence=0.9)],
    }  # fmt: skip
    out = tmp_path / "annotation_output"
    for user, objs in shapes.items():
        s = InMemoryUserState(user)
        s.instance_id_to_label_to_value["img1"] = {Label("objects", "_data"): json.dumps(objs)}
        s.instance_id_to_label_to_value["img2"] = {Label("objects", "_data"): "[]"}
        bd = BehavioralData(instance_id="img1", session_start=1.7e9, session_end=1.7e9 + 60)
        bd.annotation_changes.append(
            AnnotationChange(timestamp=1.7e9 + 30, schema_name="objects", action="update")
        )
        s.instance_id_to_behavioral_data["img1"] = bd
        if user == "bot":
            s.origin = {"kind": "llm", "id": "bot", "version": "1"}
        s.save(str(out / user))
    df = read_potato(out)
    assert list(df["annotator"]) == ["ana", "ana", "ana", "bot", "bot"]
    assert list(df["item"]) == ["img1", "img1", "img2", "img1", "img2"]
    assert list(df["rater_origin"]) == ["human"] * 3 + ["llm"] * 2
    assert list(df["rater_kind"]) == ["human"] * 3 + ["machine"] * 2
    # sizes from the mask (5 x 4 pixels) for img1; img2 is the unit square
    r = df.iloc[0]
    assert (r["width"], r["height"]) == (5.0, 4.0)
    np.testing.assert_allclose([r["x0"], r["y0"], r["x1"], r["y1"]], [0.5, 0.8, 2.0, 2.4])
    assert df.iloc[1]["geometry"].area == 6.0 and df.iloc[1]["mask_width"] == 5
    assert bool(df.iloc[0]["occluded"]) and df.iloc[3]["confidence"] == 0.9
    assert df.iloc[0]["time"] == pd.Timestamp(1.7e9 + 30, unit="s", tz="UTC")
    assert df.iloc[2]["time"] is pd.NaT and math.isnan(df.iloc[2]["x0"])


# ------------------------------------------------------------------ every shape type


def test_every_shape_type(tmp_path):
    shapes = [
        box(0.1, 0.1, 0.2, 0.2),
        {"type": "polygon", "label": "a", "coordinates": [{"x": 0, "y": 0}, {"x": 0.5, "y": 0}, {"x": 0, "y": 0.5}]},
        {"type": "polyline", "label": "b", "closed": False, "coordinates": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]},
        {"type": "ellipse", "label": "c", "coordinates": {"cx": 0.5, "cy": 0.5, "rx": 0.1, "ry": 0.2, "angle": 90}},
        {"type": "landmark", "label": "d", "coordinates": {"x": 0.25, "y": 0.75}},
        {"type": "cuboid_2d", "label": "e", "coordinates": {
            "front": [{"x": 0.1, "y": 0.1}, {"x": 0.3, "y": 0.1}, {"x": 0.3, "y": 0.3}, {"x": 0.1, "y": 0.3}],
            "back": [{"x": 0.2, "y": 0.0}, {"x": 0.4, "y": 0.0}, {"x": 0.4, "y": 0.2}, {"x": 0.2, "y": 0.2}]}},
        {"type": "keypoint_set", "label": "f", "skeleton": "hand", "coordinates": [
            {"x": 0.1, "y": 0.1, "v": 2}, {"x": 0.2, "y": 0.2, "v": 0}]},
        {"type": "freeform", "label": "g", "coordinates": {
            "path": [["M", 0, 0], ["L", 10, 0], ["L", 10, 10], ["L", 0, 10]],
            "left": 0.5, "top": 0.5, "scaleX": 1, "scaleY": 1, "pathOffset": {"x": 5, "y": 5}}},
        {"type": "text_note", "label": "h"},
    ]  # fmt: skip
    out = write_store(tmp_path, {"ana": state("ana", {"img1": shapes})})
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"id": "img1", "image_width": 200, "image_height": 100}]))
    df, dropped = read_potato(out, data_files=data, return_dropped=True)
    assert list(dropped["reason"]) == ["unsupported_shape"]
    by = df.set_index("label")
    assert tuple(by.loc["car", ["x0", "y0", "x1", "y1"]]) == (20.0, 10.0, 60.0, 30.0)
    assert by.loc["a", "geometry"].area == pytest.approx(0.5 * 100 * 50)
    assert (by.loc["b", "pl_1_x"], by.loc["b", "pl_1_y"]) == (200.0, 100.0)
    e = by.loc["c", "geometry"]  # rx 20 px, ry 20 px turned 90 degrees
    assert e.area == pytest.approx(math.pi * 20 * 20, rel=0.01)
    assert (by.loc["d", "pt_x"], by.loc["d", "pt_y"]) == (50.0, 75.0)
    # a cuboid_2d: its two faces (the kind cuboid_2d), bounded by their 8 corners
    assert (by.loc["e", "c2d_fx2"], by.loc["e", "c2d_fy3"]) == (60.0, 30.0)
    assert (by.loc["e", "c2d_bx1"], by.loc["e", "c2d_by1"]) == (40.0, 0.0)
    assert tuple(by.loc["e", ["x0", "y0", "x1", "y1"]]) == (20.0, 0.0, 80.0, 30.0)
    assert by.loc["f", "x0"] == 20.0
    assert by.loc["g", "geometry"].bounds == (95.0, 45.0, 105.0, 55.0)


def test_unit_square_without_sizes_and_several_schemas(tmp_path):
    st = state("ana", {"img1": [box(0.1, 0.2, 0.3, 0.4)]})
    st["instance_id_to_label_to_value"]["img1"].append(
        [{"schema": "quality", "name": "good"}, True]
    )
    out = write_store(tmp_path, {"ana": st})
    with pytest.warns(DroppedRowsWarning, match="other_schema: 1"):
        df = read_potato(out)
    assert tuple(df.loc[0, ["x0", "y1", "width", "height"]]) == (0.1, 0.6000000000000001, 1.0, 1.0)
    st["instance_id_to_label_to_value"]["img1"].append(
        [{"schema": "regions", "name": "_data"}, "[]"]
    )
    (out / "ana" / "user_state.json").write_text(json.dumps(st))
    with pytest.raises(ReaderError, match="several image_annotation schemes.*schema="):
        read_potato(out)
    assert len(read_potato(out, schema="regions", return_dropped=True)[0]) == 1


@pytest.mark.parametrize("on_invalid", ["raise", "drop"])
def test_a_scheme_no_record_holds_is_named(tmp_path, on_invalid):
    """schema= with a typo read every record as another scheme's: an empty frame and a
    warning of dropped records; now a ReaderError naming the schemes the records hold."""
    st = state("ana", {"img1": [box(0.1, 0.2, 0.3, 0.4)]})
    st["instance_id_to_label_to_value"]["img1"].append(
        [{"schema": "quality", "name": "good"}, True]
    )
    out = write_store(tmp_path, {"ana": st})
    with pytest.raises(ReaderError, match=r"no record holds the scheme 'object'") as err:
        read_potato(out, schema="object", on_invalid=on_invalid)
    assert err.value.schemes == ("objects", "quality")  # no config: every scheme held
    assert str(err.value).endswith("pass read_potato(schema=) to choose one")
    assert len(read_potato(out, schema="objects", return_dropped=True)[0]) == 1


# ------------------------------------------------------------------ the pooled COCO export


def test_pooled_coco_export_names_the_missing_annotator_field(tmp_path):
    """Potato's COCO export pools every annotator's objects with no annotator field."""
    coco = {
        "images": [{"id": 1, "file_name": "img1", "width": 100, "height": 100}],
        "annotations": [
            {"id": k, "image_id": 1, "category_id": 1, "iscrowd": 0, "bbox": [10 + k, 10, 30, 30],
             "area": 900, "segmentation": [], "source": "human"}
            for k in (1, 2)
        ],
        "categories": [{"id": 1, "name": "car"}],
    }  # fmt: skip
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(coco))
    with pytest.raises(ReaderError, match="no annotation carries the annotator field 'user_id'"):
        iaf.read_coco(p, rater_key="user_id")
    assert set(iaf.read_coco(p)["annotator"]) == {"annotations"}  # one file, one annotator


# ------------------------------------------------------------------ hostile input


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ('[{"type": "bbox", "label": "car", "coordinates"', "_data is not valid JSON"),
        ('{"type": "bbox"}', "_data must hold a list of shapes"),
        (json.dumps([box("0.1", 0.2, 0.3, 0.4)]), "x must be a finite number"),
        (json.dumps([box(True, 0.2, 0.3, 0.4)]), "x must be a finite number"),
        (json.dumps([{"type": "bbox", "coordinates": {}}]), "'label' must be a non-empty string"),
        (
            json.dumps([{"type": "polygon", "label": "a", "coordinates": "0,0,1,1"}]),
            "must be a list",
        ),
        (json.dumps([box(0.1, 0.2, 0.3, 0.4, attributes=[1])]), "attributes must be a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "_data is not valid JSON"),
        (json.dumps(["a box"]), "a shape must be a JSON object"),
    ],
)
def test_malformed_values_name_file_item_and_shape(tmp_path, value, match):
    out = write_store(tmp_path, {"ana": state("ana", {"img7": value, "img8": "[]"})})
    with pytest.raises(ReaderError, match=match) as err:
        read_potato(out, schema="objects")
    assert "user_state.json" in str(err.value) and "'img7'" in str(err.value)
    with pytest.warns(DroppedRowsWarning, match="unreadable_entry: 1"):
        df = read_potato(out, schema="objects", on_invalid="drop")
    assert set(df["item"]) == {"img7", "img8"} or set(df["item"]) == {"img8"}


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ([1, 2], "expected a JSON object"),
        ({"user_id": "ana"}, "no instance_id_to_label_to_value"),
        ({"instance_id_to_label_to_value": [1]}, "must be a JSON object"),
        ({"instance_id_to_label_to_value": {"a": "x"}}, "labels must be a list of pairs"),
        ({"instance_id_to_label_to_value": {"a": [[1, 2]]}}, r"must be a pair \[\{schema, name\}"),
    ],
)
def test_not_a_user_state(tmp_path, doc, match):
    (tmp_path / "u").mkdir()
    (tmp_path / "u" / "user_state.json").write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=match):
        read_potato(tmp_path)


def test_huge_declared_mask_is_refused_before_allocation(tmp_path):
    mask = {
        "type": "mask",
        "label": "x",
        "rle": {"counts": [10**12, 10**12], "size": [10**6, 2 * 10**6]},
    }
    out = write_store(tmp_path, {"ana": state("ana", {"img1": [mask]})})
    tracemalloc.start()
    with pytest.raises(ReaderError, match=r"1000000 x 2000000 mask.*max_mask_pixels"):
        read_potato(out)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6


@pytest.mark.parametrize(
    ("rle", "match"),
    [
        ({"counts": [1, 2], "size": [2, 3]}, "adds up to 3 pixels, not height x width = 6"),
        ({"counts": [1, -2, 7], "size": [2, 3]}, "non-negative integers"),
        ({"counts": "abc", "size": [2, 3]}, "non-negative integers"),
        ({"counts": [6], "size": [2.0, 3]}, r"rle.size must be \[height, width\]"),
        ("rle", "rle must be a JSON object"),
    ],
)
def test_bad_masks(tmp_path, rle, match):
    out = write_store(
        tmp_path, {"ana": state("ana", {"img1": [{"type": "mask", "label": "x", "rle": rle}]})}
    )
    with pytest.raises(ReaderError, match=match):
        read_potato(out)


def test_decode_rle_is_row_major():
    m = decode_rle("f", "e", {"counts": [0, 2, 4], "size": [2, 3]})
    assert m.astype(int).tolist() == [[1, 1, 0], [0, 0, 0]]


def test_missing_paths_and_folders(tmp_path):
    with pytest.raises(ReaderError, match="no such file or folder"):
        read_potato(tmp_path / "nothing")
    with pytest.raises(ReaderError, match="not a Potato project folder"):
        read_potato(tmp_path)
    (tmp_path / "config.yaml").write_text("output_annotation_dir: out/\n")
    with pytest.raises(ReaderError, match="'out/' not found"):
        read_potato(tmp_path)


def test_an_id_key_without_data_files_is_refused():
    """``id_key`` names the item id of the data files: without any (none given, none in
    the config), it would change nothing and say nothing."""
    export = SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl"
    with pytest.raises(iaf.ParameterError, match="id_key 'image' .* there are none"):
        read_potato(export, id_key="image")
    with pytest.raises(iaf.ParameterError, match="non-empty string"):
        read_potato(export, data_files=SAMPLE / "data" / "images.jsonl", id_key=" ")
    # with the data files of the config, or given, it applies
    with pytest.raises(ReaderError, match="an item must be an object with 'nope'"):
        read_potato(SAMPLE / "config.yaml", id_key="nope")
    read_potato(export, data_files=SAMPLE / "data" / "images.jsonl", id_key="id")


def test_a_folder_of_exports_reads_as_its_exports(tmp_path, sample):
    """A folder holding only exports (and, say, the data file of the items) was neither
    told nor read: each export in it is read, the other files left alone."""
    from iaa_frames.io.formats import reader_for

    export = SAMPLE / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl"
    lines = export.read_text().splitlines()
    folder = tmp_path / "exports"
    folder.mkdir()
    half = len(lines) // 2
    (folder / "a.jsonl").write_text("\n".join(lines[:half]) + "\n")
    (folder / "b.jsonl").write_text("\n".join(lines[half:]) + "\n")
    (folder / "items.jsonl").write_text((SAMPLE / "data" / "images.jsonl").read_text())
    (folder / ".hidden.jsonl").write_text("not an export\n")
    data = SAMPLE / "data" / "images.jsonl"
    assert reader_for(folder) == ("read_potato", "Potato exports (a folder of them)")
    whole = read_potato(folder, data_files=data)
    pd.testing.assert_frame_equal(
        whole, read_potato([folder / "a.jsonl", folder / "b.jsonl"], data_files=data)
    )
    one = read_potato(export, data_files=data)  # the same rows, in the files' order
    key = ["annotator", "item", "x0", "y0", "x1", "y1"]
    pd.testing.assert_frame_equal(
        whole.sort_values(key).reset_index(drop=True), one.sort_values(key).reset_index(drop=True)
    )
    assert len(whole) == len(sample)
    (folder / "a.jsonl").unlink()
    (folder / "b.jsonl").unlink()
    with pytest.raises(ReaderError, match="or the export files"):
        read_potato(folder)
    assert reader_for(folder) != ("read_potato", "Potato exports (a folder of them)")


@pytest.mark.parametrize("width", ["\u00b2", "\u0663", "9" * 5000])
def test_a_size_of_digits_int_cannot_read_is_unknown_not_an_error(tmp_path, width):
    """Hostile review, round 6: "²" passes str.isdigit() but int() refuses it (a raw
    ValueError); so do 5,000 digits."""
    out = write_store(tmp_path, {"ana": state("ana", {"img1": [box(0.1, 0.2, 0.3, 0.4)]})})
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"id": "img1", "image_width": width, "image_height": "100"}]))
    df = read_potato(out, data_files=data)
    assert len(df) == 1 and df["x0"].iloc[0] == pytest.approx(0.1)
