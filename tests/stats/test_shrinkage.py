"""Normal empirical-Bayes shrinkage on [0, 1] (iaa_frames.stats.shrinkage): against scipy's
truncated normal, sampling and the DerSimonian-Laird formula written out."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import truncnorm

from iaa_frames.stats.shrinkage import (
    dersimonian_laird,
    mixture_quantiles,
    normal_posterior,
    restricted_cdf,
    restricted_mean,
)


def test_restricted_normal_matches_scipy():
    rng = np.random.default_rng(0)
    m = np.concatenate([rng.uniform(-1.5, 2.5, 300), [0.5, 1.0, 0.0, 3.0, -2.0]])
    s = np.concatenate([rng.uniform(0.005, 0.6, 300), [0.1, 0.01, 0.3, 0.05, 0.05]])
    a, b = -m / s, (1 - m) / s
    np.testing.assert_allclose(
        restricted_mean(m, s), truncnorm.mean(a, b, loc=m, scale=s), rtol=1e-7, atol=1e-9
    )
    x = rng.uniform(0, 1, len(m))
    np.testing.assert_allclose(
        restricted_cdf(x, m, s), truncnorm.cdf(x, a, b, loc=m, scale=s), atol=1e-9
    )
    # a point mass where s = 0
    assert restricted_mean(np.array([1.3]), np.array([0.0]))[0] == 1.0
    assert restricted_cdf(np.array([0.3, 0.7]), np.array([0.5]), np.array([0.0])).tolist() == [
        0.0,
        1.0,
    ]


def testmixture_quantiles_against_sampling_and_a_single_component():
    m = np.array([[0.7, 0.2], [0.9, np.nan], [0.8, 0.1]])
    s = np.array([[0.05, 0.1], [0.02, np.nan], [0.1, 0.05]])
    lo, hi = mixture_quantiles(m, s, (0.025, 0.975))
    # one component: scipy's quantile
    one_lo, one_hi = mixture_quantiles(m[:1], s[:1], (0.025, 0.975))
    a, b = -m[0] / s[0], (1 - m[0]) / s[0]
    np.testing.assert_allclose(one_lo, truncnorm.ppf(0.025, a, b, m[0], s[0]), atol=1e-9)
    np.testing.assert_allclose(one_hi, truncnorm.ppf(0.975, a, b, m[0], s[0]), atol=1e-9)
    # the mixture: against 400,000 draws (NaN components left out)
    rng = np.random.default_rng(1)
    for col in range(2):
        ok = np.isfinite(m[:, col])
        draws = np.concatenate(
            [
                truncnorm.rvs(-mm / ss, (1 - mm) / ss, mm, ss, size=200_000, random_state=rng)
                for mm, ss in zip(m[ok, col], s[ok, col])
            ]
        )
        np.testing.assert_allclose(
            [lo[col], hi[col]], np.quantile(draws, [0.025, 0.975]), atol=3e-3
        )


def test_dersimonian_laird_by_its_textbook_formula():
    # DerSimonian & Laird (1986): w = 1/v, Q = sum w (y - ybar_w)^2,
    # tau2 = max(0, (Q - (k - 1)) / (sum w - sum w^2 / sum w)); mu with 1/(v + tau2)
    y = np.array([0.9, 0.5, 0.7, np.nan, 0.2, 0.65])
    v = np.array([0.01, 0.02, 0.005, 0.1, 0.04, np.nan])
    yy, vv = y[:5][[0, 1, 2, 4]], v[:5][[0, 1, 2, 4]]
    w = [1 / x for x in vv]
    ybar = sum(wi * yi for wi, yi in zip(w, yy)) / sum(w)
    q = sum(wi * (yi - ybar) ** 2 for wi, yi in zip(w, yy))
    tau2 = max(0.0, (q - 3) / (sum(w) - sum(wi * wi for wi in w) / sum(w)))
    wr = [1 / (x + tau2) for x in vv]
    mu = sum(wi * yi for wi, yi in zip(wr, yy)) / sum(wr)
    got_mu, got_tau2 = dersimonian_laird(y[None, :], v[None, :])
    assert got_tau2[0] == pytest.approx(tau2) and tau2 > 0
    assert got_mu[0] == pytest.approx(mu)
    # no spread beyond the noise: tau2 = 0
    _, zero = dersimonian_laird(np.array([[0.5, 0.51, 0.49]]), np.array([[0.01, 0.01, 0.01]]))
    assert zero[0] == 0.0


def test_normal_posterior_is_the_conjugate_update():
    # precision-weighted: mean (y/v + mu/tau2) / (1/v + 1/tau2), variance 1 / (1/v + 1/tau2)
    y, v, mu, tau2 = 0.95, 0.02, 0.6, 0.01
    m, s, b = normal_posterior(y, v, mu, tau2)
    assert m == pytest.approx((y / v + mu / tau2) / (1 / v + 1 / tau2))
    assert s**2 == pytest.approx(1 / (1 / v + 1 / tau2))
    assert b == pytest.approx(tau2 / (tau2 + v))
    # more noise, more shrinkage; no noise (or unknown noise), none
    assert normal_posterior(y, 4 * v, mu, tau2)[2] < b
    for exact in (0.0, np.nan):
        assert normal_posterior(y, exact, mu, tau2) == (y, 0.0, 1.0)
