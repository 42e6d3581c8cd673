"""Defects noticed by a review and fixed in round 7: the worst items drawn are only the items
worse than the corpus mean (and the figure says when fewer or none are)."""

from __future__ import annotations

import pandas as pd
import pytest

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
    assert "none worse than the corpus mean" in fig.get_suptitle()
    # the accessor draws the same
    fig = pd.concat([df, twin], ignore_index=True).iaa.plot.worst_items(n=3, n_chance=50)
    assert "none worse than the corpus mean" in fig.get_suptitle()


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
