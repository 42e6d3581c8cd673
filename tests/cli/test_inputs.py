"""Tests for :mod:`iaa_frames.cli.inputs`: the format of ``iaa-frames report``'s inputs told
from their names and contents, and ``read_inputs`` equal to the readers on the bundled
samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import potato_project
import pytest

import iaa_frames as iaf
from iaa_frames.cli import guess_format, read_inputs
from iaa_frames.errors import DroppedRowsWarning, ParameterError, ReaderError
from iaa_frames.io import load_sample
from iaa_frames.io.samples import sample_path
from iaa_frames.simulate import simulate

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _canonical(df):
    cols = ["annotator", "label", "x0", "y0", "x1", "y1"]
    out = df[df["label"].notna()][cols].copy()
    out["item"] = [Path(str(i)).stem for i in df.loc[out.index, "item"]]
    out["annotator"] = out["annotator"].str.split("@").str[0]
    return out.round(1).sort_values(["item", "annotator", "x0", "y0"]).reset_index(drop=True)


@pytest.mark.parametrize("fmt", ["coco", "cvat", "labelstudio", "voc", "darwin"])
def test_read_inputs_matches_the_readers(fmt):
    path = sample_path(fmt)
    if fmt in ("coco", "cvat"):
        inputs = sorted(path.glob("*.json" if fmt == "coco" else "*.xml"))
    elif fmt in ("voc", "darwin"):
        inputs = sorted(p for p in path.iterdir() if p.is_dir())  # one directory each
    else:
        inputs = [path]
    df = read_inputs(inputs, fmt)
    ref = load_sample(fmt)
    assert len(df) == len(ref)
    pd.testing.assert_frame_equal(_canonical(df), _canonical(ref))


def test_read_inputs_yolo_options():
    path = sample_path("yolo")
    df = read_inputs(
        [path], "yolo", classes=path / "classes.txt", image_sizes=path / "image_sizes.csv"
    )
    pd.testing.assert_frame_equal(_canonical(df), _canonical(load_sample("yolo")))
    with pytest.raises(ParameterError, match="yolo only"):
        read_inputs([path], "voc", classes=path / "classes.txt")


def test_read_inputs_csv_with_wkt_and_several_files(tmp_path):
    corpus = pd.read_csv(sample_path("coco").parent / "corpus.csv")
    half = corpus["annotator"].isin(["ana", "ben"])
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    corpus[half].to_csv(a, index=False)
    corpus[~half].to_csv(b, index=False)
    df = read_inputs([a, b], "csv")
    assert len(df) == len(corpus)
    assert df["object_id"].is_unique
    polygons = df["geometry"].notna()
    assert polygons.sum() == corpus["geometry"].notna().sum()
    assert {g.geom_type for g in df.loc[polygons, "geometry"]} <= {"Polygon", "MultiPolygon"}
    bounds = np.array([g.bounds for g in df.loc[polygons, "geometry"]])
    np.testing.assert_allclose(df.loc[polygons, ["x0", "y0", "x1", "y1"]].to_numpy(), bounds)
    pd.testing.assert_frame_equal(_canonical(df), _canonical(corpus))


def test_read_inputs_errors(tmp_path):
    with pytest.raises(ReaderError, match=r"missing\.csv: no such file"):
        read_inputs([tmp_path / "missing.csv"], "csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ReaderError, match="empty.csv: the file is empty"):
        read_inputs([empty], "csv")
    with pytest.raises(ParameterError, match="unknown format"):
        read_inputs([empty], "excel")


def test_guess_format_from_names_and_contents(tmp_path):
    boxes_csv = tmp_path / "corpus.csv"
    simulate(n_items=3, seed=2).drop(columns="geometry").to_csv(boxes_csv, index=False)
    cases = {
        "coco": [FIXTURES / "coco" / "ana.json"],
        "labelstudio": [FIXTURES / "labelstudio" / "export.json"],
        "cvat": [FIXTURES / "cvat" / "job_12.xml", FIXTURES / "cvat" / "video_job_ana.xml"],
        "darwin": [FIXTURES / "darwin_export"],
        "voc": [FIXTURES / "voc"],
        "yolo": [FIXTURES / "yolo_ultralytics"],
        "csv": [boxes_csv],
    }
    for fmt, inputs in cases.items():
        assert guess_format(inputs) == fmt, inputs
    assert guess_format([FIXTURES / "labelstudio" / "json_min.json"]) == "labelstudio"
    assert guess_format([FIXTURES / "yolo_darknet"]) == "yolo"
    assert guess_format([FIXTURES / "darwin_export" / "street_01.json"]) == "darwin"
    with pytest.raises(ParameterError, match="different formats.*job_12.xml: cvat"):
        guess_format([FIXTURES / "coco" / "ana.json", FIXTURES / "cvat" / "job_12.xml"])
    with pytest.raises(
        ParameterError, match="cannot tell the format of .*data.yaml; pass --format"
    ):
        guess_format([FIXTURES / "yolo" / "data.yaml"])


def test_guess_format_names_a_format_the_command_does_not_read(tmp_path):
    # the command tells formats as iaf.read_* hints do (io.formats.reader_for): a MOT
    # file is recognised, and refused with the reader to call instead
    gt = tmp_path / "gt.txt"
    gt.write_text("1,1,10,20,30,40,1,1,1\n2,1,12,21,30,40,1,1,1\n")
    with pytest.raises(ParameterError, match=r"gt.txt looks like MOTChallenge.*iaf\.read_mot"):
        guess_format([gt])
    darwin1 = tmp_path / "old.json"
    darwin1.write_text('{"image": {"width": 10, "height": 10}, "annotations": []}')
    assert guess_format([darwin1]) == "darwin"
    # a folder of KITTI labels was read as YOLO ("non-numeric value in 'Car 0.00 ...'")
    kitti = tmp_path / "ana"
    kitti.mkdir()
    (kitti / "000001.txt").write_text(
        "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
    )
    with pytest.raises(ParameterError, match=r"ana looks like KITTI object labels.*read_kitti"):
        guess_format([kitti])


def test_potato_inputs_are_told_and_read_as_read_potato(tmp_path):
    # a Potato project or store said "cannot tell the format ...; pass --format", and
    # --format had no choice for it
    root = potato_project.write(tmp_path / "proj")
    out = root / "annotation_output"
    states = [out / user / "user_state.json" for user in ("ana", "ben", "detector")]
    export = out / "exports" / "jsonl" / "annotations.jsonl"
    for inputs in ([root], [root / "config.yaml"], [out], [out / "ana"], states, [export]):
        assert guess_format(inputs) == "potato", inputs
    whole = iaf.read_potato(root)
    pd.testing.assert_frame_equal(read_inputs([root]), whole)
    pd.testing.assert_frame_equal(read_inputs([out], "potato"), whole)
    # states given together are read together (an item sized by one annotator's mask is
    # sized for all), as read_potato reads a list
    pd.testing.assert_frame_equal(read_inputs(states), iaf.read_potato(states))
    with pytest.raises(ParameterError, match="yolo only"):
        read_inputs([root], "potato", classes=tmp_path / "classes.txt")


def test_a_broken_potato_input_names_the_file(tmp_path):
    root = potato_project.write(tmp_path / "proj")
    state = root / "annotation_output" / "ben" / "user_state.json"
    state.write_text(state.read_text()[:5000])  # cut short
    with pytest.raises(ReaderError, match=r"ben/user_state\.json: .*truncated JSON"):
        read_inputs([root])
    (root / "config.yaml").write_text("output_annotation_dir: elsewhere/\n")
    with pytest.raises(ReaderError, match=r"config\.yaml: output_annotation_dir: 'elsewhere/'"):
        read_inputs([root], "potato")


def test_potato_schema_option(tmp_path):
    # a project with two image_annotation schemes could not be read from the command:
    # read_potato said "pass read_potato(schema=)", which the command could not pass
    root = potato_project.write_two_schemes(tmp_path / "proj")
    with pytest.raises(
        ReaderError, match=r"several image_annotation schemes \(objects, regions\)"
    ) as err:
        read_inputs([root])
    assert "choose one with --schema objects or --schema regions" in str(err.value)
    assert "read_potato(schema=)" not in str(err.value)
    for name in ("objects", "regions"):
        with pytest.warns(DroppedRowsWarning, match="other_schema"):
            df = read_inputs([root], schema=name)
        with pytest.warns(DroppedRowsWarning, match="other_schema"):
            pd.testing.assert_frame_equal(df, iaf.read_potato(root, schema=name))
    assert set(df["label"].dropna()) == {"road", "sky"}
    with pytest.raises(ReaderError, match=r"no record holds the scheme 'road'") as err:
        read_inputs([root], schema="road")  # a label, not a scheme
    assert str(err.value).endswith("choose one with --schema objects or --schema regions")
    with pytest.raises(ParameterError, match="--schema: expected a name"):
        read_inputs([root], schema=" ")


def test_potato_data_files_and_id_key(tmp_path):
    root = potato_project.write(tmp_path / "proj")
    export = root / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl"
    data = root / "data" / "images.jsonl"
    alone = read_inputs([export])
    df = read_inputs([export], data_files=[data])
    pd.testing.assert_frame_equal(df, iaf.read_potato(export, data_files=data))
    # pixels where the data file sizes the image, fractions without it
    sized = df["item"].isin(["img_000", "img_001"]) & df["x1"].notna()
    assert (df.loc[sized, "x1"] > 1).all() and (alone.loc[sized, "x1"] <= 1).all()
    assert (df.loc[sized, "width"] > 1).all()
    renamed = tmp_path / "items.jsonl"
    renamed.write_text(data.read_text().replace('"id":', '"name":'))
    by_name = read_inputs([export], "potato", data_files=[renamed], id_key="name")
    pd.testing.assert_frame_equal(
        by_name, iaf.read_potato(export, data_files=renamed, id_key="name")
    )
    pd.testing.assert_frame_equal(by_name[["x0", "y0", "x1", "y1"]], df[["x0", "y0", "x1", "y1"]])
    with pytest.raises(ReaderError, match=r"--data-files .*missing\.jsonl: no such file"):
        read_inputs([export], data_files=[tmp_path / "missing.jsonl"])


def test_potato_options_with_other_formats_are_parameter_errors(tmp_path):
    coco = sorted(sample_path("coco").glob("*.json"))
    with pytest.raises(ParameterError, match=r"^--schema applies to Potato inputs .*read as coco"):
        read_inputs(coco, schema="objects")
    with pytest.raises(ParameterError, match=r"^--data-files and --id-key apply to Potato"):
        read_inputs(coco[:1], "coco", data_files=[coco[1]], id_key="id")
    # inputs of several formats, none of them Potato
    mixed = [coco[0], sorted(sample_path("cvat").glob("*.xml"))[0]]
    with pytest.raises(ParameterError, match=r"--schema applies .*read as coco \+ cvat"):
        read_inputs(mixed, schema="objects")
