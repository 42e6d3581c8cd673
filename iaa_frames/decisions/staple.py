"""STAPLE: the hidden true mask and each rater's sensitivity and specificity, by EM.

Simultaneous Truth And Performance Level Estimation (Warfield, Zou & Wells, "Simultaneous
truth and performance level estimation (STAPLE): an algorithm for the validation of
image segmentation", IEEE TMI 23(7), 2004). Each rater ``j`` marks a pixel foreground with
probability ``p_j`` (sensitivity) when it is, and background with probability ``q_j``
(specificity) when it is not. Given the decisions ``D_ij``, EM alternates

* E-step: ``W_i = f a_i / (f a_i + (1 - f) b_i)``, the posterior that pixel ``i`` is
  foreground, with ``a_i = prod_j p_j^D_ij (1 - p_j)^(1 - D_ij)`` and
  ``b_i = prod_j q_j^(1 - D_ij) (1 - q_j)^D_ij`` over the raters of the pixel, and ``f``
  the prior (Warfield's global prior: the mean decision, here per structure);
* M-step: ``p_j = sum_i W_i D_ij / sum_i W_i``, ``q_j = sum_i (1 - W_i)(1 - D_ij) /
  sum_i (1 - W_i)``.

Here many structures (the clusters of a consensus) are segmented at once on grids of equal
size, and a rater's ``p_j, q_j`` are shared by every structure it drew: the performance of
an annotator is estimated on all its objects, not on one. Everything is a matrix operation
over (rater decision, pattern): the pixels of a structure whose masks decide alike share
their posterior, so the EM runs over each structure's distinct decision patterns, weighted
by their pixel counts (a handful per structure, not thousands of pixels); the loop runs
over EM iterations.
"""

from __future__ import annotations

import numpy as np

from iaa_frames.arrays import ranges, unique_inverse

__all__ = ["staple"]

_EPS = 1e-6


def staple(decisions, structure, rater, n_raters, *, max_iter: int = 100, tol: float = 1e-7):
    """STAPLE on many structures at once.

    Parameters
    ----------
    decisions : ndarray of bool, shape (n_masks, n_pixels)
        One row per mask drawn (a rater's mask of one structure), on the structure's grid.
    structure : ndarray of int, shape (n_masks,)
        Structure of each mask, ``0 .. n_structures - 1``, sorted (masks of a structure
        contiguous); every structure has at least one mask.
    rater : ndarray of int, shape (n_masks,)
        Rater of each mask, ``0 .. n_raters - 1``.
    n_raters : int
    max_iter : int, default 100
    tol : float, default 1e-7
        Stop when no ``p_j`` or ``q_j`` moves by more than ``tol``.

    Returns
    -------
    posterior : ndarray of float64, shape (n_structures, n_pixels)
        Probability that each pixel is foreground; the STAPLE mask is ``posterior >= 0.5``.
    sensitivity, specificity : ndarray of float64, shape (n_raters,)
        ``p_j`` and ``q_j`` (NaN for a rater without masks).

    Examples
    --------
    Two raters agree, a third marks everything: STAPLE follows the two.

    >>> d = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)
    >>> post, p, q = staple(d, np.zeros(3, int), np.arange(3), 3)
    >>> (post[0] >= 0.5).tolist()
    [True, True, False, False]
    """
    d = np.asarray(decisions, dtype=bool)
    structure = np.asarray(structure, dtype=np.int64)
    rater = np.asarray(rater, dtype=np.int64)
    n_masks, n_pix = d.shape
    starts = np.flatnonzero(np.r_[True, structure[1:] != structure[:-1]])
    n_of = np.diff(np.r_[starts, n_masks])  # masks of each structure
    marked = d.sum(axis=1).astype(np.float64)
    prior = np.clip(np.add.reduceat(marked, starts) / (n_of * n_pix), _EPS, 1 - _EPS)
    logit_prior = np.log(prior) - np.log1p(-prior)
    has = np.bincount(rater, minlength=n_raters) > 0
    pattern, count, of, member, marks = _patterns(d, starts, n_of)
    own = structure[member[np.flatnonzero(np.r_[True, of[1:] != of[:-1]])]]  # per pattern
    judge = rater[member]
    p = np.full(n_raters, 0.99)
    q = np.full(n_raters, 0.99)
    for _ in range(max_iter):
        post = _posterior(p, q, judge, marks, of, logit_prior[own])
        # M-step sums over pixels, as sums over patterns weighted by their pixel counts
        weight = count * post
        fg = np.bincount(own, weight, len(starts))[structure]
        hit = np.bincount(member, np.where(marks, weight[of], 0.0), n_masks)
        bg = n_pix - fg
        reject = bg - (marked - hit)  # sum (1 - W)(1 - D)
        p_new = np.bincount(rater, hit, n_raters) / np.maximum(
            np.bincount(rater, fg, n_raters), _EPS
        )
        q_new = np.bincount(rater, reject, n_raters) / np.maximum(
            np.bincount(rater, bg, n_raters), _EPS
        )
        p_new = np.clip(np.where(has, p_new, 0.99), _EPS, 1 - _EPS)
        q_new = np.clip(np.where(has, q_new, 0.99), _EPS, 1 - _EPS)
        moved = max(np.abs(p_new - p).max(initial=0), np.abs(q_new - q).max(initial=0))
        p, q = p_new, q_new
        if moved < tol:
            break
    post = _posterior(p, q, judge, marks, of, logit_prior[own])
    return post[pattern], np.where(has, p, np.nan), np.where(has, q, np.nan)


def _patterns(d, starts, n_of):
    """The distinct decision patterns of every structure's pixels.

    Pixels of one structure whose masks decide alike have one posterior, so the EM runs
    over (structure, pattern) pairs weighted by their pixel counts, not over pixels.

    Returns
    -------
    pattern : ndarray of int, shape (n_structures, n_pixels)
        Each pixel's pattern (patterns of different structures differ).
    count : ndarray of float, one per pattern
        Its pixels.
    of, member, marks : ndarray, one per (pattern, mask of its structure)
        The pattern, the mask (row of ``d``) and the mask's decision.
    """
    n_pix = d.shape[1]
    pattern = np.repeat(np.arange(len(starts)), n_pix).reshape(len(starts), n_pix)
    for j in range(int(n_of.max(initial=0))):  # a loop over a structure's masks
        bit = np.zeros(pattern.shape, dtype=np.int64)
        has = n_of > j
        bit[has] = d[starts[has] + j]
        pattern = unique_inverse(pattern * 2 + bit)[1].reshape(pattern.shape)
    flat = pattern.ravel()
    count = np.bincount(flat).astype(np.float64)
    pixel = np.empty(len(count), dtype=np.int64)
    pixel[flat] = np.arange(flat.size)  # a pixel of each pattern (any: they decide alike)
    s, px = np.divmod(pixel, n_pix)
    of = np.repeat(np.arange(len(count)), n_of[s])
    member = ranges(starts[s], n_of[s])
    return pattern, count, of, member, d[member, px[of]]


def _posterior(p, q, judge, marks, of, logit_prior):
    """E-step: the posterior of every pattern from its masks' decisions ``marks`` (by the
    raters ``judge``) and its structure's ``logit_prior``."""
    pr, qr = p[judge], q[judge]
    # log a - log b: D (log p - log(1-q)) + (1-D)(log(1-p) - log q)
    term = np.where(marks, np.log(pr) - np.log1p(-qr), np.log1p(-pr) - np.log(qr))
    score = np.bincount(of, term, len(logit_prior)) + logit_prior
    return 1.0 / (1.0 + np.exp(-np.clip(score, -60, 60)))
