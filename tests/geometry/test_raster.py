"""Tests for iaa_frames.geometry.raster (mask IoU of detailed polygons) and its use by
distances.

Cross-checks: pycocotools (the COCO reference implementation of run-length masks and mask
IoU) on hand-built masks and on random polygons; brute-force pixel counting with numpy
bitmasks; shapely's exact IoU within the rasterization error bound stated in
``iaa_frames.geometry.mask_rule``.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry import distances as D
from iaa_frames.geometry import mask_rule
from iaa_frames.geometry import raster as R
from iaa_frames.geometry.distances import Shapes, giou, iou, uses_mask_iou
from iaa_frames.geometry.raster import Masks, intersection_pixels, mask_iou, rasterize

mask_utils = pytest.importorskip("pycocotools.mask")
# pycocotools' Cython code trips numpy 2's __array__(copy=) deprecation
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def coco_rle(bitmask):
    """pycocotools' own RLE of a (height, width) bitmask."""
    return mask_utils.encode(np.asfortranarray(bitmask.astype(np.uint8)))


def pixel_polygon(bitmask):
    """The exact polygon of a bitmask: the union of its pixel squares."""
    rows, cols = np.nonzero(bitmask)
    return shapely.union_all(shapely.box(cols, rows, cols + 1, rows + 1))


def star(rng, k, cx, cy, rmin, rmax):
    """A simple star-shaped polygon: one vertex per angular sector keeps it valid."""
    angle = (np.arange(k) + rng.uniform(0, 1, k)) * (2 * np.pi / k)
    radius = rng.uniform(rmin, rmax, k)
    return shapely.Polygon(
        np.column_stack([cx + radius * np.cos(angle), cy + radius * np.sin(angle)])
    )


def trace(rng, k, cx, cy, r, noise):
    """A noisy trace of a smooth contour with k vertices (as benchmarks/corpora.traces)."""
    a = np.linspace(0, 2 * np.pi, k, endpoint=False)
    rr = r * (1 + 0.2 * np.sin(3 * a)) * (1 + rng.normal(0, noise, k))
    return shapely.Polygon(np.column_stack([cx + rr * np.cos(a), cy + rr * np.sin(a)]))


# ------------------------------------------------------------------ masks vs pycocotools


HAND_MASKS = np.zeros((6, 4, 5), dtype=bool)
HAND_MASKS[0, 1:3, 1:4] = True  # 2 x 3 block
HAND_MASKS[1, 2:4, 2:5] = True  # 2 x 3 block reaching the last row and column
HAND_MASKS[2] = True  # every pixel (one run)
HAND_MASKS[3, ::2, ::2] = True  # checkerboard of isolated pixels
HAND_MASKS[4, 3, 4] = True  # only the last pixel
# mask 5 stays empty


def test_hand_built_masks_match_pycocotools():
    m = Masks.from_bitmasks(HAND_MASKS)
    rles = [coco_rle(b) for b in HAND_MASKS]
    assert m.area.tolist() == [int(a) for a in mask_utils.area(rles)]
    n = len(HAND_MASKS)
    i, j = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    ours = mask_iou(m, i, m, j).reshape(n, n)
    theirs = mask_utils.iou(rles, rles, [0] * n)
    both_empty = (m.area[:, None] == 0) & (m.area[None, :] == 0)
    # pycocotools gives 0 where both masks are empty; we give NaN (no pixel to compare)
    assert np.isnan(ours[both_empty]).all()
    np.testing.assert_array_equal(ours[~both_empty], theirs[~both_empty])
    # block 0 vs block 1: one shared pixel (row 2, column 2-3 -> 2 pixels) by hand:
    # rows 1-2 x cols 1-3 and rows 2-3 x cols 2-4 share row 2, cols 2-3: I = 2, U = 6 + 6 - 2
    assert ours[0, 1] == pytest.approx(2 / 10)


def test_coco_rle_round_trip_and_bitmask():
    m = Masks.from_bitmasks(HAND_MASKS)
    for k, bitmask in enumerate(HAND_MASKS):
        rle = mask_utils.frPyObjects(m.to_coco_rle(k), 4, 5)
        np.testing.assert_array_equal(mask_utils.decode(rle).astype(bool), bitmask)
        np.testing.assert_array_equal(m.to_bitmask(k), bitmask)
    assert m.to_coco_rle(2) == {"size": [4, 5], "counts": [0, 20]}


@settings(max_examples=60, deadline=None)
@given(arrays(bool, st.tuples(st.integers(2, 5), st.integers(1, 7), st.integers(1, 7))))
def test_random_masks_iou_equals_pycocotools_and_brute_force(bitmasks):
    m = Masks.from_bitmasks(bitmasks)
    n = len(bitmasks)
    i, j = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    inter = intersection_pixels(m, i, j)
    brute = (bitmasks[i] & bitmasks[j]).sum(axis=(1, 2))
    np.testing.assert_array_equal(inter, brute)
    rles = [coco_rle(b) for b in bitmasks]
    theirs = mask_utils.iou(rles, rles, [0] * n).ravel()
    ours = mask_iou(m, i, m, j)
    defined = ~np.isnan(ours)
    np.testing.assert_array_equal(ours[defined], theirs[defined])


def test_pixel_polygons_give_back_their_masks_and_pycocotools_iou():
    rng = np.random.default_rng(3)
    H, W = 30, 40
    bitmasks = np.zeros((8, H, W), bool)
    for b in bitmasks:  # a few random rectangles each, so there are holes and parts
        for _ in range(4):
            r0, c0 = rng.integers(0, H - 5), rng.integers(0, W - 5)
            b[r0 : r0 + rng.integers(1, 12), c0 : c0 + rng.integers(1, 12)] ^= True
    polys = [pixel_polygon(b) for b in bitmasks]
    m = rasterize(polys, W, H)
    for k, b in enumerate(bitmasks):
        np.testing.assert_array_equal(m.to_bitmask(k), b)
    # and the mask IoU equals pycocotools' and the exact overlay of the pixel polygons
    rles = [coco_rle(b) for b in bitmasks]
    i, j = np.arange(7), np.arange(1, 8)
    ours = mask_iou(m, i, m, j)
    np.testing.assert_array_equal(
        ours, [mask_utils.iou([rles[a]], [rles[b]], [0])[0, 0] for a, b in zip(i, j, strict=True)]
    )
    exact = [
        polys[a].intersection(polys[b]).area / polys[a].union(polys[b]).area
        for a, b in zip(i, j, strict=True)
    ]
    np.testing.assert_allclose(ours, exact, rtol=1e-12)


def test_rasterize_agrees_with_pycocotools_polygons_up_to_its_fifth_of_a_pixel():
    # pycocotools.mask.frPyObjects rasterizes COCO polygons by the same pixel-centre
    # rule after snapping vertices to 1/5 pixel: masks differ only at pixel centres
    # within 1/5 pixel of the boundary
    rng = np.random.default_rng(5)
    H, W = 90, 120
    differing = 0
    for _ in range(100):
        p = star(rng, int(rng.integers(3, 30)), 60, 45, 5, 40)
        xy = np.asarray(p.exterior.coords)[:-1]
        coco = mask_utils.decode(mask_utils.frPyObjects([xy.ravel().tolist()], H, W))[:, :, 0]
        ours = rasterize([p], W, H).to_bitmask(0)
        rows, cols = np.nonzero(ours != coco.astype(bool))
        differing += len(rows)
        if len(rows):
            d = shapely.distance(p.exterior, shapely.points(cols + 0.5, rows + 0.5))
            assert d.max() < 0.2
    assert differing > 0  # the check above did run on some pixels


def test_rasterize_by_hand():
    # triangle (0,0), (6,0), (0,6): pixel (row, col) inside when col + row + 1 < 6
    tri = shapely.Polygon([(0, 0), (6, 0), (0, 6)])
    expected = np.add.outer(np.arange(8), np.arange(8)) + 1 < 6
    np.testing.assert_array_equal(rasterize([tri], 8, 8).to_bitmask(0), expected)
    # centre rule ties: left/top edges in, right/bottom out
    box = shapely.box(1.5, 1.5, 3.5, 3.5)
    bm = rasterize([box], 5, 5).to_bitmask(0)
    assert np.argwhere(bm).tolist() == [[1, 1], [1, 2], [2, 1], [2, 2]]
    # hole and multipolygon (even-odd over every ring); clipped at the grid
    donut = shapely.box(0, 0, 10, 10).difference(shapely.box(2, 2, 8, 8))
    two = shapely.MultiPolygon([shapely.box(0, 0, 2, 2), shapely.box(-5, 3, 4, 4)])
    m = rasterize([donut, two, None, shapely.Point(1, 1), shapely.Polygon()], 12, 12)
    assert m.area.tolist() == [100 - 36, 4 + 4, 0, 0, 0]
    # per-shape grids and normalized coordinates
    half = shapely.box(0, 0, 0.5, 1)
    m = rasterize([half, half], [4, 10], [2, 3], normalized=True)
    assert m.area.tolist() == [2 * 2, 5 * 3]
    assert m.width.tolist() == [4, 10] and m.height.tolist() == [2, 3]


def test_rasterize_and_intersection_errors():
    with pytest.raises(ParameterError, match="whole numbers"):
        rasterize([shapely.box(0, 0, 1, 1)], 2.5, 3)
    with pytest.raises(ParameterError, match="one value per shape"):
        rasterize([shapely.box(0, 0, 1, 1)], [2, 3], 3)
    m = rasterize([shapely.box(0, 0, 1, 1), shapely.box(0, 0, 1, 1)], [2, 3], [2, 3])
    with pytest.raises(ParameterError, match="share a grid"):
        intersection_pixels(m, [0], [1])
    assert len(rasterize([], 2, 2)) == 0
    assert intersection_pixels(m, [], []).shape == (0,)


def test_intersection_does_not_depend_on_batching_or_order(monkeypatch):
    rng = np.random.default_rng(7)
    polys = [trace(rng, 400, rng.uniform(40, 60), rng.uniform(40, 60), 25, 0.01) for _ in range(12)]
    m = rasterize(polys, 100, 100)
    i, j = rng.integers(0, 12, 200), rng.integers(0, 12, 200)
    whole = intersection_pixels(m, i, j)
    monkeypatch.setattr(R, "CHUNK_RUNS", 50)  # many small chunks
    np.testing.assert_array_equal(intersection_pixels(m, i, j), whole)
    np.testing.assert_array_equal(intersection_pixels(m, j, i), whole)
    perm = rng.permutation(200)
    np.testing.assert_array_equal(intersection_pixels(m, i[perm], j[perm]), whole[perm])
    brute = [(m.to_bitmask(a) & m.to_bitmask(b)).sum() for a, b in zip(i, j, strict=True)]
    np.testing.assert_array_equal(whole, brute)
    # two different containers
    other = rasterize(polys[:5], 100, 100)
    np.testing.assert_array_equal(
        mask_iou(other, [0, 4], m, [6, 4]), mask_iou(m, [0, 4], m, [6, 4])
    )


# ------------------------------------------------------------------ vs the exact overlay


def band_bound(geom, width, height):
    """Upper bound of |mask - shape| in pixels: a band of half-width sqrt(2)/2 around
    every ring, area <= sqrt(2) L + pi / 2 per ring (L in pixels)."""
    g = shapely.affinity.scale(geom, width, height, origin=(0, 0))
    rings = shapely.get_rings(shapely.get_parts(g))
    return float(np.sqrt(2) * shapely.length(rings).sum() + np.pi / 2 * len(rings))


def test_mask_area_and_iou_within_the_documented_error_of_the_exact_ones():
    rng = np.random.default_rng(11)
    W, H = 200, 150
    worst = 0.0
    for _ in range(60):
        k = int(rng.integers(3, 300))
        a = star(rng, k, rng.uniform(60, 140), rng.uniform(50, 100), 5, 50)
        b = star(
            rng, k, a.centroid.x + rng.uniform(-20, 20), a.centroid.y + rng.uniform(-20, 20), 5, 50
        )
        m = rasterize([a, b], W, H)
        ea, eb = band_bound(a, 1, 1), band_bound(b, 1, 1)
        assert abs(m.area[0] - a.area) <= ea
        assert abs(m.area[1] - b.area) <= eb
        union = a.union(b).area
        exact = a.intersection(b).area / union
        e = ea + eb
        got = mask_iou(m, [0], m, [1])[0]
        assert abs(got - exact) <= 2 * e / (union - e) if union > e else True
        worst = max(worst, abs(got - exact))
    assert worst < 0.05  # in practice far below the bound


def sized(geoms, size):
    """Shapes in normalized coordinates on images of the given (width, height)."""
    size = np.asarray(size, dtype=float).reshape(-1, 2)
    size = np.broadcast_to(size, (len(geoms), 2))
    g = np.array(
        [
            shapely.affinity.scale(p, 1 / w, 1 / h, origin=(0, 0))
            for p, (w, h) in zip(geoms, size, strict=True)
        ],
        dtype=object,
    )
    return Shapes(shapely.bounds(g), g, size)


def test_rule_by_coordinate_count(monkeypatch):
    rng = np.random.default_rng(2)
    # 249 + 251 = 500 coordinates: exact; 250 + 251 = 501: masks
    small = shapely.Polygon(trace(rng, 248, 50, 50, 20, 0.01).exterior)
    big = shapely.Polygon(trace(rng, 250, 52, 50, 20, 0.01).exterior)
    mid = shapely.Polygon(trace(rng, 249, 52, 50, 20, 0.01).exterior)
    assert [shapely.get_num_coordinates(p) for p in (small, mid, big)] == [249, 250, 251]
    a = sized([small, mid, big, big], (100, 100))
    b = sized([big, big, big, big], (100, 100))
    assert uses_mask_iou(a, b).tolist() == [False, True, True, True]
    # unknown image size: exact; boxes only: exact
    c = Shapes(b.boxes, b.polygons, np.array([[100, 100], [np.nan, 100], [100, 100], [0, 5]]))
    assert uses_mask_iou(c, b).tolist() == [True, False, True, False]
    boxes = Shapes(b.boxes, None, b.image_size)
    assert not uses_mask_iou(boxes, boxes).any()  # box-box pairs: numpy, never masks
    assert not uses_mask_iou(boxes, b).any()  # a box counts 5: 5 + 251 <= 500
    monkeypatch.setattr(mask_rule, "MASK_IOU_MIN_COORDINATES", 200)
    assert uses_mask_iou(boxes, b).all()
    monkeypatch.setattr(mask_rule, "MASK_IOU_MIN_COORDINATES", 10**9)
    assert not uses_mask_iou(a, b).any()
    np.testing.assert_allclose(
        iou(a, b),
        [
            p.intersection(q).area / p.union(q).area
            for p, q in zip([small, mid, big, big], [big] * 4, strict=True)
        ],
    )


def test_iou_by_masks_is_the_mask_iou_on_the_pair_grid():
    rng = np.random.default_rng(4)
    pa = [trace(rng, 600, 320, 240, 100, 0.005) for _ in range(3)]
    pb = [shapely.affinity.translate(p, rng.uniform(-30, 30), 10) for p in pa]
    # same image (640 x 480): the image's own grid, as COCO
    a, b = sized(pa, (640, 480)), sized(pb, (640, 480))
    assert uses_mask_iou(a, b).all()
    m = rasterize(pa + pb, 640, 480)
    np.testing.assert_array_equal(iou(a, b), mask_iou(m, [0, 1, 2], m, [3, 4, 5]))
    # different images: the finer grid in each direction (800 x 480 here), over the
    # normalized shapes
    na = [shapely.affinity.scale(p, 1 / 640, 1 / 480, origin=(0, 0)) for p in pa]
    nc = [shapely.affinity.scale(p, 1 / 640, 1 / 480, origin=(0, 0)) for p in pb]
    c = sized([shapely.affinity.scale(p, 800, 300, origin=(0, 0)) for p in nc], (800, 300))
    m2 = rasterize(na + nc, 800, 480, normalized=True)
    np.testing.assert_array_equal(iou(a, c), mask_iou(m2, [0, 1, 2], m2, [3, 4, 5]))
    np.testing.assert_array_equal(iou(c, a), iou(a, c))  # symmetric
    # close to the exact overlay of the same normalized shapes
    exact = [p.intersection(q).area / p.union(q).area for p, q in zip(na, nc, strict=True)]
    np.testing.assert_allclose(iou(a, c), exact, atol=0.01)


def test_giou_is_consistent_with_the_mask_iou():
    rng = np.random.default_rng(8)
    pa = [trace(rng, 1000, rng.uniform(200, 400), 240, 100, 0.003) for _ in range(6)]
    pb = [trace(rng, 1000, p.centroid.x + rng.uniform(-40, 40), 240, 100, 0.003) for p in pa]
    a, b = sized(pa, (640, 480)), sized(pb, (640, 480))
    value = iou(a, b)
    g = giou(a, b)
    np.testing.assert_allclose(giou(a, b, known_iou=value), g, rtol=1e-12)
    assert (g <= value + 1e-12).all()
    # identical traces: IoU and GIoU exactly 1, distance 0
    assert iou(a, a).tolist() == [1.0] * 6
    np.testing.assert_allclose(giou(a, a), 1.0, rtol=1e-12)
    np.testing.assert_allclose(D.giou_distance(a, a), 0.0, atol=1e-12)


def test_cached_values_do_not_depend_on_order_or_batching():
    rng = np.random.default_rng(9)
    polys = [
        trace(rng, 700, rng.uniform(150, 250), rng.uniform(150, 250), 80, 0.004) for _ in range(30)
    ]
    sizes = np.array([(400, 400), (500, 300)])[rng.integers(0, 2, 30)]
    shapes = sized(polys, sizes)
    i, j = rng.integers(0, 30, 400), rng.integers(0, 30, 400)
    cold = giou(shapes.take(i), shapes.take(j))
    fresh = sized(polys, sizes)  # a new container: nothing cached
    perm = rng.permutation(400)
    warm = giou(fresh.take(i[perm]), fresh.take(j[perm]))
    np.testing.assert_array_equal(warm, cold[perm])
    np.testing.assert_array_equal(giou(fresh.take(i), fresh.take(j)), cold)
    # a container with a warm cache survives pickling (e.g. sent to a worker process)
    thawed = pickle.loads(pickle.dumps(fresh))
    np.testing.assert_array_equal(giou(thawed.take(i), thawed.take(j)), cold)


def test_from_frame_keeps_the_image_size():
    df = pd.DataFrame(
        {
            "x0": [10.0, 1.0],
            "y0": [20.0, 1.0],
            "x1": [50.0, 2.0],
            "y1": [60.0, 2.0],
            "width": [100.0, np.nan],
            "height": [200.0, np.nan],
        }
    )
    s = Shapes.from_frame(df)
    np.testing.assert_array_equal(s.image_size, [[100, 200], [np.nan, np.nan]])
    assert Shapes.from_frame(df, normalize=False).image_size is None
    np.testing.assert_array_equal(s.take([1, 0]).image_size, [[np.nan, np.nan], [100, 200]])
    with pytest.raises(ParameterError, match="image_size"):
        Shapes(s.boxes, None, [[1, 2]])


# ------------------------------------------------------------------ agreement on traces


def traces(n_items, vertices, *, identical=False, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_items):
        w, h = (1000.0, 800.0) if k % 2 else (640.0, 480.0)
        # central contours of similar sizes, so that chance pairs overlap too
        p = trace(
            rng,
            vertices,
            rng.uniform(0.4, 0.6) * w,
            rng.uniform(0.4, 0.6) * h,
            rng.uniform(0.2, 0.3) * h,
            0.002,
        )
        q = (
            p
            if identical
            else trace(rng, vertices, p.centroid.x, p.centroid.y, np.sqrt(p.area / np.pi), 0.002)
        )
        for name, g in (("A", p), ("B", q)):
            rows.append(
                {
                    "item": f"img_{k:02d}",
                    "annotator": name,
                    "label": "organ",
                    "geometry": g,
                    "width": w,
                    "height": h,
                }
            )
    return pd.DataFrame(rows)


def test_identical_traces_score_one():
    res = iaf.agreement(traces(20, 800, identical=True))
    cell = res["agreement"].sel(label="(all)", annotator="(all)")
    assert cell.sel(component="localization").item() == pytest.approx(1.0, abs=1e-12)
    assert cell.sel(component="detection").item() == pytest.approx(1.0, abs=1e-12)


def test_random_detailed_polygons_score_chance_on_mixed_image_sizes():
    # random annotators (simulate) on images of several sizes, their polygons densified
    # past the vertex threshold: within-item and chance pairs both go through masks
    # (chance pairs between images of different sizes on the finer grid), and
    # localization stays at chance
    values = []
    for seed in range(3):
        df = iaf.simulate(
            n_items=150,
            kind="polygon",
            seed=seed,
            objects_per_item=3,
            annotators={"a": "random", "b": "random"},
        )
        poly = df["geometry"].map(shapely.is_geometry, na_action="ignore").fillna(False)
        poly = poly.astype(bool).to_numpy()
        geoms = df.loc[poly, "geometry"].to_numpy()
        dense = shapely.segmentize(geoms, shapely.length(geoms) / 300)
        df.loc[poly, "geometry"] = dense
        assert (shapely.get_num_coordinates(dense) > 250).mean() > 0.9
        assert df["width"].nunique() > 2
        res = iaf.agreement(df, match_threshold=0.3)
        values.append(
            res["agreement"].sel(label="(all)", annotator="(all)", component="localization").item()
        )
    assert abs(np.mean(values)) <= 0.05, values


def test_upper_bound_holds_for_the_mask_iou():
    # iou_upper_bound (used to skip pairs that cannot reach the match threshold) must
    # hold for the IoU actually computed: pairs nearly identical, shifted, tiny, cut by the
    # image border, on grids of different sizes
    rng = np.random.default_rng(12)
    pa, pb, sa, sb = [], [], [], []
    for k in range(150):
        w, h = [(64, 48), (640, 480), (1000, 800)][k % 3]
        r = rng.choice([1.5, 5, 40, 150]) * min(w, h) / 480
        p = trace(rng, int(rng.integers(260, 900)), rng.uniform(0, w), rng.uniform(0, h), r, 0.01)
        shift = rng.choice([0, 0.2, 1]) * r
        q = trace(
            rng,
            int(rng.integers(260, 900)),
            p.centroid.x + rng.uniform(-shift, shift),
            p.centroid.y + rng.uniform(-shift, shift),
            r * rng.uniform(0.8, 1.2),
            0.01,
        )
        w2, h2 = (
            [(64, 48), (640, 480), (1000, 800)][int(rng.integers(0, 3))] if k % 4 == 0 else (w, h)
        )
        pa.append(shapely.affinity.scale(p, 1 / w, 1 / h, origin=(0, 0)))
        pb.append(shapely.affinity.scale(q, 1 / w, 1 / h, origin=(0, 0)))
        sa.append((w, h))
        sb.append((w2, h2))
    a = Shapes(shapely.bounds(pa), np.array(pa, dtype=object), sa)
    b = Shapes(shapely.bounds(pb), np.array(pb, dtype=object), sb)
    assert uses_mask_iou(a, b).all()
    value, bound = np.nan_to_num(iou(a, b)), D.iou_upper_bound(a, b)
    assert (bound >= value - 1e-12).all()  # (shapes under a pixel: exact overlay, to an ulp)
    assert ((value > 0.3) & (value < 0.9)).sum() > 10  # the bound was tested where it matters


def test_upper_bound_for_masks_is_close_to_the_exact_one():
    # the band bound loosens the bound of the exact IoU only a little on real traces, so
    # it still rules pairs out
    s = Shapes.from_frame(iaf.validate(traces(20, 1000, seed=3)))
    n = len(s)
    i, j = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(n)))
    a, b = s.take(i), s.take(j)
    loose = D.iou_upper_bound(a, b)
    exact = D.iou_upper_bound(Shapes(a.boxes, a.polygons), Shapes(b.boxes, b.polygons))
    assert uses_mask_iou(a, b).all()
    assert (loose >= exact).all()
    assert np.median(loose - exact) < 0.05
    assert (loose >= np.nan_to_num(iou(a, b))).all()
    assert np.quantile(loose - exact, 0.9) < 0.1


def test_outline_lengths():
    donut = shapely.box(0, 0, 4, 2).difference(shapely.box(1, 0.5, 2, 1.5))
    s = Shapes(np.array([donut.bounds, [0, 0, 3, 1]]), [donut, None])
    lx, ly, rings = s.outline()
    assert lx.tolist() == [8 + 2, 6] and ly.tolist() == [4 + 2, 2] and rings.tolist() == [2, 1]
    # a container taken from it shares the cache, in its own row order
    assert [v.tolist() for v in s.take([1, 0]).outline()] == [[6, 10], [2, 6], [1, 2]]


def test_shapes_that_cover_no_pixel_centre_are_empty_masks():
    """Slivers between pixel centres rasterize to empty masks (they raised IndexError when
    no shape of the call covered any pixel: LVIS's annotator ranking hit it)."""
    geoms = np.array(
        [shapely.box(10.1, 10.1, 10.3, 10.3), shapely.Polygon([(5, 5), (5.2, 5), (5.2, 40)])],
        dtype=object,
    )
    m = rasterize(geoms, 640, 480)
    assert len(m.start) == 0 and m.offset.tolist() == [0, 0, 0]
    both = rasterize(np.append(geoms, shapely.box(0, 0, 2, 2)), 640, 480)
    assert both.offset.tolist() == [0, 0, 0, 2]  # two columns of the 2 x 2 square
