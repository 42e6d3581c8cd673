"""Tests for iaa_frames.report: the HTML parses, holds every section and figure, refers
to nothing external; the files round-trip; the reading follows DESIGN §5's table."""

from __future__ import annotations

import time
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from conftest_plot import make_result  # noqa: E402

from iaa_frames.errors import ParameterError  # noqa: E402
from iaa_frames.io import load_sample  # noqa: E402
from iaa_frames.report import (  # noqa: E402
    GAP,
    HIGH,
    LOW,
    against_chance,
    by_annotator,
    by_label,
    headline,
    level,
    reading,
    relative_levels,
    report,
)
from iaa_frames.simulate import simulate  # noqa: E402

ALL = "(all)"
SECTIONS = ["summary", "headline", "figures", "by-label", "by-annotator", "items",
            "parameters"]
FIGURES = ["fig-agreement", "fig-decomposition", "fig-annotators", "fig-pairwise",
           "fig-distributions_localization", "fig-distributions_detection", "fig-items"]
FILES = ["report.html", "agreement.nc", "agreement.csv", "headline.csv", "by_label.csv",
         "by_annotator.csv", "pairwise.csv", "items.csv"]


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


def test_report_runs_well_under_a_minute(sample_report):
    path, elapsed, _ = sample_report
    print(f"\nreport on the bundled sample (40 images, 4 annotators, n_boot=100): "
          f"{elapsed:.1f} s")
    assert path.name == "report.html"
    assert elapsed < 60


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
    for word in ("detection", "classification", "localization", "overall", "raw IoU",
                 "agreement [95% CI]", "car", "person", "bicycle", "ana", "ben", "chloe",
                 "dev", "n_unmatched", "match_threshold"):
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
    np.testing.assert_allclose(head["agreement"],
                               res["agreement"].sel(label=ALL, annotator=ALL).values)
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
    np.testing.assert_allclose(lab.loc["car", "localization_agreement"],
                               float(res["agreement"].sel(component="localization",
                                                          label="car", annotator=ALL)))


def test_report_rewrites_into_existing_directory(tmp_path):
    out = tmp_path / "nested" / "dir"
    out.mkdir(parents=True)
    (out / "report.html").write_text("stale")
    path = report(simulate(n_items=6, seed=0), out, n_boot=0, n_chance=50, title="again")
    assert path == out / "report.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "again" in text


def test_report_errors(tmp_path):
    df = simulate(n_items=4, seed=0)
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("x")
    with pytest.raises(OSError):
        report(df, not_a_dir, n_boot=0, n_chance=50)
    with pytest.raises(ParameterError, match="n_boot"):
        report(df, tmp_path, n_boot=-1)
    with pytest.raises(ParameterError, match="top"):
        report(df, tmp_path, top=0)
    with pytest.raises(ParameterError, match="title"):
        report(df, tmp_path, title=3)
    with pytest.raises(ParameterError, match="match_threshold"):
        report(df, tmp_path, match_threshold=2)


# ---------------------------------------------------------------------------- reading


def test_sigma_is_read_against_chance_and_the_other_components():
    assert against_chance(0.5, 0.2, 0.7) == "above chance"
    assert against_chance(0.5, -0.1, 0.9) == "chance level"  # the interval includes 0
    assert against_chance(-0.3, -0.5, -0.1) == "below chance"
    assert against_chance(float("nan")) == "undefined"
    lv = relative_levels({"detection": 0.95, "classification": 0.95 - GAP + 0.01,
                          "localization": 0.95 - GAP - 0.01})
    assert lv == {"detection": "high", "classification": "high", "localization": "low"}
    lv = relative_levels({"detection": 0.9, "classification": 0.9, "localization": 0.85},
                         {"localization": (-0.02, 1.0)})  # not distinguishable from chance
    assert lv["localization"] == "low"
    # Krippendorff's thresholds are kept for alpha only
    text = reading(_with((0.9, 0.7, 0.9)))[0]
    assert "classification α = 0.70 (giving matched objects the same class; moderate by " \
           "Krippendorff's thresholds)" in text
    assert "detection σ = 0.90 (finding the same objects; above chance)" in text.lower()


def test_levels():
    assert [level(v) for v in (1.0, HIGH, HIGH - 1e-9, LOW, LOW - 1e-9, 0.0, -0.01)] == [
        "high", "high", "moderate", "moderate", "low", "low", "below chance"]
    assert level(float("nan")) == "undefined" and level(None) == "undefined"


def _with(values, **per_label):
    """A hand-built result whose pooled D, C, L (and optionally per-label) are given."""
    ds = make_result(nan_cells=())
    comps = ["detection", "classification", "localization"]
    for c, v in zip(comps, values):
        ds["agreement"].loc[dict(component=c, label=ALL, annotator=ALL)] = v
    for label, vals in per_label.items():
        for c, v in zip(comps, vals):
            ds["agreement"].loc[dict(component=c, label=label, annotator=ALL)] = v
    ds["ci_low"][:] = np.nan
    ds["ci_high"][:] = np.nan
    return ds


@pytest.mark.parametrize("values, phrase", [
    ((0.9, 0.9, 0.3), "drawing guidelines are too loose"),
    ((0.3, 0.5, 0.9), "definition of \"an object\" is unclear"),
    ((0.3, 0.95, 0.9), "definition of \"an object\" is unclear"),
    ((0.9, 0.3, 0.9), "class definitions overlap or are confusing"),
    ((0.0, 0.0, 0.0), "the task needs rethinking"),  # all at chance level
    ((0.3, 0.3, 0.3), "no component stands out"),  # sigma has no absolute cut-offs
    ((0.9, 0.9, -0.2), "systematic disagreement"),
    ((0.3, 0.9, -0.2), "systematic disagreement"),
    ((0.9, 0.9, 0.9), "no component stands out"),
])
def test_reading_follows_the_diagnosis_table(values, phrase):
    sentences = reading(_with(values))
    assert sentences[0].startswith(f"Detection σ = {values[0]:.2f}")
    assert any(phrase in s for s in sentences), sentences


def test_reading_names_classes_and_annotators():
    ds = _with((0.9, 0.9, 0.9), car=(0.9, 0.3, 0.9), person=(0.9, 0.9, 0.9),
               bicycle=(0.9, 0.9, 0.9))
    for a in ("ana", "ben", "chloe"):
        for c in ("detection", "classification", "localization"):
            ds["agreement"].loc[dict(component=c, label=ALL, annotator=a)] = 0.9
    ds["agreement"].loc[dict(component="localization", label=ALL, annotator="ben")] = 0.4
    text = " ".join(reading(ds))
    assert "Class car: annotators find and draw the same objects but label them" in text
    assert "On localization, ben (0.40) is clearly below everybody (0.90)" in text
    assert "this annotator draws the objects everybody found less precisely" in text
    assert "person" not in text
    # two annotators below: plural
    ds["agreement"].loc[dict(component="classification", label=ALL, annotator="ana")] = 0.5
    ds["agreement"].loc[dict(component="classification", label=ALL, annotator="chloe")] = 0.4
    text = " ".join(reading(ds))
    assert ("On classification, chloe (0.40), ana (0.50) are clearly below everybody "
            "(0.90): they label the objects everybody found differently") in text


def test_reading_flags_ks_above_sigma_and_ci_through_zero():
    ds = _with((0.9, 0.9, 0.3))
    sel = dict(component="localization", label=ALL, annotator=ALL)
    ds["ks"].loc[sel], ds["ks_sign"].loc[sel] = 0.8, 1.0
    ds["ci_low"].loc[sel], ds["ci_high"].loc[sel] = -0.05, 0.6
    text = " ".join(reading(ds))
    assert "a minority of items concentrates the disagreement" in text
    assert "The confidence interval of localization [-0.05, 0.60] includes 0" in text


def test_tables_of_a_result():
    ds = make_result()
    assert headline(ds).index.tolist() == ["detection", "classification", "localization",
                                           "overall"]
    lab = by_label(ds)
    assert lab.index.tolist() == [ALL, "car", "person", "bicycle"]
    assert lab.loc["car", "overall_agreement"] == float(
        ds["agreement"].sel(component="overall", label="car", annotator=ALL))
    assert by_annotator(ds).index.tolist() == [ALL, "ana", "ben", "chloe"]


def test_reading_explains_undefined_figures():
    ds = _with((0.9, 0.9, np.nan))
    ds["note"].loc[dict(component="localization", label=ALL, annotator=ALL)] = \
        "too few chance units (n=3)"
    text = " ".join(reading(ds))
    assert "localization σ = n/a (drawing matched objects in the same place; undefined)" \
        in text
    assert "Localization is undefined (NaN, not 0 or 1 by fiat): too few chance units (n=3)." \
        in text
    assert "raw mean IoU" not in text  # nothing to contrast it with


# ------------------------------------------------------------------ threshold sweeps


def _page(path):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_report_of_a_threshold_sweep(tmp_path):
    df = simulate(n_items=20, seed=2, annotators={"a": "good", "b": "sloppy", "c": "misser"})
    taus = [0.3, 0.5, 0.7]
    path = report(df, tmp_path / "sweep", match_threshold=[0.7, 0.5, 0.3], n_boot=20,
                  n_chance=200)
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
    assert loc["agreement"].iloc[0] == pytest.approx(float(swept["agreement"].sel(
        threshold=0.3, component="localization", label=ALL, annotator=ALL)))
    # everything else is the report at 0.5 alone
    alone = report(df, tmp_path / "alone", match_threshold=0.5, n_boot=20, n_chance=200)
    for name in ("headline.csv", "by_label.csv", "pairwise.csv", "items.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "sweep" / name),
                                      pd.read_csv(alone.parent / name))
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
