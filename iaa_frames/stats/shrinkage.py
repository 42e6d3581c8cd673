"""Normal empirical-Bayes shrinkage of estimates bounded to [0, 1].

Given estimates ``y_i`` of quantities ``θ_i`` in [0, 1] with sampling variances ``v_i``
(``y_i ~ N(θ_i, v_i)``), and a population ``θ_i ~ N(μ, τ²)`` restricted to [0, 1]:

* :func:`dersimonian_laird` estimates ``μ`` and ``τ²`` by moments (DerSimonian & Laird,
  "Meta-analysis in clinical trials", Controlled Clinical Trials 7, 1986);
* :func:`normal_posterior` gives the posterior before the restriction: mean
  ``μ + B (y - μ)``, variance ``B v``, ``B = τ² / (τ² + v)`` (Efron & Morris, JASA 70,
  1975; Morris, JASA 78, 1983);
* the posterior is that normal restricted to [0, 1] (a normal prior restricted to an
  interval times a normal likelihood): :func:`restricted_mean` and
  :func:`restricted_cdf` are its mean and distribution function, computed in log space so
  that far tails stay exact; :func:`mixture_quantiles` the quantiles of an equal mixture
  of such posteriors (over bootstrap replicates of ``μ, τ²``: Laird & Louis, JASA 82,
  1987).

Everything broadcasts over arrays; a standard deviation of 0 means a point mass at the
mean bounded to [0, 1].
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr

__all__ = [
    "dersimonian_laird",
    "mixture_quantiles",
    "normal_posterior",
    "restricted_cdf",
    "restricted_mean",
]

_BISECTIONS = 40  # quantiles to 2^-40 of the unit interval


def dersimonian_laird(y, v):
    """Moment estimates ``(μ, τ²)`` of the population of every row of ``y``.

    With ``w = 1 / v``, ``Q = Σ w (y - ȳ_w)²`` (Cochran's Q about the precision-weighted
    mean ``ȳ_w``) and ``k`` estimates, ``τ² = max(0, (Q - (k - 1)) / (Σ w - Σ w² / Σ w))``
    and ``μ`` is the mean weighted by ``1 / (v + τ²)``. Entries whose ``y`` or ``v`` is
    NaN, or whose ``v`` is not positive, are left out.

    Parameters
    ----------
    y, v : array_like, shape (B, k)
        Estimates and their sampling variances, one set per row.

    Returns
    -------
    mu, tau2 : numpy.ndarray, shape (B,)
        NaN where a row has no usable entry; ``tau2`` is 0 with fewer than two.

    Examples
    --------
    >>> mu, tau2 = dersimonian_laird([[0.9, 0.5, 0.7]], [[0.01, 0.01, 0.01]])
    >>> round(float(mu[0]), 6), round(float(tau2[0]), 6)
    (0.7, 0.03)
    """
    y, v = np.atleast_2d(np.asarray(y, float)), np.atleast_2d(np.asarray(v, float))
    ok = np.isfinite(y) & np.isfinite(v) & (v > 0)
    vv = np.where(ok, v, 1.0)
    w = np.where(ok, 1.0 / vv, 0.0)
    yz = np.where(ok, y, 0.0)
    sw = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        fixed = (w * yz).sum(axis=1) / sw
        cochran = (w * (yz - fixed[:, None]) ** 2).sum(axis=1)
        c = sw - (w * w).sum(axis=1) / sw
        tau2 = np.where(c > 0, np.maximum(0.0, (cochran - (ok.sum(axis=1) - 1)) / c), 0.0)
        wr = np.where(ok, 1.0 / (vv + tau2[:, None]), 0.0)
        mu = (wr * yz).sum(axis=1) / wr.sum(axis=1)
    return mu, tau2


def normal_posterior(y, v, mu, tau2):
    """Mean, standard deviation and data weight ``B`` of the normal posterior of ``θ``
    given ``y ~ N(θ, v)`` and ``θ ~ N(μ, τ²)``, before any restriction to [0, 1].

    Where ``v`` is 0 or NaN (exact, or noise not estimable) nothing is shrunk: mean ``y``,
    standard deviation 0, weight 1. Broadcasts.

    Examples
    --------
    >>> m, s, b = normal_posterior(0.9, 0.01, 0.5, 0.03)
    >>> round(float(m), 3), round(float(s), 4), float(b)
    (0.8, 0.0866, 0.75)
    """
    y, v = np.asarray(y, float), np.asarray(v, float)
    exact = ~(np.isfinite(v) & (v > 0))
    vv = np.where(exact, 0.0, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(exact, 1.0, tau2 / (tau2 + vv))
        mean = np.where(exact, y, mu + weight * (y - mu))
        sd = np.where(exact, 0.0, np.sqrt(weight * vv))
    return mean, sd, weight


def _heavy_side(m, s):
    """Reflect so that the mean is >= 0.5 (the lower tail then matters, where log_ndtr is
    exact): (flip, m', s', log Φ at 0, log Φ at 1)."""
    flip = m < 0.5
    m2 = np.where(flip, 1.0 - m, m)
    s2 = np.where(s > 0, s, 1.0)
    return flip, m2, s2, log_ndtr(-m2 / s2), log_ndtr((1.0 - m2) / s2)


def restricted_mean(m, s):
    """Mean of ``N(m, s²)`` restricted to [0, 1]; ``clip(m, 0, 1)`` where ``s = 0``.

    Examples
    --------
    >>> round(float(restricted_mean(1.2, 0.1)), 4), float(restricted_mean(1.2, 0.0))
    (0.9627, 1.0)
    """
    m, s = np.asarray(m, float), np.asarray(s, float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        flip, m2, s2, lo, hi = _heavy_side(m, s)
        a, b = -m2 / s2, (1.0 - m2) / s2
        log_pdf_a = -0.5 * a * a - 0.5 * np.log(2.0 * np.pi)
        log_pdf_b = -0.5 * b * b - 0.5 * np.log(2.0 * np.pi)
        # (φ(a) - φ(b)) / (Φ(b) - Φ(a)), every term divided by Φ(b)
        ratio = (np.exp(log_pdf_a - hi) - np.exp(log_pdf_b - hi)) / -np.expm1(lo - hi)
        mean = np.clip(m2 + s2 * ratio, 0.0, 1.0)  # rounding only: the mean is in [0, 1]
    return np.where(s > 0, np.where(flip, 1.0 - mean, mean), np.clip(m, 0.0, 1.0))


def restricted_cdf(x, m, s):
    """Distribution function at ``x`` of ``N(m, s²)`` restricted to [0, 1] (a step at
    ``clip(m, 0, 1)`` where ``s = 0``). Broadcasts.

    Examples
    --------
    >>> round(float(restricted_cdf(0.5, 0.5, 0.2)), 6)
    0.5
    """
    x, m, s = np.asarray(x, float), np.asarray(m, float), np.asarray(s, float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        flip, m2, s2, lo, hi = _heavy_side(m, s)
        z = log_ndtr((np.where(flip, 1.0 - x, x) - m2) / s2)
        f = np.clip((np.exp(z - hi) - np.exp(lo - hi)) / -np.expm1(lo - hi), 0.0, 1.0)
    step = (x >= np.clip(m, 0.0, 1.0)).astype(np.float64)
    return np.where(s > 0, np.where(flip, 1.0 - f, f), step)


def mixture_quantiles(m, s, probs):
    """Quantiles of the equal mixture, over the rows, of ``N(m, s²)`` restricted to
    [0, 1], one per column; components with a NaN are left out (NaN where none is left).

    Found by bisection on the mixture's distribution function: the upper end of the last
    bracket, within 2^-40 above the quantile ``inf {x: F(x) >= p}`` (exact at 1).
    Deterministic.

    Parameters
    ----------
    m, s : array_like, shape (R, n)
        Means and standard deviations of the components.
    probs : sequence of float
        Probabilities in (0, 1).

    Returns
    -------
    list of numpy.ndarray, shape (n,)
        One array per probability.

    Examples
    --------
    >>> lo, hi = mixture_quantiles([[0.5]], [[0.1]], (0.025, 0.975))
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (0.304, 0.696)
    """
    m, s = np.atleast_2d(np.asarray(m, float)), np.atleast_2d(np.asarray(s, float))
    ok = np.isfinite(m) & np.isfinite(s)
    n_ok = ok.sum(axis=0)
    mm, ss = np.where(ok, m, 0.5), np.where(ok, s, 0.0)
    out = []
    for p in probs:
        lo, hi = np.zeros(m.shape[1]), np.ones(m.shape[1])
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lo + hi)
            cdf = np.where(ok, restricted_cdf(mid[None, :], mm, ss), 0.0).sum(axis=0)
            below = cdf < p * n_ok
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out.append(np.where(n_ok > 0, hi, np.nan))  # hi: F(hi) >= p, exact at 1
    return out
