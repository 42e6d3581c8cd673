"""A kind with its own similarity through the matcher and the chance index: the boxes
grown by its reach lose nothing (the same results as listing every pair)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import iaa_frames as iaf
from iaa_frames.core.chance import strata
from iaa_frames.core.matching import pipeline
from iaa_frames.geometry.kinds.keypoints import KeypointsKind
from iaa_frames.simulate import KeypointProfile, simulate_keypoints


def _frame():
    # crowded images (many people per image) of annotators of every kind
    profiles = {
        "a": KeypointProfile(jitter=0.2),
        "b": KeypointProfile(jitter=0.4, swap=0.3),
        "c": KeypointProfile(random=True),
    }
    return simulate_keypoints(n_items=40, annotators=profiles, max_people=12, seed=4)


@pytest.mark.parametrize("tau", [0.2, 0.5])
def test_reach_boxes_lose_no_pair(monkeypatch, tau):
    df = _frame()
    # a sampled chance population: pairings from the chance index (gated_pairings), matched
    # by localization-only runs that list the pairs by their reach boxes
    monkeypatch.setattr(strata, "EXACT_PAIRINGS", 0)
    fast = iaf.agreement(df, seed=0, n_boot=0, match_threshold=tau, progress=False)
    tables = iaf.pair_tables(df, seed=0, match_threshold=tau, progress=False)
    assert len(tables.localization_within) > 50 and len(tables.localization_between) > 3
    # every pair listed: reach grown to the whole image, and the sparse path on every pairing
    monkeypatch.setattr(KeypointsKind, "reach", lambda self, data, tau: np.full(len(data), 10.0))
    monkeypatch.setattr(pipeline, "SPARSE_MIN_PAIRS", 0)
    full = iaf.agreement(df, seed=0, n_boot=0, match_threshold=tau, progress=False)
    xr.testing.assert_identical(fast, full)
    # and the reach matters: boxes grown too little lose chance pairs
    monkeypatch.setattr(KeypointsKind, "reach", lambda self, data, tau: np.full(len(data), -0.05))
    short = iaf.pair_tables(df, seed=0, match_threshold=tau, progress=False)
    assert len(short.localization_between) < len(tables.localization_between)
