"""Votes of a cluster's members: the weighted label vote with its margin, and the
per-annotator precision of box coordinates."""

from __future__ import annotations

import numpy as np

__all__ = ["BOX_FUSIONS", "box_precision", "fuse_boxes", "label_vote", "robust_boxes"]


def label_vote(cluster, label, w, n_clusters):
    """Weighted label vote per cluster: the winner and its margin (ties go to the smaller
    code).

    Examples
    --------
    >>> winner, margin = label_vote(np.array([0, 0, 0]), np.array([1, 2, 2]),
    ...                             np.array([3.0, 1.0, 1.0]), 1)
    >>> winner.tolist(), margin.tolist()
    ([1], [0.2])
    """
    n_labels = int(label.max()) + 1 if len(label) else 1
    key = cluster * n_labels + label
    uniq, inv = np.unique(key, return_inverse=True)
    votes = np.bincount(inv, w)
    c, lab = uniq // n_labels, uniq % n_labels
    order = np.lexsort((lab, -votes, c))
    c, lab, votes = c[order], lab[order], votes[order]
    first = np.r_[True, c[1:] != c[:-1]]
    second = np.r_[False, first[:-1]] & ~first
    winner = np.zeros(n_clusters, np.int64)
    winner[c[first]] = lab[first]
    top = np.zeros(n_clusters)
    top[c[first]] = votes[first]
    runner = np.zeros(n_clusters)
    runner[c[second]] = votes[second]
    total = np.bincount(cluster, w, n_clusters)
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = np.where(total > 0, (top - runner) / total, np.nan)
    return winner, margin


def box_precision(cl, ann, boxes, w, n_ann, *, iterations: int = 10, prior: float = 8.0):
    """Per-annotator precision of box coordinates, estimated from the data: the inverse of
    the mean squared leave-one-out residual of the annotator's coordinates.

    The residual of a member's coordinate is its distance to the weighted mean of the other
    members of its cluster, over the cluster's mean width (x) or height (y). An
    annotator's variance is the mean of its squared residuals, shrunk towards the crowd's
    with ``prior`` pseudo-residuals; the weights ``1 / variance`` are iterated
    ``iterations`` times from ``w``. Clusters of one member carry no residual.

    Examples
    --------
    Annotator 1 draws 10 % of the object's size away from the others, every time:

    >>> cl = np.repeat(np.arange(20), 3); ann = np.tile([0, 1, 2], 20)
    >>> boxes = np.tile([0.0, 0, 10, 10], (60, 1)); boxes[ann == 1] += 1.0
    >>> w = box_precision(cl, ann, boxes, np.ones(60), 3)
    >>> bool(w[1] < w[0] / 10)
    True
    """
    n_c = int(cl.max()) + 1 if len(cl) else 0
    size = np.bincount(cl, np.ones(len(cl)), n_c)
    mean_box = np.column_stack([np.bincount(cl, boxes[:, k], n_c) for k in range(4)])
    mean_box /= np.maximum(size, 1)[:, None]
    scale = np.maximum(
        np.column_stack([mean_box[:, 2] - mean_box[:, 0], mean_box[:, 3] - mean_box[:, 1]]),
        1e-9,
    )[:, [0, 1, 0, 1]]
    shared = size[cl] >= 2
    wa = np.ones(n_ann)
    member_w = np.where(np.isfinite(w), w, 1.0)
    for _ in range(iterations):
        ww = np.maximum(member_w, 1e-6)
        tot = np.bincount(cl, ww, n_c)
        sums = np.column_stack([np.bincount(cl, ww * boxes[:, k], n_c) for k in range(4)])
        others = np.maximum(tot[cl] - ww, 1e-12)
        loo = (sums[cl] - ww[:, None] * boxes) / others[:, None]
        r2 = (((boxes - loo) / scale[cl]) ** 2).sum(axis=1)
        r2 = np.where(shared, r2, 0.0)
        n = np.bincount(ann, shared * 4.0, n_ann)
        ss = np.bincount(ann, r2, n_ann)
        pooled = ss.sum() / max(n.sum(), 1.0)
        var = (ss + prior * pooled) / (n + prior)
        wa = 1.0 / np.maximum(var, 1e-12)
        member_w = wa[ann]
    return wa / wa.max() if wa.size and wa.max() > 0 else wa


#: How :func:`fuse_boxes` fuses the boxes of a cluster with quality weights.
BOX_FUSIONS = ("robust", "mean")


def _by_cluster(cl, weights, values, n_c):
    """Per cluster and column: the weighted mean of ``values`` (weights per column)."""
    tot = np.column_stack([np.bincount(cl, weights[:, k], n_c) for k in range(4)])
    sums = np.column_stack([np.bincount(cl, weights[:, k] * values[:, k], n_c) for k in range(4)])
    return sums, tot


def _median_bias(bias, n_res):
    """Per edge, the median of the annotators' biases, each counted by its residuals."""
    if not n_res.sum():
        return np.zeros(4)
    out = np.empty(4)
    for k in range(4):
        order = np.argsort(bias[:, k], kind="stable")
        cum = np.cumsum(n_res[order])
        out[k] = bias[order[np.searchsorted(cum, cum[-1] / 2)], k]
    return out


def robust_boxes(cl, ann, boxes, keep, n_ann, *, huber=1.5, prior=8.0, iterations=10):
    """Boxes of every cluster, each annotator's edge biases removed, by a Huber-weighted
    mean with each annotator's estimated precision.

    Every member's coordinate is modelled as the object's, plus the annotator's bias of that
    edge times the cluster's size, plus noise of the annotator's variance (pooled over the
    four edges). From the current consensus, iterated ``iterations`` times: the residual of
    a member is its distance to the weighted mean of the *other* members (bias-corrected),
    over the cluster's mean width (x) or height (y); an annotator's biases are the means of
    its residuals, shrunk towards 0 with ``prior`` pseudo-residuals; its variance is the
    mean square of its residuals less its biases, shrunk towards the crowd's; a member's
    weight on an edge is ``1 / variance`` times Huber's ``min(1, huber / |z|)`` for its
    standardised residual ``z``. Clusters of one member carry no residual (their
    annotator's biases are still removed). Nothing but the boxes is used: no truth.

    Parameters
    ----------
    cl, ann : ndarray of int64
        Cluster and annotator code of every member, the members of a cluster contiguous.
    boxes : ndarray (n, 4)
        ``x0, y0, x1, y1`` of every member.
    keep : ndarray of bool
        Members that count (an annotator of weight 0 counts for nothing, unless the whole
        cluster is of such annotators).
    n_ann : int
    huber, prior : float
    iterations : int

    Returns
    -------
    coords : ndarray (n_clusters, 4)
    bias : ndarray (n_ann, 4)
        Each annotator's estimated bias of ``x0, y0, x1, y1`` over the object's size.
    precision : ndarray (n_ann,)
        ``1 / variance``, over its largest.

    Examples
    --------
    Annotator 2 always draws 20 % too wide to the right and is corrected:

    >>> cl = np.repeat(np.arange(30), 3); ann = np.tile([0, 1, 2], 30)
    >>> rng = np.random.default_rng(0)
    >>> boxes = np.tile([0.0, 0, 10, 10], (90, 1)) + rng.normal(0, 0.2, (90, 4))
    >>> boxes[ann == 2, 2] += 2.0
    >>> coords, bias, _ = robust_boxes(cl, ann, boxes, np.ones(90, bool), 3)
    >>> round(float(bias[2, 2]), 1), bool(abs(coords[:, 2].mean() - 10) < 0.1)
    (0.2, True)
    """
    n_c = int(cl.max()) + 1 if len(cl) else 0
    size = np.bincount(cl, minlength=n_c).astype(float)
    mean_box = np.column_stack([np.bincount(cl, boxes[:, k], n_c) for k in range(4)])
    mean_box /= np.maximum(size, 1)[:, None]
    scale = np.maximum(
        np.column_stack([mean_box[:, 2] - mean_box[:, 0], mean_box[:, 3] - mean_box[:, 1]]),
        1e-9,
    )[:, [0, 1, 0, 1]][cl]
    shared = (size[cl] >= 2)[:, None]
    keep = np.where(np.bincount(cl, keep.astype(float), n_c)[cl] > 0, keep, True)
    base = np.repeat(keep.astype(float)[:, None], 4, axis=1)
    # start from the precision-weighted mean: a biased annotator barely moves the first
    # residuals of the others
    weight = base * box_precision(cl, ann, boxes, keep.astype(float), n_ann)[ann][:, None]
    bias = np.zeros((n_ann, 4))
    var = np.ones(n_ann)
    n_res = np.bincount(ann, shared[:, 0].astype(float), n_ann)
    for _ in range(iterations):
        x = boxes - bias[ann] * scale
        ww = np.maximum(weight, 1e-9)
        sums, tot = _by_cluster(cl, ww, x, n_c)
        loo = (sums[cl] - ww * x) / np.maximum(tot[cl] - ww, 1e-12)
        d = np.where(shared, (boxes - loo) / scale, 0.0)
        bias = np.column_stack([np.bincount(ann, d[:, k], n_ann) for k in range(4)])
        bias /= (n_res + prior)[:, None]
        # the crowd's common bias is not identified: pin it so that the typical annotator
        # (the median over the residuals) has none, not the mean (one biased annotator
        # would shift everyone)
        bias -= _median_bias(bias, n_res)
        e = np.where(shared, d - bias[ann], 0.0)
        ss = np.bincount(ann, (e**2).sum(axis=1), n_ann)
        pooled = ss.sum() / max(4.0 * n_res.sum(), 1.0)
        var = np.maximum((ss + prior * pooled) / (4.0 * n_res + prior), 1e-12)
        z = np.abs(e) / np.sqrt(var[ann])[:, None]
        down = np.where(shared, np.minimum(1.0, huber / np.maximum(z, 1e-12)), 1.0)
        weight = base * down / var[ann][:, None]
    final = np.maximum(weight, 1e-300 * base)
    sums, tot = _by_cluster(cl, final, boxes - bias[ann] * scale, n_c)
    coords = sums / np.where(tot > 0, tot, 1.0)
    # a correction that would turn a box inside out (a tiny object of annotators with
    # large biases): that cluster keeps the weighted mean of what was drawn
    raw, _ = _by_cluster(cl, final, boxes, n_c)
    bad = (coords[:, 2] <= coords[:, 0]) | (coords[:, 3] <= coords[:, 1])
    coords[bad] = raw[bad] / np.where(tot[bad] > 0, tot[bad], 1.0)
    precision = 1.0 / var
    return coords, bias, precision / precision.max() if n_ann else precision


def fuse_boxes(cl, ann, boxes, w, n_c, n_ann, weights, box_fusion="robust"):
    """Fused ``x0, y0, x1, y1`` of every cluster.

    With ``weights="quality"``: :func:`robust_boxes` (``box_fusion="robust"``) or the mean
    weighted by :func:`box_precision` (``"mean"``); an annotator of quality 0 counts for
    nothing. With equal or given weights: the mean weighted by them (equal weights where
    every member of a cluster weighs 0).

    Examples
    --------
    >>> cl = np.array([0, 0]); ann = np.array([0, 1])
    >>> boxes = np.array([[0.0, 0, 10, 10], [2, 2, 12, 12]])
    >>> fuse_boxes(cl, ann, boxes, np.array([3.0, 1.0]), 1, 2, "equal").tolist()
    [[0.5, 0.5, 10.5, 10.5]]
    """
    if isinstance(weights, str) and weights == "quality":
        if box_fusion == "robust":
            return robust_boxes(cl, ann, boxes, w > 0, n_ann)[0]
        start = np.where(np.bincount(cl, w, n_c)[cl] > 0, w, 1.0)
        gw = box_precision(cl, ann, boxes, start, n_ann)[ann] * (w > 0)
    else:
        gw = w
    gw = np.where(np.bincount(cl, gw, n_c)[cl] > 0, gw, 1.0)
    gtot = np.bincount(cl, gw, n_c)
    coords = np.column_stack([np.bincount(cl, gw * boxes[:, k], n_c) for k in range(4)])
    return coords / gtot[:, None]
