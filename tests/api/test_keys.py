"""ItemKeysWarning: agreement() says when the item keys may not line up."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.api.keys import _named, _size_mismatch  # noqa: PLC2701
from iaa_frames.errors import ItemKeysWarning

LVIS = Path("/work/shared/data/lvis_v1.0_val_doubly_annos_subset200.json")


def _keys_warnings(df, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        iaf.agreement(df, progress=False, **kwargs)
    return [w.message for w in caught if issubclass(w.category, ItemKeysWarning)]


def _deranged(df, annotator, seed):
    """``annotator``'s rows moved to other items (a derangement of the item keys)."""
    items = np.array(sorted(df["item"].unique()))
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(items))
    while (perm == np.arange(len(items))).any():
        perm = rng.permutation(len(items))
    out = df.copy()
    mine = out["annotator"] == annotator
    out.loc[mine, "item"] = out.loc[mine, "item"].map(dict(zip(items, items[perm])))
    return out


@pytest.fixture(scope="module")
def lvis():
    if not LVIS.exists():
        pytest.skip("the LVIS double annotations are not on this machine")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return iaf.read_coco(LVIS, rater_key="rater_id", rater_list_key="rater_list")


def test_lvis_with_a_rater_on_other_images_warns_and_names_it(lvis):
    # the image sizes of r2's rows are those of the images r2 drew on
    (found,) = _keys_warnings(_deranged(lvis, "r2", 0), n_boot=50)
    assert "r2" in found.annotators and found.share > 0.9
    assert "item keys may not line up" in str(found) and "r2" in str(found)
    # r2's rows given the sizes of the images they now stand on: localization far below
    # chance (-0.35, on 3 items), detection at chance, and the pairs no closer than
    # chance on most items (two raters cannot be told apart)
    moved = _deranged(lvis, "r2", 1)
    r1 = moved[moved["annotator"] == "r1"].groupby("item")[["width", "height"]].first()
    for col in ("width", "height"):
        moved[col] = moved["item"].map(r1[col]).fillna(moved[col])
    (found,) = _keys_warnings(moved, n_boot=50)
    assert found.annotators == ("r1", "r2") and found.share > 0.9
    assert "localization" in str(found) and "df.groupby('annotator').item.unique()" in str(found)


def test_lvis_itself_does_not_warn(lvis):
    assert _keys_warnings(lvis, n_boot=50) == []


def test_the_bundled_sample_and_random_annotators_do_not_warn():
    assert _keys_warnings(iaf.load_sample("coco"), n_boot=50) == []
    random = {"A": "random", "B": "random", "C": "random"}
    for seed in range(3):  # at chance (about 0): nothing points at the keys
        df = iaf.simulate(n_items=40, annotators=random, seed=seed)
        assert _keys_warnings(df, n_chance=500, n_boot=50) == []


def test_size_mismatch_names_the_odd_annotator():
    rows = []
    for i in range(10):
        for a in ("r1", "r2", "r3"):
            w = 640.0 if a != "r2" else 500.0 + i
            rows.append((f"img{i}", a, w, 480.0))
    df = pd.DataFrame(rows, columns=["item", "annotator", "width", "height"])
    assert _size_mismatch(df) == (1.0, ["r2"])
    assert _size_mismatch(df[df["annotator"] != "r2"]) == (0.0, [])
    assert np.isnan(_size_mismatch(df.drop(columns="width"))[0])


def _size_mismatch_brute(df):
    """_size_mismatch by a loop over the items (its first (width, height) per item and
    annotator, rows with a missing size left out)."""
    sizes = df.dropna(subset=["width", "height"]).groupby(["item", "annotator"], sort=False)
    first = sizes[["width", "height"]].first().reset_index()
    differ, odd = [], {}
    for _, g in first.groupby("item", sort=False):
        if len(g) < 2:
            continue
        pairs = list(zip(g["width"], g["height"], strict=True))
        differ.append(len(set(pairs)) > 1)
        for a, p in zip(g["annotator"], pairs, strict=True):
            others = len(pairs) - 1
            odd.setdefault(a, []).append((others - (pairs.count(p) - 1)) / others > 0.5)
    if not differ:
        return None
    return float(np.mean(differ)), sorted(a for a, v in odd.items() if np.mean(v) > 0.5)


@pytest.mark.parametrize("seed", range(6))
def test_size_mismatch_matches_a_loop_over_the_items(seed):
    """Random sizes (some missing, some items of one annotator, duplicated rows) against
    the loop: the same share and the same odd annotators."""
    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame(
        {
            "item": rng.integers(0, 60, n).astype(str),
            "annotator": np.array(["a", "b", "c", "d"])[rng.integers(0, 4, n)],
            "width": rng.choice([640.0, 320.0, np.nan, 641.0], n, p=[0.7, 0.1, 0.1, 0.1]),
            "height": rng.choice([480.0, 240.0], n, p=[0.8, 0.2]),
        }
    )
    df.loc[df["annotator"] == "d", "width"] = 100.0 + seed  # an odd one
    assert _size_mismatch(df) == _size_mismatch_brute(df)


def test_named_annotators_are_in_every_pair_below_chance():
    pairs = pd.Series({("r1", "r2"): 0.95, ("r1", "r3"): 0.1, ("r2", "r3"): 0.9})
    assert _named(pairs) == ["r2"]
    assert _named(pd.Series({("r1", "r2"): 0.95})) == ["r1", "r2"]
    assert _named(pd.Series({("r1", "r2"): 0.2})) == []
