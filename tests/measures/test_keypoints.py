"""Per-keypoint agreement: which joints disagree, and visibility α."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.matches import tables_of
from iaa_frames.geometry.kinds import KEYPOINTS
from iaa_frames.simulate import KeypointProfile, simulate_keypoints


def _frame(**b):
    return simulate_keypoints(
        n_items=80, annotators={"a": KeypointProfile(), "b": KeypointProfile(**b)}, seed=5
    )


def test_swapped_left_right_joints_show_in_the_table():
    ds = iaf.keypoint_agreement(_frame(swap=0.6, swap_joints=("left_knee",)))
    knees = ds.sel(keypoint=["left_knee", "right_knee"])
    others = ds.drop_sel(keypoint=["left_knee", "right_knee", "nose"])
    assert (knees.swapped > 0.3).all() and (others.swapped == 0).all()
    assert float(knees.localization.max()) < float(others.localization.min())


def test_identical_skeletons_and_a_jittered_joint():
    same = iaf.keypoint_agreement(_frame())
    assert (same.localization == 1).all() and (same.visibility_alpha == 1).all()
    ds = iaf.keypoint_agreement(_frame(joint_jitter={"left_wrist": 1.0}))
    worst = ds.localization.idxmin("keypoint").item()
    assert worst == "left_wrist"
    assert ds.sizes["keypoint"] == KEYPOINTS.n_keypoints


def test_visibility_alpha_equals_krippendorff_on_the_matched_pairs():
    df = _frame(jitter=0.1, occlusion=0.3, drop=0.1)
    ds = iaf.keypoint_agreement(df, seed=0)
    t = tables_of(df, seed=0)
    w = t.localization_within
    p = t.corpus.shapes.params["keypoints"]
    va = p[w["object_a"].to_numpy()][:, 2::3][:, : KEYPOINTS.n_keypoints]
    vb = p[w["object_b"].to_numpy()][:, 2::3][:, : KEYPOINTS.n_keypoints]
    for j in (0, 5, 16):
        ref = krippendorff.alpha(
            reliability_data=np.vstack([va[:, j], vb[:, j]]), level_of_measurement="nominal"
        )
        assert float(ds.visibility_alpha[j]) == pytest.approx(ref, abs=1e-12)
    assert float(ds.visibility_alpha.mean()) < 0.9  # occlusion flips lower it


def test_needs_skeletons():
    with pytest.raises(ParameterError, match="no skeleton rows"):
        iaf.keypoint_agreement(iaf.simulate(n_items=3, seed=0))
