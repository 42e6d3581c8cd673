"""Is a cluster a real object (iaa_frames.decisions.presence): the beta-binomial /
binomial mixture on the clusters' support, and the threshold of the best expected F1."""

from __future__ import annotations

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.decisions.presence import (
    _log_terms,  # noqa: PLC2701
    best_f1_threshold,
    presence,
    presence_step,
)


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


@pytest.mark.parametrize("n", [2, 5, 9, 40])
def test_the_truncated_probabilities_sum_to_one_at_any_alpha_and_beta(n):
    """The real and false components are distributions over k = 1..n whatever the
    parameters: ``betaln(k + a, n - k + b) - betaln(a, b)`` lost every digit at large
    ``a, b`` (the probabilities of k = 1..5 of 5 summed to 3.5 at 1e14, 0.9988 at 1e12)
    and the fit went there; the rising factorials are exact."""
    k = np.arange(1, n + 1, dtype=np.float64)
    for la in (-2.0, 0.0, 5.0, 20.0, 27.6, 30.0):
        for lb in (-2.0, 0.0, 5.0, 20.0, 28.0, 30.0):
            for lf in (-12.0, -3.0, 0.0):
                _, _, real, false = _log_terms(np.array([0.0, la, lb, lf]), k, np.full(n, n))
                assert np.exp(real).sum() == pytest.approx(1.0, abs=1e-9), (la, lb)
                assert np.exp(false).sum() == pytest.approx(1.0, abs=1e-9), lf


#: Clusters of a sparse crowd with biased workers (benchmarks/biased_crowd.py, seed 1,
#: 2-5 workers per image): (n, k) -> how many clusters, and the share of them that
#: matched a true box (0.66, 0.44, 0.21, 0.09 of those drawn by one of 2, 3, 4, 5).
BIASED_SEED_1 = {
    (2, 1): (152, 0.66), (2, 2): (85, 1.0), (3, 1): (164, 0.44), (3, 2): (101, 0.99),
    (3, 3): (94, 1.0), (4, 1): (103, 0.21), (4, 2): (60, 0.98), (4, 3): (86, 1.0),
    (4, 4): (50, 1.0), (5, 1): (137, 0.09), (5, 2): (28, 1.0), (5, 3): (72, 0.99),
    (5, 4): (75, 1.0), (5, 5): (50, 1.0),
}  # fmt: skip


def _biased_clusters():
    nk = np.repeat(np.array(list(BIASED_SEED_1)), [c for c, _ in BIASED_SEED_1.values()], 0)
    return nk[:, 1], nk[:, 0]


def test_single_drawer_boxes_of_larger_crowds_are_rejected_on_a_sparse_biased_crowd():
    """Before the likelihood was exact, the fit on these clusters was a numerical artefact
    (its "likelihood" above 1) that gave a box drawn by one of five workers p_real 0.50,
    one of two 0.95: all single-drawer boxes accepted, 272 false boxes. Now p_real follows
    the share that matched a true box, and the threshold keeps one of two (0.66 true),
    not one of four or five (0.21, 0.09)."""
    k, n = _biased_clusters()
    fit = presence(k, n)
    t, _ = best_f1_threshold(fit.p)
    for (nn, kk), (_, share) in BIASED_SEED_1.items():
        p = fit.p[(n == nn) & (k == kk)][0]
        assert abs(p - share) < 0.2, (nn, kk, p)
        if kk >= 2:
            assert p >= t
    assert fit.p[(k == 1) & (n >= 4)].max() < min(t, 0.2)


def test_the_fit_does_not_depend_on_the_order_or_the_starting_point():
    """The fit is the best of its starts: no other start (20 random ones) finds a higher
    likelihood, the likelihood is at most 1, and shuffling the clusters changes nothing."""
    from scipy.optimize import minimize
    from scipy.special import logit

    k, n = _biased_clusters()
    fit = presence(k, n)
    pairs, count = np.unique(np.column_stack([k, n]), axis=0, return_counts=True)

    def nll(x):
        lp, lq, real, false = _log_terms(x, pairs[:, 0].astype(float), pairs[:, 1].astype(float))
        return -float(np.sum(count * np.logaddexp(lp + real, lq + false)))

    x = [logit(fit.prior), np.log(fit.alpha - 1), np.log(fit.beta), logit(fit.false_rate)]
    best = nll(np.array(x))
    assert 0 < best < np.inf  # a likelihood of at most 1
    rng = np.random.default_rng(0)
    for _ in range(20):
        other = minimize(nll, rng.normal(0, 2, 4), method="Nelder-Mead",
                         options={"maxiter": 4000, "xatol": 1e-7, "fatol": 1e-9})  # fmt: skip
        assert other.fun > best - 1e-3
    perm = rng.permutation(len(k))
    np.testing.assert_array_equal(presence(k[perm], n[perm]).p, fit.p[perm])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_fit_the_clusters_counts_do_not_identify_says_so(n):
    """With n annotators on every item the clusters give n - 1 free cells for the four
    parameters (π, α, β, f): a ridge of equally good fits, flagged; drawn from the model
    with five annotators, the fit is not."""
    k = np.r_[np.full(50, n), np.full(20, max(n - 1, 1)), np.full(30, 1)]
    assert "do not identify" in presence(k, np.full(len(k), n)).note
    k5, n5, _ = _supports(0, n=5)
    assert presence(k5, n5).note == ""


def test_a_swapped_fit_is_flagged():
    """Ten images of four workers (iaf.simulate_crowd, seed 0; as counts): the fit called
    the stray component the one drawn by 0.86 of the workers and the real objects those
    one worker drew; whatever the cells, such a fit is degenerate."""
    k = np.r_[np.full(10, 1), np.full(3, 2), np.full(24, 3), np.full(30, 4)]
    fit = presence(k, np.full(len(k), 4))
    assert fit.false_rate > fit.alpha / (fit.alpha + fit.beta)  # the swap
    assert fit.note
