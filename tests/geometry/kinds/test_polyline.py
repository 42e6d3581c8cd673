"""The polyline kind: its distance against shapely, its reach, the frame and agreement paths."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import Shapes, giou, iou
from iaa_frames.geometry.kind_similarity import reach_boxes
from iaa_frames.geometry.kinds import POLYLINE, PolylineKind, kind_of_rows, polyline_params
from iaa_frames.geometry.kinds.distance_kind import resample_lines
from iaa_frames.simulate.polylines import PolylineProfile, simulate_polylines

V = POLYLINE.n_vertices


def _random_lines(rng, m, v_max=6, *, v_min=2, spread=200.0):
    """``m`` random lines of 2..v_max vertices (pixels) as lists and as parameters."""
    lines = []
    for _ in range(m):
        v = int(rng.integers(v_min, v_max + 1))
        start = rng.uniform(0, 1000, 2)
        lines.append(start + np.cumsum(rng.normal(0, spread, (v, 2)), axis=0))
    return lines, np.array([polyline_params(POLYLINE, xy) for xy in lines])


def _directed_shapely(a, b, n):
    """d(A -> B) of the module docstring, computed with shapely: ``n`` points at equal arc
    length along A (``LineString.interpolate``), their distance to B, trapezoid weights."""
    la, lb = shapely.LineString(a), shapely.LineString(b)
    pts = [la.interpolate(s, normalized=True) for s in np.linspace(0, 1, n)]
    d = np.array([p.distance(lb) for p in pts])
    w = np.ones(n)
    w[[0, -1]] = 0.5
    return float((d * w).sum() / w.sum())


def test_distance_equals_a_direct_shapely_computation():
    # brute force on small cases: every pair computed one by one with shapely
    rng = np.random.default_rng(0)
    la, pa = _random_lines(rng, 60)
    lb, pb = _random_lines(rng, 60)
    got = POLYLINE.distance(pa, pb)
    want = [
        0.5 * (_directed_shapely(a, b, 32) + _directed_shapely(b, a, 32))
        for a, b in zip(la, lb, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_resampling_is_at_equal_arc_length():
    rng = np.random.default_rng(1)
    lines, p = _random_lines(rng, 20)
    s = resample_lines(POLYLINE.vertices(p), 17)
    for xy, got in zip(lines, s, strict=True):
        line = shapely.LineString(xy)
        want = [line.interpolate(t, normalized=True).coords[0] for t in np.linspace(0, 1, 17)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_the_samples_approximate_the_mean_over_the_length():
    # 32 samples against 2,000: the distance is the mean over the length, not an artefact
    # of the sampling (smooth lines of a few vertices, as lanes are)
    rng = np.random.default_rng(2)
    fine = PolylineKind("fine_example", n_samples=2000)
    la, pa = _random_lines(rng, 40, spread=50)
    lb, pb = _random_lines(rng, 40, spread=50)
    pb[:, 0::2] = pa[:, 0::2] + rng.normal(0, 5, (40, V))  # near lines
    pb[:, 1::2] = pa[:, 1::2] + rng.normal(0, 5, (40, V))
    coarse, exact = POLYLINE.distance(pa, pb), fine.distance(pa, pb)
    np.testing.assert_allclose(coarse, exact, rtol=0.1)


def test_hausdorff_bounds_the_mean_distance():
    # each directed mean distance is at most the directed Hausdorff distance, so D is at
    # most the (symmetric) Hausdorff distance of the two lines
    rng = np.random.default_rng(3)
    la, pa = _random_lines(rng, 80)
    lb, pb = _random_lines(rng, 80)
    # GEOS's Hausdorff distance is over vertices: densified, it is the true one within
    # 1 % of the longest segment
    haus = np.array(
        [
            shapely.hausdorff_distance(shapely.LineString(a), shapely.LineString(b), densify=0.01)
            + 0.01 * max(_longest_segment(a), _longest_segment(b))
            for a, b in zip(la, lb, strict=True)
        ]
    )
    d = POLYLINE.distance(pa, pb)
    assert (d <= haus).all()
    assert (d > 0).all()


def test_identical_reversed_and_padded_lines_score_one():
    rng = np.random.default_rng(4)
    lines, p = _random_lines(rng, 30)
    rev = np.array([polyline_params(POLYLINE, xy[::-1]) for xy in lines])
    assert POLYLINE.similarity(p, p).tolist() == [1.0] * 30
    np.testing.assert_allclose(POLYLINE.similarity(p, rev), 1.0, rtol=0, atol=1e-12)
    # a vertex added in the middle of a segment changes nothing
    split = [np.insert(xy, 1, (xy[0] + xy[1]) / 2, axis=0) for xy in lines]
    sp = np.array([polyline_params(POLYLINE, xy) for xy in split])
    np.testing.assert_allclose(POLYLINE.distance(p, sp), 0.0, rtol=0, atol=1e-9)


def test_distance_is_symmetric_and_counts_a_missing_stretch():
    rng = np.random.default_rng(5)
    _, pa = _random_lines(rng, 50)
    _, pb = _random_lines(rng, 50)
    np.testing.assert_allclose(POLYLINE.distance(pa, pb), POLYLINE.distance(pb, pa), rtol=1e-12)
    # half a straight line against the whole: d(half -> whole) = 0, d(whole -> half) = L/8
    whole = np.array([polyline_params(POLYLINE, [(0, 0), (100, 0)])])
    half = np.array([polyline_params(POLYLINE, [(0, 0), (50, 0)])])
    np.testing.assert_allclose(POLYLINE.directed(half, whole), 0.0, atol=1e-12)
    # d(whole -> half): the trapezoid mean of max(x - 50, 0) over 32 samples of x in
    # [0, 100], near the integral's 12.5
    x = np.linspace(0, 100, 32)
    w = np.r_[0.5, np.ones(30), 0.5] / 31
    want = (np.maximum(x - 50, 0) * w).sum()
    np.testing.assert_allclose(POLYLINE.distance(half, whole), want / 2, rtol=1e-12)
    assert abs(want - 12.5) < 0.05


def test_more_vertices_than_the_kind_holds_are_resampled():
    xy = np.column_stack([np.linspace(0, 100, 50), np.zeros(50)])
    p = polyline_params(POLYLINE, xy)
    assert len(p) == 2 * V
    np.testing.assert_allclose(p[0::2], np.linspace(0, 100, V), atol=1e-12)
    with pytest.raises(ParameterError, match="at least 2 points"):
        polyline_params(POLYLINE, [(1, 1)])


def _frame(params, w=1280.0, h=720.0):
    df = pd.DataFrame(params, columns=list(POLYLINE.columns))
    df["width"], df["height"] = w, h
    for c, v in zip(("x0", "y0", "x1", "y1"), POLYLINE.bounds(params).T, strict=True):
        df[c] = v
    return df


def test_normalization_is_by_the_image_diagonal():
    rng = np.random.default_rng(6)
    _, pa = _random_lines(rng, 40)
    _, pb = _random_lines(rng, 40)
    sa, sb = Shapes.from_frame(_frame(pa)), Shapes.from_frame(_frame(pb))
    d = np.hypot(1280.0, 720.0)
    want = np.exp(-0.5 * (POLYLINE.distance(pa, pb) / d / POLYLINE.tolerance) ** 2)
    np.testing.assert_allclose(iou(sa, sb), want, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(giou(sa, sb), want, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(sa.boxes, POLYLINE.bounds(pa) / d, rtol=1e-12)


def test_reach_contract_holds_on_near_pairs():
    # similarity >= tau only where the boxes grown by the reach meet (sweeps, chance index)
    rng = np.random.default_rng(7)
    _, pa = _random_lines(rng, 3000, spread=30)
    pb = pa.copy()
    shift = rng.normal(0, 1, (3000, 1, 2)) * rng.uniform(0, 40, (3000, 1, 1))
    xy = POLYLINE.vertices(pb) + shift + rng.normal(0, 3, (3000, V, 2))
    pb = xy.reshape(3000, -1)
    sa, sb = Shapes.from_frame(_frame(pa)), Shapes.from_frame(_frame(pb))
    sim = iou(sa, sb)
    for tau in (0.1, 0.5, 0.75, 0.95):
        ga, gb = reach_boxes(sa, tau), reach_boxes(sb, tau)
        meet = (np.minimum(ga[:, 2], gb[:, 2]) > np.maximum(ga[:, 0], gb[:, 0])) & (
            np.minimum(ga[:, 3], gb[:, 3]) > np.maximum(ga[:, 1], gb[:, 1])
        )
        assert meet[sim >= tau].all()
        assert (sim >= tau).sum() > 50 and (~meet).sum() > 50  # both sides exercised


def test_pairs_with_other_kinds_score_zero_and_rows_are_polylines():
    rng = np.random.default_rng(8)
    _, p = _random_lines(rng, 3)
    df = _frame(p)
    assert kind_of_rows(df).tolist() == ["polyline"] * 3
    s = Shapes.from_frame(df)
    box = Shapes(s.boxes.copy())
    assert iou(s, box).tolist() == [0.0] * 3


def test_validate_keeps_horizontal_lines_and_refuses_bad_ones():
    p = np.array([polyline_params(POLYLINE, [(10, 50), (90, 50)])] * 2)
    df = _frame(p)
    df["item"], df["annotator"], df["label"] = "i", ["a", "b"], "lane"
    out = iaf.validate(df)
    assert out.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [10, 50, 90, 50]
    bad = df.copy()
    bad.loc[1, "pl_3_x"] = np.nan
    with pytest.raises(iaf.errors.InvalidAnnotationError):
        iaf.validate(bad)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_in_memory_on_polylines(npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    profiles = {"a": PolylineProfile(jitter=0.3), "b": PolylineProfile(jitter=0.6, flip=0.2)}
    df = iaf.validate(simulate_polylines(n_items=50, annotators=profiles, seed=2))
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


@pytest.mark.parametrize("tau", [0.3, 0.5])
def test_reach_boxes_lose_no_pair_in_agreement(monkeypatch, tau):
    # the chance index and the matcher list pairs by the reach boxes: the same results as
    # listing every pair (reach grown to the whole image), and fewer chance pairs when the
    # reach is too short (tests/geometry/test_kind_similarity.py does the same for OKS)
    import xarray as xr

    from iaa_frames.core.chance import strata
    from iaa_frames.core.matching import pipeline
    from iaa_frames.geometry.kinds.distance_kind import DistanceKind

    profiles = {
        "a": PolylineProfile(jitter=0.3),
        "b": PolylineProfile(jitter=0.8, flip=0.2),
        "c": PolylineProfile(random=True),
    }
    df = simulate_polylines(n_items=40, annotators=profiles, max_lines=6, seed=4)
    monkeypatch.setattr(strata, "EXACT_PAIRINGS", 0)  # a sampled chance population
    kw = {"seed": 0, "match_threshold": tau, "progress": False}
    fast = iaf.agreement(df, n_boot=0, **kw)
    tables = iaf.pair_tables(df, **kw)
    assert len(tables.localization_within) > 50 and len(tables.localization_between) > 3
    monkeypatch.setattr(DistanceKind, "reach", lambda self, data, tau: np.full(len(data), 10.0))
    monkeypatch.setattr(pipeline, "SPARSE_MIN_PAIRS", 0)
    xr.testing.assert_identical(fast, iaf.agreement(df, n_boot=0, **kw))
    monkeypatch.setattr(DistanceKind, "reach", lambda self, data, tau: np.full(len(data), -0.01))
    short = iaf.pair_tables(df, **kw)
    assert len(short.localization_between) < len(tables.localization_between)


_coordinate = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False)
_line = st.lists(st.tuples(_coordinate, _coordinate), min_size=2, max_size=12)


@settings(max_examples=150, deadline=None)
@given(_line, _line)
def test_distance_properties(a, b):
    # symmetric, at least the gap between the boxes (the reach rests on it), at most the
    # Hausdorff distance, unchanged by the direction of drawing, 0 against itself
    pa = np.array([polyline_params(POLYLINE, a)])
    pb = np.array([polyline_params(POLYLINE, b)])
    ra = np.array([polyline_params(POLYLINE, a[::-1])])
    d = POLYLINE.distance(pa, pb)[0]
    assert d == pytest.approx(POLYLINE.distance(pb, pa)[0], rel=1e-9, abs=1e-9)
    assert d == pytest.approx(POLYLINE.distance(ra, pb)[0], rel=1e-9, abs=1e-9)
    assert POLYLINE.distance(pa, pa)[0] == pytest.approx(0.0, abs=1e-9)
    ba, bb = POLYLINE.bounds(pa)[0], POLYLINE.bounds(pb)[0]
    gap = np.hypot(max(ba[0] - bb[2], bb[0] - ba[2], 0), max(ba[1] - bb[3], bb[1] - ba[3], 0))
    assert d >= gap * (1 - 1e-12) - 1e-9
    # GEOS's Hausdorff distance is over vertices: densified, it is the true one within
    # 1 % of the longest segment
    la, lb = shapely.LineString(a), shapely.LineString(b)
    slack = 0.01 * max(_longest_segment(a), _longest_segment(b)) + 1e-9
    assert d <= shapely.hausdorff_distance(la, lb, densify=0.01) + slack


def _longest_segment(xy):
    return float(np.hypot(*np.diff(np.asarray(xy, dtype=float), axis=0).T).max())
