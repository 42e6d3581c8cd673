"""Synthetic objects as arrays: star-shaped polygons and boxes drawn inside images,
and their conversion to pixel boxes and shapely geometries."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import shapely

MIN_SIDE = 1.0  # pixels: smallest side of a drawn box


@dataclasses.dataclass
class Objects:
    """Struct of arrays. ``box`` covers every row; polygon data covers the rows where
    ``is_poly`` (in row order): the star centre, the vertices (NaN-padded) and their
    count."""

    item: np.ndarray  # (n,) int64 item index
    label: np.ndarray  # (n,) int64 class code
    truth_id: np.ndarray  # (n,) int64, -1 when the row redraws no true object
    box: np.ndarray  # (n, 4) float64
    is_poly: np.ndarray  # (n,) bool
    centre: np.ndarray  # (m, 2)
    verts: np.ndarray  # (m, K, 2)
    nv: np.ndarray  # (m,) int64

    def take(self, rows: np.ndarray) -> Objects:
        """The rows ``rows`` (boolean mask or integer positions), in that order."""
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        is_poly = self.is_poly[rows]
        prows = (np.cumsum(self.is_poly) - 1)[rows][is_poly]
        return Objects(
            self.item[rows], self.label[rows], self.truth_id[rows], self.box[rows],
            is_poly, self.centre[prows], self.verts[prows], self.nv[prows],
        )  # fmt: skip


def concat(parts: Sequence[Objects]) -> Objects:
    return Objects(*(np.concatenate([getattr(p, f.name) for p in parts])
                      for f in dataclasses.fields(Objects)))  # fmt: skip


def empty_poly(k):
    return np.empty((0, 2)), np.empty((0, k, 2)), np.empty(0, np.int64)


def draw_shapes(rng, W, H, is_poly, layout, vrange, K):
    """Random shapes inside images of sizes ``W, H`` (one entry per object)."""
    n = len(W)
    if layout == "single_center":
        rw = rng.uniform(0.35, 0.65, n)
        rh = rng.uniform(0.35, 0.65, n)
        cx = W * (0.5 + rng.uniform(-0.1, 0.1, n))
        cy = H * (0.5 + rng.uniform(-0.1, 0.1, n))
        bw, bh = rw * W, rh * H
    else:
        size = np.exp(rng.uniform(np.log(0.05), np.log(0.4), n))
        aspect = np.exp(rng.normal(0.0, 0.35, n))
        rw = np.clip(size * np.sqrt(aspect), 0.02, 0.9)
        rh = np.clip(size / np.sqrt(aspect), 0.02, 0.9)
        bw, bh = rw * W, rh * H
        cx = bw / 2 + rng.random(n) * (W - bw)
        cy = bh / 2 + rng.random(n) * (H - bh)
    box = np.column_stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
    m = int(is_poly.sum())
    if m == 0:
        return box, *empty_poly(K)
    # Star-shaped polygons: stratified sorted angles (consecutive gaps < pi for >= 5
    # vertices), radii within the box's ellipse, so they are simple and inside the box.
    pcx, pcy = cx[is_poly], cy[is_poly]
    rx, ry = bw[is_poly] / 2, bh[is_poly] / 2
    nv = rng.integers(vrange[0], vrange[1] + 1, m)
    offset = rng.uniform(0.0, 2 * np.pi, m)
    j = np.arange(K)
    theta = offset[:, None] + 2 * np.pi * (j + 0.1 + 0.8 * rng.random((m, K))) / nv[:, None]
    radius = rng.uniform(0.55, 1.0, (m, K))
    verts = np.stack(
        [pcx[:, None] + rx[:, None] * radius * np.cos(theta),
         pcy[:, None] + ry[:, None] * radius * np.sin(theta)], axis=-1,
    )  # fmt: skip
    verts[j[None, :] >= nv[:, None]] = np.nan
    return box, np.column_stack([pcx, pcy]), verts, nv


def finish_boxes(box, W, H):
    """Order the corners, give every box at least ``MIN_SIDE`` and clip to the image."""
    out = np.empty_like(box)
    for lo, hi, size in ((0, 2, W), (1, 3, H)):
        a = np.minimum(box[:, lo], box[:, hi])
        b = np.maximum(box[:, lo], box[:, hi])
        a = np.clip(a, 0.0, size - MIN_SIDE)
        b = np.clip(b, a + MIN_SIDE, size)
        out[:, lo], out[:, hi] = a, b
    return out


def finish_polygons(centre, verts, nv, W, H):
    """Clip vertices to the image, re-sort them by angle about the star centre and build
    valid shapely polygons (convex hull, then a small box, for the rare leftovers)."""
    m = len(nv)
    if m == 0:
        return np.empty(0, dtype=object)
    x = np.clip(verts[..., 0], 0.0, W[:, None])
    y = np.clip(verts[..., 1], 0.0, H[:, None])
    angle = np.arctan2(y - centre[:, 1:2], x - centre[:, 0:1])
    angle[np.isnan(x)] = np.inf  # padding sorts last
    order = np.argsort(angle, axis=1, kind="stable")
    xy = np.stack([np.take_along_axis(x, order, 1), np.take_along_axis(y, order, 1)], -1)
    valid = ~np.isnan(xy[..., 0])
    rings = shapely.linearrings(xy[valid], indices=np.repeat(np.arange(m), nv))
    geoms = shapely.polygons(rings)
    bad = ~shapely.is_valid(geoms)
    if bad.any():
        geoms[bad] = shapely.convex_hull(geoms[bad])
        bad = (shapely.get_type_id(geoms) != 3) | ~(shapely.area(geoms) > 0)
        if bad.any():
            cx = np.clip(centre[bad, 0], MIN_SIDE, W[bad] - MIN_SIDE)
            cy = np.clip(centre[bad, 1], MIN_SIDE, H[bad] - MIN_SIDE)
            geoms[bad] = shapely.box(cx - MIN_SIDE, cy - MIN_SIDE, cx + MIN_SIDE, cy + MIN_SIDE)
    return geoms


def finish_shapes(obj: Objects, W, H):
    """Final boxes (bounds for polygon rows) and the geometry column of ``obj``."""
    box = finish_boxes(obj.box, W[obj.item], H[obj.item])
    geometry = np.full(len(obj.item), None, dtype=object)
    if obj.is_poly.any():
        pitem = obj.item[obj.is_poly]
        polys = finish_polygons(obj.centre, obj.verts, obj.nv, W[pitem], H[pitem])
        geometry[obj.is_poly] = polys
        box[obj.is_poly] = shapely.bounds(polys)
    return box, geometry


def poly_mask(rng, n, kind):
    if kind == "box":
        return np.zeros(n, bool)
    if kind == "polygon":
        return np.ones(n, bool)
    return rng.random(n) < 0.5


def random_objects(rng, item, W, H, n_classes, kind, vrange, K):
    """Random-layout objects on the given items with uniformly random classes."""
    n = len(item)
    label = rng.integers(0, n_classes, n)
    is_poly = poly_mask(rng, n, kind)
    box, centre, verts, nv = draw_shapes(rng, W[item], H[item], is_poly, "random", vrange, K)
    return Objects(item, label, np.full(n, -1, np.int64), box, is_poly, centre, verts, nv)
