"""The fit behind :func:`iaa_frames.measures.ranking.annotator_quality` (definitions in the
docstring of :mod:`iaa_frames.measures.ranking`): the pair scores of the within-item tables, the
bounded partner-weighted fixed point, the crowd's dispersion of score contributions, and
the bootstrap replicates of the crowd's parameters. Vectorized over pairings and
replicates.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.progress import tqdm
from iaa_frames.stats.bootstrap import block_size, multiplicity_blocks
from iaa_frames.stats.shrinkage import dersimonian_laird, normal_posterior

__all__ = [
    "MAX_ITER",
    "TOL",
    "Dispersion",
    "crowd_replicates",
    "fixed_point",
    "own_items_posterior",
    "pair_scores",
]

#: Largest number of fixed-point iterations by default.
MAX_ITER = 2000
#: Convergence: largest change of any quality between two iterations.
TOL = 1e-10
#: Convergence of a bootstrap replicate, which only feeds the crowd's parameters.
TOL_REPLICATES = 1e-8
_PROGRESS_MIN_WORK = 50_000_000  # replicate x pairing products


# ------------------------------------------------------------------------ pair scores


def pair_scores(tables: PairTables, directed: bool = True):
    """Pairings that hold objects: annotator codes, item codes, PQ numerator and the
    directed denominators of side a and side b.

    The denominator of side a is the PQ denominator ``(n_a + n_b) / 2`` less half of a's
    **corroborated** unmatched objects: those b did not match but another annotator of
    the item drew (their cluster holds someone else). Such an object is b's miss, not
    a's false positive, so it does not count against a (it still counts against b, whose
    denominator keeps it as a miss). With two annotators per item nothing is
    corroborated and both denominators are PQ's. ``directed=False`` gives PQ's
    denominator on both sides (the previous release's pair score).

    Returns ``(a, b, item, num, den_a, den_b, n_ann, n_items)``.
    """
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
    n_a, n_b = s["n_a"].to_numpy(np.float64), s["n_b"].to_numpy(np.float64)
    den = (n_a + n_b) / 2.0
    # corroborated objects per (item, annotator): in a cluster of two members or more
    u = tables.units
    cl = u["cluster"].to_numpy(np.int64)
    size = np.bincount(cl) if len(cl) else np.zeros(0, np.int64)
    owner = u["item"].to_numpy(np.int64) * n_ann + u["annotator"].to_numpy(np.int64)
    corroborated = np.bincount(owner, (size[cl] >= 2).astype(np.float64), max(n_items * n_ann, 1))
    item = s["item"].to_numpy().astype(np.int64)
    matched = s["n_matched"].to_numpy(np.float64)
    c_a = np.maximum(corroborated[item * n_ann + s["annotator_a"].to_numpy()] - matched, 0.0)
    c_b = np.maximum(corroborated[item * n_ann + s["annotator_b"].to_numpy()] - matched, 0.0)
    c_a, c_b = np.minimum(c_a, n_a - matched), np.minimum(c_b, n_b - matched)
    if directed:
        den_a, den_b = den - c_a / 2.0, den - c_b / 2.0
    else:
        den_a, den_b = den, den
    keep = den > 0
    return (
        s["annotator_a"].to_numpy()[keep].astype(np.int64),
        s["annotator_b"].to_numpy()[keep].astype(np.int64),
        item[keep],
        num[keep],
        den_a[keep],
        den_b[keep],
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


def fixed_point(
    a, b, num, den, n_ann, weights=None, max_iter=MAX_ITER, tol=TOL, start=None, den_b=None
):
    """Solve ``q_a = sum_b q_b num / sum_b q_b^2 den`` for one or many replicates.

    The damped map ``F(q) = sqrt(q * update(q))`` is iterated with SQUAREM acceleration
    (Varadhan & Roland, Scand. J. Statist. 2008, scheme S3): plain iteration converges
    only linearly, slowly where two groups of annotators meet rarely.

    ``den`` is the denominator of the annotator on side a of each pairing, ``den_b`` that
    of side b (None: the same, the symmetric PQ denominator; see :func:`pair_scores`).
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
    wn, wd = w * num, np.stack([w * den, w * (den if den_b is None else den_b)])

    def step(q, wn, wd):
        """The damped update and its denominator; q holds 0 for absent annotators."""
        qa, qb = q[:, a], q[:, b]
        top = _per_annotator(sides, wn, qa, qb)
        side_a, side_b = sides
        bottom = (side_a @ (wd[0] * qb * qb).T).T + (side_b @ (wd[1] * qa * qa).T).T
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
            wn_act, wd_act = wn[active], wd[:, active]
    # NaN where an annotator has no weighted pairing or only partners of quality 0
    reach = step(q, wn, wd)[1] > 0
    q = np.where(present & reach, q, np.nan)
    return (q[0] if single else q), k


# ------------------------------------------------------------------------ empirical Bayes


class Dispersion:
    """The (annotator, item) groups of the pairings' two sides, for the dispersion."""

    def __init__(self, a, b, item, num, den, n_ann, n_items, den_b=None):
        self.ann = np.concatenate([a, b])
        self.partner = np.concatenate([b, a])
        self.num = np.concatenate([num, num])
        self.den = np.concatenate([den, den if den_b is None else den_b])
        codes = self.ann * max(n_items, 1) + np.concatenate([item, item])
        uniq, g = np.unique(codes, return_inverse=True)
        self.g = g
        self.side_item = np.concatenate([item, item])
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
        information ``sum_b q_b^2 den`` of each annotator's pairings. The groups of an
        annotator whose quality is 0 (it matched nothing: every score is 0 whatever the
        noise, so its residuals are 0 by construction) are left out of φ.
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
        k_g = k_g * (np.nan_to_num(q[:, self.g_ann]) > 0)  # pooled: no zero-quality group
        with np.errstate(divide="ignore", invalid="ignore"):
            lev = np.where(owner > 0, i_g / owner, 1.0)
            top = np.sum(k_g * r_g * r_g, axis=1)
            bottom = np.sum(k_g * i_g * np.clip(1.0 - lev, 0.0, None), axis=1)
            phi = np.where(
                bottom > 1e-12 * np.maximum(np.sum(k_g * i_g, axis=1), 1e-300), top / bottom, np.nan
            )
        return phi, i_a

    def noise(self, q, k=None):
        """``φ_m`` (B,): the dispersion of the score contributions **between the partners**
        of an (annotator, item) group, pooled like ``φ`` with the leverage of each
        partner within its group removed::

            φ_m = sum e_abi^2 / sum I_abi (1 - I_abi / I_ai),   e_abi = r_abi - I_abi R_ai / I_ai

        where ``r_abi = q_b num_ab - q_a q_b^2 den_ab`` is one pairing's residual and
        ``R_ai, I_ai`` its group's sums. It is the noise that the partners add to the
        annotator's figure on an item; ``φ - φ_m`` is what the annotator's own work
        varies from item to item. NaN where no group has two partners. As in
        :meth:`dispersion`, the groups of an annotator of quality 0 are left out: their
        residuals are 0 whatever the partners' noise (an annotator who drew nothing beside
        peers who drew made it 0, and every interval of no width).
        """
        qa, qp = q[:, self.ann], q[:, self.partner]
        ok = np.isfinite(qa) & np.isfinite(qp)
        qa, qp = np.where(ok, qa, 0.0), np.where(ok, qp, 0.0)
        info = qp * qp * self.den
        resid = qp * self.num - qa * info
        r_g = (self.to_group @ resid.T).T
        i_g = (self.to_group @ info.T).T
        k_s = 1.0 if k is None else k[:, self.side_item].astype(np.float64)
        k_s = k_s * (qa > 0)  # pooled: no side of a zero-quality annotator
        with np.errstate(divide="ignore", invalid="ignore"):
            own = i_g[:, self.g]
            e = resid - np.where(own > 0, r_g[:, self.g] / own, 0.0) * info
            lev = np.where(own > 0, info / own, 1.0)
            top = np.sum(k_s * e * e, axis=1)
            bottom = np.sum(k_s * info * np.clip(1.0 - lev, 0.0, None), axis=1)
            scale = np.maximum(np.sum(k_s * info, axis=1), 1e-300)
            return np.where(bottom > 1e-12 * scale, top / bottom, np.nan)


def own_items_posterior(unshrunk, info, phi, phi_m, mu, tau2):
    """Mean, sd and data weight of each annotator's posterior (before the restriction to
    [0, 1]) for its quality **on the items it annotated**.

    The estimate's error about that quality is the partners' noise ``v = φ_m / I_a``; the
    quality itself varies about the crowd mean ``μ`` by ``τ²`` (between annotators) plus
    ``(φ - φ_m) / I_a`` (the annotator's own work varying from item to item, which its
    items fix). Where ``φ_m`` cannot be estimated (no group with two partners) the
    partners' noise is taken as the whole dispersion ``φ``. Broadcasts.
    """
    phi_m = np.where(np.isfinite(phi_m), np.minimum(phi_m, phi), phi)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = np.isfinite(unshrunk) & (info > 0)
        v = np.where(ok, phi_m / info, np.nan)
        prior = tau2 + np.where(ok, (phi - phi_m) / info, 0.0)
    return normal_posterior(unshrunk, v, mu, prior)


def crowd_replicates(
    a, b, item, num, den, n_ann, n_items, groups, n_boot, seed, max_iter, progress, start,
    den_b=None,
):  # fmt: skip
    """(φ, φ_m, μ, τ²) of every bootstrap replicate, each (n_boot,); ``start`` is the
    corpus's solution, where every replicate's fixed point starts."""
    phi, phi_m, mu, tau2 = (np.empty(n_boot) for _ in range(4))
    step = block_size(n_boot, max(2 * len(a), 1))
    disable = (n_boot * len(a) * 50 < _PROGRESS_MIN_WORK) if progress is None else not progress
    with tqdm(total=n_boot, unit="replicate", desc="bootstrap", disable=disable) as bar:
        done = 0
        for k in multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step):
            q = fixed_point(
                a, b, num, den, n_ann, weights=k[:, item], max_iter=max_iter,
                tol=TOL_REPLICATES, start=start, den_b=den_b,
            )[0]  # fmt: skip
            f, info = groups.dispersion(q, k)
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(info > 0, f[:, None] / info, np.nan)
            m, t = dersimonian_laird(q, v)
            sl = slice(done, done + len(k))
            phi[sl], phi_m[sl], mu[sl], tau2[sl] = f, groups.noise(q, k), m, t
            done += len(k)
            bar.update(len(k))
    return phi, phi_m, mu, tau2
