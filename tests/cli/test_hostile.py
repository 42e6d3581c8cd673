"""Hostile and careless input on the command line and in the report's files (issue #23):
one line of error, never a traceback; no file the report did not write is overwritten; no
CSV cell a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import importlib.util

import pandas as pd
import pytest
from helpers import FAST, assert_one_line_error, call

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.report.output import MANIFEST, neutralise

HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None

INJECTIONS = ["=cmd|' /C calc'!A0", "=1+2", '+HYPERLINK("x")', "@SUM(A1)", "-2+3", "\tTAB", "\rCR"]


@pytest.fixture(scope="module")
def corpus_csv(tmp_path_factory):
    df = iaf.simulate(n_items=12, annotators={"ana": "good", "ben": "sloppy"}, seed=4)
    path = tmp_path_factory.mktemp("hostile_cli") / "items.csv"
    df.drop(columns="geometry").to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ 6. never overwrite


def test_report_into_the_folder_of_its_input_is_refused(corpus_csv, capsys, tmp_path):
    folder = tmp_path / "here"
    folder.mkdir()
    mine = folder / "items.csv"  # the input has the name of a report table
    mine.write_bytes(corpus_csv.read_bytes())
    before = mine.read_bytes()
    proc = call(capsys, "report", mine, "--out", folder, "-q", *FAST)
    assert_one_line_error(proc, 1, "items.csv exists and was not written by an iaa-frames report")
    assert mine.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["items.csv"]  # nothing written


def test_report_replaces_its_own_files(corpus_csv, capsys, tmp_path):
    out = tmp_path / "out"
    assert call(capsys, "report", corpus_csv, "--out", out, "-q", *FAST).returncode == 0
    assert (out / MANIFEST).is_file() and "items.csv" in (out / MANIFEST).read_text()
    (out / "items.csv").write_text("old")
    assert call(capsys, "report", corpus_csv, "--out", out, "-q", *FAST).returncode == 0
    assert (out / "items.csv").read_text() != "old"
    (out / "notes.txt").write_text("the user's")  # other files are left alone
    assert call(capsys, "report", corpus_csv, "--out", out, "-q", *FAST).returncode == 0
    assert (out / "notes.txt").read_text() == "the user's"


def test_report_function_refuses_a_foreign_file(tmp_path):
    df = iaf.simulate(n_items=8, seed=0)
    (tmp_path / "headline.csv").write_text("mine")
    with pytest.raises(ParameterError, match="headline.csv exists"):
        iaf.report(df, tmp_path, n_boot=0, n_chance=50)
    assert (tmp_path / "headline.csv").read_text() == "mine"


# ------------------------------------------------------------------ 7. formula injection


def test_neutralise_text_only():
    frame = pd.DataFrame(
        {"label": INJECTIONS + ["cat"], "value": [-1.5, 2, -3, 4, 5, 6, -7, 8]},
        index=pd.Index(["=a", "b", "-c", "d", "e", "f", "g", "h"], name="@k"),
    )
    out = neutralise(frame)
    assert out["label"].tolist() == ["'" + v for v in INJECTIONS] + ["cat"]
    assert out["value"].tolist() == frame["value"].tolist()  # negative numbers stay numbers
    assert out.index.tolist()[:3] == ["'=a", "b", "'-c"] and out.index.name == "'@k"
    assert frame["label"].tolist()[0] == INJECTIONS[0]  # the input is not changed


def test_no_csv_cell_of_the_report_is_a_formula(tmp_path):
    df = iaf.simulate(
        n_items=14, annotators={"ana": "good", "ben": "sloppy", "cy": "mislabeler"}, seed=6
    )
    labels = sorted(df["label"].dropna().unique())
    df["label"] = df["label"].map(dict(zip(labels, INJECTIONS, strict=False)))
    df["annotator"] = df["annotator"].map({"ana": "=ana", "ben": "+ben", "cy": "@cy"})
    out = tmp_path / "r"
    iaf.report(df, out, n_boot=0, n_chance=50)
    names = sorted(p.name for p in out.glob("*.csv"))
    assert {"conflicts.csv", "by_label.csv", "by_annotator.csv", "pairwise.csv"} <= set(names)
    for path in out.glob("*.csv"):
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.reader(fh):
                for cell in row:
                    if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                        float(cell)  # only a number may begin so
    text = (out / "by_annotator.csv").read_text(encoding="utf-8")
    assert "'=ana" in text and "'+ben" in text and "'@cy" in text


# ------------------------------------------------------------------ 18. bad option values


def test_malformed_image_sizes_csv_is_one_line(capsys, tmp_path):
    yolo = tmp_path / "y" / "ana"
    yolo.mkdir(parents=True)
    (yolo / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    sizes = tmp_path / "sizes.csv"
    sizes.write_text('item,width,height\na,640,480\n"b,800\nc,1,2,3,4,5\n')
    proc = call(
        capsys,
        "report",
        tmp_path / "y",
        "--format",
        "yolo",
        "--image-sizes",
        sizes,
        "--out",
        tmp_path / "o",
        "-q",
    )
    assert_one_line_error(proc, 1, "sizes.csv")


def test_seed_above_int64_is_refused_before_any_output(capsys, corpus_csv, tmp_path):
    out = tmp_path / "o"
    proc = call(capsys, "report", corpus_csv, "--out", out, "--seed", str(2**63), "-q", *FAST)
    assert proc.returncode == 2 and "--seed" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()
    with pytest.raises(ParameterError, match="seed"):
        iaf.report(iaf.simulate(n_items=8, seed=0), out, seed=2**63, n_boot=0)
    assert not out.exists()


# ------------------------------------------------------------------ 19. missing input, no --format


def test_missing_input_without_format_says_no_such_file(capsys, tmp_path):
    proc = call(capsys, "report", tmp_path / "nope.json", "--out", tmp_path / "o", "-q")
    assert_one_line_error(proc, 1, "nope.json", "no such file")
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ 14-17: one line, no traceback


def _coco_text(annotation):
    return (
        '{"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 1, "name": "c"}],'
        f' "annotations": [{annotation}]}}'
    )


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        pytest.param(
            "bad.parquet",
            b"not parquet",
            "not a readable Parquet file",
            marks=pytest.mark.skipif(not HAS_PYARROW, reason="the parquet extra is not installed"),
        ),
        (
            "big.json",
            _coco_text('{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1e999, 9]}'),
            "annotations[0]",
        ),
        (
            "big.json",
            _coco_text(
                '{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, ' + "9" * 400 + ", 9]}"
            ),
            "too large",
        ),
        (
            "digits.json",
            _coco_text(
                '{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, ' + "9" * 5000 + ", 9]}"
            ),
            "annotations[0]",
        ),
        (
            "sur.json",
            _coco_text(
                '{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 9, 9], "rater_id": "\\ud800"}'
            ),
            "surrogate",
        ),
    ],
)
def test_bad_inputs_give_one_line(capsys, tmp_path, name, content, fragment):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    proc = call(capsys, "report", p, "--out", tmp_path / "o", "-q", *FAST)
    assert_one_line_error(proc, 1, name, fragment)


# ------------------------------------------------- #41 S4: the same input twice is named


def test_one_file_given_twice_is_refused(capsys, corpus_csv, tmp_path):
    proc = call(capsys, "report", corpus_csv, corpus_csv, "--out", tmp_path / "r", "-q", *FAST)
    assert_one_line_error(proc, 1, "given twice")
    copy = tmp_path / "copy.csv"
    copy.write_bytes(corpus_csv.read_bytes())
    proc = call(capsys, "report", corpus_csv, copy, "--out", tmp_path / "r", "-q", *FAST)
    assert_one_line_error(proc, 1, "same content")
    assert not (tmp_path / "r").exists()


def test_two_tables_holding_one_annotators_work_are_refused(capsys, corpus_csv, tmp_path):
    df = pd.read_csv(corpus_csv)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    df.to_csv(a, index=False)
    df[df["item"] == df["item"].iloc[0]].to_csv(b, index=False)  # one item again
    proc = call(capsys, "report", a, b, "--out", tmp_path / "r", "-q", *FAST)
    assert_one_line_error(proc, 1, "read twice")


# ------------------------------- #41 I1: a carriage return inside a name, a line feed first


@pytest.mark.parametrize("name", ["cat\r=cmd|' /C calc'!A0", "\n=1+2", "ok\r\n=2"])
def test_a_line_break_in_a_name_never_starts_a_formula_row(tmp_path, name):
    from iaa_frames.report.output import write_csv

    path = tmp_path / "t.csv"
    write_csv(pd.DataFrame({"label": [name], "n": [1]}), path, index=False)
    raw = path.read_bytes().decode()
    # a spreadsheet splits rows at any CR or LF outside quotes: no row starts a formula
    rows = list(csv.reader(raw.splitlines(keepends=True)))
    cells = [c for row in rows for c in row]
    assert not any(c.startswith(("=", "+", "@", "-")) for c in cells), rows
    back = pd.read_csv(path, keep_default_na=False)
    assert back["label"].iloc[0].lstrip("'").replace("\r\n", "\n") in (
        name.replace("\r\n", "\n"),
        name,
    )


def test_image_sizes_csv_of_write_yolo_is_neutralised(tmp_path):
    from iaa_frames.io.writers import write_yolo

    df = iaf.simulate(n_items=2, annotators={"ana": "good"}, seed=0)
    df["item"] = df["item"].replace({df["item"].iloc[0]: "@SUM(A1)"})
    write_yolo(df, tmp_path)
    assert "'@SUM(A1)" in (tmp_path / "image_sizes.csv").read_text()


# ------------------------ #41 D4, S15: the manifest is ours, a second report replaces the first


def test_a_user_file_named_like_the_manifest_is_never_overwritten(corpus_csv, capsys, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text("my notes\nitems.csv\n")
    (out / "items.csv").write_text("mine")
    proc = call(capsys, "report", corpus_csv, "--out", out, "-q", *FAST)
    assert_one_line_error(proc, 1, "not the manifest")
    assert (out / MANIFEST).read_text() == "my notes\nitems.csv\n"
    assert (out / "items.csv").read_text() == "mine"


def test_a_second_report_leaves_no_file_of_the_first(tmp_path):
    df = iaf.simulate(n_items=12, annotators={"ana": "good", "ben": "sloppy"}, seed=4)
    out = tmp_path / "out"
    iaf.report(df, out, n_boot=0, n_chance=100)
    assert (out / "items.csv").is_file() and (out / "pairwise.csv").is_file()
    (out / "notes.txt").write_text("the user's")
    result = iaf.agreement(df, n_boot=0, n_chance=100)
    iaf.report(result, out)  # a result: no items or pairwise tables
    assert not (out / "items.csv").exists() and not (out / "pairwise.csv").exists()
    assert (out / "notes.txt").read_text() == "the user's"
    listed = (out / MANIFEST).read_text().splitlines()
    assert "items.csv" not in listed and "report.html" in listed


# ------------------------------------- #41 B7, S17: bounded replicates, plain ASCII numbers


@pytest.mark.parametrize(
    "option",
    [
        ["--n-boot", "1000000000000"],
        ["--n-boot", "1_0"],
        ["--n-boot", "\u0661\u0662"],
        ["--seed", "0_2"],
        ["--n-chance", "\uff11\uff10"],
    ],
)
def test_huge_or_lenient_numbers_are_usage_errors(capsys, corpus_csv, tmp_path, option):
    proc = call(capsys, "report", corpus_csv, "--out", tmp_path / "r", "-q", *option)
    assert_one_line_error(proc, 2, option[0])
    assert not (tmp_path / "r").exists()
