"""Hostile review, round 6, of the report's output folder and of its "How many more"
section: an empty or ``~`` path, a name too long, a failed report's folders, a corpus
whose within-item distances do not vary or do not exist."""

from __future__ import annotations

import re
import sys
import warnings
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

from iaa_frames.errors import ParameterError  # noqa: E402
from iaa_frames.report import report  # noqa: E402
from iaa_frames.simulate import simulate  # noqa: E402

FAST = {"n_boot": 0, "n_chance": 50}


@pytest.fixture(scope="module")
def small():
    return simulate(n_items=5, seed=0)


def test_an_empty_path_is_refused_not_the_working_folder(small, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for blank in ("", "  "):
        with pytest.raises(ParameterError, match="output folder is empty"):
            report(small, blank, **FAST)
    assert list(tmp_path.iterdir()) == []


def test_a_tilde_path_is_the_home_folder_and_every_file_lands_there(small, tmp_path, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    page = report(small, "~/rep", **FAST)
    assert page == home / "rep" / "report.html"
    assert {"report.html", "agreement.nc", "items.csv"} <= {p.name for p in page.parent.iterdir()}
    assert list(work.iterdir()) == []  # no folder named "~" in the working folder


def test_a_name_too_long_is_a_parameter_error_naming_it(small, tmp_path):
    with pytest.raises(ParameterError, match=r"a{200}.*File name too long"):
        report(small, tmp_path / ("a" * 300), **FAST)
    with pytest.raises(ParameterError, match="NUL character"):  # was Python's ValueError
        report(small, str(tmp_path / "a\0b"), **FAST)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_report_removes_the_folders_it_created(small, tmp_path, monkeypatch):
    rep = sys.modules["iaa_frames.report"]  # the package (its name is also the function's)

    def crash(*args, **kwargs):
        raise RuntimeError("layout")

    monkeypatch.setattr(rep, "render_page", crash)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("the user's")
    with pytest.raises(RuntimeError, match="layout"):
        report(small, mine / "a" / "b" / "c", **FAST)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    with pytest.raises(RuntimeError, match="layout"):
        report(small, mine, **FAST)  # a folder that was there stays, with its file
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def _how_many(page: str) -> str:
    section = re.search(r'<section id="how-many">(.*?)</section>', page, flags=re.S)
    assert section, "the page has a How many more section"
    return section.group(1)


def _na_cells_without_reason(html: str) -> list:
    return [attrs for attrs, _ in re.findall(r"<td([^>]*)>(n/a)", html) if "title=" not in attrs]


def _identical():
    """Three items, two annotators drawing the same box: within-item distances all 0."""
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10 + i, y0=10, x1=50 + i, y1=60,
             width=100, height=100)
        for i in range(3)
        for a in ("A", "B")
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _apart(n_items=8):
    """Two annotators whose boxes never overlap: no matched pair, no localization."""
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=off + i * 0.5, y0=10, x1=off + 40,
             y1=60, width=100, height=100)
        for i in range(n_items)
        for a, off in (("A", 0), ("B", 50))
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("corpus", [_identical, _apart], ids=["identical", "apart"])
def test_how_many_more_says_why_no_item_narrows_the_interval(corpus, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning reaches the user
        page = report(corpus(), tmp_path, n_boot=50, n_chance=50).read_text(encoding="utf-8")
    section = _how_many(page)
    text = re.sub(r"<[^>]+>", " ", section)
    assert not re.search(r"\bnan\b", text), text
    assert _na_cells_without_reason(section) == []
    assert "narrows it by" in text and "no item narrows" in text


def test_agreement_nc_of_many_classes_and_annotators_stays_small_and_reads_back(tmp_path):
    """30 annotators x 60 classes: 7,000 cells, nearly all empty, whose notes were stored
    as strings of variable length (280 bytes a cell, 50 MB for 235 x 200)."""
    import iaa_frames as iaf

    crowd = iaf.simulate_crowd(n_items=16, n_workers=30, per_item=(3, 4), seed=1)
    df = crowd.annotations
    has = df["label"].notna()
    df.loc[has, "label"] = [f"class {i % 60}" for i in range(int(has.sum()))]
    page = report(df, tmp_path, n_boot=0, n_chance=50)
    back = xr.open_dataset(page.parent / "agreement.nc").load()
    cells = back["agreement"].size
    assert cells > 6000
    assert (page.parent / "agreement.nc").stat().st_size < 60 * cells  # was 280 a cell
    ds = iaf.agreement(df, n_boot=0, n_chance=50)
    for name in ("note", "chance_source"):
        assert back[name].values.tolist() == ds[name].values.tolist()
    for name in ("agreement", "n_units", "ci_low", "presence_alpha"):
        np.testing.assert_array_equal(back[name].values, ds[name].values)


class _Prose(HTMLParser):
    """The text of the page's sentences (p, li, figcaption), outside figures and tables."""

    def __init__(self):
        super().__init__()
        self.depth = {"svg": 0, "table": 0}
        self.inside = 0
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag in self.depth:
            self.depth[tag] += 1
        elif tag in ("p", "li", "figcaption"):
            self.inside += 1

    def handle_endtag(self, tag):
        if tag in self.depth:
            self.depth[tag] -= 1
        elif tag in ("p", "li", "figcaption"):
            self.inside -= 1

    def handle_data(self, data):
        if self.inside and not any(self.depth.values()):
            self.text.append(data)


RTL = {"A": "שרה", "B": "علي", "C": "dan\u202eevil"}  # Hebrew, Arabic, an override
RTL_LABELS = {"person": "אדם", "car": "سيارة", "bicycle": "אופניים"}


def test_right_to_left_names_in_sentences_are_isolated(tmp_path):
    """A browser draws "lowest שרה (-0.12)" as "lowest (0.12-) שרה": every name with
    right-to-left letters or a bidi control sits between FSI and PDI in the sentences."""
    df = simulate(n_items=12, seed=1)
    df["annotator"] = df["annotator"].map(RTL)
    df["label"] = df["label"].map(RTL_LABELS)
    page = report(df, tmp_path, n_boot=50, n_chance=200).read_text(encoding="utf-8")
    prose = _Prose()
    prose.feed(page)
    text = "".join(prose.text)
    found = 0
    for name in [*RTL.values(), *RTL_LABELS.values()]:
        for at in [m.start() for m in re.finditer(re.escape(name), text)]:
            found += 1
            assert text[at - 1 : at] == "\u2068", text[max(at - 60, 0) : at + 60]
            assert text[at + len(name) : at + len(name) + 1] == "\u2069", text[at - 60 : at + 60]
    assert found >= 6  # the captions name the highest and lowest class, pair, annotator


def test_names_no_font_draws_are_said_once_by_the_report(tmp_path):
    """The report says once which names no installed font draws (items too); the
    figures laid out before they are written said it again, in other words."""
    from iaa_frames.plot.fonts import MissingGlyphWarning, missing_characters

    if not missing_characters("猫🙂"):
        pytest.skip("a font of this machine draws them")
    df = simulate(n_items=12, seed=1)
    df["annotator"] = df["annotator"].map({"A": "猫", "B": "犬", "C": "🙂"})
    df["item"] = df["item"].astype(str).str.replace("img", "画像", regex=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report(df, tmp_path, n_boot=0, n_chance=100)
    glyphs = [str(w.message) for w in seen if issubclass(w.category, MissingGlyphWarning)]
    assert len(glyphs) == 1, glyphs
    assert "annotator 猫" in glyphs[0] and "item 画像_" in glyphs[0]
