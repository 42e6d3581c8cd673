"""Defects noticed by a review and fixed in round 7: the worst items drawn are only the items
worse than the corpus mean (and the figure says when fewer or none are)."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.text import Text

import iaa_frames as iaf
from iaa_frames.plot.item import worst_items


@pytest.fixture(scope="module")
def mixed():
    """Pair tables of 8 items, about half of them better than the corpus mean."""
    df = iaf.simulate(n_items=8, annotators={"a": "good", "b": "sloppy"}, seed=0)
    return iaf.pair_tables(df, n_chance=50)


def _panel_items(fig) -> list[str]:
    return [
        ax.get_title(loc="left").split("\n")[0]
        for ax in fig.axes
        if ax.get_visible() and ax.get_title(loc="left")
    ]


def test_worst_items_draws_only_items_worse_than_the_mean(mixed):
    ranking = iaf.items(mixed)
    worse = ranking.loc[ranking["excess"] > 0, "item"].tolist()
    assert 0 < len(worse) < len(ranking)  # the corpus has better-than-average items too
    fig = worst_items(mixed, n=len(ranking))
    assert _panel_items(fig) == worse
    # every panel title shows a positive excess
    for ax in fig.axes:
        title = ax.get_title(loc="left")
        if ax.get_visible() and title:
            assert not title.split("\n")[1].startswith("excess -")
    # fewer qualify than asked for: the title says so
    suptitle = " ".join(fig.get_suptitle().split())
    assert f"only {len(worse)} of the {len(ranking)} items carry more disagreement" in suptitle
    assert f"{len(ranking)} asked for" in suptitle


def test_worst_items_says_nothing_more_when_enough_qualify(mixed):
    fig = worst_items(mixed, n=2)
    assert len(_panel_items(fig)) == 2
    assert "only" not in fig.get_suptitle()


def test_worst_items_with_no_item_worse_than_the_mean_says_why():
    df = iaf.simulate(n_items=3, annotators={"a": "good"}, seed=0)
    twin = df.assign(annotator="b", object_id=df["object_id"].astype(str) + "_b")
    t = iaf.pair_tables(pd.concat([df, twin], ignore_index=True), n_chance=50)
    assert (iaf.items(t)["excess"] <= 0).all()  # identical annotators: no item is worse
    fig = worst_items(t, n=3)
    assert _panel_items(fig) == []  # no item drawn
    notes = [x.get_text() for ax in fig.axes for x in ax.texts if x.get_gid() == "note"]
    assert len(notes) == 1
    assert "no item carries more localization disagreement than the corpus mean" in " ".join(
        notes[0].split()
    )
    assert fig.get_suptitle() == "no worst items (localization)"
    # the title fits the figure at its narrowest width (it was cut at 3.5 in)
    fig = worst_items(t, n=3, width=3.5)
    fig.canvas.draw()
    (title,) = [x for x in fig.findobj(Text) if x.get_text() == fig.get_suptitle()]
    box = title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    # the accessor draws the same
    fig = pd.concat([df, twin], ignore_index=True).iaa.plot.worst_items(n=3, n_chance=50)
    assert fig.get_suptitle() == "no worst items (localization)"


def test_the_plan_figure_names_an_undefined_component_and_why():
    """Classification undefined on the pilot: the figure's note says "n/a" for it with the
    table's reason (it said "no plan: classification (see the table's note)")."""
    import warnings

    pilot = iaf.simulate(n_items=20, seed=0, annotators={"a": "good", "b": "sloppy"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # two rows without geometry dropped
        pilot = iaf.validate(pilot, on_invalid="drop")
    p = iaf.plan(pilot, target_halfwidth=0.05, n_outer=5)
    ax = iaf.plot.plan(p)
    notes = [" ".join(t.get_text().split()) for t in ax.texts if t.get_gid() == "note"]
    assert len(notes) == 1
    assert notes[0].startswith(
        "classification: no plan: the engine reports no classification on the pilot"
    )
    assert "halfwidth_pilot is n/a" in notes[0]
    # only the undefined component is named
    assert not any(c in notes[0] for c in ("detection:", "localization:", "overall:"))
    # the figure grew by its note: the panel keeps its height
    assert ax.figure.get_figheight() > 2.8


#: The embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069).
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


@pytest.fixture(scope="module")
def bidi_names():
    """A corpus whose annotators, labels and items hold bidirectional controls."""
    df = iaf.simulate(n_items=8, seed=3)
    annotators = {a: f"{a}\u202eevil" for a in df["annotator"].unique()}
    labels = {x: f"\u2067{x}\u202d" for x in df["label"].dropna().unique()}
    df = df.assign(
        annotator=df["annotator"].map(annotators),
        label=df["label"].map(labels),
        item=df["item"] + "\u202e.gpj",
    )
    return df, iaf.agreement(df, n_boot=0, n_chance=100)


def _texts(fig) -> list[str]:
    import matplotlib.text

    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def _has_bidi(text: str) -> bool:
    return any(ch in text for ch in BIDI)


def test_tick_labels_hold_no_bidi_controls(bidi_names):
    df, res = bidi_names
    ax = iaf.plot.forest(res).axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert "car" in ticks and "(all)" in ticks  # the name's letters are kept
    assert not [t for t in ticks if _has_bidi(t)]
    ax = iaf.plot.items(df, n_chance=100)
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks and all(t.endswith(".gpj") and not _has_bidi(t) for t in ticks)
    ax = iaf.plot.pairwise(df, n_chance=100)
    ticks = [t.get_text() for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]
    assert "Aevil" in ticks and not [t for t in ticks if _has_bidi(t)]


@pytest.mark.parametrize("name", ["forest", "annotators", "item", "worst_items"])
def test_no_figure_text_holds_bidi_controls(bidi_names, name):
    """Titles, legends and notes too: the report's SVG writes each as a <text>, which the
    browser laid out right to left after a U+202E."""
    import io
    import re

    import matplotlib

    df, res = bidi_names
    label = next(x for x in res["label"].values if x != "(all)")
    draw = {
        "forest": lambda: iaf.plot.forest(res, label=label),
        "annotators": lambda: iaf.plot.annotators(res, label=label),
        "item": lambda: iaf.plot.item(df, df["item"].iloc[0], n_chance=100),
        "worst_items": lambda: iaf.plot.worst_items(df, n_chance=100),
    }[name]
    fig = getattr(draw(), "figure", None) or draw()
    texts = _texts(fig)
    assert texts and not [t for t in texts if _has_bidi(t)]
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text as <text>, as the report
        fig.savefig(buf, format="svg")
    written = re.findall(r"<text\b[^>]*>(.*?)</text>", buf.getvalue(), flags=re.S)
    assert written and not [t for t in written if _has_bidi(t)]  # (gids keep the names)


def test_safe_name_strips_only_the_controls():
    from iaa_frames.plot.style import safe_name, short_name

    for ch in BIDI:
        assert safe_name(f"ab{ch}cd") == "abcd"
    assert safe_name("שלום") == "שלום"  # right-to-left letters are kept
    assert short_name("\u202e" + "x" * 40) == short_name("x" * 40)


def test_the_plan_figure_labels_items_as_plain_numbers():
    """A pilot of 8 items spans less than a decade: matplotlib labelled the minor ticks
    of the log axis '2 x 10^0'; they read as plain numbers."""
    plan = iaf.plan(iaf.simulate(n_items=8, seed=1))
    ax = iaf.plot.plan(plan, width=3.5)
    fig = getattr(ax, "figure", ax)
    fig.canvas.draw()
    axes = fig.axes[0]
    labels = [t.get_text() for t in axes.get_xticklabels(minor=True) if t.get_text()]
    labels += [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
    assert labels and not any("times" in x or "^" in x for x in labels), labels
    assert {"2", "4", "10"} <= set(labels)
