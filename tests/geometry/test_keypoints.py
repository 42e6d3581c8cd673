"""The keypoints kind: OKS against pycocotools, its symmetry, its reach, the frame path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import Shapes, giou, iou
from iaa_frames.geometry.kind_similarity import reach_boxes
from iaa_frames.geometry.kinds import KEYPOINTS, KeypointsKind, kind_of_rows
from iaa_frames.geometry.kinds.keypoints import COCO_PERSON_SIGMAS, DEFAULT_SIGMA

K = KEYPOINTS.n_keypoints


def _people(rng, n, *, all_labelled=False):
    """``n`` COCO-shaped people: flat keypoints (x, y, v) * 17 and areas (pixels)."""
    centre = rng.uniform(100, 500, size=(n, 1, 2))
    size = rng.uniform(20, 120, size=(n, 1, 1))
    xy = centre + rng.normal(0, 1, size=(n, K, 2)) * size
    v = np.full((n, K), 1.0) if all_labelled else rng.choice([0.0, 1.0, 2.0], size=(n, K))
    v[~(v > 0).any(axis=1), 0] = 2.0
    xy = np.where((v > 0)[..., None], np.round(xy, 2), 0.0)
    flat = np.concatenate([xy, v[..., None]], axis=2).reshape(n, 3 * K)
    area = np.round((size[:, 0, 0] * 2) ** 2 * rng.uniform(0.3, 0.7, size=n), 2)
    return flat, area


def _coco_oks(gt_flat, gt_area, dt_flat, image_of_gt, image_of_dt):
    """pycocotools' COCOeval.computeOks for every image: {image: (dt order, matrix)}."""
    gt = COCO()
    gt.dataset = {
        "images": [{"id": int(i), "width": 640, "height": 480} for i in np.unique(image_of_gt)],
        "categories": [{"id": 1, "name": "person", "keypoints": list(KEYPOINTS.keypoints)}],
        "annotations": [
            {
                "id": j + 1,
                "image_id": int(image_of_gt[j]),
                "category_id": 1,
                "keypoints": gt_flat[j].tolist(),
                "num_keypoints": int((gt_flat[j, 2::3] > 0).sum()),
                "area": float(gt_area[j]),
                "bbox": [0.0, 0.0, 10.0, 10.0],
                "iscrowd": 0,
            }
            for j in range(len(gt_flat))
        ],
    }
    gt.createIndex()
    dt = gt.loadRes(
        [
            {
                "image_id": int(image_of_dt[i]),
                "category_id": 1,
                "keypoints": dt_flat[i].tolist(),
                "score": float(1.0 - i / (len(dt_flat) + 1)),
            }
            for i in range(len(dt_flat))
        ]
    )
    ev = COCOeval(gt, dt, "keypoints")
    ev.params.imgIds = sorted(np.unique(image_of_gt).tolist())
    ev._prepare()
    return {int(i): ev.computeOks(int(i), 1) for i in np.unique(image_of_gt)}


def test_oks_equals_pycocotools_compute_oks():
    # COCO's OKS of a ground truth g and a detection d that labels every joint, with the
    # reference's area: our symmetric OKS gives it when both carry g's area.
    rng = np.random.default_rng(7)
    n_img, per = 6, 4
    gt_flat, gt_area = _people(rng, n_img * per)
    image = np.repeat(np.arange(1, n_img + 1), per)
    # detections near the ground truth (some far), every joint labelled as COCO results are
    moved = gt_flat.reshape(-1, K, 3).copy()
    moved[..., :2] = gt_flat.reshape(-1, K, 3)[..., :2] + rng.normal(
        0, 1, (len(gt_flat), K, 2)
    ) * rng.choice([0.3, 4.0, 12.0], size=(len(gt_flat), 1, 1))
    moved[..., :2] = np.where(gt_flat.reshape(-1, K, 3)[..., 2:] > 0, moved[..., :2], 300.0)
    moved[..., 2] = 1.0
    dt_flat = np.round(moved.reshape(-1, 3 * K), 2)
    coco = _coco_oks(gt_flat, gt_area, dt_flat, image, image)
    # the detections mirrored by the published COCO flip pairs (Detectron2's
    # COCO_PERSON_KEYPOINT_FLIP_MAP, HRNet's flip_pairs), written out here by name
    flip_map = [("left_eye", "right_eye"), ("left_ear", "right_ear"),
                ("left_shoulder", "right_shoulder"), ("left_elbow", "right_elbow"),
                ("left_wrist", "right_wrist"), ("left_hip", "right_hip"),
                ("left_knee", "right_knee"), ("left_ankle", "right_ankle")]  # fmt: skip
    order = list(range(K))
    for left, right in flip_map:
        i, j = KEYPOINTS.keypoints.index(left), KEYPOINTS.keypoints.index(right)
        order[i], order[j] = j, i
    dt_mirror = dt_flat.reshape(-1, K, 3)[:, order, :].reshape(-1, 3 * K)
    mirrored = {img: m for img, m in _coco_oks(gt_flat, gt_area, dt_mirror, image, image).items()}
    checked = raised = 0
    for img, matrix in coco.items():
        g = np.flatnonzero(image == img)
        d = np.flatnonzero(image == img)  # scores decrease with the index: COCO keeps order
        ii, jj = np.meshgrid(np.arange(len(d)), np.arange(len(g)), indexing="ij")
        a = np.column_stack([gt_flat[g[jj.ravel()]], gt_area[g[jj.ravel()]]])
        b = np.column_stack([dt_flat[d[ii.ravel()]], gt_area[g[jj.ravel()]]])
        ours = KEYPOINTS.oks(a, b).reshape(len(d), len(g))
        np.testing.assert_allclose(ours, matrix, rtol=1e-13, atol=0)
        # mirror-aware: the better of the detection and its mirror image, each by COCO
        best = np.maximum(matrix, mirrored[img])
        np.testing.assert_allclose(
            KEYPOINTS.similarity(a, b).reshape(len(d), len(g)), best, rtol=1e-13, atol=0
        )
        # the same through the frame path (normalized by the image size) and iou()
        sa = _shapes(a, 640, 480)
        sb = _shapes(b, 640, 480)
        np.testing.assert_allclose(
            iou(sa, sb).reshape(len(d), len(g)), best, rtol=1e-12, atol=1e-15
        )
        checked += matrix.size
        raised += int((mirrored[img] > matrix).sum())
    assert checked == n_img * per * per
    values = np.concatenate([m.ravel() for m in coco.values()])
    assert (values > 0.9).any() and (values < 0.1).any()  # near and far pairs both tested
    assert raised > 0  # some pairs of different people score higher mirrored


def _frame(params, width=np.nan, height=np.nan, kind=KEYPOINTS):
    df = pd.DataFrame(params, columns=list(kind.columns))
    df["width"], df["height"] = width, height
    for c in ("x0", "y0", "x1", "y1"):
        df[c] = 0.0
    return df


def _shapes(params, width, height):
    return Shapes.from_frame(_frame(params, width, height))


def test_oks_is_symmetric_and_one_on_identical_objects():
    rng = np.random.default_rng(1)
    flat, area = _people(rng, 50)
    other, area2 = _people(rng, 50)
    a, b = np.column_stack([flat, area]), np.column_stack([other, area2])
    np.testing.assert_array_equal(KEYPOINTS.similarity(a, b), KEYPOINTS.similarity(b, a))
    assert (KEYPOINTS.similarity(a, a) == 1.0).all()
    sa = _shapes(a, 640, 480)
    assert (iou(sa, sa) == 1.0).all() and (giou(sa, sa) == 1.0).all()


def test_oks_over_joints_labelled_by_both():
    kind = KeypointsKind("pair_example", ["p", "q"], sigmas=[0.1, 0.2])
    a = np.array([[0.0, 0, 2, 10, 0, 2, 100]])
    b = np.array([[0.0, 0, 1, 0, 0, 0, 100]])  # q unlabelled in b: only p counts
    assert kind.similarity(a, b).tolist() == [1.0]
    none = np.array([[0.0, 0, 0, 10, 0, 2, 100]])
    c = np.array([[0.0, 0, 2, 0, 0, 0, 100]])
    assert kind.similarity(none, c).tolist() == [0.0]  # no joint labelled by both


def test_normalization_leaves_oks_unchanged_on_non_square_images():
    rng = np.random.default_rng(3)
    flat, area = _people(rng, 40)
    a = np.column_stack([flat, area])
    moved = a.copy()
    moved[:, 0 : 3 * K : 3] += rng.normal(0, 5, (40, K))
    moved[:, 1 : 3 * K : 3] += rng.normal(0, 5, (40, K))
    pixels = KEYPOINTS.similarity(a, moved)
    for w, h in [(640, 480), (100, 3000)]:
        normed = iou(_shapes(a, w, h), _shapes(moved, w, h))
        np.testing.assert_allclose(normed, pixels, rtol=1e-12, atol=1e-15)


def test_reach_contract_holds_on_near_pairs():
    # OKS >= tau only where the boxes grown by the reach meet (the sweeps rely on it)
    rng = np.random.default_rng(5)
    flat, area = _people(rng, 4000)
    a = np.column_stack([flat, area])
    b = a.copy()
    shift = rng.uniform(-1, 1, (4000, 1, 2)) * rng.uniform(0, 200, (4000, 1, 1))
    b[:, 0 : 3 * K : 3] += shift[..., 0]
    b[:, 1 : 3 * K : 3] += shift[..., 1]
    b[:, 2 : 3 * K : 3] = np.where(rng.random((4000, K)) < 0.5, b[:, 2 : 3 * K : 3], 0)
    b[~(b[:, 2 : 3 * K : 3] > 0).any(axis=1), 2] = 2.0
    b[:, -1] *= rng.uniform(0.2, 5, 4000)
    sa, sb = _shapes(a, 640, 480), _shapes(b, 640, 480)
    oks = iou(sa, sb)
    for tau in (0.1, 0.5, 0.75, 0.95):
        ga, gb = reach_boxes(sa, tau), reach_boxes(sb, tau)
        meet = (np.minimum(ga[:, 2], gb[:, 2]) > np.maximum(ga[:, 0], gb[:, 0])) & (
            np.minimum(ga[:, 3], gb[:, 3]) > np.maximum(ga[:, 1], gb[:, 1])
        )
        assert meet[oks >= tau].all()
        assert (oks >= tau).sum() > 50 and (~meet).sum() > 50  # both sides exercised


def test_pairs_with_other_kinds_score_zero():
    rng = np.random.default_rng(2)
    flat, area = _people(rng, 3)
    df = _frame(np.column_stack([flat, area]), 640.0, 480.0)
    kp = Shapes.from_frame(df)
    box = Shapes(kp.boxes.copy())
    assert iou(kp, box).tolist() == [0.0] * 3
    assert giou(box, kp).tolist() == [0.0] * 3


def test_kind_rows_bounds_and_defaults():
    rng = np.random.default_rng(4)
    flat, area = _people(rng, 2)
    df = _frame(np.column_stack([flat, area]))
    assert kind_of_rows(df).tolist() == ["keypoints", "keypoints"]
    s = Shapes.from_frame(df)
    x, y, v = flat[:, 0::3], flat[:, 1::3], flat[:, 2::3]
    np.testing.assert_array_equal(s.boxes[:, 0], np.where(v > 0, x, np.inf).min(axis=1))
    np.testing.assert_array_equal(s.boxes[:, 3], np.where(v > 0, y, -np.inf).max(axis=1))
    # the documented rule for constants: COCO's for COCO joint names, else their mean
    kind = KeypointsKind("rule_example", ["nose", "tail"])
    assert kind.sigmas.tolist() == [COCO_PERSON_SIGMAS[0], DEFAULT_SIGMA]
    assert round(DEFAULT_SIGMA, 4) == 0.0669
    assert KEYPOINTS.flip[0] == (1, 2)  # left_eye <-> right_eye
    with pytest.raises(ParameterError, match="one positive OKS constant per joint"):
        KeypointsKind("bad_example", ["a", "b"], sigmas=[0.1])


def test_invalid_rows():
    a = np.zeros((4, 3 * K + 1))
    a[:, 2] = 2.0
    a[1, 5] = 3.0  # visibility 3
    a[2, 2] = 0.0  # nothing labelled
    a[3, -1] = -1.0  # negative area
    assert KEYPOINTS.invalid(a).tolist() == [False, True, True, True]


def test_validate_keeps_a_skeleton_with_one_labelled_joint():
    import iaa_frames as iaf

    rng = np.random.default_rng(6)
    flat, area = _people(rng, 2)
    flat[0, 2::3] = 0.0
    flat[0, 0:3] = [50.0, 60.0, 1.0]  # only the nose, occluded: a flat box, still a shape
    df = _frame(np.column_stack([flat, area]), 640.0, 480.0)
    df["item"], df["annotator"], df["label"] = "i", ["a", "b"], "person"
    out = iaf.validate(df)
    assert len(out) == 2 and out.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [50, 60, 50, 60]
    bad = df.copy()
    bad.loc[1, "kp_nose_v"] = 3.0
    with pytest.raises(iaf.errors.InvalidAnnotationError, match="a visibility not 0, 1 or 2"):
        iaf.validate(bad)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_in_memory_on_skeletons(npartitions):
    # the parameters of skeletons travel with the dask index: no special case there
    import warnings

    import iaa_frames as iaf
    from iaa_frames.simulate import KeypointProfile, simulate_keypoints

    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    profiles = {"a": KeypointProfile(jitter=0.1), "b": KeypointProfile(jitter=0.3, swap=0.3)}
    df = iaf.validate(simulate_keypoints(n_items=60, annotators=profiles, seed=2))
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    params = {"n_chance": 300, "n_boot": 20, "seed": 7, "match_threshold": 0.3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(df, **params)
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name


# -- mirror images ----------------------------------------------------------------------

#: COCO's left/right pairs by name, as published with COCO keypoint models (Detectron2's
#: COCO_PERSON_KEYPOINT_FLIP_MAP in detectron2/data/datasets/builtin_meta.py; HRNet's
#: flip_pairs [[1, 2], ..., [15, 16]] in lib/dataset/coco.py, the same pairs by index).
COCO_FLIP_MAP = [
    ("left_eye", "right_eye"), ("left_ear", "right_ear"), ("left_shoulder", "right_shoulder"),
    ("left_elbow", "right_elbow"), ("left_wrist", "right_wrist"), ("left_hip", "right_hip"),
    ("left_knee", "right_knee"), ("left_ankle", "right_ankle"),
]  # fmt: skip


def test_the_coco_flip_pairs_are_the_published_ones():
    by_name = {(KEYPOINTS.keypoints[a], KEYPOINTS.keypoints[b]) for a, b in KEYPOINTS.flip}
    assert by_name == set(COCO_FLIP_MAP)
    assert [list(p) for p in KEYPOINTS.flip] == [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10],
                                                 [11, 12], [13, 14], [15, 16]]  # fmt: skip
    assert KEYPOINTS.mirror[[0, 1, 2, 15, 16]].tolist() == [0, 2, 1, 16, 15]


def _by_name_mirror(params):
    """``params`` with the columns of every published pair exchanged, by name."""
    out = params.copy()
    for left, right in COCO_FLIP_MAP:
        i, j = KEYPOINTS.keypoints.index(left), KEYPOINTS.keypoints.index(right)
        out[:, 3 * i : 3 * i + 3], out[:, 3 * j : 3 * j + 3] = (
            params[:, 3 * j : 3 * j + 3],
            params[:, 3 * i : 3 * i + 3],
        )
    return out


def test_a_mirrored_skeleton_matches_its_original():
    rng = np.random.default_rng(3)
    flat, area = _people(rng, 40, all_labelled=True)
    a = np.column_stack([flat, area])
    m = _by_name_mirror(a)
    np.testing.assert_array_equal(KEYPOINTS.mirrored(a), m)
    assert (KEYPOINTS.oks(a, m) < 0.9).all()  # as labelled: far from one
    np.testing.assert_array_equal(KEYPOINTS.similarity(a, m), 1.0)
    assert KEYPOINTS.mirror_matched(a, m).all() and not KEYPOINTS.mirror_matched(a, a).any()
    # identical: 1, not mirrored; symmetric to the bit on unrelated people
    assert (KEYPOINTS.similarity(a, a) == 1.0).all()
    other = np.column_stack(_people(rng, 40))
    np.testing.assert_array_equal(KEYPOINTS.similarity(a, other), KEYPOINTS.similarity(other, a))
    np.testing.assert_allclose(
        KEYPOINTS.similarity(a, other),
        np.maximum(KEYPOINTS.oks(a, other), KEYPOINTS.oks(a, _by_name_mirror(other))),
        rtol=1e-14,
        atol=0,
    )
    # through the frame path too
    sa, sm = _shapes(a, 640, 480), _shapes(m, 640, 480)
    np.testing.assert_allclose(iou(sa, sm), 1.0, rtol=1e-12)


def test_mirror_aware_false_is_coco_oks_and_a_kind_without_pairs_is_unchanged():
    rng = np.random.default_rng(4)
    a = np.column_stack(_people(rng, 20, all_labelled=True))
    m = KEYPOINTS.mirrored(a)
    plain = KeypointsKind(
        "coco_plain_test", KEYPOINTS.keypoints, prefix="coco_plain_test_", mirror_aware=False
    )
    np.testing.assert_array_equal(plain.similarity(a, m), KEYPOINTS.oks(a, m))
    assert not plain.mirror_aware and KEYPOINTS.mirror_aware
    hand = KeypointsKind("no_pairs_test", ["wrist", "thumb"], sigmas=[0.1, 0.1])
    assert hand.flip == () and not hand.mirror_aware
    x = np.array([[0.0, 0, 2, 10, 0, 2, 50]])
    np.testing.assert_array_equal(hand.similarity(x, hand.mirrored(x)), hand.oks(x, x))
    with pytest.raises(ParameterError, match="flip pair"):
        KeypointsKind("bad_flip_test", ["a", "b"], sigmas=[0.1, 0.1], flip=[(0, 2)])
    with pytest.raises(ParameterError, match="one pair only"):
        KeypointsKind("bad_flip_test", ["a", "b", "c"], sigmas=[0.1] * 3, flip=[(0, 1), (1, 2)])
    # a flip pair with two constants: the better of mirroring either side, symmetric
    odd = KeypointsKind("odd_sigma_test", ["left_a", "right_a", "b"], sigmas=[0.05, 0.1, 0.1])
    rng = np.random.default_rng(5)
    x = np.column_stack([rng.uniform(0, 50, (30, 9)), rng.uniform(100, 400, 30)])
    x[:, 2::3][:, :3] = 2.0
    y = np.column_stack([rng.uniform(0, 50, (30, 9)), rng.uniform(100, 400, 30)])
    y[:, 2::3][:, :3] = 2.0
    np.testing.assert_array_equal(odd.similarity(x, y), odd.similarity(y, x))
    np.testing.assert_array_equal(
        odd.mirror_oks(x, y),
        np.maximum(odd.oks(x, odd.mirrored(y)), odd.oks(odd.mirrored(x), y)),
    )
