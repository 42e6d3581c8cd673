"""Tests for iaa_frames.explore.item: one item's objects, pairs and conflicts equal the
corpus's matching and conflict table, whether matched alone or taken from the tables;
pairs are oriented by annotator name; clusters join matched objects; clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.conflicts import conflicts
from iaa_frames.explore.item import ItemView, item_view

ITEM = "img_00019.jpg"


@pytest.fixture(scope="module")
def sample():
    df = iaf.load_sample("coco")
    return df, iaf.pair_tables(df, n_chance=100)


def test_view_from_frame_equals_view_from_tables(sample):
    df, t = sample
    a = item_view(df, ITEM)
    b = item_view(t, ITEM)
    key = ["object_id_a", "object_id_b"]
    pa = a.pairs.sort_values(key).reset_index(drop=True)
    pb = b.pairs.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(pa, pb)
    pd.testing.assert_frame_equal(
        a.conflicts.reset_index(drop=True), b.conflicts.reset_index(drop=True)
    )
    assert sorted(a.objects["object_id"]) == sorted(
        df.loc[(df["item"] == ITEM) & df["label"].notna(), "object_id"]
    )
    assert (a.width, a.height) == (1280.0, 720.0) and a.size_known


def test_pairs_are_the_items_matched_pairs_oriented_by_name(sample):
    _, t = sample
    view = item_view(t, ITEM)
    assert isinstance(view, ItemView)
    assert (view.pairs["annotator_a"] < view.pairs["annotator_b"]).all()
    code = list(t.corpus.items).index(ITEM)
    w = t.localization_within
    assert len(view.pairs) == int((w["item"].to_numpy() == code).sum())
    # the two objects of a matched pair are in one cluster, drawn by the pair's annotators
    objects = view.objects.set_index("object_id")
    for p in view.pairs.itertuples(index=False):
        a, b = objects.loc[p.object_id_a], objects.loc[p.object_id_b]
        assert a["cluster"] == b["cluster"]
        assert (a["annotator"], b["annotator"]) == (p.annotator_a, p.annotator_b)
        assert p.label_conflict == (a["label"] != b["label"])
        assert p.low_overlap == (p.iou < 0.8)
    # the conflicts are the corpus table's rows of the item
    table = conflicts(t)
    want = table[table["item"] == ITEM].reset_index(drop=True)
    pd.testing.assert_frame_equal(view.conflicts, want)
    flagged = view.objects.loc[view.objects["conflict"] != "", "object_id"]
    unmatched = want.loc[want["kind"] == "unmatched", "object_id_a"]
    assert set(flagged) == set(unmatched)
    # without a low-overlap cut-off, no pair is flagged
    assert not item_view(t, ITEM, low_overlap=None).pairs["low_overlap"].any()


def test_reference_keeps_only_pairs_with_the_reference(sample):
    _, t = sample
    view = item_view(t, ITEM, reference="ana")
    assert ((view.pairs["annotator_a"] == "ana") | (view.pairs["annotator_b"] == "ana")).all()
    assert set(view.conflicts["kind"]) <= {"missed", "extra", "label", "low_overlap"}


def test_unknown_image_size_and_annotators_who_drew_nothing():
    rows = [
        {"item": "x", "annotator": "a", "label": "car", "x0": 10, "y0": 10, "x1": 50, "y1": 40},
        {"item": "x", "annotator": "b", "label": "bus", "x0": 12, "y0": 10, "x1": 50, "y1": 42},
        {"item": "x", "annotator": "c"},
    ]
    view = item_view(iaf.from_records(rows), "x")
    assert not view.size_known and (view.width, view.height) == (50.0, 42.0)
    assert view.annotators == ["a", "b", "c"]  # c reviewed the item and drew nothing
    assert len(view.objects) == 2 and view.pairs["label_conflict"].tolist() == [True]


def test_errors(sample):
    df, t = sample
    with pytest.raises(ParameterError, match="not in the annotation frame"):
        item_view(df, "nope.jpg")
    with pytest.raises(ParameterError, match="'nope.jpg' is not in the corpus"):
        item_view(t, "nope.jpg")
    with pytest.raises(ParameterError, match="unexpected keyword"):
        item_view(t, ITEM, n_chance=5)
    with pytest.raises(ParameterError, match="PairTables"):
        item_view(np.zeros(3), ITEM)
    with pytest.raises(ParameterError, match="no 'item' column"):
        item_view(df.drop(columns="item"), ITEM)
