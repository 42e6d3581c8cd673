"""Tests for the report's "Where they disagree" section (iaa_frames.report.disagreement):
the section and its figures are in the page, the CSV files equal the functions' output,
a failing figure becomes a warning, not a broken report."""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import IAAWarning
from iaa_frames.report.disagreement import disagreement_section


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    df = iaf.load_sample("coco")
    out = tmp_path_factory.mktemp("report")
    path = iaf.report(df, out, n_boot=0, n_chance=200)
    return df, path


def test_section_in_page_with_figures(written):
    _, path = written
    page = path.read_text(encoding="utf-8")
    sec = re.search(r'<section id="disagree">(.*?)</section>', page, re.DOTALL)
    assert sec, "section missing"
    body = sec.group(1)
    assert "<h2>Where they disagree</h2>" in body
    for fig in ("fig-worst-items", "fig-confusion"):
        m = re.search(rf'<figure id="{fig}">(.*?)</figure>', body, re.DOTALL)
        assert m and "<svg" in m.group(1), fig
    assert "Conflicts by annotator" in body and "Conflicts by class" in body
    assert '<a href="#disagree">Where they disagree</a>' in page
    # before the parameters, after the hardest items
    assert page.index('id="items"') < page.index('id="disagree"') < page.index('id="parameters"')


def test_csv_files_equal_the_functions(written):
    df, path = written
    t = iaf.pair_tables(df, n_chance=200)
    got = pd.read_csv(path.parent / "conflicts.csv")
    want = iaf.conflicts(t)
    assert len(got) == len(want)
    assert got["kind"].value_counts().to_dict() == want["kind"].value_counts().to_dict()
    assert got["object_id_a"].tolist() == want["object_id_a"].tolist()
    counts = pd.read_csv(path.parent / "conflict_counts.csv")
    assert counts["count"].sum() == iaf.conflict_counts(want)["count"].sum()


class _Cells(HTMLParser):
    """Rows of the first <table>: lists of cell texts."""

    def __init__(self):
        super().__init__()
        self.rows, self.depth, self.done = [], 0, False

    def handle_starttag(self, tag, attrs):
        if self.done:
            return
        if tag == "table":
            self.depth += 1
        elif tag == "tr" and self.depth:
            self.rows.append([])
        elif tag in ("td", "th") and self.depth:
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
            self.done = True

    def handle_data(self, data):
        if self.depth and not self.done and self.rows and self.rows[-1]:
            self.rows[-1][-1] += data.strip()


def test_counts_table_matches(written):
    df, path = written
    page = path.read_text(encoding="utf-8")
    body = re.search(r'<section id="disagree">(.*?)</section>', page, re.DOTALL).group(1)
    cells = _Cells()
    cells.feed(body)
    head, *rows = cells.rows
    assert head[0] == "annotator"
    table = {r[0]: dict(zip(head[1:], map(int, r[1:]))) for r in rows}
    want = iaf.conflicts(df, n_chance=200)["kind"].value_counts()
    # the page writes the kinds as words ("low overlap" for low_overlap)
    assert table["(all)"] == {k.replace("_", " "): v for k, v in want.to_dict().items()}


def test_failing_figure_warns(monkeypatch):
    t = iaf.pair_tables(iaf.simulate(n_items=6, seed=0), n_chance=30)

    def broken(fig, name):
        raise RuntimeError("no svg today")

    with pytest.raises(RuntimeError):
        disagreement_section(t, svg=broken)  # the svg callback is the caller's

    def svg(fig, name):
        matplotlib.pyplot.close(fig)
        return "<svg></svg>"

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body, _files = disagreement_section(t, svg=svg, n_items=2)
    assert body.count("<svg></svg>") == 2
    import iaa_frames.plot

    def boom(*args, **kwargs):
        raise ValueError("cannot draw this")

    monkeypatch.setattr(iaa_frames.plot, "confusion", boom)
    with pytest.warns(IAAWarning, match="could not be drawn.*cannot draw this"):
        body, _ = disagreement_section(t, svg=svg, n_items=2)
    assert 'class="warn"' in body and body.count("<svg></svg>") == 1


def test_no_conflicts_sentence():
    df = iaf.simulate(n_items=4, annotators={"a": "perfect", "b": "perfect"}, seed=0)
    t = iaf.pair_tables(df, n_chance=20)
    body, files = disagreement_section(t, svg=lambda fig, name: "<svg></svg>")
    assert "No conflicts" in body and files["conflicts.csv"].empty


def test_confusion_alpha_is_not_called_the_classification_alpha(written):
    """The confusion figure's α ("all" 0.72 on the sample) is Krippendorff's, from the
    pairs' own labels; its caption called it "the classification α", which the tables
    above give as 0.75 (and as n/a on a corpus where the figure gives 0.76). The caption
    names which α it is and that it is not the tables'."""
    df, path = written
    page = path.read_text(encoding="utf-8")
    caption = re.search(
        r'<figure id="fig-confusion">.*?<figcaption>(.*?)</figcaption>', page, re.DOTALL
    ).group(1)
    headline = pd.read_csv(path.parent / "headline.csv").set_index("component")
    figure_alpha = iaf.confusion(df, n_chance=200).attrs["alpha"]
    assert round(figure_alpha, 2) != round(headline.loc["classification", "agreement"], 2)
    assert "the classification α of each class" not in caption
    assert "Krippendorff" in caption and "not the classification α" in caption
