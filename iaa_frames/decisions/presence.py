"""Is a cluster a real object? The probability from how many of the annotators who saw
the item drew it, and the acceptance threshold that maximises the expected F1.

A cluster drawn by ``k`` of the ``n`` annotators who covered its item is either a real
object or a false one. Real objects differ in how easy they are to see (a large car is
drawn by everyone, a small far one by a few), so the share of annotators who draw a real
object varies from object to object: ``k`` is **beta-binomial** ``BB(n, α, β)``. A false
cluster is one annotator's stray box, rarely repeated: ``k`` is binomial ``Bin(n, f)``.
Only clusters that someone drew are seen, so both are truncated to ``k >= 1``; a share
``π`` of the clusters seen is real. ``(π, α, β, f)`` are the maximum-likelihood fit of
this mixture to the clusters of the corpus (aggregated by ``(k, n)``: a few dozen
distinct pairs, Nelder-Mead from three starts, the best likelihood kept), and ``p_real``
is each cluster's posterior probability of being real. The beta-binomial's likelihood is
computed as sums of logs of its factors (:func:`_log_bb`), exact at any ``α, β``:
as a difference of log-beta functions it lost every digit when ``α`` and ``β`` were
large (a binomial), and on sparse crowds of 2 to 5 workers per image the fit went to
that artefact, a "likelihood" above 1, where a box drawn by one of five workers got
``p_real`` 0.5 (0.07 now, 0.09 of them real).

A constant rate for real objects (Dawid & Skene's model) puts objects that two or three of nine annotators drew among the false ones
(posterior below 0.001 on the real crowd of Braylan et al., where 56 % and 64 % of them
are in the gold); the beta-binomial gives 0.49 and 0.96. Its ``α`` is at least 1 (the
share of drawers of real objects has no pile at 0): otherwise a U-shaped beta explains
one image-blind annotator's stray boxes (``k = 1``) as real objects that the others
missed, as well as the objects everyone drew (on a corpus of three good annotators and a
random one, ``p_real`` 0.93 for the random one's boxes, all accepted; with ``α >= 1``,
none, and the F1 on the real crowd is unchanged, 0.796).

**Threshold.** Accepting the clusters of ``p >= t`` gives the expected F1 (against the
real objects) of about ``2 sum_{p >= t} p / (#{p >= t} + sum p)``; the threshold
maximises it over the clusters' own probabilities. A cluster is worth accepting when it
is more likely real than about half the F1 reached (Lipton, Elkan & Naryanaswamy,
"Optimal thresholding of classifiers to maximize F1 measure", ECML PKDD 2014): below 0.5
when the crowd misses much, so that objects only a few saw are kept when the fit says
they are as likely real as not.

**When the fit cannot decide** (:attr:`Presence.note`, not empty). The clusters tell the
mixture only through the histogram of ``k`` at each coverage ``n``: ``n - 1`` free cells
per distinct ``n``. With three annotators on every item that is 2 cells for the 4
parameters ``(π, α, β, f)`` (with four, 3): the likelihood has a ridge of equally good
fits, and the one the optimiser lands on depends on the corpus's last few clusters. On
3-to-5-item corpora of three annotators the threshold jumped between 1e-13 (only the
clusters all three drew accepted) and 1 (clusters one of three drew accepted), and on
``iaf.simulate_crowd`` crowds of three or four workers per image the F1 against the truth
was 0.72 to 0.88 where a majority of the weight gave 0.97 to 0.99 (ten images of four,
seed 0: F1 0, the clusters one worker drew accepted and every other one rejected). The fit is also flagged when it is degenerate
whatever the cells: ``π`` at 0 or 1 (one component explains everything), or the stray
boxes' rate ``f`` at least the real objects' mean share of drawers ``α / (α + β)`` (the
components swapped: clusters everyone drew called stray). :func:`presence` still returns
the fit; ``iaf.consensus(quorum="auto")`` then falls back to a majority of the weight
(``quorum=0.5``) and says so in its ``params["note"]``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, gammaln

__all__ = ["N_PARAMETERS", "Presence", "best_f1_threshold", "presence"]

#: The mixture's free parameters ``(π, α, β, f)``: a fit is identified only when the
#: clusters' histograms of ``k`` hold at least as many free cells.
N_PARAMETERS = 4

#: ``π`` closer than this to 0 or 1: the mixture collapsed to one component.
_EDGE = 1e-6

_STARTS = ((1.0, 0.0, 0.0, -3.0), (0.0, 1.0, -1.0, -2.0), (2.0, 0.5, 0.0, -4.0))


class Presence:
    """What :func:`presence` returns: ``p`` (per cluster), and the fit: ``prior`` (π, the
    share of real clusters), ``alpha``, ``beta`` (of the real objects' share of drawers)
    and ``false_rate`` (f); ``note``: why the fit cannot tell real clusters from stray
    ones (not identified by the clusters' counts, or degenerate; module docstring), empty
    when it can."""

    __slots__ = ("alpha", "beta", "false_rate", "note", "p", "prior")

    def __init__(self, p, prior, alpha, beta, false_rate, note=""):
        self.p, self.prior, self.alpha, self.beta = p, prior, alpha, beta
        self.false_rate, self.note = false_rate, note


def free_cells(n_covered) -> int:
    """The free cells of the clusters' histograms: ``n - 1`` for every distinct coverage
    ``n`` of a cluster (its ``k`` is one of ``1..n``, the count at that ``n`` is given)."""
    n = np.unique(np.asarray(n_covered, dtype=np.int64))
    return int(np.sum(np.maximum(n - 1, 0)))


def _fit_note(cells, n_values, prior, alpha, beta, false_rate) -> str:
    """Why the fit cannot decide, or ""."""
    if cells < N_PARAMETERS:
        shown = ", ".join(str(int(v)) for v in n_values)
        return (
            f"the clusters' counts do not identify the presence model: their items were seen "
            f"by {shown} annotators, {cells} free cells for its {N_PARAMETERS} parameters "
            f"(at least five annotators on some items, or several crowd sizes, are needed)"
        )
    if not _EDGE < prior < 1 - _EDGE:
        return (
            f"the presence model's fit is degenerate: a share of real clusters of {prior:.3g} "
            "(one component explains every cluster)"
        )
    if false_rate >= alpha / (alpha + beta):
        return (
            f"the presence model's fit is degenerate: stray boxes drawn by a share {false_rate:.2f} "
            f"of those who saw the item, real objects by {alpha / (alpha + beta):.2f} "
            "(the components are swapped)"
        )
    return ""


def _log_bb(a, b, k, n):
    """The beta-binomial ``BB(n, a, b)``'s ``log P(k) - log C(n, k)`` and
    ``log P(k >= 1)``, from prefix sums over ``j < max(n)`` (one pass, whatever the
    number of distinct ``(k, n)``).

    ``P(k) / C(n, k) = a^(k) b^(n-k) / (a + b)^(n)`` with ``c^(m) = c (c + 1) ... (c + m
    - 1)``, the sum of the logs of its factors: exact to a few rounding errors of
    ``log(a + b + n)`` per factor, at any ``a, b``. ``P(0) = prod_{j < n} (b + j) / (a +
    b + j)``, whose log is ``-sum log1p(a / (b + j))``, exact also when ``P(0)`` is close
    to 1 (a small ``a``, a large ``b``), which ``log P(k >= 1) = log(-expm1(log P(0)))``
    needs.

    The same numbers as ``betaln(k + a, n - k + b) - betaln(a, b)``, but that difference
    of two large log-beta values loses every digit when ``a`` and ``b`` are large (the
    beta-binomial is then a binomial): at ``a, b`` near 1e14 the probabilities of
    ``k = 1..5`` of 5 summed to 3.5, and the maximum likelihood fit went there (the
    "likelihood" of the corpus was above 1).
    """
    j = np.arange(int(np.max(n)), dtype=np.float64)

    def prefix(v):
        return np.concatenate([[0.0], np.cumsum(v)])

    k, n = k.astype(np.int64), n.astype(np.int64)
    ratio = prefix(np.log(a + j))[k] + prefix(np.log(b + j))[n - k] - prefix(np.log(a + b + j))[n]
    log_zero = -prefix(np.log1p(a / (b + j)))[n]
    return ratio, np.log(-np.expm1(log_zero))


#: The optimiser's box on the unconstrained parameters: ``alpha, beta`` up to
#: ``exp(30)``, about 1e13 (there the beta-binomial is a binomial to every digit), and
#: ``π, f`` within ``expit(±30)``.
_BOUND = 30.0


def _log_terms(x, k, n):
    """log π, log(1 - π), and the truncated log likelihoods of (k, n) under real and false."""
    x = np.clip(x, -_BOUND, _BOUND)
    pi, a, b, f = expit(x[0]), 1.0 + np.exp(x[1]), np.exp(x[2]), expit(x[3])
    comb = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio, log_seen = _log_bb(a, b, k, n)
        real = comb + ratio - log_seen
        false = comb + k * np.log(f) + (n - k) * np.log1p(-f)
        false -= np.log(-np.expm1(n * np.log1p(-f)))
        # a share of real clusters of 0 or 1 (at the optimiser's edges): a log of -inf
        return np.log(pi), np.log1p(-pi), real, false


def presence(support, n_covered) -> Presence:
    """Posterior probability that each cluster is a real object (module docstring).

    Parameters
    ----------
    support : array_like of int
        How many annotators drew each cluster (>= 1).
    n_covered : array_like of int
        How many annotators covered the cluster's item (>= support).

    Returns
    -------
    Presence

    Examples
    --------
    Nine annotators per item; real objects drawn by most, stray boxes by one:

    >>> import numpy as np
    >>> k = np.r_[np.full(60, 9), np.full(40, 7), np.full(20, 4), np.full(50, 1)]
    >>> r = presence(k, np.full(len(k), 9))
    >>> bool(r.p[0] > 0.99 and r.p[-1] < 0.5)
    True
    """
    k = np.asarray(support, dtype=np.float64)
    n = np.maximum(np.asarray(n_covered, dtype=np.float64), k)
    if len(k) == 0:
        return Presence(np.zeros(0), np.nan, np.nan, np.nan, np.nan)
    if np.all(k >= n):  # everyone drew every cluster: nothing to tell apart, all real
        return Presence(np.ones(len(k)), 1.0, np.nan, np.nan, np.nan)
    pairs, inv, count = np.unique(np.column_stack([k, n]), axis=0, return_inverse=True,
                                  return_counts=True)  # fmt: skip
    kk, nn = pairs[:, 0], pairs[:, 1]

    def nll(x):
        lp, lq, real, false = _log_terms(x, kk, nn)
        with np.errstate(invalid="ignore"):  # -inf + inf at the edges: not finite, below
            ll = np.logaddexp(lp + real, lq + false)
        return -float(np.sum(count * np.where(np.isfinite(ll), ll, -1e300)))

    best = None
    for x0 in _STARTS:
        r = minimize(nll, np.array(x0), method="Nelder-Mead",
                     options={"maxiter": 4000, "xatol": 1e-7, "fatol": 1e-9})  # fmt: skip
        if best is None or r.fun < best.fun:
            best = r
    lp, lq, real, false = _log_terms(best.x, kk, nn)
    with np.errstate(invalid="ignore"):
        p = expit(lp + real - lq - false)
    p = np.where(np.isfinite(p), p, (kk >= 2).astype(np.float64))
    x = np.clip(best.x, -_BOUND, _BOUND)
    fitted = (float(expit(x[0])), float(1.0 + np.exp(x[1])), float(np.exp(x[2])),
              float(expit(x[3])))  # fmt: skip
    note = _fit_note(free_cells(nn), np.unique(nn), *fitted)
    return Presence(p[np.ravel(inv)], *fitted, note=note)


def best_f1_threshold(p) -> tuple[float, float]:
    """``(t, F)``: the threshold on ``p`` that maximises the expected F1
    ``2 sum_{p >= t} p / (#{p >= t} + sum p)``, and that F1.

    Examples
    --------
    >>> t, f1 = best_f1_threshold(np.array([0.95, 0.9, 0.6, 0.3, 0.05]))
    >>> float(t), round(float(f1), 3)
    (0.6, 0.845)
    """
    p = np.asarray(p, dtype=np.float64)
    if len(p) == 0 or p.sum() <= 0:
        return 1.0, 0.0
    q = np.sort(p)[::-1]
    f1 = 2.0 * np.cumsum(q) / (np.arange(1, len(q) + 1) + q.sum())
    k = int(np.argmax(f1))
    return float(q[k]), float(f1[k])


def presence_step(fit: Presence, support, n_covered) -> float:
    """The mean change of a cluster's log odds of being real when one more of the
    annotators who saw its item draws it (a cluster one vote from the threshold is
    fragile); NaN without clusters below their item's coverage."""
    k = np.asarray(support, dtype=np.float64)
    n = np.asarray(n_covered, dtype=np.float64)
    room = k < n
    if not room.any() or not np.isfinite(fit.prior):
        return float("nan")
    from scipy.special import logit

    x = np.array(
        [logit(fit.prior), np.log(fit.alpha - 1.0), np.log(fit.beta), logit(fit.false_rate)]
    )
    lp, lq, real0, false0 = _log_terms(x, k[room], n[room])
    _, _, real1, false1 = _log_terms(x, k[room] + 1, n[room])
    step = (real1 - false1) - (real0 - false0)
    return float(np.mean(step[np.isfinite(step)])) if np.isfinite(step).any() else float("nan")
