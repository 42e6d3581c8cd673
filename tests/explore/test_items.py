"""Tests for iaa_frames.explore.items: counts on a hand-built corpus, the distance columns against
groupby cross-checks on the pair tables, ordering, top and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import poststratified_weights

from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.items import ITEM_COLUMNS, items
from iaa_frames.frame.records import from_records
from iaa_frames.simulate import simulate


def _box(item, annotator, label, x0, y0, x1, y1):
    return dict(
        item=item,
        annotator=annotator,
        label=label,
        x0=x0,
        y0=y0,
        x1=x1,
        y1=y1,
        width=100.0,
        height=100.0,
    )


@pytest.fixture(scope="module")
def hand():
    """Items with known counts:

    * ``same``: a and b draw the same box, same label: nothing wrong;
    * ``relabel``: same box, car vs person: 1 mislabeled cluster;
    * ``miss``: a draws two boxes, b one of them: 1 unmatched object;
    * ``alone``: only a covered it: its object is not "unmatched" (nobody else looked);
    * ``shifted``: same label, boxes overlapping at IoU 0.6: the worst localization;
    * fillers give the chance sample something to pair.
    """
    rows = [
        _box("same", "a", "car", 10, 10, 40, 40),
        _box("same", "b", "car", 10, 10, 40, 40),
        _box("relabel", "a", "car", 50, 50, 90, 90),
        _box("relabel", "b", "person", 50, 50, 90, 90),
        _box("miss", "a", "car", 5, 5, 30, 30),
        _box("miss", "a", "car", 60, 60, 95, 95),
        _box("miss", "b", "car", 5, 5, 30, 31),
        _box("alone", "a", "person", 20, 20, 60, 60),
        _box("shifted", "a", "car", 0, 0, 40, 40),
        _box("shifted", "b", "car", 5, 5, 45, 45),
    ]
    rng = np.random.default_rng(0)
    for k in range(6):
        x, y = rng.uniform(0, 50, 2)
        for ann in ("a", "b"):
            rows.append(_box(f"fill{k}", ann, "car", x, y, x + 40, y + 40 + (ann == "b")))
    df = from_records(rows)
    tables = pair_tables(df, n_chance=200, seed=0)
    return df, tables


def _row(table, item):
    return table.set_index("item").loc[item]


def test_counts_on_hand_built_corpus(hand):
    _, tables = hand
    t = items(tables)
    assert list(t.columns) == list(ITEM_COLUMNS)
    assert _row(t, "relabel")["n_mislabeled"] == 1
    assert _row(t, "relabel")["n_unmatched"] == 0
    assert _row(t, "miss")["n_unmatched"] == 1
    assert _row(t, "miss")["n_mislabeled"] == 0
    assert _row(t, "same")[["n_unmatched", "n_mislabeled"]].tolist() == [0, 0]
    alone = _row(t, "alone")
    assert (alone["n_annotators"], alone["n_objects"], alone["n_unmatched"]) == (1, 1, 0)
    assert alone["n_pairs"] == 0 and np.isnan(alone["mean_distance"])
    assert _row(t, "miss")["n_objects"] == 3 and _row(t, "miss")["n_pairs"] == 1


def test_worst_first_and_nan_last(hand):
    _, tables = hand
    t = items(tables)
    assert t["item"].iloc[0] == "shifted"  # the only pair far apart
    sig = t["sigma"].to_numpy()
    finite = sig[np.isfinite(sig)]
    assert np.all(np.diff(finite) >= 0)
    assert np.isnan(sig[-1]) and t["item"].iloc[-1] == "alone"


def test_distance_columns_match_groupby_on_tables():
    df = simulate(n_items=40, annotators={"a": "good", "b": "sloppy", "c": "misser"}, seed=3)
    tables = pair_tables(df, n_chance=200, seed=1)
    names = tables.corpus.items
    for comp in ("localization", "detection", "overall"):
        t = items(tables, component=comp).set_index("item")
        if comp == "localization":
            w = tables.localization_within.assign(d=tables.localization_within["distance"])
            b = tables.localization_between
            chance = b.loc[b["in_uniform"], "distance"].to_numpy()
            # the "(all)" cell's chance units post-stratified over the within strata
            # (the rule by hand in tests/support/oracles.py)
            weight = poststratified_weights(
                tables, w, b[b["in_uniform"]], np.ones(len(chance)), pools_classes=True
            )
        else:
            sw = tables.sets_within
            w = sw[sw["label"] == -1].assign(d=lambda f, comp=comp: f[comp])
            sb = tables.sets_between
            chance = sb.loc[sb["label"] == -1, comp].to_numpy()
            weight = np.ones(len(chance))
        mean = w.groupby("item")["d"].mean()
        mean.index = names[mean.index]
        np.testing.assert_allclose(t.loc[mean.index, "mean_distance"], mean)
        expected = np.average(chance, weights=weight)
        np.testing.assert_allclose(t.loc[mean.index, "sigma"], 1 - mean / expected)
        pct = [weight[chance <= m].sum() / weight.sum() for m in mean]
        np.testing.assert_allclose(t.loc[mean.index, "chance_percentile"], pct)
        share = w.groupby("item")["d"].sum() / w["d"].sum()
        np.testing.assert_allclose(t.loc[mean.index, "share"], share.to_numpy())
        assert t.attrs["component"] == comp
        np.testing.assert_allclose(t.attrs["chance_mean"], expected)


def test_classification_item_distance(hand):
    _, tables = hand
    t = items(tables, component="classification").set_index("item")
    assert t.loc["relabel", "mean_distance"] == 1.0  # the two labels differ
    assert t.loc["same", "mean_distance"] == 0.0
    assert t.loc["relabel", "n_pairs"] == 1
    assert np.isnan(t["chance_percentile"]).all()
    assert t.index[0] == "relabel"


def test_top_and_frame_input(hand):
    df, tables = hand
    assert len(items(tables, top=2)) == 2
    from_frame = items(df, n_chance=200, seed=0)
    pd.testing.assert_frame_equal(from_frame, items(tables))


@pytest.mark.parametrize(
    "kwargs", [{"component": "colour"}, {"top": 0}, {"top": 1.5}, {"top": True}]
)
def test_bad_parameters(hand, kwargs):
    with pytest.raises(ParameterError):
        items(hand[1], **kwargs)


def test_bad_data():
    with pytest.raises(ParameterError, match="tidy annotation frame or PairTables"):
        items([1, 2, 3])
