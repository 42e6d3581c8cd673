"""The annotator model: the truth of a simulated world, and each annotator's
redrawing of it by its profile, with random streams keyed by the seed and the names."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from .profiles import Profile
from .shapes import (
    Objects,
    concat,
    draw_shapes,
    empty_poly,
    finish_shapes,
    poly_mask,
    random_objects,
)

#: Side of the lazy-center box as a fraction of the image side (centred).
LAZY_CENTER_FRACTION = 0.6

# Stream keys: (0, step) for the truth, (1, *name words, step) for an annotator.
TRUTH, ANNOTATOR = 0, 1
T_SIZE, T_COUNT, T_CLASS, T_KIND, T_SHAPE = range(5)
A_COVER, A_MISS, A_CONFUSE, A_JITTER, A_FP, A_RANDOM, A_LAZY = range(7)


def stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def name_key(name: str) -> tuple[int, ...]:
    digest = hashlib.sha256(name.encode("utf-8")).digest()[:16]
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


@dataclasses.dataclass
class World:
    seed: int
    n_items: int
    W: np.ndarray
    H: np.ndarray
    n_classes: int
    kind: str
    count: object  # callable rng -> (n_items,) counts
    vrange: tuple[int, int]
    K: int


def truth_objects(c: World, class_p, layout) -> Objects:
    counts = c.count(stream(c.seed, TRUTH, T_COUNT))
    item = np.repeat(np.arange(c.n_items), counts)
    n = len(item)
    label = stream(c.seed, TRUTH, T_CLASS).choice(c.n_classes, size=n, p=class_p)
    is_poly = poly_mask(stream(c.seed, TRUTH, T_KIND), n, c.kind)
    box, centre, verts, nv = draw_shapes(
        stream(c.seed, TRUTH, T_SHAPE), c.W[item], c.H[item], is_poly, layout, c.vrange, c.K
    )
    return Objects(item, label.astype(np.int64), np.arange(n, dtype=np.int64), box,
                    is_poly, centre, verts, nv)  # fmt: skip


def lazy_objects(rng, truth: Objects, c: World) -> Objects:
    n = c.n_items
    item = np.arange(n)
    first = np.searchsorted(truth.item, item)
    has = first < len(truth.item)
    has[has] = truth.item[first[has]] == item[has]
    label = rng.integers(0, c.n_classes, n)
    label[has] = truth.label[first[has]]
    f0, f1 = (1 - LAZY_CENTER_FRACTION) / 2, (1 + LAZY_CENTER_FRACTION) / 2
    box = np.column_stack([c.W * f0, c.H * f0, c.W * f1, c.H * f1])
    if c.kind == "polygon":
        is_poly = np.ones(n, bool)
        corners = box[:, [[0, 1], [2, 1], [2, 3], [0, 3]]]  # (n, 4, 2), counter-clockwise
        verts = np.full((n, c.K, 2), np.nan)
        verts[:, :4] = corners
        centre = np.column_stack([c.W / 2, c.H / 2])
        nv = np.full(n, 4, np.int64)
    else:
        is_poly = np.zeros(n, bool)
        centre, verts, nv = empty_poly(c.K)
    return Objects(item, label, np.full(n, -1, np.int64), box, is_poly, centre, verts, nv)


def annotate(name: str, p: Profile, truth: Objects, c: World):
    """One annotator's rows: (objects, box, geometry) sorted by item, and the reviewed
    mask over items."""
    key = (ANNOTATOR, *name_key(name))
    W, H = c.W, c.H
    reviewed = stream(c.seed, *key, A_COVER).random(c.n_items) < p.coverage

    if p.random:
        rng = stream(c.seed, *key, A_RANDOM)
        item = np.repeat(np.arange(c.n_items), c.count(rng))
        src = random_objects(rng, item, W, H, c.n_classes, c.kind, c.vrange, c.K)
    elif p.lazy_center:
        src = lazy_objects(stream(c.seed, *key, A_LAZY), truth, c)
    else:
        src = dataclasses.replace(truth, box=truth.box.copy(), centre=truth.centre.copy(),
                                  verts=truth.verts.copy(), label=truth.label.copy())  # fmt: skip
    n = len(src.item)

    if p.mirror:
        w = W[src.item]
        src.box[:, [0, 2]] = w[:, None] - src.box[:, [2, 0]]
        pw = W[src.item[src.is_poly]]
        src.centre[:, 0] = pw - src.centre[:, 0]
        src.verts[..., 0] = pw[:, None] - src.verts[..., 0]

    # Every per-object draw covers all source objects, whatever is kept (common numbers).
    keep = stream(c.seed, *key, A_MISS).random(n) >= p.miss

    if p.confusion > 0 and c.n_classes > 1:
        rng = stream(c.seed, *key, A_CONFUSE)
        flip = rng.random(n) < p.confusion
        shift = rng.integers(1, c.n_classes, n)
        src.label = np.where(flip, (src.label + shift) % c.n_classes, src.label)

    if p.jitter > 0:
        rng = stream(c.seed, *key, A_JITTER)
        noise = rng.standard_normal((n, 4))
        size = np.column_stack([src.box[:, 2] - src.box[:, 0], src.box[:, 3] - src.box[:, 1]])
        src.box += noise * p.jitter * size[:, [0, 1, 0, 1]]
        if src.is_poly.any():
            vnoise = rng.standard_normal(src.verts.shape)
            xs, ys = src.verts[..., 0], src.verts[..., 1]
            vsize = np.stack([np.nanmax(xs, 1) - np.nanmin(xs, 1),
                              np.nanmax(ys, 1) - np.nanmin(ys, 1)], -1)  # fmt: skip
            src.verts += vnoise * p.jitter * vsize[:, None, :]

    src = src.take(keep)
    if p.false_positives > 0:
        rng = stream(c.seed, *key, A_FP)
        fp_item = np.repeat(np.arange(c.n_items), rng.poisson(p.false_positives, c.n_items))
        fp = random_objects(rng, fp_item, W, H, c.n_classes, c.kind, c.vrange, c.K)
        src = concat([src, fp])
        src = src.take(np.argsort(src.item, kind="stable"))

    src = src.take(reviewed[src.item])
    box, geometry = finish_shapes(src, W, H)
    return src, box, geometry, reviewed
