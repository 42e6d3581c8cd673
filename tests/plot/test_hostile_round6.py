"""Hostile review, round 6, of the figures: items without any within-item unit."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import iaa_frames.plot as iplot  # noqa: E402


def _apart(n_items=8):
    """Two annotators whose boxes never overlap: no matched pair on any item."""
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=off + i * 0.5, y0=10, x1=off + 40,
             y1=60, width=100, height=100)
        for i in range(n_items)
        for a, off in (("A", 0), ("B", 50))
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("width", [3.5, 7])
def test_items_without_units_say_why_and_write_no_nan(width):
    before = len(plt.get_fignums())
    ax = iplot.items(_apart(), width=width, n_chance=50)
    fig = ax.figure
    texts = [t.get_text() for a in fig.axes for t in a.texts] + [t.get_text() for t in fig.texts]
    assert not [t for t in texts if "nan" in t.split()]  # an undefined excess is "n/a"
    marks = [t for t in ax.texts if t.get_gid() == "undefined"]
    assert len(marks) == 8
    notes = " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text)
                     if t.get_gid() == "note")  # fmt: skip
    assert "n/a: no within-item unit on the item (units 0): i0" in " ".join(notes.split())
    fig.canvas.draw()
    box = fig.bbox
    for t in fig.findobj(matplotlib.text.Text):
        if t.get_gid() == "note" and t.get_text():
            e = t.get_window_extent()
            assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1
    plt.close(fig)
    assert len(plt.get_fignums()) == before


@pytest.fixture(scope="module")
def corpus():
    import iaa_frames as iaf

    df = iaf.simulate(n_items=6, seed=3)
    return df, iaf.agreement(df, n_boot=0, n_chance=100)


FIGURES = {
    "forest": lambda df, ds, **kw: iplot.forest(ds, **kw),
    "annotators": lambda df, ds, **kw: iplot.annotators(ds, **kw),
    "decomposition": lambda df, ds, **kw: iplot.decomposition(ds, **kw),
    "pairwise": lambda df, ds, **kw: iplot.pairwise(df, n_chance=100, **kw),
    "items": lambda df, ds, **kw: iplot.items(df, n_chance=100, **kw),
    "distributions": lambda df, ds, **kw: iplot.distributions(df, n_chance=100, **kw),
    "worst_items": lambda df, ds, **kw: iplot.worst_items(df, n_chance=100, **kw),
    "confusion": lambda df, ds, **kw: iplot.confusion(df, n_chance=100, **kw),
    "item": lambda df, ds, **kw: iplot.item(df, df["item"].iloc[0], n_chance=100, **kw),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
@pytest.mark.parametrize("width", [0, -1, 2, float("nan"), float("inf"), 1000, "7", True])
def test_a_width_that_is_not_inches_is_a_parameter_error(corpus, name, width):
    """0 failed as a singular matrix and left a figure open; NaN as "cannot convert float
    NaN to integer"; -1 as matplotlib's "figure size must be positive finite"; 2 in
    collapsed the layout (a warning of matplotlib) or failed as a negative height."""
    from iaa_frames.errors import ParameterError

    before = plt.get_fignums()
    with pytest.raises(ParameterError, match=r"width must be the figure's width in inches"):
        FIGURES[name](*corpus, width=width)
    assert plt.get_fignums() == before


@pytest.mark.parametrize("name", ["annotators", "decomposition", "pairwise", "items",
                                  "confusion", "item"])  # fmt: skip
def test_an_ax_that_is_not_an_axes_is_a_parameter_error(corpus, name):
    from iaa_frames.errors import ParameterError

    fig, axes = plt.subplots(1, 2)
    try:
        with pytest.raises(ParameterError, match="ax must be a matplotlib Axes.*one of its"):
            FIGURES[name](*corpus, ax=axes)
        with pytest.raises(ParameterError, match="ax must be a matplotlib Axes"):
            FIGURES[name](*corpus, ax="left")
        assert plt.get_fignums() == [fig.number]
    finally:
        plt.close(fig)


LONG = {"A": "annotator_" + "a" * 60, "B": "Bee " * 20, "C": "c"}


@pytest.mark.parametrize("name", ["pairwise", "item"])
@pytest.mark.parametrize("width", [3, 3.5, 7])
def test_long_annotator_names_leave_the_panel_its_room(corpus, name, width):
    """Names of 70 and 80 characters: the heatmap's ticks and the item's legend were
    written whole, the layout collapsed ("constrained_layout not applied") and the names
    ran off a 3.5 in figure."""
    import warnings

    df = corpus[0].assign(annotator=corpus[0]["annotator"].map(LONG))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no layout warning reaches the user
        ax = FIGURES[name](df, None, width=width)
        fig = ax.figure
        fig.canvas.draw()
    box = fig.bbox
    texts = [*ax.get_xticklabels(), *ax.get_yticklabels()]
    if ax.get_legend() is not None:
        texts += ax.get_legend().get_texts()
    drawn = [t for t in texts if t.get_visible() and t.get_text()]
    assert drawn
    for t in drawn:
        e = t.get_window_extent()
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1, t.get_text()
    pos = ax.get_position()
    assert pos.width * fig.get_figwidth() > 0.8  # the panel keeps its room (inches)
    plt.close(fig)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_figure_at_the_narrowest_width_with_long_names_warns_nothing(corpus, name):
    import warnings

    import iaa_frames as iaf
    from iaa_frames.plot.figure import MIN_WIDTH

    labels = {"person": "person " * 15, "car": "car", "bicycle": "b" * 80}
    df = corpus[0].assign(
        annotator=corpus[0]["annotator"].map(LONG), label=corpus[0]["label"].map(labels)
    )
    ds = iaf.agreement(df, n_boot=0, n_chance=100)
    before = plt.get_fignums()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = FIGURES[name](df, ds, width=MIN_WIDTH)
        fig = getattr(out, "figure", out)
        fig.canvas.draw()
    assert fig.get_figwidth() == MIN_WIDTH
    plt.close(fig)
    assert plt.get_fignums() == before


@pytest.mark.parametrize("layout", ["constrained", None])
def test_notes_on_the_users_grid_stay_under_their_own_panel(corpus, layout):
    """Panels drawn on the Axes of the user's 2 x 3 grid: a note under an Axes was wrapped
    to 0.75 of the whole figure (it ran across the next panels) or hung under a legend
    right of the Axes (over its own panel), and the constrained layout collapsed."""
    import warnings

    df, ds = corpus
    fig, axes = plt.subplots(2, 3, figsize=(10, 6), layout=layout)
    draw = [
        lambda ax: iplot.annotators(ds, ax=ax),
        lambda ax: iplot.decomposition(ds, ax=ax),
        lambda ax: iplot.pairwise(df, ax=ax, n_chance=100),
        lambda ax: iplot.items(df, ax=ax, n_chance=100),
        lambda ax: iplot.confusion(df, ax=ax, n_chance=100),
        lambda ax: iplot.item(df, df["item"].iloc[0], ax=ax, n_chance=100),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f, ax in zip(draw, axes.flat):
            assert f(ax) is ax
        if layout is None:
            fig.tight_layout()
        fig.canvas.draw()
    notes = [t for t in fig.findobj(matplotlib.text.Text) if t.get_gid() == "note" and t.get_text()]
    assert len(notes) >= 2  # the n/a of classification (too few chance units), said
    for t in notes:
        e = t.get_window_extent()
        for ax in axes.flat:
            assert not e.overlaps(ax.bbox), (t.get_text()[:40], axes.flat[:].tolist().index(ax))
    plt.close(fig)
