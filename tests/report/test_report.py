"""Tests for iaa_frames.report (the ``report()`` entry point): the HTML parses, holds every
section and figure, refers to nothing external; the files round-trip; threshold sweeps.
The reading itself is tested in test_report_diagnosis.py, the tables written in
test_views.py."""

from __future__ import annotations

import importlib
import time
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

from iaa_frames.errors import ParameterError  # noqa: E402
from iaa_frames.io import load_sample  # noqa: E402
from iaa_frames.report import headline, reading, report  # noqa: E402
from iaa_frames.simulate import simulate  # noqa: E402

ALL = "(all)"
SECTIONS = ["summary", "headline", "figures", "by-label", "by-annotator", "items", "parameters"]
FIGURES = [
    "fig-agreement",
    "fig-decomposition",
    "fig-annotators",
    "fig-pairwise",
    "fig-distributions_localization",
    "fig-distributions_detection",
    "fig-items",
]
FILES = [
    "report.html",
    "agreement.nc",
    "agreement.csv",
    "headline.csv",
    "by_label.csv",
    "by_annotator.csv",
    "pairwise.csv",
    "items.csv",
]


class Page(HTMLParser):
    """Collects ids, the tag path of every id, src/href values and text."""

    def __init__(self):
        super().__init__()
        self.stack, self.ids, self.links, self.tags, self.text = [], {}, [], [], []
        self.svg_in = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids[attrs["id"]] = tag
        for key in ("src", "href", "xlink:href", "action", "data"):
            if key in attrs:
                self.links.append((tag, key, attrs[key]))
        if tag == "svg":
            figs = [i for t, i in self.stack if t == "figure"]
            if figs:
                self.svg_in[figs[-1]] = self.svg_in.get(figs[-1], 0) + 1
        if tag not in ("meta", "br", "img", "link", "input", "hr"):
            self.stack.append((tag, attrs.get("id")))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if data.strip():
            self.text.append(data.strip())


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    df = load_sample("coco")
    start = time.perf_counter()
    path = report(df, out, n_boot=100, seed=0, title="Sample <report> & co")
    elapsed = time.perf_counter() - start
    return path, elapsed, df


def test_report_of_the_bundled_sample(sample_report):
    path, elapsed, _ = sample_report
    print(
        f"\nreport on the bundled sample (40 images, 4 annotators, n_boot=100): {elapsed:.1f} s"
    )  # timing only shown: benchmarks/ holds the timings
    assert path.name == "report.html"
    assert path.parent.is_dir() and sorted(p.name for p in path.parent.iterdir()) == sorted(
        FILES + ["conflicts.csv", "conflict_counts.csv", ".iaa-frames-report"]
    )


def test_html_parses_with_every_section_and_figure(sample_report):
    path, _, _ = sample_report
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    for sid in SECTIONS:
        assert page.ids.get(sid) == "section", sid
    for fid in FIGURES:
        assert page.ids.get(fid) == "figure", fid
        assert page.svg_in.get(fid) == 1, f"{fid} has no inline SVG"
    text = " ".join(page.text)
    assert "could not be drawn" not in text
    # headline rows, per-label and per-annotator tables, hardest items
    for word in (
        "detection",
        "classification",
        "localization",
        "overall",
        "raw IoU",
        "pairings",
        "matched pairs",
        "car",
        "person",
        "bicycle",
        "ana",
        "ben",
        "chloe",
        "dev",
        "matched by nobody",
        "match_threshold",
    ):
        assert word in text, word
    # the title is escaped, not injected
    assert "Sample <report> & co" in text
    assert page.tags.count("table") >= 6


def test_no_external_reference(sample_report):
    path, _, _ = sample_report
    html_text = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(html_text)
    for tag, key, value in page.links:
        assert not value.startswith(("http:", "https:", "//", "ftp:")), (tag, key, value)
        assert value.startswith("#"), (tag, key, value)  # only in-page anchors
    assert "http://" not in html_text and "https://" not in html_text
    assert "<script" not in html_text and "<link" not in html_text
    assert "<image" not in html_text  # every figure is vector, no embedded raster
    assert "@import" not in html_text and "url(http" not in html_text
    ids = [i for i in page.ids]
    assert len(ids) == len(set(ids))  # ids unique across the inline SVGs


def test_reading_is_in_the_report(sample_report):
    path, _, _ = sample_report
    res = xr.open_dataset(path.parent / "agreement.nc")
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    text = " ".join(page.text)
    sentences = reading(res)
    assert len(sentences) >= 3
    for s in sentences:
        assert s in text


def test_files_round_trip(sample_report):
    path, _, df = sample_report
    out = path.parent
    for name in FILES:
        assert (out / name).is_file(), name
    res = xr.open_dataset(out / "agreement.nc").load()
    assert res["agreement"].dims == ("component", "label", "annotator")
    assert [str(v) for v in res["label"].values] == [ALL, "bicycle", "car", "person"]
    assert int(res.attrs["n_boot"]) == 100
    assert res["agreement"].attrs["long_name"] == "chance-corrected agreement"
    head = pd.read_csv(out / "headline.csv", index_col=0)
    assert head.index.tolist() == ["detection", "classification", "localization", "overall"]
    np.testing.assert_allclose(
        head["agreement"], res["agreement"].sel(label=ALL, annotator=ALL).values
    )
    long = pd.read_csv(out / "agreement.csv")
    assert len(long) == res["agreement"].size
    assert {"component", "label", "annotator", "agreement", "ci_low", "note"} <= set(long)
    items = pd.read_csv(out / "items.csv")
    assert set(items["component"]) == {"localization", "detection"}
    assert items.groupby("component").size().tolist() == [40, 40]
    pw = pd.read_csv(out / "pairwise.csv")
    assert set(pw["component"]) == {"detection", "classification", "localization", "overall"}
    assert len(pw) == 4 * 4 * 4
    lab = pd.read_csv(out / "by_label.csv", index_col=0)
    np.testing.assert_allclose(
        lab.loc["car", "localization_agreement"],
        float(res["agreement"].sel(component="localization", label="car", annotator=ALL)),
    )


def test_report_rewrites_into_existing_directory(tmp_path):
    out = tmp_path / "nested" / "dir"
    report(simulate(n_items=6, seed=0), out, n_boot=0, n_chance=50)
    (out / "report.html").write_text("stale")  # a file an earlier report wrote is replaced
    path = report(simulate(n_items=6, seed=0), out, n_boot=0, n_chance=50, title="again")
    assert path == out / "report.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "again" in text


def test_report_errors(tmp_path):
    df = simulate(n_items=4, seed=0)
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("x")
    with pytest.raises(ParameterError, match="file.txt exists and is not a directory"):
        report(df, not_a_dir, n_boot=0, n_chance=50)
    with pytest.raises(ParameterError, match="n_boot"):
        report(df, tmp_path, n_boot=-1)
    with pytest.raises(ParameterError, match="top"):
        report(df, tmp_path, top=0)
    with pytest.raises(ParameterError, match="title"):
        report(df, tmp_path, title=3)
    with pytest.raises(ParameterError, match="match_threshold"):
        report(df, tmp_path, match_threshold=2)


# ------------------------------------------------------------------ threshold sweeps


def _page(path):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_report_of_a_threshold_sweep(tmp_path):
    df = simulate(n_items=20, seed=2, annotators={"a": "good", "b": "sloppy", "c": "misser"})
    taus = [0.3, 0.5, 0.7]
    path = report(df, tmp_path / "sweep", match_threshold=[0.7, 0.5, 0.3], n_boot=20, n_chance=200)
    page = _page(path)
    for sid in SECTIONS + ["threshold"]:
        assert page.ids.get(sid) == "section", sid
    assert page.ids.get("fig-threshold") == "figure" and page.svg_in["fig-threshold"] == 1
    text = " ".join(page.text)
    assert "How to read the figure" in text and "could not be drawn" not in text
    assert "the rest of this report is at τ = 0.5" in text
    for tau in taus:
        assert f"τ = {tau:g}" in text
    # the section comes right after the headline
    order = [sid for sid in page.ids if page.ids[sid] == "section"]
    assert order[order.index("headline") + 1] == "threshold"
    with xr.open_dataset(tmp_path / "sweep" / "agreement.nc") as res:
        assert res["threshold"].values.tolist() == taus
    table = pd.read_csv(tmp_path / "sweep" / "thresholds.csv")
    assert len(table) == 4 * len(taus)
    swept = xr.open_dataset(tmp_path / "sweep" / "agreement.nc").load()
    loc = table[(table["component"] == "localization") & (table["threshold"] == 0.3)]
    assert loc["agreement"].iloc[0] == pytest.approx(
        float(
            swept["agreement"].sel(
                threshold=0.3, component="localization", label=ALL, annotator=ALL
            )
        )
    )
    # everything else is the report at 0.5 alone
    alone = report(df, tmp_path / "alone", match_threshold=0.5, n_boot=20, n_chance=200)
    for name in ("headline.csv", "by_label.csv", "pairwise.csv", "items.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "sweep" / name), pd.read_csv(alone.parent / name)
        )
    assert "threshold" not in _page(alone).ids


def test_report_of_a_swept_result(tmp_path):
    df = simulate(n_items=12, seed=2)
    res = df.iaa.agreement(match_threshold=[0.4, 0.8], n_boot=10, n_chance=100)
    page = _page(report(res, tmp_path))
    assert page.ids.get("threshold") == "section" and page.svg_in["fig-threshold"] == 1
    assert "the rest of this report is at τ = 0.4" in " ".join(page.text)
    head = pd.read_csv(tmp_path / "headline.csv", index_col=0)
    want = headline(res.sel(threshold=0.4))
    np.testing.assert_allclose(head["agreement"], want["agreement"].to_numpy())


def test_report_threshold_errors(tmp_path):
    df = simulate(n_items=4, seed=0)
    for bad in ([], [0.2, 1.4], "0.3,0.5"):
        with pytest.raises(ParameterError, match="match_threshold"):
            report(df, tmp_path, match_threshold=bad, n_boot=0)


def test_every_na_of_the_page_says_why(sample_report):
    """A table cell "n/a" (or "—") carries its reason on hover and as a numbered footnote;
    a figure that writes "n/a" writes the reason under it."""
    path, _, _ = sample_report
    assert_every_na_says_why(path.read_text(encoding="utf-8"))


def test_every_na_of_a_sweep_says_why(tmp_path):
    page = report(load_sample("coco"), tmp_path, n_boot=0, match_threshold=[0.5, 0.9])
    page = page.read_text(encoding="utf-8")
    assert 'id="tau-note-1"' in page  # localization is undefined at 0.9
    assert_every_na_says_why(page)


def assert_every_na_says_why(page):
    import re

    body = re.sub(r"<svg.*?</svg>", "", page, flags=re.S)
    cells = re.findall(r"<td([^>]*)>(n/a|—)(.*?)</td>", body)
    assert cells, "the sample has undefined cells (localization of ben and chloe, KS of α)"
    for attrs, _, mark in cells:
        assert 'title="' in attrs and "<sup><a href=" in mark, attrs
    reasons = re.findall(r'<li id="([\w-]+note-\d+)" value=\d+>([^<]+)</li>', body)
    assert {f"{i}" for i in re.findall(r'<sup><a href="#([\w-]+)">', body)} <= {
        i for i, _ in reasons
    }
    text = " ".join(r for _, r in reasons)
    for why in ("too few chance units", "a localization figure", "no KS"):
        assert why in text
    for svg in re.findall(r"<svg.*?</svg>", page, flags=re.S):
        if re.search(r">n/a<", svg):
            assert "n/a: " in svg or "no pair has a defined" in svg


def test_headline_and_reading_come_first_glossary_after(sample_report):
    import re

    path, _, _ = sample_report
    page = path.read_text(encoding="utf-8")
    order = re.findall(r'<section id="([\w-]+)"><h2>([^<]+)</h2>', page)
    ids = [i for i, _ in order]
    assert ids[:2] == ["headline", "summary"]
    assert ids.index("how-to-read") > ids.index("items")
    headings = [t for _, t in order] + re.findall(r"<h3>([^<]+)</h3>", page)
    assert headings.count("Hardest items") == 1  # the figure sits in its section
    assert 'id="fig-items"' in page.split('<section id="items">')[1].split("</section>")[0]
    assert "iaa_frames agreement" not in page  # the Dataset's title is not the page's


def test_two_raters_say_why_their_rows_equal_all(tmp_path):
    df = simulate(n_items=20, annotators={"ana": "good", "ben": "sloppy"}, seed=0)
    page = report(df, tmp_path, n_boot=0, n_chance=200).read_text(encoding="utf-8")
    assert "With two annotators each annotator's row equals (all)" in page
    assert "With two annotators" not in (
        report(simulate(n_items=20, seed=0), tmp_path / "b", n_boot=0, n_chance=200).read_text(
            encoding="utf-8"
        )
    )


@pytest.mark.slow
def test_chromium_renders_the_page(sample_report, tmp_path):
    """Headless Chromium (the Debian package) opens the report with no console error and
    draws a page that is not blank."""
    import shutil
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    path, _, _ = sample_report
    shot = tmp_path / "page.png"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--window-size=1280,3000",
        # a profile of its own: with the default one, a chromium already running (another
        # test run, a user's browser) takes the page over and no screenshot is written
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    done = subprocess.run(
        [
            browser,
            *flags,
            "--enable-logging=stderr",
            "--v=0",
            f"--screenshot={shot}",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert shot.exists(), done.stderr[-2000:]
    console = [ln for ln in done.stderr.splitlines() if "CONSOLE" in ln and "ERROR" in ln.upper()]
    assert console == []
    from PIL import Image

    image = Image.open(shot).convert("L")
    lo, hi = image.getextrema()
    assert hi - lo > 100  # text and figures, not a blank page
    colors = image.getcolors(maxcolors=1 << 16)
    assert colors is None or len(colors) > 20


def test_report_after_agreement_reuses_its_result(tmp_path, monkeypatch):
    # issue #24: after df.iaa.agreement() with the same parameters, report() only draws
    # and writes: neither the pair tables nor the result are computed again
    from iaa_frames.core.engine import memo

    df = simulate(n_items=8, seed=3)
    res = df.iaa.agreement(n_boot=20, n_chance=100)
    calls = []
    original = memo.agreement_from_tables
    monkeypatch.setattr(
        memo, "agreement_from_tables", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    report(df, tmp_path, n_boot=20, n_chance=100)
    assert calls == []
    with xr.open_dataset(tmp_path / "agreement.nc") as ds:
        written = ds.load()
    np.testing.assert_array_equal(written["agreement"].values, res["agreement"].values)
    assert "tables_key" not in written.attrs  # a cache name of this process only
    report(df, tmp_path, n_boot=10, n_chance=100)  # other parameters: computed
    assert calls == [1]


# ------------------------------------------- #41 T8: output paths, a failed second report


def test_t8_output_paths_that_cannot_be_written_name_the_path(tmp_path, monkeypatch):
    import os

    from iaa_frames.report import output

    df = simulate(n_items=4, seed=0)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ParameterError, match=r"file.txt.*: cannot create the output there"):
        report(df, tmp_path / "file.txt" / "sub", n_boot=0, n_chance=50)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.geteuid() == 0:  # root writes into a read-only folder: the system's refusal

        def refused(*args, dir=None, **kwargs):
            raise PermissionError(13, "Permission denied", str(dir))

        monkeypatch.setattr(output.tempfile, "mkdtemp", refused)
    try:
        with pytest.raises(ParameterError, match=r"ro: cannot write.*no permission to write"):
            report(df, ro, n_boot=0, n_chance=50)
    finally:
        ro.chmod(0o700)
    assert list(ro.iterdir()) == []


def test_t8_a_failed_second_report_leaves_the_first_whole(tmp_path, monkeypatch):
    import sys

    rep = sys.modules["iaa_frames.report"]  # the package (its name is also the function's)

    out = tmp_path / "r"
    report(simulate(n_items=6, seed=0), out, n_boot=0, n_chance=50, title="first")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device", str(out / "items.csv"))

    monkeypatch.setattr(rep, "render_page", broken)
    with pytest.raises(ParameterError, match="No space left on device"):
        report(simulate(n_items=9, seed=1), out, n_boot=0, n_chance=50, title="second")
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert after == before  # no staging folder left, every file the first report's

    def crash(*args, **kwargs):
        raise RuntimeError("layout")

    monkeypatch.setattr(rep, "render_page", crash)
    with pytest.raises(RuntimeError):
        report(simulate(n_items=9, seed=1), out, n_boot=0, n_chance=50, title="second")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    monkeypatch.undo()
    report(simulate(n_items=9, seed=1), out, n_boot=0, n_chance=50, title="second")
    assert "second" in (out / "report.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir()) == sorted(before)


def test_a_label_of_the_longest_length_and_integer_labels_in_floats(tmp_path):
    # #41 T5: a 1,000-character label (the longest a frame may hold) collapsed the
    # figures' layout; #42: integer labels read as floats were written "0.0", "1.0"
    import re
    import warnings

    from iaa_frames.frame.schema import MAX_NAME_CHARS

    df = simulate(n_items=12, seed=0)
    long = "L" * (MAX_NAME_CHARS - 4) + "_end"
    codes = {"bicycle": 0.0, "car": 1.0, "person": long}
    df["label"] = df["label"].map(codes).astype(object)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = report(df, tmp_path, n_boot=20, n_chance=200).read_text(encoding="utf-8")
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "could not be drawn" in m or "constrained_layout" in m]
    figures = "".join(re.findall(r"<svg.*?</svg>", page, flags=re.S))
    assert long not in figures and "…" in figures and "_end" in figures  # cut for display
    tables = "".join(re.findall(r"<table.*?</table>", page, flags=re.S))
    assert long in tables  # in full
    labels = pd.read_csv(tmp_path / "by_label.csv", keep_default_na=False)["label"].tolist()
    assert sorted(labels) == sorted(["(all)", "0", "1", long])
    assert "<th>0</th>" in tables and "<th>1</th>" in tables  # the classes' rows
    assert "<th>0.0</th>" not in tables and "<th>1.0</th>" not in tables


# ------------------------------- #41 B6: a crowd of many annotators


def test_b6_report_of_a_big_crowd_computes_the_pairs_of_max_annotators_only(tmp_path, monkeypatch):
    """10,000 annotators made the report build 10,000 x 10,000 tables of pairs (past 22 GB
    at 2,000); now only the pairs of MAX_ANNOTATORS, and the report says who is left out."""
    pairwise_module = importlib.import_module("iaa_frames.core.engine.pairwise")
    from iaa_frames.report.formatting import MAX_ANNOTATORS

    rng = np.random.default_rng(0)
    n_ann = MAX_ANNOTATORS + 15  # 2 boxes each on 2 of 10 images
    items = np.column_stack([rng.integers(0, 10, n_ann), rng.integers(0, 10, n_ann)]).ravel()
    x = rng.integers(0, 4, size=2 * n_ann) * 100 + rng.normal(0, 2, size=2 * n_ann)
    df = pd.DataFrame(
        {
            "item": [f"img{i}" for i in items],
            "annotator": np.repeat([f"w{k:03d}" for k in range(n_ann)], 2),
            "label": "cat",
            "x0": x,
            "y0": x,
            "x1": x + 50,
            "y1": x + 50,
            "width": 500.0,
            "height": 500.0,
        }
    )
    seen = []
    real = pairwise_module.pairwise_from_tables

    def spy(tables, **kwargs):
        seen.append(kwargs.get("annotators"))
        return real(tables, **kwargs)

    monkeypatch.setattr("iaa_frames.core.engine.memo.pairwise_from_tables", spy)
    report(df, tmp_path / "r", n_boot=0, n_chance=200, progress=False)
    assert seen and all(a is not None and len(a) == MAX_ANNOTATORS for a in seen)
    pairs = pd.read_csv(tmp_path / "r" / "pairwise.csv")
    assert pairs["annotator_a"].nunique() == MAX_ANNOTATORS
    assert set(pairs["annotator_b"]) == set(pairs["annotator_a"])
    page = " ".join((tmp_path / "r" / "report.html").read_text().split())
    assert f"Pairs of the {MAX_ANNOTATORS} annotators taking part in most pairings" in page
    assert f"of {n_ann}: the 15 others (" in page and "left out of these heatmaps" in page
