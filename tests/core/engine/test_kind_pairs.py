"""Tests for iaa_frames.core.engine.kind_pairs: agreement split into human-human and
human-machine cells, each chance-corrected (1 - within / chance on unrelated items)."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.engine import pairwise, rater_kind_agreement, rater_kinds
from iaa_frames.errors import ParameterError
from iaa_frames.simulate import simulate

HUMANS = {"ann": "good", "bob": "good", "cy": "good"}


def _copy_of(df, source, name):
    out = df[df["annotator"] == source].copy()
    out["annotator"] = name
    if "object_id" in out.columns:
        out["object_id"] = out["object_id"].astype(str) + f"/{name}"
    return out


def _cell(table, component, cell):
    row = table[(table["component"] == component) & (table["cell"] == cell)]
    assert len(row) == 1
    return row.iloc[0]


def test_kinds_of_annotators():
    df = pd.DataFrame(
        {
            "annotator": ["a", "a", "b", "c", "c", "d"],
            "rater_kind": ["human", np.nan, "machine", "human", "machine", np.nan],
        }
    )
    assert rater_kinds(df) == {"a": "human", "b": "machine", "c": "mixed", "d": "unknown"}
    with pytest.raises(ParameterError, match="no 'origin' column"):
        rater_kinds(df, "origin")


def test_a_machine_that_copies_a_human_agrees_with_them_fully():
    df = simulate(n_items=60, annotators={"ann": "good", "bob": "sloppy"}, seed=1)
    df = pd.concat([df, _copy_of(df, "ann", "model")], ignore_index=True)
    kinds = {"ann": "human", "bob": "human", "model": "machine"}
    p = pairwise(df, n_chance=300, n_boot=0)
    assert float(p.sel(annotator_a="ann", annotator_b="model")) == pytest.approx(1.0)
    # the human-machine cell of that pair alone: 1 in every component
    solo = df[df["annotator"] != "bob"]
    t = rater_kind_agreement(solo, kinds=kinds, n_chance=300, n_boot=0)
    hm = t[t["cell"] == "human-machine"]
    assert list(hm["component"]) == ["detection", "classification", "localization", "overall"]
    assert np.allclose(hm["agreement"], 1.0)
    assert (hm["n_pairs"] == 1).all()
    # with a second human the machine's cell pools both pairs: between the two pairs'
    t = rater_kind_agreement(df, kinds=kinds, components="localization", n_chance=300, n_boot=0)
    hh, hm = _cell(t, "localization", "human-human"), _cell(t, "localization", "human-machine")
    ann_bob = float(p.sel(annotator_a="ann", annotator_b="bob"))
    assert hh["agreement"] == pytest.approx(ann_bob)  # one pair: the pairwise cell
    assert ann_bob < hm["agreement"] < 1.0
    assert hm["n_pairs"] == 2


def test_a_machine_blind_to_the_image_is_at_chance():
    df = simulate(n_items=120, annotators={**HUMANS, "blind": "random"}, seed=2)
    df["rater_kind"] = np.where(df["annotator"] == "blind", "machine", "human")
    t = rater_kind_agreement(df, n_chance=1000, n_boot=100, seed=0)
    for component in ("detection", "localization", "overall"):
        hm = _cell(t, component, "human-machine")
        hh = _cell(t, component, "human-human")
        assert abs(hm["agreement"]) < 0.1, (component, hm["agreement"])
        assert hm["ci_low"] <= 0.05 and hm["ci_high"] >= -0.05
        assert hh["agreement"] > 0.6
        assert hm["n_pairs"] == 3 and hh["n_pairs"] == 3
    # no machine-machine pair: NaN, said so
    mm = _cell(t, "localization", "machine-machine")
    assert np.isnan(mm["agreement"]) and mm["note"].startswith("too few within units")


def test_kinds_from_a_column_and_as_a_mapping_agree():
    df = simulate(n_items=40, annotators={"ann": "good", "bob": "good", "m": "sloppy"}, seed=3)
    kinds = {"ann": "human", "bob": "human", "m": "llm"}
    df["rater_kind"] = df["annotator"].map(kinds)
    a = rater_kind_agreement(df, n_chance=200, n_boot=0)
    b = iaf.rater_kind_agreement(df.drop(columns="rater_kind"), kinds=kinds, n_chance=200,
                                 n_boot=0)  # fmt: skip
    pd.testing.assert_frame_equal(a, b)
    assert sorted(set(a["cell"])) == ["human-human", "human-llm", "llm-llm"]


def test_errors():
    df = simulate(n_items=10, annotators={"ann": "good", "bob": "good"}, seed=0)
    with pytest.raises(ParameterError, match="no kind"):
        rater_kind_agreement(df, kinds={"ann": "human"}, n_chance=50, n_boot=0)
    with pytest.raises(ParameterError, match="components"):
        rater_kind_agreement(df, kinds={"ann": "human", "bob": "human"}, components="x")
    with pytest.raises(ParameterError, match="one match_threshold"):
        rater_kind_agreement(df, kinds={"ann": "human", "bob": "human"}, match_threshold=[0.3, 0.5])


# ------------------------------- #41 B6: the pairs among some annotators


def test_b6_the_pairs_of_a_subset_are_those_of_the_full_table_bit_for_bit():
    from iaa_frames.core.engine.pairwise import pairwise_from_tables
    from iaa_frames.core.tables.pairs import pair_tables

    crowd = {k: "good" if k < "e" else "sloppy" for k in "abcdefg"}
    t = pair_tables(simulate(n_items=30, annotators=crowd, seed=1), n_chance=300)
    for component in ("detection", "classification", "localization", "overall"):
        full = pairwise_from_tables(t, component=component, n_boot=20)
        sub = pairwise_from_tables(t, component=component, n_boot=20, annotators=["f", "b", "d"])
        assert sub.annotator_a.values.tolist() == ["b", "d", "f"]
        assert sub.attrs["n_annotators_left_out"] == 4
        same = full.sel(annotator_a=["b", "d", "f"], annotator_b=["b", "d", "f"])
        np.testing.assert_array_equal(same.values, sub.values)
        for name in ("ci_low", "ci_high", "n_units", "n_chance", "note", "chance_source"):
            np.testing.assert_array_equal(same[name].values, sub[name].values)


def test_b6_every_pair_of_a_big_crowd_is_refused_and_a_subset_is_checked(monkeypatch):
    pairwise_module = importlib.import_module("iaa_frames.core.engine.pairwise")
    from iaa_frames.core.tables.pairs import pair_tables

    t = pair_tables(simulate(n_items=6, seed=0), n_chance=50)
    monkeypatch.setattr(pairwise_module, "MAX_PAIRWISE_ANNOTATORS", 2)
    with pytest.raises(ParameterError, match="annotators="):
        pairwise_module.pairwise_from_tables(t, n_boot=0)
    assert pairwise_module.pairwise_from_tables(t, n_boot=0, annotators=["A", "B"]).shape == (2, 2)
    with pytest.raises(ParameterError, match="no annotator of the corpus"):
        pairwise_module.pairwise_from_tables(t, n_boot=0, annotators=["A", "nobody"])
    with pytest.raises(ParameterError, match="at least two"):
        pairwise_module.pairwise_from_tables(t, n_boot=0, annotators=["A"])
