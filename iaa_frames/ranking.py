"""Per-annotator quality that accounts for the quality of each annotator's partners.

Without a ground truth, an annotator is judged by agreement with the others who annotated
the same items. The raw average of that agreement mixes two things: the annotator's own
quality and the quality of the partners it happened to meet; a careful annotator paired
with sloppy ones looks sloppy. :func:`annotator_quality` removes the partners' share.

The pair score
--------------
For two annotations of an item it is their **panoptic quality** (PQ; Kirillov et al.,
"Panoptic Segmentation", CVPR 2019) with one annotation standing in for the truth::

    PQ_ab = sum of IoU over matched pairs with the same label / ((n_a + n_b) / 2)

where the matched pairs are those of the within-item matching (IoU >= τ, the
``localization_within`` table of :func:`iaa_frames.pairs.pair_tables`) and ``n_a, n_b``
count the objects (``sets_within``). A miss, a false positive and a wrong label each cost
half an object in the denominator, and loose drawing lowers the IoU in the numerator, so
the score sees every failure that the components separate. Pairings where both
annotations are empty carry no weight.

The model and its fixed point
-----------------------------
If each annotator ``a`` keeps a share ``q_a`` of what a perfect annotator would draw,
two annotators agree about ``E[PQ_ab] = q_a q_b``; ``q_a`` is then the annotator's PQ
against the truth. The least-squares fit of this model, with each pairing weighted by its
number of objects, satisfies::

    q_a = sum_b q_b num_ab / sum_b q_b^2 den_ab        (num = PQ x den, den = (n_a + n_b)/2)

over the pairings of ``a``: a **partner-weighted agreement**, where a partner's pairings
count more the better the partner (a random partner says nothing about ``a``), divided by
what the partners can reach. It is iterated from ``q = 1`` to a fixed point, with
geometric damping (``q <- sqrt(q * update)``) so that the overall scale settles at once,
and SQUAREM acceleration. Everything is vectorized over pairings (and bootstrap
replicates); the loop runs over iterations.

On simulated crowds (50 to 200 workers, 3 to 7 per item, known jitter, miss, confusion
and false-positive rates; ``benchmarks/bench_ranking.py``) the fixed point orders workers
by their true PQ better than the raw mean IoU of their matched pairs and better than
their raw mean PQ with peers.

Uncertainty
-----------
With ``n_boot > 0`` the items are resampled with replacement (a cluster bootstrap; each
pairing weighs its item's multiplicity) and the fixed point is solved for every replicate
at once; ``ci_low`` and ``ci_high`` are the percentile interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .bootstrap import block_size, multiplicity_blocks
from .errors import ParameterError
from .pairs import PairTables, pair_tables
from .progress import tqdm
from .settings import DEFAULTS

__all__ = ["QUALITY_COLUMNS", "annotator_quality", "annotator_quality_from_tables"]

#: Columns of :func:`annotator_quality` with their meaning (also in ``attrs["long_names"]``).
QUALITY_COLUMNS = {
    "annotator": "annotator",
    "quality": "quality: estimated PQ vs a perfect annotator",
    "ci_low": "lower bound of the bootstrap interval of quality",
    "ci_high": "upper bound of the bootstrap interval of quality",
    "rank": "rank by quality (1 = best)",
    "raw_pq": "raw mean PQ with peers",
    "raw_iou": "raw mean IoU of matched pairs with peers",
    "n_items": "items the annotator covered",
    "n_pairings": "pairings with peers that hold objects",
    "n_objects": "objects drawn",
    "note": "why quality is NaN",
}

_MAX_ITER = 2000
_TOL = 1e-10
_LEVEL = 0.95
_PROGRESS_MIN_WORK = 50_000_000  # replicate x pairing products


# ------------------------------------------------------------------------ pair scores


def _pair_scores(tables: PairTables):
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


def _fixed_point(a, b, num, den, n_ann, weights=None, max_iter=_MAX_ITER, tol=_TOL):
    """Solve ``q_a = sum_b q_b num / sum_b q_b^2 den`` for one or many replicates.

    The damped map ``F(q) = sqrt(q * update(q))`` is iterated with SQUAREM acceleration
    (Varadhan & Roland, Scand. J. Statist. 2008, scheme S3): plain iteration converges
    only linearly, slowly where two groups of annotators meet rarely.

    ``weights``: None or (B, n_pairings) pairing weights. Returns (q, iterations): q is
    (n_ann,) or (B, n_ann), NaN where an annotator has no weighted pairing.
    """
    single = weights is None
    w = np.ones((1, len(a))) if single else np.asarray(weights, dtype=np.float64)
    sides = _sides(a, b, n_ann)
    wn, wd = w * num, w * den

    def step(q):
        qa, qb = np.nan_to_num(q[:, a]), np.nan_to_num(q[:, b])
        top = _per_annotator(sides, wn, qa, qb)
        bottom = _per_annotator(sides, wd, qa * qa, qb * qb)
        with np.errstate(divide="ignore", invalid="ignore"):
            update = np.where(bottom > 0, top / bottom, np.nan)
        return np.sqrt(q * update)  # geometric damping: the overall scale settles at once

    present = _per_annotator(sides, w, 1.0, 1.0) > 0
    q = np.where(present, 1.0, np.nan)
    k = 0
    for k in range(1, max_iter + 1):  # noqa: B007  (k is returned: iterations used)
        q1 = step(q)
        q2 = step(q1)
        r, v = np.nan_to_num(q1 - q), np.nan_to_num(q2 - 2.0 * q1 + q)
        nr = np.sqrt(np.sum(r * r, axis=1, keepdims=True))
        nv = np.sqrt(np.sum(v * v, axis=1, keepdims=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.minimum(np.where(nv > 0, -nr / nv, -1.0), -1.0)
        jump = np.maximum(q - 2.0 * alpha * r + alpha * alpha * v, 0.0)
        new = step(np.where(np.isfinite(q), jump, np.nan))
        # where the extrapolation left the domain, keep the plain double step
        lost = (np.isfinite(q) & ~np.isfinite(new)).any(axis=1, keepdims=True)
        new = np.where(lost, q2, new)
        change = np.nanmax(np.abs(new - q), initial=0.0)
        q = new
        if change < tol:
            break
    return (q[0] if single else q), k


# --------------------------------------------------------------------------- public


def _check(n_boot, seed, max_iter, progress):
    for name, value, low in (("n_boot", n_boot, 0), ("seed", seed, 0), ("max_iter", max_iter, 1)):
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, np.integer))
            or value < low
        ):
            raise ParameterError(f"{name} must be an integer >= {low}; got {value!r}")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"progress must be None, True or False; got {progress!r}")


def annotator_quality_from_tables(
    tables: PairTables,
    *,
    n_boot: int = 0,
    seed: int = 0,
    max_iter: int = _MAX_ITER,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Per-annotator quality from already computed pair tables.

    See :func:`annotator_quality` (the module docstring has the definition).

    Parameters
    ----------
    tables : PairTables
        From :func:`iaa_frames.pairs.pair_tables`; only the within-item tables are used.
    n_boot : int, default 0
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high``.
    seed : int, default 0
        Seed of the bootstrap.
    max_iter : int, default 2000
        Largest number of fixed-point iterations.
    progress : bool, optional
        Progress bar for the bootstrap; by default only when it is long.

    Returns
    -------
    pandas.DataFrame
        See :func:`annotator_quality`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=20, seed=0), n_chance=50)
    >>> annotator_quality_from_tables(t)["annotator"].tolist()
    ['A', 'B', 'C']
    """
    if not isinstance(tables, PairTables):
        raise ParameterError(
            "tables must be the PairTables of iaa_frames.pairs.pair_tables; "
            f"got {type(tables).__name__}"
        )
    _check(n_boot, seed, max_iter, progress)
    a, b, item, num, den, n_ann, n_items = _pair_scores(tables)
    q, _ = _fixed_point(a, b, num, den, n_ann, max_iter=max_iter)

    low = high = np.full(n_ann, np.nan)
    if n_boot:
        reps = np.empty((n_boot, n_ann))
        step = block_size(n_boot, max(len(a), 1))
        disable = (n_boot * len(a) * 50 < _PROGRESS_MIN_WORK) if progress is None else not progress
        with tqdm(total=n_boot, unit="replicate", desc="bootstrap", disable=disable) as bar:
            start = 0
            for k in multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step):
                reps[start : start + len(k)] = _fixed_point(
                    a, b, num, den, n_ann, weights=k[:, item], max_iter=max_iter
                )[0]
                start += len(k)
                bar.update(len(k))
        tail = 50.0 * (1.0 - _LEVEL)
        defined = np.isfinite(reps).any(axis=0)
        filled = np.where(defined, reps, 0.0)
        low, high = np.nanpercentile(filled, [tail, 100.0 - tail], axis=0)
        low, high = np.where(defined, low, np.nan), np.where(defined, high, np.nan)

    # raw figures, for comparison: mean PQ with peers (pooled) and mean IoU of matches
    raw_num = np.bincount(a, num, n_ann) + np.bincount(b, num, n_ann)
    raw_den = np.bincount(a, den, n_ann) + np.bincount(b, den, n_ann)
    w = tables.localization_within
    wa, wb, iou = (w[c].to_numpy() for c in ("annotator_a", "annotator_b", "iou"))
    iou_sum = np.bincount(wa, iou, n_ann) + np.bincount(wb, iou, n_ann)
    iou_n = np.bincount(wa, minlength=n_ann) + np.bincount(wb, minlength=n_ann)
    cov = tables.coverage
    units = tables.units
    with np.errstate(divide="ignore", invalid="ignore"):
        raw_pq = np.where(raw_den > 0, raw_num / raw_den, np.nan)
        raw_iou = np.where(iou_n > 0, iou_sum / iou_n, np.nan)
    n_pairings = np.bincount(a, minlength=n_ann) + np.bincount(b, minlength=n_ann)
    note = np.where(
        np.isnan(q),
        np.where(
            n_pairings == 0,
            "no pairing with a peer that holds objects",
            "every partner has quality 0",
        ),
        "",
    )
    names = np.asarray([str(x) for x in tables.corpus.annotators], dtype=object)
    out = pd.DataFrame(
        {
            "annotator": names,
            "quality": q,
            "ci_low": low,
            "ci_high": high,
            "rank": pd.Series(q).rank(ascending=False, method="min").astype("Int64").to_numpy(),
            "raw_pq": raw_pq,
            "raw_iou": raw_iou,
            "n_items": np.bincount(cov["annotator"].to_numpy(), minlength=n_ann).astype(np.int64),
            "n_pairings": n_pairings.astype(np.int64),
            "n_objects": np.bincount(units["annotator"].to_numpy(), minlength=n_ann).astype(
                np.int64
            ),
            "note": note,
        }
    )
    out = out.iloc[np.argsort(names, kind="stable")].reset_index(drop=True)
    out.attrs = {
        "long_names": dict(QUALITY_COLUMNS),
        "n_boot": int(n_boot),
        "ci_level": _LEVEL,
        "match_threshold": tables.params.get("match_threshold"),
    }
    return out


def annotator_quality(
    df: pd.DataFrame,
    *,
    match_threshold: float = DEFAULTS.match_threshold,
    n_boot: int = 0,
    seed: int = DEFAULTS.seed,
    max_iter: int = _MAX_ITER,
    progress: bool | None = DEFAULTS.progress,
) -> pd.DataFrame:
    """Each annotator's quality, corrected for the quality of its partners.

    The pair score is the panoptic quality (PQ) of two annotations of an item; the
    quality ``q_a`` solves ``E[PQ_ab] = q_a q_b`` in least squares, a partner-weighted
    agreement iterated to a fixed point (module docstring of
    :mod:`iaa_frames.ranking`). It estimates the annotator's PQ against a perfect
    annotator, and orders annotators by quality better than their raw agreement with
    peers (``benchmarks/bench_ranking.py``).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    match_threshold : float, default 0.5
        τ of the within-item matching (IoU >= τ).
    n_boot : int, default 0
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high``.
    seed : int, default 0
        Seed of the bootstrap (and of the pair tables' chance sample, unused here).
    max_iter : int, default 2000
        Largest number of fixed-point iterations.
    progress : bool, optional
        Progress bars for matching and bootstrap.

    Returns
    -------
    pandas.DataFrame
        One row per annotator, sorted by name: ``annotator``, ``quality``, ``ci_low``,
        ``ci_high``, ``rank`` (1 = best), ``raw_pq`` (raw mean PQ with peers, pooled over
        pairings), ``raw_iou`` (raw mean IoU of its matched pairs), ``n_items``,
        ``n_pairings`` (pairings with peers that hold objects), ``n_objects`` and
        ``note`` (why quality is NaN: no pairing with a peer, or only partners of
        quality 0). ``attrs["long_names"]`` describes the columns.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=40, seed=0, annotators={
    ...     "ann": "good", "bob": "good", "cy": "sloppy", "dee": "misser"})
    >>> q = annotator_quality(df)
    >>> sorted(q.sort_values("rank")["annotator"].tolist()[:2])
    ['ann', 'bob']
    >>> bool(q["quality"].between(0, 1).all())
    True
    """
    _check(n_boot, seed, max_iter, progress)
    # the chance sample is not used here: keep it small
    tables = pair_tables(
        df, match_threshold=match_threshold, n_chance=50, seed=seed, progress=progress
    )
    return annotator_quality_from_tables(
        tables, n_boot=n_boot, seed=seed, max_iter=max_iter, progress=progress
    )
