"""Hostile review, round 6, of the command line's output folder: an empty ``--out`` (an
unset shell variable) and a ``--out=~/DIR`` the shell did not expand."""

from __future__ import annotations

import pytest
from helpers import FAST, assert_one_line_error, call

import iaa_frames as iaf


@pytest.fixture(scope="module")
def corpus_csv(tmp_path_factory):
    df = iaf.simulate(n_items=6, annotators={"ana": "good", "ben": "sloppy"}, seed=4)
    path = tmp_path_factory.mktemp("round6_cli") / "items.csv"
    df.drop(columns="geometry").to_csv(path, index=False)
    return path


def test_an_empty_out_is_one_line_and_writes_nothing(capsys, corpus_csv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proc = call(capsys, "report", corpus_csv, "--out", "", "-q", *FAST)
    assert_one_line_error(proc, 1, "output folder is empty")
    proc = call(capsys, "demo", "--out", "", "-q", *FAST)
    assert_one_line_error(proc, 1, "output folder is empty")
    assert list(tmp_path.iterdir()) == []


def test_an_unexpanded_tilde_out_writes_under_home(capsys, corpus_csv, tmp_path, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    proc = call(capsys, "report", corpus_csv, "--out=~/rep", "-q", *FAST)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(home / "rep" / "report.html")
    assert (home / "rep" / "agreement.nc").is_file()
    assert list(work.iterdir()) == []


def test_dropped_rows_go_beside_the_report_under_home(capsys, corpus_csv, tmp_path, monkeypatch):
    import pandas as pd

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    df = pd.read_csv(corpus_csv)
    bad = df[df["label"].notna()].head(1)
    bad = bad.assign(x1=bad["x0"], object_id=df["object_id"].max() + 1)  # a zero-area box
    pd.concat([df, bad]).to_csv(work / "with_bad.csv", index=False)
    proc = call(
        capsys, "report", work / "with_bad.csv", "--out=~/rep", "--on-invalid", "drop", "-q",
        *FAST,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    said = [ln for ln in proc.stderr.splitlines() if "dropped.csv" in ln]
    assert said and str(home / "rep" / "dropped.csv") in said[0]
    assert len(pd.read_csv(home / "rep" / "dropped.csv")) == 1
    assert sorted(p.name for p in work.iterdir()) == ["with_bad.csv"]


def test_a_reader_that_leaves_early_gets_no_broken_pipe_message(tmp_path):
    """``iaa-frames demo | true``: the report is written, the pipe's reader is gone before
    the summary; no "[Errno 32] Broken pipe" and no "Exception ignored" at the exit."""
    import subprocess
    import sys

    out = tmp_path / "demo"
    proc = subprocess.Popen(
        [sys.executable, "-m", "iaa_frames", "demo", "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader leaves at once
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=300) in (0, 1)
    assert "Broken pipe" not in err and "Exception ignored" not in err, err
    assert (out / "agreement.csv").exists()
