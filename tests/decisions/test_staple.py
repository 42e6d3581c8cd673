"""STAPLE (Warfield et al. 2004): recovers a mask drawn well by two annotators who are
outnumbered three to two by noisy ones; the majority vote does not."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.decisions.staple import staple

NOISY = 0.3  # vertex jitter of the noisy annotators, as a fraction of the object's size


def _dice(a, b):
    inter = shapely.area(shapely.intersection(a, b))
    return 2 * inter / (shapely.area(a) + shapely.area(b))


@pytest.fixture(scope="module")
def crowd():
    annotators = {"good1": {"jitter": 0.01}, "good2": {"jitter": 0.01}}
    annotators |= {f"noisy{k}": {"jitter": NOISY} for k in (1, 2, 3)}
    return iaf.simulate_with_truth(
        n_items=20,
        kind="polygon",
        layout="single_center",
        annotators=annotators,
        image_size=(400, 300),
        seed=1,
    )


def _dice_of(crowd, **kwargs):
    c = iaf.consensus(crowd.annotations, match_threshold=0.1, resolution=96, **kwargs)
    o = c.objects.dropna(subset=["label"])
    truth = crowd.truth.set_index("item")["geometry"]
    assert len(o) == len(truth)  # one object per item, nothing lost
    return _dice(o["geometry"].to_numpy(), truth.loc[o["item"]].to_numpy()), c


def test_staple_recovers_the_mask_of_the_two_good_annotators(crowd):
    dice, c = _dice_of(crowd, method="staple")
    majority, _ = _dice_of(crowd, method="vote", weights="equal")
    assert dice.min() >= 0.95
    assert majority.mean() < 0.95 and majority.mean() < dice.mean() - 0.02
    w = c.weights.set_index("annotator")
    good, noisy = w.loc[["good1", "good2"]], w.loc[["noisy1", "noisy2", "noisy3"]]
    assert good["sensitivity"].min() > noisy["sensitivity"].max()
    assert good["specificity"].min() > noisy["specificity"].max()


def test_staple_of_agreeing_raters_is_their_mask():
    rng = np.random.default_rng(0)
    mask = rng.random(64) < 0.4
    post, p, q = staple(np.stack([mask] * 3), np.zeros(3, int), np.arange(3), 3)
    assert ((post[0] >= 0.5) == mask).all()
    np.testing.assert_allclose(p, 1, atol=1e-5)
    np.testing.assert_allclose(q, 1, atol=1e-5)


def test_staple_matches_a_direct_em_on_one_structure():
    """The vectorized EM against a plain loop over pixels and raters (brute force)."""
    rng = np.random.default_rng(3)
    truth = rng.random(40) < 0.5
    flips = np.array([0.05, 0.1, 0.3, 0.4])
    d = np.stack([truth ^ (rng.random(40) < f) for f in flips])
    post, p, q = staple(d, np.zeros(4, int), np.arange(4), 4, tol=0)
    pp, qq = np.full(4, 0.99), np.full(4, 0.99)
    f = d.mean()
    for _ in range(100):
        w = np.empty(40)
        for i in range(40):
            a, b = f, 1 - f
            for j in range(4):
                a *= pp[j] if d[j, i] else 1 - pp[j]
                b *= 1 - qq[j] if d[j, i] else qq[j]
            w[i] = a / (a + b)
        pp = np.clip((w * d).sum(1) / w.sum(), 1e-6, 1 - 1e-6)
        qq = np.clip(((1 - w) * ~d).sum(1) / (1 - w).sum(), 1e-6, 1 - 1e-6)
    np.testing.assert_allclose(p, pp, atol=1e-4)
    np.testing.assert_allclose(q, qq, atol=1e-4)
