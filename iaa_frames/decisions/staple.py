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
over (rater decision, pixel); the loop runs over EM iterations.
"""

from __future__ import annotations

import numpy as np

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
    starts = np.flatnonzero(np.r_[True, structure[1:] != structure[:-1]])
    df = d.astype(np.float32)
    marked = df.sum(axis=1)
    n_pix = d.shape[1]
    per_structure = np.add.reduceat(marked, starts)
    n_masks = np.diff(np.r_[starts, len(structure)])
    prior = np.clip(per_structure / (n_masks * n_pix), _EPS, 1 - _EPS)
    logit_prior = np.log(prior) - np.log1p(-prior)
    has = np.bincount(rater, minlength=n_raters) > 0
    p = np.full(n_raters, 0.99)
    q = np.full(n_raters, 0.99)
    for _ in range(max_iter):
        pr, qr = p[rater], q[rater]
        # log a - log b per pixel: D (log p - log(1-q)) + (1-D)(log(1-p) - log q)
        on = (np.log(pr) - np.log1p(-qr)).astype(np.float32)
        off = (np.log1p(-pr) - np.log(qr)).astype(np.float32)
        contrib = df * (on - off)[:, None]
        score = np.add.reduceat(contrib, starts, axis=0) + np.add.reduceat(off, starts)[:, None]
        post = 1.0 / (1.0 + np.exp(-np.clip(score + logit_prior[:, None], -60, 60)))
        wm = post[structure]  # the posterior of each mask's structure
        fg = wm.sum(axis=1)
        hit = (wm * df).sum(axis=1)
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
    pr, qr = p[rater], q[rater]
    on = (np.log(pr) - np.log1p(-qr)).astype(np.float32)
    off = (np.log1p(-pr) - np.log(qr)).astype(np.float32)
    score = np.add.reduceat(df * (on - off)[:, None], starts, axis=0)
    score += np.add.reduceat(off, starts)[:, None]
    post = 1.0 / (1.0 + np.exp(-np.clip(score + logit_prior[:, None], -60, 60)))
    return post.astype(np.float64), np.where(has, p, np.nan), np.where(has, q, np.nan)
