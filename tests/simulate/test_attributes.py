"""Tests for iaa_frames.simulate.attributes: simulated per-object attributes, the
recovered flip rate of each annotator, common random numbers (a flip rate changes no
other draw) and the checks of the parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.simulate import Profile

ATTRS = {
    "occluded": [False, True],
    "color": ["red", "green", "blue"],
    "size": [1, 2, 3],
    "d": [0.5, 1.5],
}


def _sim(flips, seed=0, n_items=200):
    annotators = {"a": {"preset": "good", "attribute_flip": flips}, "b": "perfect"}
    return iaf.simulate_with_truth(
        n_items=n_items, annotators=annotators, attributes=ATTRS, seed=seed
    )


def test_columns_dtypes_coverage_rows_and_attrs():
    sim = _sim(0.0, n_items=30)
    df = sim.annotations
    assert df.attrs["iaa_attributes"] == list(ATTRS)
    assert [str(df[c].dtype) for c in ATTRS] == ["boolean", "str", "Int64", "float64"]
    coverage = df["label"].isna()
    assert coverage.any() and df.loc[coverage, list(ATTRS)].isna().all().all()
    assert not df.loc[~coverage, list(ATTRS)].isna().any().any()
    assert set(sim.truth.columns) >= set(ATTRS)
    # a perfect annotator gives the true values
    b = df[(df["annotator"] == "b") & ~coverage]
    truth = sim.truth.set_index(["item", "truth_id"]).loc[list(zip(b["item"], b["truth_id"]))]
    for c in ATTRS:
        assert (b[c].to_numpy() == truth[c].to_numpy()).all()


@pytest.mark.parametrize("rate", [0.1, 0.4])
def test_the_flip_rate_is_recovered(rate):
    sim = _sim({"color": rate, "occluded": rate})
    a = sim.annotations[sim.annotations["annotator"] == "a"].dropna(subset=["label"])
    truth = sim.truth.set_index(["item", "truth_id"]).loc[list(zip(a["item"], a["truth_id"]))]
    n = len(a)
    for c in ("color", "occluded"):
        flipped = np.mean(a[c].to_numpy() != truth[c].to_numpy())
        assert abs(flipped - rate) < 4 * np.sqrt(rate * (1 - rate) / n), c
    for c in ("size", "d"):  # not flipped
        assert (a[c].to_numpy() == truth[c].to_numpy()).all()


def test_a_flip_rate_changes_no_other_draw():
    base, flipped = _sim(0.0).annotations, _sim({"color": 0.5}).annotations
    pd.testing.assert_frame_equal(base.drop(columns="color"), flipped.drop(columns="color"))
    assert (base["color"] != flipped["color"]).any()
    # adding an attribute leaves the others' values unchanged
    fewer = iaf.simulate(n_items=200, annotators={"a": "good", "b": "perfect"}, seed=0,
                         attributes={"color": ATTRS["color"]})  # fmt: skip
    pd.testing.assert_series_equal(fewer["color"], base["color"])


def test_profile_field_and_checks():
    p = Profile(attribute_flip={"color": 0.2, "occluded": 0.1})
    assert p.flip_rate("color") == 0.2 and p.flip_rate("size") == 0.0
    assert hash(p) == hash(Profile(attribute_flip={"occluded": 0.1, "color": 0.2}))
    assert Profile(attribute_flip=0.3).flip_rate("anything") == 0.3
    for bad in (1.5, -0.1, "x", {"color": 2.0}, True):
        with pytest.raises(ParameterError, match="attribute_flip"):
            Profile(attribute_flip=bad)
    with pytest.raises(ParameterError, match="not among the attributes"):
        iaf.simulate(n_items=3, annotators={"a": {"attribute_flip": {"colour": 0.2}}},
                     attributes={"color": ["r", "g"]})  # fmt: skip
    for bad in (
        {"color": ["r"]},
        {"color": "rg"},
        {"x0": [1, 2]},
        {"c": [1, "a"]},
        ["c"],
        {"tags": [["a"], ["a", "b"]]},
    ):  # lists: a ParameterError, not a TypeError
        with pytest.raises(ParameterError, match="attribute"):
            iaf.simulate(n_items=3, attributes=bad)


def test_false_positives_draw_their_values():
    df = iaf.simulate(n_items=50, annotators={"a": {"false_positives": 1.0}, "b": "perfect"},
                      attributes={"color": ATTRS["color"]}, seed=2)  # fmt: skip
    fp = df[(df["annotator"] == "a") & df["label"].notna() & df["truth_id"].isna()]
    assert len(fp) > 20 and set(fp["color"]) == set(ATTRS["color"])
