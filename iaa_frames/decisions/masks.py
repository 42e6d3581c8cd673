"""Consensus shapes of polygons and masks: every cluster's members on one grid, fused by a
weighted pixel vote or by STAPLE, and the fused grid traced back into a polygon.

Each cluster gets a square grid of ``resolution x resolution`` cells over the bounding box
of its members (cells of ``max(box width, box height) / resolution`` pixels, so the grid
follows the object's size, not the image's). Every member is rasterized on it
(:func:`iaa_frames.geometry.raster.rasterize`: a cell belongs to a shape when its centre
lies inside; a box member is its rectangle). The fused mask is

* ``"vote"``: the cells whose weighted share of the members' votes is at least 1/2
  (weights: the annotators' weights; with equal weights, the majority of the members);
* ``"staple"``: the cells whose STAPLE posterior is at least 1/2
  (:func:`iaa_frames.decisions.staple.staple`, each annotator's sensitivity and
  specificity estimated on all its polygons at once).

The fused cells are cut into vertical runs, runs over the same rows of adjacent columns
joined into one rectangle, and the rectangles of a cluster are merged (a zero-width buffer of their collection, vectorized over clusters):
the exact union of the cells, in pixel coordinates.
"""

from __future__ import annotations

import numpy as np
import shapely

from iaa_frames.arrays import ranges
from iaa_frames.geometry.raster import rasterize

from .staple import staple

__all__ = ["fuse_shapes"]


def fuse_shapes(geoms, boxes, cluster, rater, weight, n_clusters, n_raters, *, method, resolution):
    """Fused shape of every cluster.

    Parameters
    ----------
    geoms : ndarray of object, shape (n,)
        Each member's (Multi)Polygon, or None for a box (``boxes`` then gives it).
    boxes : ndarray of float, shape (n, 4)
        Each member's ``x0, y0, x1, y1`` in pixels.
    cluster : ndarray of int, shape (n,)
        Cluster of each member, sorted, ``0 .. n_clusters - 1``, each with a member.
    rater, weight : ndarray, shape (n,)
        Annotator code and weight of each member.
    method : {"vote", "staple"}
    resolution : int

    Returns
    -------
    geometry : ndarray of object, shape (n_clusters,)
        The fused (Multi)Polygon, None where no cell was kept.
    sensitivity, specificity : ndarray, shape (n_raters,)
        STAPLE's estimates (NaN with ``"vote"``).

    Examples
    --------
    >>> g = np.array([shapely.box(0, 0, 10, 10), shapely.box(0, 0, 10, 10), None], object)
    >>> b = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 20, 20.0]])
    >>> out, _, _ = fuse_shapes(g, b, np.zeros(3, int), np.arange(3), np.ones(3), 1, 3,
    ...                         method="vote", resolution=20)
    >>> out[0].bounds
    (0.0, 0.0, 10.0, 10.0)
    """
    n = len(cluster)
    R = int(resolution)
    shapes = geoms.copy()
    is_box = shapely.is_missing(shapes)
    if is_box.any():
        shapes[is_box] = shapely.box(*boxes[is_box].T)
    lo = np.full((n_clusters, 2), np.inf)
    hi = np.full((n_clusters, 2), -np.inf)
    np.minimum.at(lo, cluster, boxes[:, :2])
    np.maximum.at(hi, cluster, boxes[:, 2:])
    cell = np.maximum((hi - lo).max(axis=1), 1e-9) / R
    # every member in its cluster's grid coordinates
    xy, owner = shapely.get_coordinates(shapes, return_index=True)
    c = cluster[owner]
    local = (xy - lo[c]) / cell[c, None]
    shapes = shapely.set_coordinates(shapes.copy(), local)
    masks = rasterize(shapes, R, R)
    # every member's cells (flat: col * R + row), in member order
    length = masks.stop - masks.start
    member = np.repeat(np.repeat(np.arange(n), np.diff(masks.offset)), length)
    flat = ranges(masks.start, length)
    sens = spec = np.full(n_raters, np.nan)
    if method == "staple":
        d = np.zeros((n, R * R), dtype=bool)  # dense decisions: one row per member
        d[member, flat] = True
        post, sens, spec = staple(d, cluster, rater, n_raters, tol=1e-5)
        keep = post >= 0.5
    else:
        w = np.asarray(weight, dtype=np.float64)
        total = np.bincount(cluster, w, n_clusters)
        equal = total <= 0  # no weight at all: count the members
        w = np.where(equal[cluster], 1.0, w)
        total = np.bincount(cluster, w, n_clusters)
        # each cell's weighted votes, added in member order
        votes = np.bincount(
            cluster[member] * (R * R) + flat, weights=w[member], minlength=n_clusters * R * R
        ).reshape(n_clusters, R * R)
        keep = votes >= 0.5 * total[:, None] - 1e-12
    return _trace(keep, lo, cell, R), sens, spec


def _trace(keep, lo, cell, R):
    """The union of the kept cells of every cluster, in pixel coordinates."""
    n_clusters = len(keep)
    k = keep.reshape(n_clusters, R, R)  # [cluster, col, row]
    # runs of kept cells down each column
    pad = np.zeros((n_clusters, R, 1), dtype=bool)
    edge = np.diff(np.concatenate([pad, k, pad], axis=2).astype(np.int8), axis=2)
    cs, cols, r0 = np.nonzero(edge == 1)
    _, _, r1 = np.nonzero(edge == -1)
    out = np.full(n_clusters, None, dtype=object)
    if len(cs) == 0:
        return out
    # a run with the same rows as one in the column before extends that one's rectangle
    order = np.lexsort((cols, r1, r0, cs))
    cs, cols, r0, r1 = cs[order], cols[order], r0[order], r1[order]
    first = np.flatnonzero(
        np.r_[
            True,
            (np.diff(cs) != 0) | (np.diff(r0) != 0) | (np.diff(r1) != 0) | (np.diff(cols) != 1),
        ]
    )
    last = np.r_[first[1:], len(cs)] - 1
    cs, c0, c1, r0, r1 = cs[first], cols[first], cols[last] + 1, r0[first], r1[first]
    # union on the integer grid (exact shared edges), then to pixel coordinates
    rects = shapely.box(c0, r0, c1, r1)
    has, group = np.unique(cs, return_inverse=True)
    merged = shapely.buffer(shapely.geometrycollections(rects, indices=group), 0)
    xy, owner = shapely.get_coordinates(merged, return_index=True)
    c = has[owner]
    merged = shapely.set_coordinates(merged.copy(), lo[c] + xy * cell[c, None])
    out[has] = merged
    return out
