"""Aligned chance units of localization (iaa_frames.chance.aligned) and the translations
of the geometry kinds they rest on (Kind.translate, Kind.fit_to_boxes)."""

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.chance import MIN_CHANCE_UNITS
from iaa_frames.chance.aligned import (
    ALIGNED_COLUMNS,
    aligned_units,
    alignment_families,
    empty_aligned,
)
from iaa_frames.geometry.distances import Shapes
from iaa_frames.geometry.kinds import (
    BOX,
    CUBOID,
    KEYPOINTS,
    MASK,
    POINT,
    POINT_SET,
    POLYGON,
    POLYLINE,
    Kind,
    point_set_params,
    polyline_params,
    register_kind,
    unregister_kind,
)
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS, corners
from iaa_frames.matching.corpus import prepare
from iaa_frames.settings.parameters import MatchSettings

ANNOTATORS = ("ann", "bob", "cy")
#: A standing person, COCO's 17 joints in order, in units of body height (x right, y down).
POSE = np.array(
    [[0.0, -0.42], [0.03, -0.45], [-0.03, -0.45], [0.06, -0.44], [-0.06, -0.44],
     [0.13, -0.30], [-0.13, -0.30], [0.18, -0.10], [-0.18, -0.10], [0.20, 0.06],
     [-0.20, 0.06], [0.09, 0.04], [-0.09, 0.04], [0.10, 0.27], [-0.10, 0.27],
     [0.10, 0.50], [-0.10, 0.50]]
)  # fmt: skip


# -- corpora -------------------------------------------------------------------------------


def _copy_or(rng, variant, truth, fresh, jitter):
    if variant == "identical":
        return truth.copy()
    if variant == "random":
        return fresh()
    return jitter(truth.copy())


def pilot(variant="jittered", seed=0, n_items=8, per=3, W=1000.0, H=800.0):
    """An 8-image pilot: 3 annotators x ``per`` small boxes (20-60 px) per image."""
    rng = np.random.default_rng(seed)

    def boxes():
        wh = rng.uniform(20, 60, (per, 2))
        xy = rng.uniform(0, 1, (per, 2)) * ([W, H] - wh)
        return np.column_stack([xy, xy + wh])

    def jitter(b):
        return b + rng.normal(0, 0.05, b.shape) * np.tile(b[:, 2:] - b[:, :2], 2)

    rows = []
    for i in range(n_items):
        truth = boxes()
        for a in ANNOTATORS:
            b = _copy_or(rng, variant, truth, boxes, jitter)
            rows += [
                dict(item=f"img{i}", annotator=a, label="obj", width=W, height=H,
                     **dict(zip(("x0", "y0", "x1", "y1"), b[k], strict=True)))
                for k in range(per)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def cuboids(variant="jittered", seed=0, n_items=60, cars=(1, 4)):
    """KITTI-like frames of 1-4 upright cars along a road (metres), 2 annotators."""
    rng = np.random.default_rng(seed)

    def draw(n):
        x, y = rng.uniform(5, 45, n), rng.uniform(-12, 12, n)
        size = np.column_stack([rng.normal(4.2, 0.3, n), rng.normal(1.75, 0.1, n),
                                rng.normal(1.55, 0.1, n)])  # fmt: skip
        yaw = rng.choice([0.0, np.pi], n) + rng.normal(0, 0.15, n)
        z = -1.73 + size[:, 2] / 2 + rng.normal(0, 0.05, n)
        return np.column_stack([x, y, z, size, yaw, np.zeros((n, 2))])

    def jitter(p):
        n = len(p)
        p[:, :2] += rng.normal(0, 0.15, (n, 2))
        p[:, 2] += rng.normal(0, 0.05, n)
        p[:, 3:6] *= np.exp(rng.normal(0, 0.05, (n, 3)))
        p[:, 6] += rng.normal(0, 0.05, n)
        return p

    rows = []
    for i in range(n_items):
        n = int(rng.integers(cars[0], cars[1] + 1))
        truth = draw(n)
        for a in ANNOTATORS[:2]:
            p = _copy_or(rng, variant, truth, lambda n=n: draw(n), jitter)
            rows += [
                dict(item=f"frame{i:03d}", annotator=a, label="Car",
                     **dict(zip(CUBOID_COLUMNS, p[k], strict=True)))
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def keypoints(variant="jittered", seed=0, n_items=60, people=(1, 3), jitter=0.5, shuffle=0.5):
    """COCO-like images of 1-3 people (10-40 % of the height, anywhere), 2 annotators:
    ``bob`` copies ``ann``, jitters every joint (``jitter`` in units of 2 σ_i s), draws
    people of his own, or shuffles a share ``shuffle`` of the labelled joints of each
    person among themselves (the same box)."""
    W, H = 640.0, 480.0
    rng = np.random.default_rng(seed)
    pose = POSE
    K = len(pose)

    def draw(n):
        h = rng.uniform(0.1, 0.4, n) * H
        cx = rng.uniform(0, 1, n) * (W - 0.5 * h) + 0.25 * h
        cy = rng.uniform(0, 1, n) * (H - h) + 0.5 * h
        shape = pose + rng.normal(0, 0.03, (n, K, 2))
        pts = np.stack([cx[:, None] + shape[..., 0] * h[:, None],
                        cy[:, None] + shape[..., 1] * h[:, None]], axis=-1)  # fmt: skip
        v = rng.choice([0.0, 1.0, 2.0], size=(n, K), p=[0.1, 0.25, 0.65])
        v[~(v > 0).any(axis=1), 0] = 2.0
        return pts, v, 0.5 * h * 0.45 * h

    rows = []
    for i in range(n_items):
        n = int(rng.integers(people[0], people[1] + 1))
        pts, v, area = draw(n)
        for a in ANNOTATORS[:2]:
            p, vv, ar = pts.copy(), v.copy(), area.copy()
            if a == "bob" and variant == "random":
                p, vv, ar = draw(n)
            elif a == "bob" and variant == "jittered":
                scale = 2 * KEYPOINTS.sigmas[None, :] * np.sqrt(area)[:, None]
                p += rng.normal(size=p.shape) * (jitter * scale)[..., None]
            elif a == "bob" and variant == "shuffled":
                for r in range(n):
                    on = rng.permutation(np.flatnonzero(vv[r] > 0))
                    on = on[: max(int(round(shuffle * len(on))), 2)]
                    p[r, on] = p[r, rng.permutation(on)]
            for k in range(n):
                row = dict(item=f"img{i:03d}", annotator=a, label="person", width=W, height=H)
                for j, joint in enumerate(KEYPOINTS.keypoints):
                    on = vv[k, j] > 0
                    row[f"kp_{joint}_x"] = p[k, j, 0] if on else 0.0
                    row[f"kp_{joint}_y"] = p[k, j, 1] if on else 0.0
                    row[f"kp_{joint}_v"] = vv[k, j]
                row["kp_area"] = ar[k]
                rows.append(row)
    return pd.DataFrame(rows)


def points(variant="jittered", seed=0, n_items=40, per=(1, 5), W=1280.0, H=720.0):
    """Landmarks: 1-5 per image, 2 annotators (jitter 0.4 % of the diagonal)."""
    rng = np.random.default_rng(seed)
    diag = np.hypot(W, H)
    rows = []
    for i in range(n_items):
        n = int(rng.integers(per[0], per[1] + 1))
        truth = rng.uniform(0, 1, (n, 2)) * [W, H]
        for a in ANNOTATORS[:2]:
            p = _copy_or(
                rng,
                variant,
                truth,
                lambda n=n: rng.uniform(0, 1, (n, 2)) * [W, H],
                lambda p: p + rng.normal(0, 0.004 * diag, p.shape),
            )
            rows += [
                dict(item=f"im{i}", annotator=a, label="pt", pt_x=p[k, 0], pt_y=p[k, 1],
                     width=W, height=H)
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def polylines(variant="jittered", seed=0, n_items=40, W=1280.0, H=720.0):
    """Lanes: 1-3 straight lines of 4 vertices (100-300 px) per image, 2 annotators."""
    rng = np.random.default_rng(seed)
    diag = np.hypot(W, H)

    def lanes(n):
        start = rng.uniform(0, 1, (n, 2)) * [W, H]
        angle, length = rng.uniform(0, 2 * np.pi, n), rng.uniform(100, 300, n)
        step = np.stack([np.cos(angle), np.sin(angle)], axis=1) * length[:, None]
        return start[:, None, :] + np.linspace(0, 1, 4)[None, :, None] * step[:, None, :]

    rows = []
    for i in range(n_items):
        n = int(rng.integers(1, 4))
        truth = lanes(n)
        for a in ANNOTATORS[:2]:
            p = _copy_or(
                rng,
                variant,
                truth,
                lambda n=n: lanes(n),
                lambda p: p + rng.normal(0, 0.003 * diag, p.shape),
            )
            rows += [
                dict(item=f"im{i}", annotator=a, label="lane", width=W, height=H,
                     **dict(zip(POLYLINE.columns, polyline_params(POLYLINE, p[k]), strict=True)))
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def random_shapes(kind, n_items=400, per=2, size=(20, 80), seed=0, W=1000.0, H=1000.0):
    """Three annotators who draw ``per`` objects at uniform positions, of random sizes,
    on every image, independently of each other (the chance level)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for a in ANNOTATORS:
            for _ in range(per):
                w, h = rng.uniform(*size, 2)
                x0, y0 = rng.uniform(0, W - w), rng.uniform(0, H - h)
                row = dict(item=f"i{i}", annotator=a, label="obj", width=W, height=H)
                if kind == "box":
                    row.update(x0=x0, y0=y0, x1=x0 + w, y1=y0 + h)
                elif kind == "polygon":  # a star-shaped heptagon in the box
                    t = np.sort(rng.uniform(0, 2 * np.pi, 7))
                    r = rng.uniform(0.6, 1.0, 7)
                    xy = np.column_stack(
                        [x0 + w / 2 * (1 + r * np.cos(t)), y0 + h / 2 * (1 + r * np.sin(t))]
                    )
                    row["geometry"] = shapely.Polygon(xy)
                else:
                    row.update(pt_x=x0 + w / 2, pt_y=y0 + h / 2)
                rows.append(row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", iaf.errors.RepairedGeometryWarning)
        return iaf.validate(pd.DataFrame(rows))


def weighted_mean(units):
    return float(np.average(units["distance"], weights=units["weight"]))


# -- the translations of the kinds ---------------------------------------------------------


def test_a_translated_box_has_its_corners_moved():
    boxes = np.array([[0.0, 0, 2, 1], [0.5, 0.25, 0.75, 1.0]])
    dx, dy = np.array([1.0, -0.5]), np.array([2.0, 0.125])
    got = BOX.translate(boxes, dx, dy)
    np.testing.assert_array_equal(got[:, [0, 2]], boxes[:, [0, 2]] + dx[:, None])
    np.testing.assert_array_equal(got[:, [1, 3]], boxes[:, [1, 3]] + dy[:, None])
    assert BOX.chance_alignment == "translate"


def test_a_translated_polygon_keeps_its_area_and_moves_its_bounds():
    ring = shapely.Polygon([(0, 0), (4, 0), (4, 3), (2, 1), (0, 3)])
    holed = shapely.box(0, 0, 5, 5).difference(shapely.box(1, 1, 2, 2))
    two = shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(3, 3, 4, 5)])
    data = np.array([ring, holed, two], dtype=object)
    dx, dy = np.array([1.5, -2.0, 0.25]), np.array([0.0, 3.0, -1.0])
    got = POLYGON.translate(data, dx, dy)
    np.testing.assert_allclose(shapely.area(got), shapely.area(data), rtol=1e-12)
    want = shapely.bounds(data) + np.column_stack([dx, dy, dx, dy])
    np.testing.assert_allclose(shapely.bounds(got), want, rtol=1e-12)
    # the same shape, moved: it overlays its own translate exactly
    back = POLYGON.translate(got, -dx, -dy)
    np.testing.assert_allclose(POLYGON.intersection(back, data), shapely.area(data), rtol=1e-9)


def test_a_mask_moved_by_whole_pixels_keeps_its_pixels():
    m = np.zeros((6, 7), dtype=np.uint8)
    m[1:4, 2:5] = 1
    m[2, 3] = 0  # a hole
    g = MASK.from_bitmasks([m])
    moved = MASK.translate(g, [2.0], [1.0])[0]
    shifted = np.zeros((8, 10), dtype=np.uint8)
    shifted[2:5, 4:7] = m[1:4, 2:5]
    assert moved.area == g[0].area == 8.0
    assert moved.equals(MASK.from_bitmasks([shifted])[0])


def test_a_translated_cuboid_moves_on_the_ground_only():
    p = np.array([[10.0, 2, -0.9, 4.2, 1.8, 1.5, 0.4, 0, 0], [0, 0, 1, 2, 1, 1, 0.1, 0.2, 0.3]])
    dx, dy = np.array([3.0, -1.0]), np.array([0.5, 2.0])
    got = CUBOID.translate(p, dx, dy)
    np.testing.assert_allclose(corners(got) - corners(p), np.broadcast_to(
        np.column_stack([dx, dy, [0, 0]])[:, None, :], (2, 8, 3)), atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(
        CUBOID.bounds(got), CUBOID.bounds(p) + np.column_stack([dx, dy, dx, dy]), atol=1e-12
    )
    np.testing.assert_array_equal(CUBOID.areas(got), CUBOID.areas(p))
    np.testing.assert_allclose(CUBOID.intersection(got, got), CUBOID.areas(p), rtol=1e-6)


def test_translated_points_point_sets_and_polylines():
    dx, dy = np.array([0.5, -1.0]), np.array([2.0, 0.25])
    pts = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(POINT.translate(pts, dx, dy), pts + np.column_stack([dx, dy]))
    sets = np.array(
        [point_set_params(POINT_SET, [(0, 0), (1, 2)]), point_set_params(POINT_SET, [(5, 5)])]
    )
    moved = POINT_SET.translate(sets, dx, dy)
    np.testing.assert_array_equal(moved[:, 0], sets[:, 0])  # the counts
    np.testing.assert_allclose(
        POINT_SET.bounds(moved), POINT_SET.bounds(sets) + np.column_stack([dx, dy, dx, dy])
    )
    np.testing.assert_allclose(POINT_SET.distance(moved, POINT_SET.translate(sets, dx, dy)), 0)
    lines = np.array(
        [
            polyline_params(POLYLINE, [(0, 0), (3, 4), (3, 9)]),
            polyline_params(POLYLINE, [(1, 1), (2, 1)]),
        ]
    )
    moved = POLYLINE.translate(lines, dx, dy)
    np.testing.assert_allclose(POLYLINE.lengths(moved), POLYLINE.lengths(lines))
    np.testing.assert_allclose(
        POLYLINE.bounds(moved), POLYLINE.bounds(lines) + np.column_stack([dx, dy, dx, dy])
    )
    # the distance of a moved point is the length of its move
    np.testing.assert_allclose(POINT.distance(pts, POINT.translate(pts, dx, dy)), np.hypot(dx, dy))


def test_keypoints_fitted_to_a_box_land_in_it_with_their_visibility():
    df = keypoints("identical", n_items=6)
    data = KEYPOINTS.read(df)
    rng = np.random.default_rng(1)
    lo = rng.uniform(0, 100, (len(data), 2))
    target = np.column_stack([lo, lo + rng.uniform(5, 50, (len(data), 2))])
    got = KEYPOINTS.fit_to_boxes(data, target)
    np.testing.assert_allclose(KEYPOINTS.bounds(got), target, atol=1e-9)
    x, y, v, area = KEYPOINTS.split(got)
    on = v > 0
    assert ((x >= target[:, :1] - 1e-9) | ~on).all() and ((x <= target[:, 2:3] + 1e-9) | ~on).all()
    assert ((y >= target[:, 1:2] - 1e-9) | ~on).all() and ((y <= target[:, 3:4] + 1e-9) | ~on).all()
    np.testing.assert_array_equal(v, KEYPOINTS.split(data)[2])
    own = KEYPOINTS.bounds(data)
    scale = (target[:, 2:] - target[:, :2]) / (own[:, 2:] - own[:, :2])
    np.testing.assert_allclose(area, KEYPOINTS.areas(data) * scale.prod(axis=1), rtol=1e-12)
    # a skeleton fitted to its own box is itself
    np.testing.assert_allclose(KEYPOINTS.fit_to_boxes(data, own), data, atol=1e-9)
    # translate moves every joint, keeps the rest
    moved = KEYPOINTS.translate(data, np.full(len(data), 3.0), np.full(len(data), -2.0))
    np.testing.assert_allclose(KEYPOINTS.bounds(moved), own + [3.0, -2.0, 3.0, -2.0])
    for got_part, want_part in zip(KEYPOINTS.split(moved)[2:], KEYPOINTS.split(data)[2:]):
        np.testing.assert_array_equal(got_part, want_part)  # visibility and area


def test_a_skeleton_of_one_joint_is_centred_in_the_box():
    data = np.zeros((1, len(KEYPOINTS.columns)))
    data[0, :3] = [5.0, 6.0, 2.0]  # the nose alone
    data[0, -1] = 10.0
    got = KEYPOINTS.fit_to_boxes(data, np.array([[0.0, 0, 4, 2]]))
    assert got[0, :3].tolist() == [2.0, 1.0, 2.0] and got[0, -1] == 10.0


def test_shapes_translated_and_fitted_over_mixed_kinds():
    df = pd.concat(
        [pilot("identical", n_items=1).head(2), keypoints("identical", n_items=1).head(1)],
        ignore_index=True,
    )
    df.loc[1, "geometry"] = shapely.box(100, 100, 140, 130)
    s = Shapes.from_frame(iaf.validate(df))
    dx, dy = np.array([0.1, 0.2, 0.3]), np.array([-0.1, 0.0, 0.05])
    t = s.translated(dx, dy)
    np.testing.assert_allclose(t.boxes, s.boxes + np.column_stack([dx, dy, dx, dy]), atol=1e-12)
    assert t.polygons[1].area == pytest.approx(s.polygons[1].area)
    f = s.fitted(np.tile([[0.0, 0.0, 0.5, 0.5]], (3, 1)))
    assert np.isnan(f.boxes[:2]).all()
    np.testing.assert_allclose(f.boxes[2], [0.0, 0.0, 0.5, 0.5], atol=1e-12)


class _Discs(Kind):
    """A kind that says nothing of translation: no aligned unit."""

    name, columns = "disc_aligned_test", ("disc_x", "disc_y", "disc_r")

    def bounds(self, p):
        return np.column_stack([p[:, :2] - p[:, 2:], p[:, :2] + p[:, 2:]])

    def areas(self, p):
        return np.pi * p[:, 2] ** 2


def test_a_kind_without_alignment_gets_no_family():
    kind = register_kind(_Discs(), overwrite=True)
    try:
        assert kind.chance_alignment is None and kind.translate(np.zeros((1, 3)), [1], [1]) is None
        p = np.array([[np.nan] * 3, [0.5, 0.5, 0.1]])
        s = Shapes([[0, 0, 1, 1], [0.4, 0.4, 0.6, 0.6]], params={kind.name: p})
        family, mode = alignment_families(s)
        assert family.tolist() == [0, -1] and mode.tolist() == [1, 0]
        assert np.isnan(s.translated([1, 1], [1, 1]).boxes[1]).all()
    finally:
        unregister_kind(kind.name)


# -- the units -----------------------------------------------------------------------------


def test_units_are_pairs_of_unrelated_objects_that_pass_the_gate():
    df = pilot("jittered", n_items=12)
    df["group"] = df["item"].str[-1].map(lambda c: "g" + str(int(c) % 4))
    corpus = prepare(df)
    units = aligned_units(corpus, MatchSettings(match_threshold=0.6), n_target=120, seed=2)
    assert list(units.columns) == list(ALIGNED_COLUMNS) and len(units) == 120
    assert dict(units.dtypes.astype(str)) == {
        c: np.dtype(t).name for c, t in ALIGNED_COLUMNS.items()
    }
    groups = corpus.group_of_item(units[["item_a", "item_b"]].to_numpy())
    assert (groups[:, 0] != groups[:, 1]).all()
    assert (units["annotator_a"] != units["annotator_b"]).all()
    assert (units["iou"] >= 0.6).all() and np.isfinite(units["distance"]).all()
    assert (corpus.item[units["object_a"]] == units["item_a"]).all()
    assert (corpus.label[units["object_b"]] == units["label_b"]).all()
    assert units["weight"].mean() == pytest.approx(1.0) and (units["weight"] > 0).all()
    assert units["in_uniform"].all() and not units[["in_pair", "in_label"]].any().any()


def test_a_unit_is_the_matchers_iou_and_distance_of_the_moved_object():
    df = pilot("jittered", n_items=8)
    corpus = prepare(df)
    units = aligned_units(corpus, MatchSettings(distance="iou"), n_target=60, seed=0)
    # with the IoU distance, the distance is 1 - the gate's IoU
    np.testing.assert_allclose(units["distance"], 1 - units["iou"], atol=1e-12)
    giou = aligned_units(corpus, n_target=60, seed=0)
    np.testing.assert_array_equal(giou["iou"], units["iou"])  # the same draw
    assert (giou["distance"] >= (1 - giou["iou"]) / 2 - 1e-12).all()


def test_the_same_seed_gives_the_same_units_and_another_seed_others():
    corpus = prepare(pilot("jittered"))
    a = aligned_units(corpus, n_target=100, seed=4)
    pd.testing.assert_frame_equal(a, aligned_units(corpus, n_target=100, seed=4))
    assert not a["distance"].equals(aligned_units(corpus, n_target=100, seed=5)["distance"])


@pytest.mark.parametrize("build", [pilot, keypoints, cuboids])
def test_units_do_not_depend_on_row_order_or_names(build):
    df = build("jittered", n_items=10)
    want = aligned_units(prepare(df), n_target=80, seed=1)
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled["annotator"] = shuffled["annotator"].map({"ann": "zed", "bob": "al", "cy": "mo"})
    shuffled["item"] = "x" + shuffled["item"].str[::-1]
    got = aligned_units(prepare(shuffled), n_target=80, seed=1)
    np.testing.assert_array_equal(np.sort(got["distance"]), np.sort(want["distance"]))
    np.testing.assert_array_equal(np.sort(got["weight"]), np.sort(want["weight"]))


def test_nothing_to_align_gives_the_empty_frame():
    corpus = prepare(pilot("jittered"))
    assert aligned_units(corpus, MatchSettings(match_threshold=0.0)).equals(empty_aligned())
    # one annotator: no unrelated pair
    alone = prepare(pilot("jittered").query("annotator == 'ann'"))
    assert len(aligned_units(alone, n_target=10)) == 0
    # a gate nothing passes (IoU 1 of a continuous offset): stops at the work cap
    none = aligned_units(
        corpus, MatchSettings(match_threshold=1.0), n_target=10, max_candidates=5000
    )
    assert len(none) == 0 and list(none.columns) == list(ALIGNED_COLUMNS)


# -- the property that makes them right ----------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "per", "size"),
    [("box", 2, (20, 80)), ("polygon", 3, (40, 120)), ("point", 2, (20, 80))],
)
def test_aligned_units_agree_with_a_large_empirical_population(kind, per, size):
    """Annotators who draw at random over 400 images: the empirical matched chance
    population is large, and the weighted mean distance of the aligned units agrees with
    its mean. Measured: boxes 0.2210 (469 units) vs 0.2216 aligned; polygons 0.2582 (651)
    vs 0.2565; points 0.1376 (1,826) vs 0.1393."""
    tables = iaf.pair_tables(random_shapes(kind, per=per, size=size), seed=0)
    between = tables.localization_between
    empirical = between.loc[between["in_uniform"], "distance"]
    assert len(empirical) >= 400 and len(tables.localization_aligned) == 0  # not thin
    units = aligned_units(tables.corpus, n_target=2000, seed=0)
    assert len(units) == 2000
    assert weighted_mean(units) == pytest.approx(empirical.mean(), rel=0.04)


# -- thin corpora --------------------------------------------------------------------------


@pytest.mark.parametrize("build", [pilot, cuboids, keypoints, points, polylines])
def test_thin_corpora_get_aligned_units(build):
    tables = iaf.pair_tables(build("jittered"), seed=0)
    between = tables.localization_between
    assert between["in_uniform"].sum() < MIN_CHANCE_UNITS  # thin
    units = tables.localization_aligned
    assert len(units) >= 30 and tables.params["aligned_units"] == len(units)
    assert np.isfinite(units["distance"]).all() and (units["weight"] > 0).all()
    # the figure is between chance and perfect for jittered annotators, 1 for identical
    within = tables.localization_within["distance"].mean()
    assert 0.1 < 1 - within / weighted_mean(units) < 0.95
    same = iaf.pair_tables(build("identical"), seed=0)
    if len(same.localization_aligned):
        assert (
            1
            - same.localization_within["distance"].mean() / weighted_mean(same.localization_aligned)
            > 0.99
        )


def test_a_full_population_draws_no_aligned_units():
    tables = iaf.pair_tables(iaf.simulate(n_items=20, seed=0), n_chance=200)
    assert tables.localization_between["in_uniform"].sum() >= MIN_CHANCE_UNITS
    assert tables.localization_aligned.equals(empty_aligned())
    assert tables.params["aligned_units"] == 0


def test_shuffled_joints_score_low_against_aligned_skeletons():
    """Half the joints of every person shuffled among themselves (inside the person's
    box): the pairs that still pass the gate score near the aligned baseline, which
    already knows where the person is (measured: 0.206 within against 0.231, 0.11)."""
    tables = iaf.pair_tables(keypoints("shuffled", shuffle=0.5), seed=0)
    units = tables.localization_aligned
    within = tables.localization_within["distance"]
    assert len(units) >= 30 and len(within) >= 10
    assert 1 - within.mean() / weighted_mean(units) < 0.5
