"""Figures on small corpora and missing values (#42 items 3, 8, 9): laid out without
matplotlib's warnings, text inside the figure and clear of the panels, values without an
interval and undefined values drawn apart from the others; the label confusion shows its
conflicts; the rows of a figure that are not read are not its top rows."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from results import make_result  # noqa: E402

import iaa_frames as iaf  # noqa: E402
import iaa_frames.accessor  # noqa: E402,F401  registers df.iaa and res.iaa
from iaa_frames import plot  # noqa: E402
from iaa_frames.plot import rows, style  # noqa: E402
from iaa_frames.plot.fit_text import fit_lines  # noqa: E402

ALL = "(all)"


@pytest.fixture(scope="module")
def three():
    """Three items of the bundled sample: no interval anywhere, classification undefined
    everywhere, localization undefined for two classes (the corpus of #42 item 3)."""
    df = iaf.load_sample("coco")
    items = sorted(df["item"].unique())[:3]
    small = df[df["item"].isin(items)].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return small.iaa.agreement(n_boot=20, n_chance=300)


def _texts(fig):
    return [
        t
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip() and t.figure is fig
    ]


def _overlap(a, b, tol=1.0) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol


def _laid_out(fig):
    """Draw ``fig`` with every warning an error (matplotlib's "constrained_layout not
    applied" and the like), and return its renderer."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def _check_layout(fig):
    """Every panel with what it draws (titles, tick labels, notes under it), every legend
    and every text of the figure inside the figure; the notes and legends clear of every
    panel (their extents measured by the renderer)."""
    renderer = _laid_out(fig)
    box = fig.bbox
    visible = [ax for ax in fig.axes if ax.get_visible()]
    legends = list(fig.legends) + [ax.get_legend() for ax in visible if ax.get_legend()]
    drawn = [(repr(ax.get_title()), ax.get_tightbbox(renderer)) for ax in visible]
    drawn += [(repr(t.get_text()), t.get_window_extent(renderer)) for t in _texts(fig)
              if t in fig.texts]  # fmt: skip
    drawn += [("legend", lg.get_window_extent(renderer)) for lg in legends]
    for what, e in drawn:
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1, f"{what} runs off the side"
        assert e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1, f"{what} runs off the end"
    panels = [ax.get_window_extent(renderer) for ax in visible]
    assert all(p.height > 0.5 * fig.dpi for p in panels), "a panel collapsed (under 0.5 in)"
    apart = [t for t in _texts(fig) if t.get_gid() == "note"] + legends
    for artist in apart:
        e = artist.get_window_extent(renderer)
        for p in panels:
            assert not _overlap(e, p), f"{artist} overlaps a panel"
    return renderer


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_forest_on_three_items_lays_out(three, width):
    fig = plot.forest(three, width=width)
    renderer = _check_layout(fig)
    # the figure's x label clear of the panels and of the note
    label = next(t for t in fig.texts if t.get_text().startswith("chance-corrected"))
    e = label.get_window_extent(renderer)
    for ax in fig.axes:
        assert not _overlap(e, ax.get_tightbbox(renderer)), "x label on a panel"
    for note in [t for t in _texts(fig) if t.get_gid() == "note"]:
        assert not _overlap(e, note.get_window_extent(renderer)), "x label on the note"
    # row labels apart: at least their height between two rows
    ticks = [t.get_window_extent(renderer) for t in fig.axes[0].get_yticklabels()]
    for a, b in zip(ticks, ticks[1:]):
        assert not _overlap(a, b, tol=0.0)


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_forest_of_a_label_titles_its_legend(three, width):
    fig = plot.forest(three, label="car", width=width)
    renderer = _check_layout(fig)
    (legend,) = fig.legends
    assert legend.get_title().get_text() == "label car: agreement by annotator"
    assert not fig.get_suptitle()  # no second artist at the top of the figure
    e = legend.get_window_extent(renderer)
    for ax in fig.axes:
        assert not _overlap(e, ax.title.get_window_extent(renderer))


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_profiles_and_decomposition_on_three_items_lay_out(three, width):
    _check_layout(plot.annotators(three, width=width).figure)
    _check_layout(plot.decomposition(three, width=width).figure)


def test_values_without_an_interval_are_hollow_and_said_so(three):
    fig = plot.forest(three, components=["detection"], raw_iou=False)
    (estimate,) = [a for a in fig.axes[0].lines if a.get_gid() == "estimate"]
    (hollow,) = [a for a in fig.axes[0].lines if a.get_gid() == "no_ci"]
    np.testing.assert_allclose(hollow.get_xdata(), estimate.get_xdata())  # none has one
    assert hollow.get_markerfacecolor() in ("white", (1.0, 1.0, 1.0, 1.0))
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "no interval" in legend and "95% bootstrap CI" not in legend
    ds = make_result()  # every value with an interval: no hollow dot, no legend entry
    fig = plot.forest(ds, components=["detection"], raw_iou=False)
    assert not [a for a in fig.axes[0].lines if a.get_gid() == "no_ci"]
    assert "no interval" not in [t.get_text() for t in fig.legends[0].get_texts()]


def test_decomposition_marks_undefined_values_and_says_why(three):
    ax = plot.decomposition(three)
    frame = plot.decomposition_frame(three)
    n_missing = int((~np.isfinite(frame["agreement"].to_numpy(dtype=float))).sum())
    assert n_missing
    marks = [t for t in ax.texts if t.get_gid() == "undefined"]
    assert len(marks) == n_missing
    (note,) = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    note = " ".join(note.split())
    assert "n/a: too few chance units" in note and "classification of car" in note


def test_undefined_profile_values_are_in_a_band_of_their_own(three):
    ax = plot.annotators(three)
    renderer = _laid_out(ax.figure)
    finite = plot.profile_frame(three)["agreement"].to_numpy(dtype=float)
    lowest = min(0.0, float(np.nanmin(finite)))
    marks = [t for t in ax.texts if t.get_gid() == "undefined"]
    assert marks
    for t in marks:  # below chance and every value, apart from them
        assert t.get_position()[1] < lowest - 0.05
    (band,) = [p for p in ax.patches if p.get_gid() == "na_band"]
    top = band.get_window_extent(renderer).y1
    zero = ax.transData.transform((0, lowest))[1]
    assert top < zero


def test_label_confusion_shows_conflicts_among_many_agreeing_pairs():
    names = [f"c{i:02d}" for i in range(20)]
    counts = np.diag(np.linspace(80, 40, 20)).astype(float)
    # the conflicts are between two rare classes
    counts[18, 19] = counts[19, 18] = 3
    table = pd.DataFrame(counts, index=pd.Index(names, name="one annotator"),
                         columns=pd.Index(names, name="the other"))  # fmt: skip
    table.attrs = {"n_pairs": int(counts.sum() / 2), "alpha": 0.9, "alpha_by_label": {}}
    ax = plot.confusion(table, top=6)
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert {"c18", "c19"} <= set(shown)  # the classes in conflict first
    (mesh,) = [c for c in ax.collections if c.get_gid() == "confusion"]
    shade = np.ma.getmaskarray(mesh.get_array()).reshape(len(shown), len(shown))
    assert shade[np.diag_indices(len(shown))].all()  # the diagonal is not shaded
    i, j = shown.index("c18"), shown.index("c19")
    assert mesh.get_array().reshape(len(shown), len(shown))[i, j] == 1.0  # all of its row's
    assert "3 with different labels" in " ".join(ax.get_title(loc="left").split())
    _check_layout(ax.figure)  # the title and the x label inside the figure


def test_rows_not_read_come_after_those_that_are():
    ds = make_result(labels=("wine_bottle", "car", "person", "bicycle"), nan_cells=())
    # the best-supported class rests on one image: values, no interval
    for v in ("ci_low", "ci_high"):
        ds[v].loc[{"label": "wine_bottle"}] = np.nan
    assert rows.unread(ds) == ["wine_bottle"]
    shown, hidden, n_unread = rows.ranked(ds, "label", 2, fixed_dim="annotator")
    assert shown == [ALL, "car", "person"] and hidden == 2 and n_unread == 1
    fig = plot.forest(ds, top=2)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [ALL, "car", "person"]
    note = " ".join(" ".join(t.get_text() for t in _texts(fig) if t.get_gid() == "note").split())
    assert "classes with an interval first" in note
    ax = plot.decomposition(ds, top=2)
    assert [t.get_text() for t in ax.get_yticklabels()] == [ALL, "car", "person"]


def test_a_forest_of_many_rows_stays_within_a_page():
    ds = make_result(labels=[f"class_{i:03d}" for i in range(40)], nan_cells=())
    fig = plot.forest(ds, width=3.5)
    assert fig.get_figheight() <= 7.0 + 1e-9  # was 12.8 in at 3.5 in on LVIS
    shown = len(fig.axes[0].get_yticklabels()) - 1
    note = " ".join(" ".join(t.get_text() for t in _texts(fig) if t.get_gid() == "note").split())
    assert f"+ {40 - shown} more labels not shown (top {shown} by support" in note
    _check_layout(fig)
    fig = plot.forest(ds, width=3.5, height=12)  # asked for: every top row
    assert len(fig.axes[0].get_yticklabels()) == 21


def test_file_names_break_between_their_parts():
    fig = plt.figure(figsize=(2, 1))
    renderer = fig.canvas.get_renderer()
    prop = fig.text(0, 0, "", fontsize=8).get_fontproperties()
    name = "frames/cam_02/img_000123.jpg"
    lines = fit_lines([name], 60, prop, renderer)
    assert len(lines) > 1 and "".join(lines) == name  # no space put in
    assert all(line.endswith(("/", "_", ".", "jpg")) for line in lines), lines


def test_no_minus_zero():
    from iaa_frames.report.formatting import cell_text, fmt

    assert style.fmt(-0.001) == "0.00" and fmt(-0.004) == "0.00" and fmt(-0.006) == "-0.01"
    assert cell_text(-0.001, -0.004, 0.2) == "0.00 [0.00, 0.20]"


def test_frame_figures_are_in_the_menu():
    df = iaf.simulate(n_items=4, seed=0)
    menu = repr(df.iaa.plot)
    for name in ("confusion()", "item()", "worst_items()"):
        assert name in menu
