"""The cuboid kind (iaa_frames.geometry.kinds.cuboid, .polytope): exact volumetric IoU
against Monte Carlo volumes, two independent exact methods against each other, the bounds
the matcher and the chance index rely on, GIoU, and the bird's-eye view."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import qmc

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import Shapes, giou, iou, iou_upper_bound
from iaa_frames.geometry.kinds import CUBOID, bird_eye_view
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS, corners, cuboid_faces, rotations
from iaa_frames.geometry.kinds.polytope import shared_volume


def random_pairs(m, *, seed, tilted=True, spread=0.5):
    """Pairs of overlapping cuboids: a random one, and a moved, resized, turned copy."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(-np.pi, np.pi, (m, 3)) if tilted else np.zeros((m, 3))
    if not tilted:
        angles[:, 0] = rng.uniform(-np.pi, np.pi, m)
    a = np.column_stack([rng.normal(0, 3, (m, 3)), rng.uniform(0.5, 4, (m, 3)), angles])
    b = a.copy()
    b[:, :3] += rng.normal(0, spread, (m, 3))
    b[:, 3:6] *= rng.uniform(0.7, 1.3, (m, 3))
    b[:, 6] += rng.normal(0, 0.4, m)
    if tilted:
        b[:, 7:] += rng.normal(0, 0.4, (m, 2))
    return a, b


def exact_iou(a, b):
    inter = CUBOID.intersection(a, b)
    return inter / (CUBOID.areas(a) + CUBOID.areas(b) - inter)


def monte_carlo_iou(a, b, n_log2):
    """IoU from 2**n_log2 scrambled Sobol points inside ``a``: the fraction f of them
    inside ``b`` estimates shared / volume(a)."""
    u = qmc.Sobol(3, scramble=True, seed=7).random_base2(n_log2) - 0.5
    out = []
    for pa, pb in zip(a, b, strict=True):
        world = (u * pa[3:6]) @ rotations(pa[None])[0].T + pa[:3]
        local = (world - pb[:3]) @ rotations(pb[None])[0]
        f = (np.abs(local) <= pb[3:6] / 2).all(axis=1).mean()
        va, vb = CUBOID.areas(pa[None])[0], CUBOID.areas(pb[None])[0]
        out.append(f * va / (va + vb - f * va))
    return np.array(out)


@pytest.mark.parametrize("tilted", [True, False], ids=["full rotation", "yaw only"])
def test_iou_matches_monte_carlo_to_1e3(tilted):
    # Tolerance: with N = 2**22 points, plain Monte Carlo would estimate f (the fraction
    # of a inside b) with standard error sqrt(f (1 - f) / N), and the IoU with that times
    # dIoU/df = Va (Va + Vb) / (Va + Vb - f Va)**2; 1e-3 is checked below to be over 3 of
    # those standard errors on every pair (scrambled Sobol points do far better: the
    # errors observed are ~3e-5).
    n = 2**22
    a, b = random_pairs(6, seed=1 if tilted else 2, tilted=tilted, spread=0.3)
    smaller = CUBOID.areas(a) > CUBOID.areas(b)  # points are drawn in the smaller one
    a[smaller], b[smaller] = b[smaller], a[smaller].copy()
    exact, mc = exact_iou(a, b), monte_carlo_iou(a, b, n_log2=22)
    assert (exact > 0.05).all()  # overlapping pairs, not trivially 0
    va, vb = CUBOID.areas(a), CUBOID.areas(b)
    f = CUBOID.intersection(a, b) / va
    se = np.sqrt(f * (1 - f) / n) * va * (va + vb) / (va + vb - f * va) ** 2
    assert 3 * se.max() < 1e-3
    assert np.abs(exact - mc).max() <= 1e-3


def test_yaw_only_bev_times_height_equals_the_polyhedron_clipping():
    # two independent exact methods: shapely rectangles x height overlap, and the clipping
    # of one cuboid's faces by the other's planes
    a, b = random_pairs(300, seed=3, tilted=False, spread=1.5)
    bev = CUBOID.intersection(a, b)
    clipped = shared_volume(*cuboid_faces(a), *cuboid_faces(b))
    assert (bev > 0).sum() > 100
    np.testing.assert_allclose(clipped, bev, rtol=1e-9, atol=1e-9)


def test_identical_cuboids_iou_one_and_disjoint_zero():
    a, _ = random_pairs(50, seed=4)
    np.testing.assert_allclose(exact_iou(a, a), 1.0, rtol=1e-9)
    above = a.copy()
    above[:, 2] += 10 * a[:, 3:6].max(axis=1)  # far above: same footprint, no volume
    assert (CUBOID.intersection(a, above) == 0).all()
    up = a.copy()
    up[:, 7:] = 0
    stacked = up.copy()
    stacked[:, 2] += up[:, 5]  # resting on top: they touch, share no volume
    assert np.abs(CUBOID.intersection(up, stacked)).max() < 1e-9
    # the same by the clipping of faces (faces back to back cancel)
    assert np.abs(shared_volume(*cuboid_faces(up), *cuboid_faces(stacked))).max() < 1e-9


def test_nearly_coincident_faces_change_the_volume_smoothly():
    # a face of b turned by tiny angles against a's: no jump (no double-counted face)
    a = np.array([[0.0, 0, 0, 4, 2, 2, 0, 0, 0]])
    got = []
    for roll in (0.0, 1e-14, 1e-11, 1e-9, 1e-7, 1e-5):
        b = np.array([[1.0, 0, 0.5, 4, 2, 2, 0, 0, roll]])
        got.append(CUBOID.intersection(a, b)[0])
    np.testing.assert_allclose(got, 9.0, atol=1e-4)


def test_bounds_hold_every_corner_and_shared_bound_holds():
    a, b = random_pairs(400, seed=5, spread=2.0)
    box = CUBOID.bounds(a)
    c = corners(a)
    assert (c[..., 0] >= box[:, :1] - 1e-12).all() and (c[..., 0] <= box[:, 2:3] + 1e-12).all()
    assert (c[..., 1] >= box[:, 1:2] - 1e-12).all() and (c[..., 1] <= box[:, 3:4] + 1e-12).all()
    bb = CUBOID.bounds(b)
    planar = np.maximum(np.minimum(box[:, 2], bb[:, 2]) - np.maximum(box[:, 0], bb[:, 0]), 0)
    planar *= np.maximum(np.minimum(box[:, 3], bb[:, 3]) - np.maximum(box[:, 1], bb[:, 1]), 0)
    shared = CUBOID.intersection(a, b)
    assert (CUBOID.shared_bound(a, b, planar) >= shared - 1e-9).all()


def shapes(p):
    return Shapes(CUBOID.bounds(p), params={"cuboid": p})


def test_iou_upper_bounds_of_the_matcher_hold_for_volumes():
    # Without the kind's shared_bound, the bound min(box area, volumes) mixes square and
    # cubic metres: for identical 4 x 2 x 2 m cuboids it is 8 / (16 + 16 - 8) = 1/3 < 1,
    # and the matcher would never match them at 0.5.
    from iaa_frames.core.matching.pipeline import iou_upper_bound as matcher_bound

    a, b = random_pairs(400, seed=6, spread=1.0)
    p = np.vstack([a, b])
    s = shapes(p)
    n = len(a)
    exact = iou(s.take(np.arange(n)), s.take(np.arange(n, 2 * n)))
    assert (
        iou_upper_bound(s.take(np.arange(n)), s.take(np.arange(n, 2 * n))) >= exact - 1e-12
    ).all()

    class Corpus:  # the two attributes the bound reads
        shapes = s
        area = CUBOID.areas(p)

    bound = matcher_bound(Corpus, np.arange(n), np.arange(n, 2 * n))
    assert (bound >= exact - 1e-12).all()
    same = matcher_bound(Corpus, np.arange(n), np.arange(n))
    np.testing.assert_allclose(same, 1.0)


def test_giou_of_cuboids():
    a, b = random_pairs(200, seed=8, spread=2.0)
    sa, sb = shapes(a), shapes(b)
    g, v = giou(sa, sb), iou(sa, sb)
    assert (g <= v + 1e-12).all() and (g >= -1).all()
    np.testing.assert_allclose(giou(sa, sa), 1.0, rtol=1e-9)  # tilted ones too
    far = b.copy()
    far[:, 0] += 100
    assert (giou(sa, shapes(far)) < 0).all()  # apart: IoU 0 and a penalty


def test_cuboids_are_not_normalized_by_an_image_size():
    row = dict(zip(CUBOID_COLUMNS, [0.0, 0, 1, 4, 2, 2, 0, 0, 0], strict=True))
    df = pd.DataFrame(
        [{"x0": 0.0, "y0": 0.0, "x1": 1.0, "y1": 1.0, "width": 100.0, "height": 100.0, **row}]
    )
    with pytest.raises(ParameterError, match="metres"):
        Shapes.from_frame(df)


def test_invalid_sizes():
    p = np.array([[0.0, 0, 0, 4, 2, 2, 0, 0, 0], [0.0, 0, 0, -4, -2, 2, 0, 0, 0]])
    assert CUBOID.invalid(p).tolist() == [False, True]  # volume 16 > 0, but no cuboid


def test_bird_eye_view_gives_footprints():
    a, _ = random_pairs(20, seed=9, tilted=False)
    df = pd.DataFrame(a, columns=list(CUBOID_COLUMNS)).assign(item="s", annotator="x", label="car")
    bev = bird_eye_view(df)
    area = np.array([g.area for g in bev["geometry"]])
    np.testing.assert_allclose(area, a[:, 3] * a[:, 4], rtol=1e-12)
    assert not any(c in bev.columns for c in CUBOID_COLUMNS)
    with pytest.raises(ParameterError, match="cuboid columns"):
        bird_eye_view(df.drop(columns=["cuboid_roll"]))


def _euler(r):
    """yaw, pitch, roll of rotations ``(m, 3, 3)`` = Rz(yaw) Ry(pitch) Rx(roll)."""
    return np.column_stack(
        [
            np.arctan2(r[:, 1, 0], r[:, 0, 0]),
            np.arcsin(np.clip(-r[:, 2, 0], -1, 1)),
            np.arctan2(r[:, 2, 1], r[:, 2, 2]),
        ]
    )


def test_shared_volume_is_invariant_under_a_common_rigid_motion():
    # an upright pair (measured on the ground x heights) moved by one random rotation and
    # translation becomes a tilted pair (measured by clipping): the same volume
    a, b = random_pairs(300, seed=10, tilted=False, spread=1.0)
    rng = np.random.default_rng(11)
    motion = rotations(np.column_stack([np.zeros((300, 6)), rng.uniform(-3, 3, (300, 3))]))
    shift = rng.normal(0, 20, (300, 3))

    def moved(p):
        q = p.copy()
        q[:, :3] = np.einsum("mij,mj->mi", motion, p[:, :3]) + shift
        q[:, 6:] = _euler(np.einsum("mij,mjk->mik", motion, rotations(p)))
        return q

    np.testing.assert_allclose(
        rotations(moved(a)), np.einsum("mij,mjk->mik", motion, rotations(a)), atol=1e-9
    )
    before = CUBOID.intersection(a, b)
    after = CUBOID.intersection(moved(a), moved(b))
    assert (before > 0).sum() > 200
    np.testing.assert_allclose(after, before, rtol=1e-7, atol=1e-9)
    assert CUBOID.intersection(b, a) == pytest.approx(before, rel=1e-12)
