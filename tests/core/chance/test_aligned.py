"""Aligned chance units of localization (iaa_frames.core.chance.aligned) and the translations
of the geometry kinds they rest on (Kind.translate, Kind.fit_to_boxes)."""

import numpy as np
import pandas as pd
import pytest
import shapely
from thin_corpora import (  # noqa: E402  (the generators, shared with tests/engine)
    cuboids,
    keypoints,
    pilot,
    points,
    polylines,
    random_shapes,
)

import iaa_frames as iaf
from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.aligned import (
    ALIGNED_COLUMNS,
    aligned_units,
    alignment_families,
    empty_aligned,
)
from iaa_frames.core.matching.corpus import prepare
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
from iaa_frames.geometry.kinds.cuboid import corners
from iaa_frames.settings.parameters import MatchSettings


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
    assert len(units) >= 30 and "aligned_units" not in tables.params
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
    assert len(tables.localization_aligned) == 0


def test_shuffled_joints_score_low_against_aligned_skeletons():
    """Half the joints of every person shuffled among themselves (inside the person's
    box): the pairs that still pass the gate score near the aligned baseline, which
    already knows where the person is (measured: 0.206 within against 0.231, 0.11)."""
    tables = iaf.pair_tables(keypoints("shuffled", shuffle=0.5), seed=0)
    units = tables.localization_aligned
    within = tables.localization_within["distance"]
    assert len(units) >= 30 and len(within) >= 10
    assert 1 - within.mean() / weighted_mean(units) < 0.5
