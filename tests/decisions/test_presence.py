"""Is a cluster a real object (iaa_frames.decisions.presence): the beta-binomial /
binomial mixture on the clusters' support, and the threshold of the best expected F1."""

from __future__ import annotations

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.decisions.presence import best_f1_threshold, presence, presence_step


def _supports(seed, n_real=400, n_false=300, n=9, a=1.2, b=0.7, f=0.03):
    """Support counts drawn from the model itself (truncated to k >= 1)."""
    rng = np.random.default_rng(seed)
    theta = rng.beta(a, b, 4 * n_real)
    k_real = rng.binomial(n, theta)
    k_real = k_real[k_real >= 1][:n_real]
    k_false = rng.binomial(n, f, 40 * n_false)
    k_false = k_false[k_false >= 1][:n_false]
    k = np.r_[k_real, k_false]
    return k, np.full(len(k), n), np.r_[np.ones(len(k_real)), np.zeros(len(k_false))]


@pytest.mark.parametrize("seed", [0, 1])
def test_posteriors_are_calibrated_on_the_model(seed):
    k, n, real = _supports(seed)
    r = presence(k, n)
    assert 0.4 < r.prior < 0.75
    # the mean posterior of each support level is close to the share of real clusters
    for level in (1, 2, 5, 9):
        sel = k == level
        if sel.sum() >= 30:
            assert abs(r.p[sel].mean() - real[sel].mean()) < 0.12, level
    assert np.all(np.diff([r.p[k == lv].mean() for lv in range(1, 10) if (k == lv).any()]) >= -1e-9)


def test_stray_boxes_are_rejected_and_shared_ones_kept():
    k, n, real = _supports(3)
    r = presence(k, n)
    t, f1 = best_f1_threshold(r.p)
    accepted = r.p >= t
    tp = (accepted & (real == 1)).sum()
    true_f1 = 2 * tp / (accepted.sum() + real.sum())
    assert true_f1 > 0.85 and abs(true_f1 - f1) < 0.05  # the expected F1 is close
    # every cluster left out is less likely real than about half the F1 reached
    assert r.p[~accepted].max() <= f1 / 2 + 0.02  # (Lipton et al.)
    assert np.isfinite(presence_step(r, k, n)) and presence_step(r, k, n) > 0


def test_threshold_maximises_expected_f1():
    p = np.array([0.99, 0.8, 0.45, 0.3, 0.1, 0.02])
    t, f1 = best_f1_threshold(p)
    cands = [2 * p[p >= s].sum() / ((p >= s).sum() + p.sum()) for s in p]
    assert f1 == pytest.approx(max(cands)) and t == pytest.approx(p[int(np.argmax(cands))])
    assert best_f1_threshold(np.zeros(3)) == (1.0, 0.0)


def test_empty_and_degenerate_inputs():
    r = presence(np.zeros(0, int), np.zeros(0, int))
    assert len(r.p) == 0 and np.isnan(r.prior)
    # every cluster drawn by everyone: all real
    r = presence(np.full(20, 3), np.full(20, 3))
    assert np.all(r.p > 0.5)


def test_an_image_blind_annotators_stray_boxes_are_not_real():
    """Three good annotators draw every object together (k = 3 of 4), an image-blind one
    adds stray boxes nobody else drew (k = 1): a U-shaped beta (alpha < 1) could call the
    stray boxes real objects the three missed; with alpha >= 1 they are false and
    quorum="auto" leaves them out of the consensus (the random annotator's boxes were
    accepted with p_real 0.93 before)."""
    k = np.r_[np.full(90, 3), np.full(5, 2), np.full(1, 4), np.full(93, 1)]
    fit = presence(k, np.full(len(k), 4))
    assert fit.alpha >= 1.0
    assert fit.p[k == 1].max() < 0.5 and fit.p[k == 3].min() > 0.9
    df = iaf.simulate(
        n_items=20, seed=0, annotators={"a": "good", "b": "good", "c": "good", "d": "random"}
    )
    objects = iaf.consensus(df).objects.dropna(subset=["label"])
    assert (objects["support"] >= 2).all()
