"""Golden values of the geometry layer: IoU, GIoU, every built-in distance and similarity,
areas and IoU bounds on a fixed set of shapes, compared bit for bit with stored values.

The stored values (``tests/fixtures/golden/geometry.npz``) were computed by the code as it
stood before the geometry layer was split into ``iaa_frames.geometry`` (issue #12), so
this test shows the split changed no result. The shapes cover every path of the code:
box-box pairs (numpy), polygon pairs by exact overlay (holes, multipolygons, concave
shapes for the GIoU hull terms, copies scored 1 without overlay, an invalid bow-tie
repaired by ``make_valid``, a shape in another's hole), polygon-box pairs, detailed
polygons scored by the mask IoU on the image's grid and on the finer grid of two images
(shapes cut by the image border, shapes under a pixel that fall back to the overlay),
containers taken from one shared cache, shapes read from a tidy frame (normalization),
missing shapes and empty input.

Every value is computed on a freshly built container, so no cache carries over between
quantities. The shapes are built from numpy coordinates only (no GEOS construction), so
they are the same wherever the test runs; the values depend on GEOS for the overlays,
hulls, centroids and Hausdorff distances, so the comparison is bitwise when the GEOS
version is the one that wrote the file, and to 1e-12 otherwise. The quantities made of
shared areas (:data:`FROM_SHARED_AREA`) no longer come from GEOS overlays but from the
polygons' edges (issue #44), and are compared to 1e-12 with the stored overlays.

Regenerate (only when a result is meant to change, and say so in the commit):
``python tests/geometry/test_golden.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import shapely

from iaa_frames.geometry.distances import (
    Shapes,
    areas,
    areas_inside,
    available_distances,
    get_distance,
    giou,
    iou,
    iou_upper_bound,
    mask_iou_upper_bound,
    may_use_masks,
    uses_mask_iou,
)

FIXTURE = Path(__file__).parents[1] / "fixtures" / "golden" / "geometry.npz"
BUILTIN = ("giou", "iou", "l2", "centroid", "hausdorff")
#: The quantities made of the area two polygons share. The stored values are GEOS
#: overlays; since issue #44 the area is a sum over pairs of edges
#: (:mod:`iaa_frames.geometry.shared_area`), equal to them to about 1e-15, so these are
#: compared to 1e-12 and every other quantity bit for bit.
FROM_SHARED_AREA = {
    f"{prefix}{name}{suffix}"
    for prefix in ("", "distance_", "similarity_")
    for name in ("iou", "giou")
    for suffix in ("", "_known_iou", "_known_distance")
}
NAN = np.nan


# ------------------------------------------------------------------ shapes


def trace(rng, k, cx, cy, r, noise):
    """A noisy trace of a smooth contour with ``k`` vertices (pixel coordinates)."""
    a = np.linspace(0, 2 * np.pi, k, endpoint=False)
    rr = r * (1 + 0.2 * np.sin(3 * a)) * (1 + rng.normal(0, noise, k))
    return np.column_stack([cx + rr * np.cos(a), cy + rr * np.sin(a)])


def square(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def polygons_exact():
    """Pairs of boxes and ordinary polygons (no image size: every IoU is the overlay)."""
    rng = np.random.default_rng(20240611)
    donut = shapely.Polygon(square(0, 0, 4, 4), [square(1, 1, 3, 3)])
    L = shapely.Polygon([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)])
    U = shapely.Polygon([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)])
    multi = shapely.MultiPolygon(
        [shapely.Polygon(square(0, 0, 1, 1)), shapely.Polygon(square(2, 0, 3, 1))]
    )
    multi_hole = shapely.MultiPolygon([donut, shapely.Polygon(square(5, 5, 6, 7))])
    tri = shapely.Polygon([(0, 0), (4, 0), (0, 4)])
    tri_rolled = shapely.Polygon([(4, 0), (0, 4), (0, 0)])  # same shape, other start
    bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])  # invalid: GEOS refuses
    as_box = shapely.Polygon(square(1, 1, 3, 2))
    in_hole = shapely.Polygon(square(1.5, 1.5, 2.5, 2.5))
    stars = []
    for _ in range(12):
        k = int(rng.integers(5, 40))
        ang = (np.arange(k) + rng.uniform(0, 1, k)) * (2 * np.pi / k)
        rad = rng.uniform(0.5, 2.0, k)
        c = rng.uniform(0, 3, 2)
        stars.append(
            shapely.Polygon(np.column_stack([c[0] + rad * np.cos(ang), c[1] + rad * np.sin(ang)]))
        )
    # (a, b): a geometry, a box given as a list, or None with a NaN box (missing)
    pairs = [
        (donut, donut),
        (donut, in_hole),
        (donut, L),
        (donut, [0, 0, 2, 2]),
        (L, U),
        (L, L),
        (U, [0, 0, 3, 3]),
        (U, donut),
        (multi, [0, 0, 1, 1]),
        (multi, multi),
        (multi_hole, donut),
        (multi_hole, multi),
        (tri, tri_rolled),
        (tri, tri),
        (tri, [0, 0, 2, 2]),
        ([0, 0, 2, 2], tri),
        (bowtie, [0, 0, 1, 2]),
        (bowtie, tri),
        (as_box, [1, 1, 3, 2]),
        ([1, 1, 3, 2], as_box),
        (as_box, [2, 0, 4, 5]),
        (tri, [10, 10, 11, 11]),  # bounding boxes disjoint: no overlay
        (tri, shapely.Polygon(square(4, 0, 5, 1))),  # touching at a vertex
        (None, tri),
        (tri, None),
        (None, None),
        (None, [0, 0, 1, 1]),
        (shapely.Polygon([(0, 0), (1, 0), (1, 0), (0, 0)]), tri),  # zero area
    ]
    pairs += [(stars[i], stars[(i + 1) % 12]) for i in range(12)]
    pairs += [(stars[i], [0.5, 0.5, 2.5, 2.0]) for i in range(0, 12, 3)]
    return pairs


def to_shapes(items, size=None):
    """A Shapes of geometries, lists (plain boxes) and None (missing)."""
    n = len(items)
    boxes = np.full((n, 4), NAN)
    polys = np.full(n, None, dtype=object)
    for k, it in enumerate(items):
        if isinstance(it, shapely.Geometry):
            polys[k] = it
            boxes[k] = shapely.bounds(it)
        elif it is not None:
            boxes[k] = it
    return Shapes(boxes, polys, size)


def detailed():
    """Detailed polygons (300 to 1000 vertices) in normalized coordinates, their image
    sizes (NaN: unknown), and index pairs among them."""
    rng = np.random.default_rng(7)
    geoms, sizes = [], []

    def add(coords, w, h, holes=()):
        scale = np.array([w, h]) if np.isfinite(w) else np.array([640.0, 480.0])
        shell = coords / scale
        geoms.append(shapely.Polygon(shell, [hole / scale for hole in holes]))
        sizes.append((w, h))
        return len(geoms) - 1

    base = []
    for _ in range(6):  # pairs of traces of one object on one 640 x 480 image
        k = int(rng.integers(300, 1000))
        c = rng.uniform(150, 450), rng.uniform(120, 360)
        r = rng.uniform(30, 120)
        p = add(trace(rng, k, *c, r, 0.004), 640, 480)
        q = add(
            trace(
                rng,
                int(rng.integers(300, 1000)),
                c[0] + rng.uniform(-20, 20),
                c[1] + rng.uniform(-20, 20),
                r * rng.uniform(0.9, 1.1),
                0.004,
            ),
            640,
            480,
        )
        base.append((p, q))
    outer = trace(rng, 800, 320, 240, 150, 0.002)
    hole = trace(rng, 400, 320, 240, 60, 0.002)[::-1]
    ring = add(outer, 640, 480, [hole])  # a detailed polygon with a hole
    inner = add(trace(rng, 600, 320, 240, 50, 0.002), 640, 480)  # inside the hole
    border = add(trace(rng, 700, 620, 30, 80, 0.004), 640, 480)  # cut by the image border
    tiny = add(trace(rng, 600, 100.2, 100.2, 0.2, 0.01), 640, 480)  # under a pixel
    tiny2 = add(trace(rng, 600, 100.25, 100.2, 0.2, 0.01), 640, 480)
    other = add(trace(rng, 900, 500, 400, 200, 0.004), 1000, 800)  # another image size
    odd = add(trace(rng, 650, 300, 200, 90, 0.004), 640.5, 480)  # a fractional size
    unknown = add(trace(rng, 900, 320, 240, 100, 0.004), NAN, NAN)  # size unknown
    small = add(trace(rng, 200, 320, 240, 100, 0.004), 640, 480)  # 201 + 5 < 500
    pairs = [pq for pq in base] + [(q, p) for p, q in base[:2]]
    pairs += [
        (ring, inner),
        (ring, base[0][0]),
        (inner, ring),
        (ring, ring),
        (border, base[1][0]),
        (border, border),
        (tiny, tiny2),
        (tiny, base[2][0]),
        (other, base[0][0]),
        (base[3][1], other),
        (odd, base[4][0]),
        (odd, other),
        (unknown, base[0][0]),
        (base[0][1], unknown),
        (small, base[5][0]),
        (small, small),
        (base[2][0], base[2][0]),
    ]
    return geoms, np.array(sizes, dtype=float), np.array(pairs)


def detailed_shapes(with_boxes=False):
    geoms, sizes, _ = detailed()
    items = list(geoms)
    if with_boxes:  # plain boxes on the same images
        items = items + [[0.3, 0.3, 0.6, 0.5], [0.45, 0.4, 0.5, 0.6]]
        sizes = np.vstack([sizes, [[640, 480], [640, 480]]])
    return to_shapes(items, sizes)


def frame_shapes():
    """Shapes read from a tidy frame in pixels (normalized by the image size)."""
    rng = np.random.default_rng(3)
    rows = []
    for k in range(8):
        w, h = (640.0, 480.0) if k % 2 else (1000.0, 800.0)
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
        g = shapely.Polygon(trace(rng, 60 if k % 3 else 700, cx, cy, 0.15 * h, 0.01))
        rows.append(
            {"x0": NAN, "y0": NAN, "x1": NAN, "y1": NAN, "geometry": g, "width": w, "height": h}
        )
        bx = [cx - 50, cy - 40, cx + 60, cy + 30]
        rows.append(
            dict(zip(["x0", "y0", "x1", "y1"], bx, strict=True), geometry=None, width=w, height=h)
        )
    rows.append(
        {
            "x0": 5.0,
            "y0": 5.0,
            "x1": 50.0,
            "y1": 40.0,
            "geometry": None,
            "width": NAN,
            "height": NAN,
        }
    )  # unknown size: pixel coordinates
    rows.append(
        {
            "x0": NAN,
            "y0": NAN,
            "x1": NAN,
            "y1": NAN,
            "geometry": None,
            "width": 640.0,
            "height": 480.0,
        }
    )  # a coverage row: missing shape
    for row in rows:  # the polygons' bounds, as in a validated frame
        if row["geometry"] is not None:
            row.update(zip(["x0", "y0", "x1", "y1"], shapely.bounds(row["geometry"]), strict=True))
    return Shapes.from_frame(pd.DataFrame(rows))


def random_boxes(rng, n):
    xy = rng.uniform(-2, 5, (n, 2))
    wh = rng.choice([0.0, 0.5, 1.0, 3.0], (n, 2)) * rng.uniform(0.5, 1.5, (n, 2))
    return np.column_stack([xy, xy + wh])


def cases():
    """Name -> function building two fresh aligned Shapes."""
    rng = np.random.default_rng(11)
    hand_a = [
        [0, 0, 1, 1],
        [0, 0, 1, 1],
        [0, 0, 4, 4],
        [1, 2, 3, 5],
        [0, 0, 4, 2],
        [0, 0, 2, 2],
        [0, 0, 1, 1],
        [0, 0, 0, 1],
        [NAN] * 4,
        [NAN] * 4,
        [-3, -2, 1e6, 7],
    ]
    hand_b = [
        [2, 0, 3, 1],
        [1, 0, 2, 1],
        [1, 1, 3, 3],
        [1, 2, 3, 5],
        [1, 1, 3, 5],
        [1, 1, 3, 3],
        [2, 2, 3, 3],
        [0, 0, 0, 1],
        [0, 0, 1, 1],
        [NAN] * 4,
        [0, 0, 1, 1],
    ]
    ra, rb = random_boxes(rng, 60), random_boxes(rng, 60)
    box_a, box_b = np.vstack([hand_a, ra]), np.vstack([hand_b, rb])
    exact = polygons_exact()
    _, _, pairs = detailed()
    n = len(detailed()[0])
    i, j = rng.integers(0, n + 2, 80), rng.integers(0, n + 2, 80)
    j[:10] = i[:10]  # some shapes with themselves
    nf = len(frame_shapes())
    fi, fj = rng.integers(0, nf, 60), rng.integers(0, nf, 60)
    return {
        "boxes": lambda: (Shapes(box_a), Shapes(box_b)),
        "boxes_as_polygons": lambda: (to_shapes([shapely.box(*r) for r in ra]), Shapes(rb)),
        "polygons": lambda: (to_shapes([p for p, _ in exact]), to_shapes([q for _, q in exact])),
        "detailed": lambda: (
            detailed_shapes().take(pairs[:, 0]),
            detailed_shapes().take(pairs[:, 1]),
        ),
        "detailed_shared": lambda: (lambda s: (s.take(i), s.take(j)))(
            detailed_shapes(with_boxes=True)
        ),
        "detailed_no_size": lambda: (
            Shapes(detailed_shapes().boxes, detailed_shapes().polygons).take(pairs[:, 0]),
            Shapes(detailed_shapes().boxes, detailed_shapes().polygons).take(pairs[:, 1]),
        ),
        "frame": lambda: (lambda s: (s.take(fi), s.take(fj)))(frame_shapes()),
        "empty": lambda: (Shapes(np.zeros((0, 4))), Shapes(np.zeros((0, 4)))),
    }


# ------------------------------------------------------------------ values


def quantities():
    """Name -> function of two aligned Shapes giving the stored array."""
    q = {
        "iou": iou,
        "giou": giou,
        "giou_known_iou": lambda a, b: giou(a, b, known_iou=iou(a, b)),
        "areas_a": lambda a, b: areas(a),
        "areas_b": lambda a, b: areas(b),
        "areas_inside_ab": lambda a, b: areas_inside(a, b.boxes),
        "areas_inside_ba": lambda a, b: areas_inside(b, a.boxes),
        "iou_upper_bound": iou_upper_bound,
        "uses_mask_iou": uses_mask_iou,
        "may_use_masks": lambda a, b: np.array([may_use_masks(a), may_use_masks(b)]),
        "mask_iou_upper_bound": lambda a, b: (
            mask_iou_upper_bound(a, b)
            if a.image_size is not None and b.image_size is not None
            else np.zeros(0)
        ),
    }
    for name in BUILTIN:
        d = get_distance(name)
        q[f"distance_{name}"] = d
        q[f"distance_{name}_known_iou"] = lambda a, b, d=d: d(a, b, known_iou=iou(a, b))
        if d.similarity is not None:
            q[f"similarity_{name}"] = d.similar
            q[f"similarity_{name}_known_iou"] = lambda a, b, d=d: d.similar(
                a, b, known_iou=iou(a, b)
            )
            q[f"similarity_{name}_known_distance"] = lambda a, b, d=d: d.similar(
                a, b, known_distance=d(a, b)
            )
    return q


def compute() -> dict[str, np.ndarray]:
    out = {}
    for case, build in cases().items():
        for name, func in quantities().items():
            a, b = build()  # fresh containers: nothing cached from another quantity
            out[f"{case}__{name}"] = np.asarray(func(a, b))
    return out


# ------------------------------------------------------------------ the test


def test_builtin_distances_are_the_stored_ones():
    assert tuple(available_distances()[: len(BUILTIN)]) == BUILTIN


def test_geometry_values_are_bitwise_the_stored_ones():
    with np.load(FIXTURE, allow_pickle=False) as f:
        stored = {k: f[k] for k in f.files}
    geos = str(stored.pop("geos_version"))
    got = compute()
    assert sorted(got) == sorted(stored)
    # the fixture exercises every path: masks, fallback of empty masks, overlays
    assert stored["detailed__uses_mask_iou"].sum() >= 20
    assert not stored["detailed_no_size__uses_mask_iou"].any()
    assert np.isnan(stored["polygons__iou"]).any() and np.isnan(stored["boxes__iou"]).any()
    for key, want in stored.items():
        value = got[key]
        assert value.dtype == want.dtype and value.shape == want.shape, key
        assert value.ndim == 1, key
        if key.split("__")[1] in FROM_SHARED_AREA:
            # shared areas from the edges, not GEOS: the overlay's values to 1e-12
            np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-15, err_msg=key)
        elif geos == shapely.geos_version_string or want.dtype == bool:
            # bitwise, NaN and the sign of zero included
            bits, want_bits = (x.view(np.uint8).reshape(len(x), x.itemsize) for x in (value, want))
            where = np.flatnonzero((bits != want_bits).any(axis=1))[:5]
            assert not where.size, f"{key} at {where}: {value[where]} != {want[where]}"
        else:
            np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-15, err_msg=key)


if __name__ == "__main__":
    values = compute()
    values["geos_version"] = np.array(shapely.geos_version_string)
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(FIXTURE, **values)
    print(f"wrote {len(values)} arrays to {FIXTURE}")
