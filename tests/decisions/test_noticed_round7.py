"""Defects noticed by a review and fixed in round 7: a component undefined on the pilot has
no pilot half-width (NaN, "n/a" with the reason), not 0.0."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import load_benchmark

import iaa_frames as iaf

HALFWIDTH_NA = "halfwidth_pilot is n/a (no interval on the pilot)"


@pytest.fixture(scope="module")
def no_label_disagreement():
    """20 items, two annotators: too few chance units for classification on the pilot,
    and no label disagreement (the agreement never varies on its resamples)."""
    pilot = iaf.simulate(n_items=20, seed=0, annotators={"a": "good", "b": "sloppy"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # two rows without geometry dropped
        return iaf.validate(pilot, on_invalid="drop")


def test_an_undefined_classification_has_no_pilot_halfwidth(no_label_disagreement):
    p = iaf.plan(no_label_disagreement, target_halfwidth=0.05, n_outer=5)
    table = p.table.set_index("component")
    # the engine leaves classification undefined on this pilot
    ds = iaf.agreement(no_label_disagreement, n_boot=0)
    assert np.isnan(ds["agreement"].sel(component="classification", label="(all)",
                                        annotator="(all)").item())  # fmt: skip
    assert np.isnan(table.loc["classification", "halfwidth_pilot"])  # was 0.0
    note = table.loc["classification", "note"]
    assert note.startswith("the engine reports no classification on the pilot (too few chance")
    assert f", so {HALFWIDTH_NA}" in note
    # the defined components keep their half-width and an empty note
    for comp in ("detection", "localization", "overall"):
        assert table.loc[comp, "halfwidth_pilot"] > 0
        assert table.loc[comp, "note"] == ""
    # the repr says n/a, and why
    lines = repr(p).splitlines()
    (line,) = [ln for ln in lines if ln.strip().startswith("classification:")]
    assert "no plan, pilot half-width n/a: the engine reports no classification" in line
    (line,) = [ln for ln in lines if ln.strip().startswith("detection:")]
    assert f"pilot half-width {table.loc['detection', 'halfwidth_pilot']:.3f}" in line


def test_a_plan_extrapolated_from_an_undefined_pilot_has_no_pilot_halfwidth():
    # 40 images of 2 of 40 workers, 4 classes: the engine reports no classification on
    # the pilot; the plan is still given (and says on what), the pilot's half-width is not
    crowd = load_benchmark("independent_crowd").crowd
    options = dict(n_workers=40, held_out=0, per_item=(2, 2), activity_sd=0.0, n_classes=4)
    pilot = crowd(3, n_items=40, **options)[0]
    table = iaf.plan(pilot, n_outer=0, seed=3).table.set_index("component")
    assert table.loc["classification", "n_items"] > 0
    assert np.isnan(table.loc["classification", "halfwidth_pilot"])
    note = table.loc["classification", "note"]
    assert HALFWIDTH_NA in note and "the plan extrapolates a statistic" in note
    assert np.isfinite(table.loc["detection", "halfwidth_pilot"])
