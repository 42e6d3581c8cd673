"""Tests for iaa_frames.explore.item_agreement: the join key, every item present, values equal
to the item drilldown, and joining back to a user's own item table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.item_agreement import ITEM_AGREEMENT_COLUMNS, item_agreement


@pytest.fixture(scope="module")
def tables():
    return iaf.pair_tables(iaf.load_sample("coco"), n_chance=100)


def test_index_columns_and_values(tables):
    got = item_agreement(tables)
    assert got.index.name == "item"
    assert sorted(got.index) == sorted(tables.corpus.items) == list(got.index)
    assert list(got.columns) == [
        "detection",
        "classification",
        "localization",
        *ITEM_AGREEMENT_COLUMNS,
    ]
    for comp in ("detection", "classification", "localization"):
        ref = iaf.items(tables, component=comp).set_index("item")["sigma"]
        np.testing.assert_allclose(got[comp], ref.reindex(got.index), equal_nan=True)
    ranking = iaf.items(tables, component="detection")["item"].tolist()
    assert got["rank"].sort_values().index.tolist() == ranking
    conf = iaf.conflicts(tables)
    assert got["n_conflicts"].sum() == len(conf)
    assert got.loc["img_00034.jpg", "n_objects"] == 0  # empty for everybody
    assert set(got.attrs["long_names"]) == set(got.columns)


def test_join_back_to_user_table(tables):
    scores = item_agreement(tables, components="localization")
    mine = pd.DataFrame(
        {
            "file_name": ["img_00003.jpg", "img_00019.jpg", "not_there.jpg"],
            "camera": ["a", "b", "c"],
        }
    )
    joined = mine.join(scores, on="file_name")
    assert len(joined) == 3 and joined["camera"].tolist() == ["a", "b", "c"]
    assert np.isnan(joined.loc[2, "localization"])
    assert joined.loc[1, "localization"] == scores.loc["img_00019.jpg", "localization"]
    merged = mine.merge(scores, left_on="file_name", right_index=True, how="inner")
    assert merged["file_name"].tolist() == ["img_00003.jpg", "img_00019.jpg"]


def test_integer_items_and_accessor():
    df = iaf.simulate(n_items=12, seed=0)
    df = df.assign(item=df["item"].str[4:].astype(int))
    got = df.iaa.item_agreement(n_chance=30)
    assert got.index.tolist() == list(range(12))  # numeric order: 2 before 10
    pd.testing.assert_frame_equal(got, item_agreement(df, n_chance=30))


def test_errors():
    df = iaf.simulate(n_items=3, seed=0)
    with pytest.raises(ParameterError, match="components"):
        item_agreement(df, components=["bogus"], n_chance=10)
    with pytest.raises(ParameterError, match="components"):
        item_agreement(df, components=[], n_chance=10)
