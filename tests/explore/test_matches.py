"""Tests for :mod:`iaa_frames.explore.matches`: ``partners`` against a brute-force loop over the
objects, coverage and matched pairs; ``tables_of`` and ``reference_code`` on good and bad
input."""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.matches import partners, reference_code, tables_of


@pytest.fixture(scope="module")
def tables():
    df = iaf.simulate(n_items=12, annotators={"a": "good", "b": "misser", "c": "sloppy"}, seed=7)
    # c did not review two items at all: they are neither missed nor extra for c
    items = sorted(df["item"].unique())[:2]
    df = df[~((df["annotator"] == "c") & df["item"].isin(items))]
    return iaf.pair_tables(df, n_chance=30)


def test_partners_equals_a_loop_over_objects_and_covering_annotators(tables):
    u, w = tables.units, tables.localization_within
    covered = {}
    for item, ann in zip(tables.coverage["item"], tables.coverage["annotator"]):
        covered.setdefault(int(item), set()).add(int(ann))
    matched = set()
    for oa, ob, aa, ab in zip(w["object_a"], w["object_b"], w["annotator_a"], w["annotator_b"]):
        matched |= {(int(oa), int(ab)), (int(ob), int(aa))}
    want = sorted(
        (obj, int(item), int(owner), other, (obj, other) in matched)
        for obj, (item, owner) in enumerate(zip(u["item"], u["annotator"]))
        for other in covered[int(item)]
        if other != int(owner)
    )
    got = partners(tables)
    assert list(got.columns) == ["object", "item", "owner", "other", "matched"]
    assert sorted(map(tuple, got.itertuples(index=False, name=None))) == want
    assert 0 < got["matched"].mean() < 1  # the misser leaves objects unmatched


def test_tables_of(tables):
    assert tables_of(tables) is tables
    assert tables_of(tables, n_chance=0) is tables  # keywords apply to frames only
    df = iaf.simulate(n_items=3, seed=0)
    got = tables_of(df, match_threshold=0.7, n_chance=20, seed=4)
    assert (got.params["match_threshold"], got.params["n_chance_target"], got.params["seed"]) == (
        0.7,
        20,
        4,
    )
    with pytest.raises(ParameterError, match="n_chance must be an integer >= 1"):
        tables_of(df, n_chance=0)
    with pytest.raises(TypeError, match="n_boot"):
        tables_of(df, n_boot=3)
    with pytest.raises(ParameterError, match="tidy annotation frame or PairTables; got list"):
        tables_of([1, 2])


def test_reference_code(tables):
    names = [str(a) for a in tables.corpus.annotators]
    assert reference_code(tables, None) is None
    assert [reference_code(tables, n) for n in names] == list(range(len(names)))
    for bad in ("z", 0, pd.NA):
        with pytest.raises(
            ParameterError,
            match=r"reference must be one of the annotators "
            r"\['a', 'b', 'c'\]",
        ):
            reference_code(tables, bad)


def test_importable_from_conflicts():
    conflicts = importlib.import_module(
        "iaa_frames.explore.conflicts"
    )  # iaf.conflicts: the function
    assert (conflicts.partners, conflicts.reference_code, conflicts.tables_of) == (
        partners,
        reference_code,
        tables_of,
    )
