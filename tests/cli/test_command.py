"""Tests for the command line (``python -m iaa_frames``): a successful run, every error
path with its exit status and message, ``demo``, ``--help``, ``--on-invalid`` and threshold
sweeps. The inputs' format detection and reading: tests/cli/test_inputs.py."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import FAST, assert_one_line_error, call, run

from iaa_frames.cli import FORMATS
from iaa_frames.simulate import simulate

HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None


@pytest.fixture(scope="module")
def boxes_csv(tmp_path_factory):
    """A small tidy box corpus as CSV (coverage rows included)."""
    df = simulate(n_items=12, annotators={"ana": "good", "ben": "sloppy", "cy": "misser"}, seed=2)
    path = tmp_path_factory.mktemp("cli") / "corpus.csv"
    df.drop(columns="geometry").to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- success


def test_report_from_csv(boxes_csv, tmp_path):
    out = tmp_path / "out"
    proc = run(
        "report",
        boxes_csv,
        "--format",
        "csv",
        "--out",
        out,
        *FAST,
        "--seed",
        "3",
        "--title",
        "CLI test",
        "--match-threshold",
        "0.6",
        "--distance",
        "iou",
    )
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()) == (out / "report.html").resolve()
    assert "reading 1 input(s) as csv" in proc.stderr and "wrote" in proc.stderr
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "CLI test" in html and "<svg" in html
    for name in ("agreement.nc", "headline.csv", "items.csv"):
        assert (out / name).is_file()
    import xarray as xr

    with xr.open_dataset(out / "agreement.nc") as res:
        assert int(res.attrs["seed"]) == 3 and int(res.attrs["n_boot"]) == 0
        assert float(res.attrs["match_threshold"]) == 0.6
        assert res.attrs["distance"] == "iou"


def test_demo(tmp_path):
    start = time.perf_counter()
    proc = run("demo", "--n-boot", "20", "-q", cwd=tmp_path)  # default --out
    elapsed = time.perf_counter() - start
    print(f"\niaa-frames demo (bundled sample, n_boot=20, incl. start-up): {elapsed:.1f} s")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # --quiet: only the path, on stdout
    out = tmp_path / "iaa-frames-demo" / "report.html"
    assert Path(proc.stdout.strip()) == out.resolve()  # printed absolute
    html = out.read_text(encoding="utf-8")
    assert "iaa_frames demo" in html
    for annotator in ("ana", "ben", "chloe", "dev"):
        assert annotator in html


# ------------------------------------------------------------------------ user errors


def test_missing_input(tmp_path):
    proc = run("report", tmp_path / "nope.json", "--format", "coco", "--out", tmp_path / "o")
    assert_one_line_error(proc, 1, "no such file or directory", "nope.json")
    assert not (tmp_path / "o").exists()


def test_unknown_format(boxes_csv, tmp_path):
    proc = run("report", boxes_csv, "--format", "excel", "--out", tmp_path)
    assert_one_line_error(proc, 2, "invalid choice: 'excel'", "--help")


def test_invalid_export(tmp_path):
    bad = tmp_path / "ana.json"
    bad.write_text('{"images": [{"id": 1, "file_name": "a.jpg"')
    proc = run("report", bad, "--format", "coco", "--out", tmp_path / "o")
    assert_one_line_error(proc, 1, "ana.json", "truncated")


def test_csv_without_required_columns(tmp_path):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"image": ["a"], "who": ["x"]}).to_csv(bad, index=False)
    proc = run("report", bad, "--format", "csv", "--out", tmp_path / "o")
    assert_one_line_error(proc, 1)


def test_csv_with_bad_geometry(tmp_path):
    bad = tmp_path / "bad.csv"
    pd.DataFrame(
        {"item": ["a"], "annotator": ["x"], "label": ["car"], "geometry": ["POLYGON ((0 0, 1"]}
    ).to_csv(bad, index=False)
    proc = run("report", bad, "--format", "csv", "--out", tmp_path / "o")
    assert_one_line_error(proc, 1, "geometry column is not WKT")


def test_bad_option_value(boxes_csv, tmp_path):
    proc = run("report", boxes_csv, "--format", "csv", "--out", tmp_path, "--match-threshold", "2")
    assert_one_line_error(proc, 2, "--match-threshold", "not a number in [0, 1]")


@pytest.mark.parametrize(
    "option, value",
    [
        ("--match-threshold", "abc"),
        ("--n-boot", "-1"),
        ("--n-chance", "0"),
        ("--seed", "1.5"),
        ("--top", "0"),
        ("--distance", "manhattan"),
    ],
)
def test_bad_option_values_in_process(capsys, boxes_csv, tmp_path, option, value):
    done = call(capsys, "report", boxes_csv, "--format", "csv", "--out", tmp_path, option, value)
    assert_one_line_error(done, 2, option)


def test_missing_arguments(capsys, tmp_path):
    assert_one_line_error(run(), 2, "COMMAND")
    assert_one_line_error(call(capsys, "report", "--format", "csv", "--out", tmp_path), 2, "INPUT")
    assert_one_line_error(call(capsys, "report", "--out", tmp_path), 2, "INPUT")
    # --format is optional: a missing input is an input error naming it
    assert_one_line_error(call(capsys, "report", "x.csv", "--out", tmp_path, "-q"), 1, "x.csv")


def test_output_path_is_a_file(boxes_csv, tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    proc = run("report", boxes_csv, "--format", "csv", "--out", target, *FAST)
    assert_one_line_error(proc, 1, "taken")


@pytest.mark.skipif(HAS_PYARROW, reason="pyarrow is installed")
def test_parquet_without_pyarrow(boxes_csv, tmp_path):
    proc = run("report", boxes_csv, "--format", "parquet", "--out", tmp_path)
    assert_one_line_error(proc, 1, "pyarrow")


def test_help_is_complete(capsys):
    top = run("--help")
    assert top.returncode == 0
    assert "examples:" in top.stdout and "iaa-frames demo" in top.stdout
    rep = call(capsys, "report", "--help")
    assert rep.returncode == 0
    for word in (
        *FORMATS,
        "--distance",
        "--match-threshold",
        "--n-boot",
        "--n-chance",
        "--seed",
        "--out",
        "--title",
        "--top",
        "--classes",
        "--image-sizes",
        "--schema",
        "--data-files",
        "--id-key",
        "--quiet",
        "--progress",
        "examples:",
    ):
        assert word in rep.stdout, word
    demo = call(capsys, "demo", "--help")
    assert demo.returncode == 0 and "--out" in demo.stdout
    version = call(capsys, "--version")
    assert version.returncode == 0 and version.stdout.startswith("iaa-frames ")


# -- --on-invalid, warnings (reading and format detection: tests/cli/test_inputs.py) ------

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_on_invalid_drop_and_the_dropped_table(tmp_path):
    # a Datumaro-written CVAT file with label="": the default stops with one line naming
    # the file, the shape and the fix; --on-invalid drop reads it and lists what it dropped
    bad = FIXTURES / "cvat" / "datumaro_for_images.xml"
    other = tmp_path / "other.xml"
    other.write_text(
        bad.read_text()
        .replace('label=""', 'label="cat"')
        .replace("<username></username>", "<username>ben</username>")
    )
    cvat_a = tmp_path / "dm.xml"
    cvat_a.write_text(bad.read_text().replace("<username></username>", "<username>ana</username>"))
    out = tmp_path / "r"
    proc = run("report", cvat_a, other, "--out", out, *FAST)
    assert_one_line_error(
        proc,
        1,
        "dm.xml: image[0] (name='images/photo.jpg') box[1]",
        "an object has no label",
        "on_invalid='drop'",
    )
    proc = run("report", cvat_a, other, "--out", out, "--on-invalid", "drop", *FAST)
    assert proc.returncode == 0, proc.stderr
    warns = [ln for ln in proc.stderr.splitlines() if ln.startswith("iaa-frames: warning:")]
    assert any("missing_label: 1" in ln and "dropped.csv" in ln for ln in warns), proc.stderr
    assert "return_dropped" not in proc.stderr and ".dropped attribute" not in proc.stderr
    table = pd.read_csv(out / "dropped.csv")
    assert table["reason"].tolist() == ["missing_label"]
    assert table["entry"].iloc[0] == "image[0] (name='images/photo.jpg') box[1]"
    assert (out / "report.html").exists()


def test_same_images_from_label_studio_and_cvat_on_the_command_line(tmp_path):
    """Inputs of different formats are read format by format and put together: the
    report's numbers are those of the two exports read in Python and concatenated."""
    import xarray as xr

    import iaa_frames as iaf

    ls, cvat = (
        FIXTURES / "crosstool" / "labelstudio_ana.json",
        FIXTURES / "crosstool" / "cvat_ben.xml",
    )
    proc = run("report", ls, cvat, "--out", tmp_path / "r", *FAST)
    assert proc.returncode == 0, proc.stderr
    assert "labelstudio + cvat" in proc.stderr or "labelstudio + cvat" in proc.stdout
    written = xr.open_dataset(tmp_path / "r" / "agreement.nc")
    both = pd.concat([iaf.read_labelstudio(ls), iaf.read_cvat(cvat)], ignore_index=True)
    assert sorted(map(str, written["annotator"].values)) == sorted(
        ["(all)", *map(str, both["annotator"].unique())]
    )
    assert int(written["n_items"].sel(component="detection", label="(all)", annotator="(all)")) == (
        both["item"].nunique()
    )


def test_report_on_a_potato_project(capsys, tmp_path):
    """A Potato project (told from its config) and its annotation output (--format
    potato) are read as iaf.read_potato reads them, and reported on."""
    import potato_project
    import xarray as xr

    import iaa_frames as iaf

    root = potato_project.write(tmp_path / "proj")
    out = tmp_path / "r"
    done = call(capsys, "report", root, "--out", out, *FAST)
    assert done.returncode == 0, done.stderr
    assert "reading 1 input(s) as potato" in done.stderr
    df = iaf.read_potato(root)
    with xr.open_dataset(out / "agreement.nc") as res:
        assert sorted(map(str, res["annotator"].values)) == ["(all)", "ana", "ben", "detector"]
        n_items = int(res["n_items"].sel(component="detection", label="(all)", annotator="(all)"))
    assert n_items == df["item"].nunique()
    assert (out / "report.html").is_file()
    again = call(
        capsys, "report", root / "annotation_output", "--format", "potato", "--out", tmp_path / "s",
        *FAST, "-q",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "headline.csv"), pd.read_csv(tmp_path / "s" / "headline.csv")
    )
    state = root / "annotation_output" / "ben" / "user_state.json"
    state.write_text(state.read_text()[:5000])
    broken = call(capsys, "report", root, "--format", "potato", "--out", tmp_path / "t")
    assert_one_line_error(broken, 1, "user_state.json", "truncated JSON")
    assert str(Path("ben") / "user_state.json") in broken.stderr


def test_report_potato_options(capsys, tmp_path):
    """--schema chooses among several image_annotation schemes (the error without it names
    the option and the schemes), --data-files sizes an export given alone; both only for
    Potato inputs."""
    import potato_project
    import xarray as xr

    import iaa_frames as iaf

    root = potato_project.write_two_schemes(tmp_path / "proj")
    several = call(capsys, "report", root, "--out", tmp_path / "a", *FAST)
    assert_one_line_error(
        several, 1, "user_state.json", "several image_annotation schemes (objects, regions)",
        "choose one with --schema objects or --schema regions",
    )  # fmt: skip
    assert "read_potato(schema=)" not in several.stderr
    out = tmp_path / "r"
    done = call(capsys, "report", root, "--schema", "regions", "--out", out, *FAST, "-q")
    assert done.returncode == 0, done.stderr
    assert "other_schema" in done.stderr  # the objects scheme's records, dropped and listed
    assert "other_schema" in set(pd.read_csv(out / "dropped.csv")["reason"])
    df = iaf.read_potato(root, schema="regions", return_dropped=True)[0]
    with xr.open_dataset(out / "agreement.nc") as res:
        assert set(map(str, res["label"].values)) == {"(all)", "road", "sky"}
        n_items = int(res["n_items"].sel(component="detection", label="(all)", annotator="(all)"))
    assert n_items == df["item"].nunique()
    # an export given alone, sized by --data-files (given after the input, several values
    # ending at the next option): the report of the project
    plain = potato_project.write(tmp_path / "plain")
    export = plain / "annotation_output" / "exports" / "jsonl" / "annotations.jsonl"
    data = plain / "data" / "images.jsonl"
    project = call(capsys, "report", plain, "--out", tmp_path / "p", *FAST, "-q")
    sized = call(capsys, "report", export, "--data-files", data, "--out", tmp_path / "e", *FAST)
    assert sized.returncode == 0 and project.returncode == 0, sized.stderr
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "p" / "headline.csv"), pd.read_csv(tmp_path / "e" / "headline.csv")
    )
    missing = call(
        capsys, "report", export, "--data-files", tmp_path / "nope.jsonl", "--out", tmp_path / "m"
    )
    assert_one_line_error(missing, 1, "--data-files", "nope.jsonl", "no such file")
    coco = sorted(iaf.sample_path("coco").glob("*.json"))
    wrong = call(capsys, "report", *coco, "--schema", "objects", "--out", tmp_path / "c")
    assert_one_line_error(wrong, 1, "--schema applies to Potato inputs")
    assert not (tmp_path / "c").exists()


# ------------------------------------------------------------------ threshold sweeps


def test_report_with_several_thresholds(capsys, boxes_csv, tmp_path):
    import xarray as xr

    out = tmp_path / "sweep"
    done = call(
        capsys,
        "report",
        boxes_csv,
        "--format",
        "csv",
        "--out",
        out,
        *FAST,
        "-q",
        "--match-threshold",
        "0.7, 0.3,0.5,0.3",
    )
    assert done.returncode == 0, done.stderr
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="threshold"' in html and 'id="fig-threshold"' in html
    with xr.open_dataset(out / "agreement.nc") as res:
        assert res["threshold"].values.tolist() == [0.3, 0.5, 0.7]
        assert res["agreement"].dims[0] == "threshold"
    table = pd.read_csv(out / "thresholds.csv")
    assert sorted(table["threshold"].unique()) == [0.3, 0.5, 0.7]
    # the rest of the report is at 0.5, as a report at 0.5 alone
    alone = tmp_path / "alone"
    call(
        capsys,
        "report",
        boxes_csv,
        "--format",
        "csv",
        "--out",
        alone,
        *FAST,
        "-q",
        "--match-threshold",
        "0.5",
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "headline.csv"), pd.read_csv(alone / "headline.csv")
    )
    assert 'id="threshold"' not in (alone / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("0.3,,0.5", "comma-separated"),
        ("0.3,1.5", "'1.5' is not a number in [0, 1]"),
        ("0.3;0.5", "not a number in [0, 1]"),
        (",", "comma-separated"),
    ],
)
def test_bad_threshold_lists(capsys, boxes_csv, tmp_path, value, fragment):
    done = call(
        capsys,
        "report",
        boxes_csv,
        "--format",
        "csv",
        "--out",
        tmp_path,
        "--match-threshold",
        value,
    )
    assert_one_line_error(done, 2, "--match-threshold", fragment)


def test_group_column_option(capsys, tmp_path):
    df = simulate(n_items=12, annotators={"ana": "good", "ben": "sloppy"}, seed=2)
    items = sorted(df["item"].unique())
    df["video"] = df["item"].map({it: f"v{k // 4}" for k, it in enumerate(items)})
    path = tmp_path / "corpus.csv"
    df.drop(columns="geometry").to_csv(path, index=False)
    out = tmp_path / "out"
    proc = call(capsys, "report", path, "--format", "csv", "--out", out, *FAST, "--group", "video")
    assert proc.returncode == 0, proc.stderr
    import xarray as xr

    # three groups of four items: the pairings within a group are no chance pairings
    with xr.open_dataset(out / "agreement.nc") as grouped:
        n_grouped = float(
            grouped["n_chance"].sel(component="detection", label="(all)", annotator="(all)")
        )
    proc = call(capsys, "report", path, "--format", "csv", "--out", tmp_path / "o2", *FAST)
    with xr.open_dataset(tmp_path / "o2" / "agreement.nc") as plain:
        n_plain = float(
            plain["n_chance"].sel(component="detection", label="(all)", annotator="(all)")
        )
    assert n_grouped < n_plain
    bad = call(capsys, "report", path, "--format", "csv", "--out", out, *FAST, "--group", "nope")
    assert_one_line_error(bad, 1, "--group nope", "no column 'nope'")
