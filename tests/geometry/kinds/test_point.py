"""The point kinds: distances against brute force, reach, validation and agreement."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import Shapes, iou
from iaa_frames.geometry.kind_similarity import reach_boxes
from iaa_frames.geometry.kinds import POINT, POINT_SET, kind_of_rows, point_set_params

P = POINT_SET.max_points


def _sets(rng, m, n_max=6, spread=100.0):
    sets = [
        rng.uniform(0, 1000, 2) + rng.normal(0, spread, (int(rng.integers(1, n_max + 1)), 2))
        for _ in range(m)
    ]
    return sets, np.array([point_set_params(POINT_SET, xy) for xy in sets])


def test_point_set_distance_equals_brute_force():
    # scipy's cdist, one pair at a time, and shapely's distance of a point to a MultiPoint
    rng = np.random.default_rng(0)
    sa, pa = _sets(rng, 80)
    sb, pb = _sets(rng, 80)
    want = [
        0.5 * (cdist(a, b).min(axis=1).mean() + cdist(a, b).min(axis=0).mean())
        for a, b in zip(sa, sb, strict=True)
    ]
    np.testing.assert_allclose(POINT_SET.distance(pa, pb), want, rtol=1e-12)
    a, b = sa[0], sb[0]
    mb = shapely.MultiPoint(b)
    assert np.mean([shapely.Point(p).distance(mb) for p in a]) == pytest.approx(
        cdist(a, b).min(axis=1).mean(), rel=1e-12
    )


def test_point_distance_and_one_point_sets_agree():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 100, (50, 2)), rng.uniform(0, 100, (50, 2))
    d = POINT.distance(a, b)
    np.testing.assert_allclose(d, np.hypot(*(a - b).T), rtol=1e-12)
    one_a = np.array([point_set_params(POINT_SET, [p]) for p in a])
    one_b = np.array([point_set_params(POINT_SET, [p]) for p in b])
    np.testing.assert_allclose(POINT_SET.distance(one_a, one_b), d, rtol=1e-12)
    assert POINT.similarity(a, a).tolist() == [1.0] * 50


def test_point_set_order_and_padding_do_not_matter():
    rng = np.random.default_rng(2)
    sets, p = _sets(rng, 30)
    shuffled = np.array([point_set_params(POINT_SET, rng.permutation(xy)) for xy in sets])
    np.testing.assert_allclose(POINT_SET.distance(p, shuffled), 0.0, atol=1e-12)
    np.testing.assert_allclose(POINT_SET.distance(p, p[::-1]), POINT_SET.distance(p[::-1], p))


def test_invalid_rows_and_limits():
    p = np.array([point_set_params(POINT_SET, [(1, 2), (3, 4)])] * 4)
    p[1, 0] = 0
    p[2, 0] = 1.5
    p[3, 0] = P + 1
    assert POINT_SET.invalid(p).tolist() == [False, True, True, True]
    with pytest.raises(ParameterError, match="holds 1 to 32"):
        point_set_params(POINT_SET, np.zeros((33, 2)))


def _frame(kind, params, w=800.0, h=600.0):
    df = pd.DataFrame(params, columns=list(kind.columns))
    df["width"], df["height"] = w, h
    for c, v in zip(("x0", "y0", "x1", "y1"), kind.bounds(params).T, strict=True):
        df[c] = v
    return df


def test_bounds_normalization_and_reach():
    rng = np.random.default_rng(3)
    sets, pa = _sets(rng, 3000, spread=20)
    xy = pa[:, 1:].reshape(3000, P, 2) + rng.normal(0, 1, (3000, 1, 2)) * rng.uniform(
        0, 30, (3000, 1, 1)
    )
    pb = np.column_stack([pa[:, :1], xy.reshape(3000, -1)])
    df_a, df_b = _frame(POINT_SET, pa), _frame(POINT_SET, pb)
    assert kind_of_rows(df_a).tolist()[:2] == ["point_set"] * 2
    sa, sb = Shapes.from_frame(df_a), Shapes.from_frame(df_b)
    diag = np.hypot(800.0, 600.0)
    assert sa.boxes[0].tolist() == pytest.approx(
        [sets[0][:, 0].min() / diag, sets[0][:, 1].min() / diag] + [
            sets[0][:, 0].max() / diag, sets[0][:, 1].max() / diag]
    )  # fmt: skip
    sim = iou(sa, sb)
    want = np.exp(-0.5 * (POINT_SET.distance(pa, pb) / diag / POINT_SET.tolerance) ** 2)
    np.testing.assert_allclose(sim, want, rtol=1e-9, atol=1e-300)
    for tau in (0.1, 0.5, 0.9):
        ga, gb = reach_boxes(sa, tau), reach_boxes(sb, tau)
        meet = (np.minimum(ga[:, 2], gb[:, 2]) > np.maximum(ga[:, 0], gb[:, 0])) & (
            np.minimum(ga[:, 3], gb[:, 3]) > np.maximum(ga[:, 1], gb[:, 1])
        )
        assert meet[sim >= tau].all()
        assert (sim >= tau).sum() > 50 and (~meet).sum() > 50


def _landmarks(rng, n_items, jitter, *, random=False):
    """Two annotators marking 1-3 landmarks per image (pixels of 800 x 600), near the
    centre (aligned images: chance pairs of other images come close enough to match)."""
    rows = []
    spot = np.array([400.0, 300.0])
    truth = {i: spot + rng.normal(0, 25, (int(rng.integers(1, 4)), 2)) for i in range(n_items)}
    for who in ("a", "b"):
        for i, pts in truth.items():
            if random:
                pts = spot + rng.normal(0, 25, pts.shape)
            pts = pts + rng.normal(0, jitter * POINT.tolerance * 1000.0, pts.shape)
            for x, y in pts:
                rows.append({"item": f"img{i:03d}", "annotator": who, "label": "tip",
                             "pt_x": x, "pt_y": y})  # fmt: skip
    df = pd.DataFrame(rows)
    df["width"], df["height"] = 800.0, 600.0
    return df


def _overall(df, component="overall"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = iaf.agreement(df, n_boot=0, seed=0, progress=False)
    return float(ds["agreement"].sel(component=component, label="(all)", annotator="(all)"))


def test_landmark_agreement_ladder():
    rng = np.random.default_rng(4)
    assert _overall(_landmarks(rng, 150, 0.0)) == pytest.approx(1.0, abs=1e-12)
    got = [_overall(_landmarks(np.random.default_rng(5), 150, j), "localization")
           for j in (0.1, 0.3, 0.6)]  # fmt: skip
    assert got[0] > got[1] > got[2], got
    chance = [_overall(_landmarks(np.random.default_rng(s), 150, 0.0, random=True))
              for s in range(3)]  # fmt: skip
    assert abs(np.mean(chance)) <= 0.02, chance


_xy = st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3))


@settings(max_examples=150, deadline=None)
@given(st.lists(_xy, min_size=1, max_size=8), st.lists(_xy, min_size=1, max_size=8))
def test_point_set_distance_properties(a, b):
    # symmetric, 0 against itself, at least the gap between the boxes (the reach rests on
    # it), at most the Hausdorff distance of the two sets
    pa = np.array([point_set_params(POINT_SET, a)])
    pb = np.array([point_set_params(POINT_SET, b)])
    d = POINT_SET.distance(pa, pb)[0]
    assert d == pytest.approx(POINT_SET.distance(pb, pa)[0], rel=1e-12, abs=1e-12)
    assert POINT_SET.distance(pa, pa)[0] == 0.0
    ba, bb = POINT_SET.bounds(pa)[0], POINT_SET.bounds(pb)[0]
    gap = np.hypot(max(ba[0] - bb[2], bb[0] - ba[2], 0), max(ba[1] - bb[3], bb[1] - ba[3], 0))
    assert d >= gap * (1 - 1e-12) - 1e-9
    haus = shapely.hausdorff_distance(shapely.MultiPoint(a), shapely.MultiPoint(b))
    assert d <= haus * (1 + 1e-12) + 1e-9
