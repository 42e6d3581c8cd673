"""plot.ranking: annotators by partner-corrected quality, against raw PQ."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from iaa_frames import plot
from iaa_frames.errors import ParameterError
from iaa_frames.measures.ranking import annotator_quality
from iaa_frames.simulate import simulate


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def table(n=5, ci=True):
    q = np.linspace(0.9, 0.3, n)
    out = pd.DataFrame({"annotator": [f"w{k}" for k in range(n)], "quality": q, "raw_pq": q * 0.6})
    if ci:
        out["ci_low"], out["ci_high"] = q - 0.05, q + 0.04
    return out


def offsets(ax, gid):
    artist = next(c for c in ax.collections if c.get_gid() == gid)
    return artist


def test_dots_whiskers_and_order():
    ax = plot.ranking(table())
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"w{k}" for k in range(5)]
    est = offsets(ax, "estimate").get_offsets()
    np.testing.assert_allclose(est[:, 0], np.linspace(0.9, 0.3, 5))
    assert est[0, 1] > est[-1, 1]  # the best at the top
    raw = offsets(ax, "raw").get_offsets()
    np.testing.assert_allclose(raw[:, 0], np.linspace(0.9, 0.3, 5) * 0.6)
    segments = offsets(ax, "ci").get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], np.linspace(0.9, 0.3, 5) - 0.05)
    np.testing.assert_allclose([s[1][0] for s in segments], np.linspace(0.9, 0.3, 5) + 0.04)
    assert not [t for t in ax.texts if t.get_gid() == "note"]


def test_without_intervals_no_whiskers():
    ax = plot.ranking(table(ci=False))
    assert not [c for c in ax.collections if c.get_gid() == "ci"]


def test_a_crowd_is_drawn_by_its_two_ends_with_one_note():
    t = table(30)
    t.loc[7, "quality"] = np.nan  # not ranked: counted apart
    ax = plot.ranking(t, top=10)
    names = [x.get_text() for x in ax.get_yticklabels()]
    ranked = [f"w{k}" for k in range(30) if k != 7]  # best first
    assert names == ranked[:5] + ranked[-5:]
    frame = plot.ranking_frame(t, top=10)
    assert frame["block"].tolist() == ["highest"] * 5 + ["lowest"] * 5
    # the dotted line parts the two ends: below the 5th row, above the 6th
    sep = [line for line in ax.lines if line.get_gid() == "separator"]
    assert len(sep) == 1 and sep[0].get_linestyle() == ":"
    ys = {x.get_text(): y for x, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    assert ys["w29"] < ys["w25"] < sep[0].get_ydata()[0] < ys["w4"]
    notes = [x.get_text() for x in ax.texts if x.get_gid() == "note"]
    assert len(notes) == 1
    note = " ".join(notes[0].split())  # wrapped to the figure's width
    assert "+ 19 more annotators not shown" in note
    assert "the 5 of highest and the 5 of lowest quality" in note
    assert "1 without a quality" in note
    # every annotator fits: no separator, no note
    ax = plot.ranking(table(8), top=10)
    assert not [line for line in ax.lines if line.get_gid() == "separator"]
    assert plot.ranking_frame(table(8), top=10)["block"].eq("shown").all()


def test_top_keeps_the_worst_or_the_best_and_says_so():
    ax = plot.ranking(table(30), top=10, which="worst")
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names == [f"w{k}" for k in range(20, 30)]
    note = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    assert note and "20 more" in note[0] and "worst 10" in note[0]
    best = plot.ranking_frame(table(30), top=10, which="best")
    assert best["annotator"].tolist() == [f"w{k}" for k in range(10)]
    assert best.attrs["n_hidden"] == 20


def test_undefined_quality_is_left_out_with_a_note():
    t = table(4)
    t.loc[2, "quality"] = np.nan
    frame = plot.ranking_frame(t)
    assert "w2" not in frame["annotator"].tolist() and frame.attrs["n_undefined"] == 1
    ax = plot.ranking(t)
    note = next(x.get_text() for x in ax.texts if x.get_gid() == "note")
    assert "1 without a quality" in note and "more not shown" not in note


def test_given_axes_and_real_quality():
    df = simulate(n_items=20, seed=2, annotators={"ann": "good", "bob": "sloppy", "cy": "random"})
    q = annotator_quality(df, n_boot=20)
    _fig, ax = plt.subplots()
    assert plot.ranking(q, ax=ax) is ax
    assert [t.get_text() for t in ax.get_yticklabels()] == ["ann", "bob", "cy"]
    assert ax.get_xlabel() == q.attrs["long_names"]["quality"]


@pytest.mark.parametrize("kwargs", [{"top": 0}, {"which": "middle"}])
def test_bad_options(kwargs):
    with pytest.raises(ParameterError):
        plot.ranking(table(), **kwargs)


def test_bad_table():
    with pytest.raises(ParameterError, match="annotator_quality"):
        plot.ranking(pd.DataFrame({"annotator": ["a"]}))


@pytest.mark.parametrize("width", [3.5, None, 7.0])
def test_the_axis_label_fits_in_the_figure(width):
    """The long name of ``quality`` (the default x label) is wrapped to the figure's width:
    at one column (3.5 in) it was cut at both edges."""
    q = table()
    q.attrs["long_names"] = {
        "quality": "quality: estimated PQ vs a perfect annotator, shrunk towards the crowd"
    }
    ax = plot.ranking(q, width=width)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.xaxis.label.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width
