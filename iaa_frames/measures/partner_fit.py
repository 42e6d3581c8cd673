"""The fit behind :func:`iaa_frames.measures.ranking.annotator_quality` (definitions in the
docstring of :mod:`iaa_frames.measures.ranking`): the pair scores of the within-item tables, the
bounded partner-weighted fixed point, the crowd's dispersion of score contributions, and
the bootstrap replicates of the crowd's parameters. Vectorized over pairings and
replicates.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.progress import tqdm
from iaa_frames.stats.bootstrap import block_size, multiplicity_blocks
from iaa_frames.stats.shrinkage import dersimonian_laird
from iaa_frames.tables.pairs import PairTables

__all__ = ["MAX_ITER", "TOL", "Dispersion", "crowd_replicates", "fixed_point", "pair_scores"]

#: Largest number of fixed-point iterations by default.
MAX_ITER = 2000
#: Convergence: largest change of any quality between two iterations.
TOL = 1e-10
#: Convergence of a bootstrap replicate, which only feeds the crowd's parameters.
TOL_REPLICATES = 1e-8
_PROGRESS_MIN_WORK = 50_000_000  # replicate x pairing products


# ------------------------------------------------------------------------ pair scores


def pair_scores(tables: PairTables):
    """Pairings that hold objects: annotator codes, item codes, PQ numerator, denominator."""
    s = tables.sets_within
    s = s[s["label"].to_numpy() == -1]
    w = tables.localization_within
    same = w["label_a"].to_numpy() == w["label_b"].to_numpy()
    n_ann = len(tables.corpus.annotators)
    n_items = len(tables.corpus.items)

    def key(frame):
        return (
            frame["item"].to_numpy().astype(np.int64) * n_ann + frame["annotator_a"].to_numpy()
        ) * n_ann + frame["annotator_b"].to_numpy()

    pairing_key = key(s)
    order = np.argsort(pairing_key, kind="stable")
    pos = np.searchsorted(pairing_key[order], key(w)[same])
    num = np.bincount(order[pos], weights=w["iou"].to_numpy()[same], minlength=len(s))
    den = (s["n_a"].to_numpy() + s["n_b"].to_numpy()) / 2.0
    keep = den > 0
    return (
        s["annotator_a"].to_numpy()[keep].astype(np.int64),
        s["annotator_b"].to_numpy()[keep].astype(np.int64),
        s["item"].to_numpy()[keep].astype(np.int64),
        num[keep],
        den[keep],
        n_ann,
        n_items,
    )


# ------------------------------------------------------------------------ fixed point


def _sides(a, b, n_ann):
    """Annotators x pairings indicators of side a and side b."""
    p = np.arange(len(a))
    return tuple(
        sp.csr_matrix((np.ones(len(a)), (side, p)), shape=(n_ann, len(a))) for side in (a, b)
    )


def _per_annotator(sides, values, q_a, q_b):
    """Per annotator, over its pairings: ``values`` times the partner's factor (q_b for
    the annotator on side a, q_a for the one on side b). Arrays are (B, n_pairings)."""
    side_a, side_b = sides
    return (side_a @ (values * q_b).T).T + (side_b @ (values * q_a).T).T


def fixed_point(a, b, num, den, n_ann, weights=None, max_iter=MAX_ITER, tol=TOL, start=None):
    """Solve ``q_a = sum_b q_b num / sum_b q_b^2 den`` for one or many replicates.

    The damped map ``F(q) = sqrt(q * update(q))`` is iterated with SQUAREM acceleration
    (Varadhan & Roland, Scand. J. Statist. 2008, scheme S3): plain iteration converges
    only linearly, slowly where two groups of annotators meet rarely.

    ``weights``: None or (B, n_pairings) pairing weights; ``start``: None (q = 1) or
    (n_ann,) starting values (a replicate starts from the corpus's solution, which it is
    close to). Returns (q, iterations): q is (n_ann,) or (B, n_ann), NaN where an
    annotator has no weighted pairing.

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([0.9, 0.8, 0.5])  # PQ = q_a q_b on the three pairings: recovered
    >>> a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> fit, _ = fixed_point(a, b, q[a] * q[b], np.ones(3), 3)
    >>> np.round(fit, 6).tolist()
    [0.9, 0.8, 0.5]
    """
    single = weights is None
    w = np.ones((1, len(a))) if single else np.asarray(weights, dtype=np.float64)
    sides = _sides(a, b, n_ann)
    wn, wd = w * num, w * den

    def step(q, wn, wd):
        """The damped update and its denominator; q holds 0 for absent annotators."""
        qa, qb = q[:, a], q[:, b]
        top = _per_annotator(sides, wn, qa, qb)
        bottom = _per_annotator(sides, wd, qa * qa, qb * qb)
        with np.errstate(divide="ignore", invalid="ignore"):
            update = np.where(bottom > 0, top / bottom, 0.0)
        # geometric damping (the overall scale settles at once), bounded by 1: the
        # minimiser over q_a of its own pairings' squares, restricted to [0, 1]
        return np.minimum(np.sqrt(q * update), 1.0), bottom

    present = _per_annotator(sides, w, 1.0, 1.0) > 0
    first = 1.0 if start is None else np.where(np.isfinite(start) & (start > 0), start, 1.0)
    q = np.where(present, first, 0.0)
    active = np.arange(len(w))  # replicates not converged yet
    wn_act, wd_act = wn, wd
    k = 0
    for k in range(1, max_iter + 1):  # noqa: B007  (k is returned: iterations used)
        qs = q[active]
        q1 = step(qs, wn_act, wd_act)[0]
        q2 = step(q1, wn_act, wd_act)[0]
        r, v = q1 - qs, q2 - 2.0 * q1 + qs
        nr = np.sqrt(np.sum(r * r, axis=1, keepdims=True))
        nv = np.sqrt(np.sum(v * v, axis=1, keepdims=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.minimum(np.where(nv > 0, -nr / nv, -1.0), -1.0)
        jump = np.clip(qs - 2.0 * alpha * r + alpha * alpha * v, 0.0, 1.0)
        new = step(jump, wn_act, wd_act)[0]
        change = np.max(np.abs(new - qs), axis=1, initial=0.0)
        q[active] = new
        going = change >= tol
        if not going.any():
            break
        if not going.all():
            active = active[going]
            wn_act, wd_act = wn[active], wd[active]
    # NaN where an annotator has no weighted pairing or only partners of quality 0
    reach = step(q, wn, wd)[1] > 0
    q = np.where(present & reach, q, np.nan)
    return (q[0] if single else q), k


# ------------------------------------------------------------------------ empirical Bayes


class Dispersion:
    """The (annotator, item) groups of the pairings' two sides, for the dispersion."""

    def __init__(self, a, b, item, num, den, n_ann, n_items):
        self.ann = np.concatenate([a, b])
        self.partner = np.concatenate([b, a])
        self.num = np.concatenate([num, num])
        self.den = np.concatenate([den, den])
        codes = self.ann * max(n_items, 1) + np.concatenate([item, item])
        uniq, g = np.unique(codes, return_inverse=True)
        self.g_ann = uniq // max(n_items, 1)
        self.g_item = uniq % max(n_items, 1)
        n_sides, n_groups = len(codes), len(uniq)
        self.to_group = sp.csr_matrix(
            (np.ones(n_sides), (g, np.arange(n_sides))), shape=(n_groups, n_sides)
        )
        self.to_ann = sp.csr_matrix(
            (np.ones(n_groups), (self.g_ann, np.arange(n_groups))), shape=(n_ann, n_groups)
        )

    def dispersion(self, q, k=None):
        """``(φ, I)`` of every replicate: q (B, n_ann), k None or (B, n_items).

        φ (B,) pools the leverage-corrected squared residuals of the (annotator, item)
        groups (NaN where no group has leverage below 1); I (B, n_ann) is the
        information ``sum_b q_b^2 den`` of each annotator's pairings.
        """
        qa, qp = q[:, self.ann], q[:, self.partner]
        ok = np.isfinite(qa) & np.isfinite(qp)
        qa, qp = np.where(ok, qa, 0.0), np.where(ok, qp, 0.0)
        info = qp * qp * self.den
        resid = qp * self.num - qa * info
        r_g = (self.to_group @ resid.T).T
        i_g = (self.to_group @ info.T).T
        k_g = np.ones_like(i_g) if k is None else k[:, self.g_item].astype(np.float64)
        i_a = (self.to_ann @ (k_g * i_g).T).T
        owner = i_a[:, self.g_ann]
        with np.errstate(divide="ignore", invalid="ignore"):
            lev = np.where(owner > 0, i_g / owner, 1.0)
            top = np.sum(k_g * r_g * r_g, axis=1)
            bottom = np.sum(k_g * i_g * np.clip(1.0 - lev, 0.0, None), axis=1)
            phi = np.where(
                bottom > 1e-12 * np.maximum(np.sum(k_g * i_g, axis=1), 1e-300), top / bottom, np.nan
            )
        return phi, i_a


def crowd_replicates(
    a, b, item, num, den, n_ann, n_items, groups, n_boot, seed, max_iter, progress, start
):
    """(φ, μ, τ²) of every bootstrap replicate, each (n_boot,)."""
    phi, mu, tau2 = (np.empty(n_boot) for _ in range(3))
    step = block_size(n_boot, max(2 * len(a), 1))
    disable = (n_boot * len(a) * 50 < _PROGRESS_MIN_WORK) if progress is None else not progress
    with tqdm(total=n_boot, unit="replicate", desc="bootstrap", disable=disable) as bar:
        start = 0
        for k in multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step):
            q = fixed_point(
                a,
                b,
                num,
                den,
                n_ann,
                weights=k[:, item],
                max_iter=max_iter,
                tol=TOL_REPLICATES,
                start=start,
            )[0]
            f, info = groups.dispersion(q, k)
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(info > 0, f[:, None] / info, np.nan)
            m, t = dersimonian_laird(q, v)
            sl = slice(start, start + len(k))
            phi[sl], mu[sl], tau2[sl] = f, m, t
            start += len(k)
            bar.update(len(k))
    return phi, mu, tau2
