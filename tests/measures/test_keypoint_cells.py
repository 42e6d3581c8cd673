"""keypoint_cells: a bootstrap replicate's weights are the corpus with items repeated."""

from __future__ import annotations

import krippendorff
import numpy as np

from iaa_frames.explore.matches import tables_of
from iaa_frames.geometry.kinds import KEYPOINTS, KeypointsKind
from iaa_frames.measures.keypoint_cells import KeypointCells, mirror_of
from iaa_frames.simulate import KeypointProfile, simulate_keypoints

K = KEYPOINTS.n_keypoints


def test_mirror_of_a_skeleton_of_its_own():
    kind = KeypointsKind("hand_test", ["left_thumb", "wrist", "right_thumb"], sigmas=[0.1] * 3)
    assert mirror_of(kind).tolist() == [2, 1, 0]
    flipped = KeypointsKind("odd_test", ["a", "b", "c"], sigmas=[0.1] * 3, flip=[(0, 1)])
    assert mirror_of(flipped).tolist() == [1, 0, 2]


def test_a_replicate_is_the_corpus_with_its_items_repeated():
    profiles = {
        "ana": KeypointProfile(jitter=0.2, occlusion=0.2),
        "ben": KeypointProfile(jitter=0.3, swap=0.4, swap_joints=("left_knee",)),
        "cyd": KeypointProfile(jitter=0.2, drop=0.2),
    }
    t = tables_of(simulate_keypoints(n_items=25, annotators=profiles, seed=4), seed=0)
    cells = KeypointCells.build(t, KEYPOINTS)
    k = np.random.default_rng(1).integers(0, 3, size=(2, len(t.corpus.items)))
    stats = cells.statistics(k)
    observed = cells.grid(cells.localization.statistics(k)[0])
    w = t.localization_within
    p = t.corpus.shapes.params["keypoints"]
    pa, pb = p[w["object_a"].to_numpy()], p[w["object_b"].to_numpy()]
    item = w["item"].to_numpy()
    ks, both = KEYPOINTS.point_similarity(pa, pb)
    va, vb = pa[:, 2 : 3 * K : 3], pb[:, 2 : 3 * K : 3]
    ann = w[["annotator_a", "annotator_b"]].to_numpy()
    for b in range(len(k)):
        for group in (0, 2):  # "(all)" and the annotator of code 1
            mine = np.ones(len(w), bool) if group == 0 else (ann == group - 1).any(axis=1)
            rows = np.repeat(np.flatnonzero(mine), k[b, item[mine]])  # items repeated k_i times
            for j in (0, 9, 13):
                on = rows[both[rows, j]]
                np.testing.assert_allclose(
                    observed[b, j, group], np.mean(1 - ks[on, j]), rtol=1e-12
                )
                data = np.vstack([va[rows, j], vb[rows, j]])
                ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
                np.testing.assert_allclose(stats["visibility_alpha"][b, j, group], ref, rtol=1e-9)
                agree = np.mean(va[rows, j] == vb[rows, j])
                np.testing.assert_allclose(stats["visibility_agreement"][b, j, group], agree)
            # the left knee (13) and its mirror, the right knee (14)
            x = lambda q, c: q[:, c : 3 * K : 3]  # noqa: E731
            ok = rows[
                (va[rows][:, [13, 14]] > 0).all(axis=1) & (vb[rows][:, [13, 14]] > 0).all(axis=1)
            ]
            own = (x(pa, 0)[ok, 13] - x(pb, 0)[ok, 13]) ** 2 + (
                x(pa, 1)[ok, 13] - x(pb, 1)[ok, 13]
            ) ** 2
            cross = (x(pa, 0)[ok, 13] - x(pb, 0)[ok, 14]) ** 2 + (
                x(pa, 1)[ok, 13] - x(pb, 1)[ok, 14]
            ) ** 2
            np.testing.assert_allclose(1 - stats["not_swapped"][b, 13, group], np.mean(cross < own))
            assert 0 < np.mean(cross < own) < 1
