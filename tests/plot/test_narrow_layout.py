"""Figures at one column (3.5 in) with long, unicode and CJK class names and a crowd: no
text overlaps another or runs past the figure's edge; missing glyphs are said once."""

from __future__ import annotations

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.plot import fonts, style

LATIN = ("very_long_class_name_number_one_left", "very_long_class_name_number_one_right",
         "another_rather_long_category", "short")  # fmt: skip
UNICODE = ("très_long_nom_de_classe_avec_accents_éèà_ÉÈ", "中文类别名称非常长的一个类别",
           "Ελληνική_κατηγορία_μακριά_πολύ", "emoji🐱🐶_class_name_that_is_long")  # fmt: skip


def boxes(n_items=10, annotators=("a", "b", "c"), labels=("cat", "dog"), seed=0, per=4):
    """Boxes drawn by ``annotators`` around ``per`` objects an item, jittered, some missed
    and some relabelled."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        objs = [(*rng.uniform(0, 300, 2), *rng.uniform(20, 100, 2), rng.integers(len(labels)))
                for _ in range(per)]  # fmt: skip
        for a in annotators:
            for x, y, w, h, lab in objs:
                if rng.random() < 0.15:
                    continue
                j = rng.normal(0, 5, 4)
                if rng.random() < 0.1:
                    lab = rng.integers(len(labels))
                rows.append({"item": f"img{i}", "annotator": a, "label": labels[lab],
                             "x0": x + j[0], "y0": y + j[1], "x1": x + w + j[2],
                             "y1": y + h + j[3], "width": 500, "height": 500})  # fmt: skip
    return pd.DataFrame(rows)


def crowd():
    """60 annotators, three on each of 20 items."""
    rng = np.random.default_rng(1)
    names = [f"worker_{k:02d}" for k in range(60)]
    parts = []
    for i in range(20):
        part = boxes(1, annotators=list(rng.choice(names, 3, replace=False)), seed=i)
        parts.append(part.assign(item=f"img{i}"))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module", params=["latin", "unicode"])
def long_names(request):
    df = boxes(labels=LATIN if request.param == "latin" else UNICODE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df, iaf.agreement(df, n_boot=20, n_chance=100, seed=0)


def drawn(fig):
    """The figure drawn (glyph warnings aside) and its renderer."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig.canvas.draw()
    return fig.canvas.get_renderer()


def inside(fig, text, renderer):
    box = text.get_window_extent(renderer)
    return (box.x0 >= -1 and box.y0 >= -1 and box.x1 <= fig.bbox.width + 1
            and box.y1 <= fig.bbox.height + 1)  # fmt: skip


def apart(a, b, renderer, tolerance=1.0):
    """Whether the window extents of two texts overlap by no more than ``tolerance`` px."""
    p, q = a.get_window_extent(renderer), b.get_window_extent(renderer)
    dx = min(p.x1, q.x1) - max(p.x0, q.x0)
    dy = min(p.y1, q.y1) - max(p.y0, q.y0)
    return dx <= tolerance or dy <= tolerance


def test_forest_titles_apart_and_inside(long_names):
    """At 3.5 in, long class names left the panels too narrow: "detection σ" and
    "classification α" overlapped, the second and "uncorrected mean IoU" ran past the
    right edge."""
    _, res = long_names
    fig = res.iaa.plot.forest(width=3.5)
    renderer = drawn(fig)
    titles = [ax.title for ax in fig.axes if ax.get_title()]
    assert len(titles) == 5
    for a, b in itertools.combinations(titles, 2):
        assert apart(a, b, renderer), (a.get_text(), b.get_text())
    for ax in fig.axes:
        for text in (ax.title, ax.xaxis.label, *ax.get_yticklabels()):
            if text.get_text() and text.get_visible():
                assert inside(fig, text, renderer), text.get_text()


def test_decomposition_note_inside(long_names):
    """At 3.5 in the note under the figure (why values are n/a, naming long classes) was
    cut at the right edge."""
    _, res = long_names
    ax = res.iaa.plot.decomposition(width=3.5)
    renderer = drawn(ax.figure)
    notes = [t for t in ax.texts if t.get_gid() == "note"]
    assert notes
    for text in notes:
        assert inside(ax.figure, text, renderer), text.get_text()


def test_worst_items_crowd_legend_inside():
    """60 annotators at 3.5 in: the legend ran off the right edge ("no match by (✕ co")."""
    fig = crowd().iaa.plot.worst_items(width=3.5, n_chance=100)
    renderer = drawn(fig)
    texts = [t for legend in fig.legends for t in legend.get_texts()]
    assert texts
    for text in texts:
        assert inside(fig, text, renderer), text.get_text()
    legend = fig.legends[0].get_window_extent(renderer)
    assert legend.x0 >= -1 and legend.x1 <= fig.bbox.width + 1


@pytest.mark.parametrize("labels", [("cat", "dog"), ("bicycle", "car", "person")])
@pytest.mark.parametrize("width", [3.5, 7.0])
def test_confusion_pooled_alpha_apart_from_x_label(labels, width):
    """The "all" α under the α column overlapped the x label by 8-13 px; its header, a
    bare "α", read as the tables' classification α (σ-type, chance from unrelated
    objects) where it is Krippendorff's α of the pairs' labels."""
    ax = boxes(labels=labels).iaa.plot.confusion(width=width, n_chance=100)
    renderer = drawn(ax.figure)
    pooled = next(t for t in ax.texts if t.get_gid() == "alpha_all")
    assert apart(pooled, ax.xaxis.label, renderer)
    for tick in ax.get_xticklabels():
        assert apart(pooled, tick, renderer)
    header = next(t for t in ax.texts if t.get_gid() == "alpha_header")
    assert header.get_text() != "α" and "Kripp" in header.get_text()


def test_columns_count_wide_characters_twice():
    """Layout estimates count an East Asian wide character as two narrow ones."""
    assert fonts.columns("abc") == 3
    assert fonts.columns("中文") == 4
    assert fonts.columns("é") == 1
    cut = style.short_name("中文类别名称非常长的一个类别名称非常长", 20)
    assert fonts.columns(cut) <= 20
    assert cut.startswith("中文") and "…" in cut


def test_missing_glyphs_said_once():
    """CJK class names with no CJK font installed: one warning naming the texts, not a
    "Glyph … missing from font(s)" warning per character and draw."""
    df = boxes(labels=UNICODE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = iaf.agreement(df, n_boot=0, n_chance=100, seed=0)
        fig = res.iaa.plot.forest(width=7)
        fig.canvas.draw()
        fig.savefig(__import__("io").BytesIO(), format="png", bbox_inches="tight")
    raw = [w for w in caught if "missing from font" in str(w.message)]
    assert raw == []
    said = [w for w in caught if issubclass(w.category, fonts.MissingGlyphWarning)]
    if fonts.missing_characters("中文类别🐶"):
        assert len(said) == 1
        assert "中文类别名称非常长的一个类别" in str(said[0].message)
    else:
        assert said == []
    plt.close(fig)
