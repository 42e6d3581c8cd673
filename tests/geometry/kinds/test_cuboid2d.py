"""The 2D cuboid kind (iaa_frames.geometry.kinds.cuboid2d): IoU of the faces pooled;
identical cuboids 1, a jitter ladder monotone, random cuboids about 0, dask as in
memory."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.geometry.kinds import CUBOID_2D, kind_of_rows
from iaa_frames.geometry.kinds.cuboid2d import CUBOID_2D_COLUMNS

W, H = 640.0, 480.0
CELL = {"label": "(all)", "annotator": "(all)"}


def _cuboids(rng, n):
    """``(n, 16)`` cuboids in perspective: a front face, the back face shifted and
    shrunk."""
    w, h = rng.uniform(40, 120, n), rng.uniform(40, 120, n)
    x, y = rng.uniform(0, W - 1.6 * w), rng.uniform(0, H - 1.6 * h)
    front = np.stack(
        [np.column_stack(c) for c in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))], 1
    )
    shift = np.column_stack([rng.uniform(0.1, 0.5, n) * w, rng.uniform(-0.3, 0.3, n) * h])
    centre = front.mean(1, keepdims=True)
    back = centre + (front - centre) * rng.uniform(0.6, 0.9, n)[:, None, None] + shift[:, None]
    return np.concatenate([front.reshape(n, 8), back.reshape(n, 8)], 1)


def corpus(noise=(0.0,), n_items=60, random=False, seed=0):
    """Annotators who redraw the true cuboids with corner jitter ``noise`` (pixels, one
    value per annotator after the first, who draws them exactly), and optionally one who
    draws random cuboids."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = _cuboids(rng, int(rng.integers(1, 4)))
        drawn = {"a0": truth}
        for k, s in enumerate(noise, 1):
            drawn[f"a{k}"] = truth + rng.normal(0, s, truth.shape)
        if random:
            drawn["blind"] = _cuboids(rng, int(rng.integers(1, 4)))
        for who, shapes in drawn.items():
            for j, p in enumerate(shapes):
                rows.append({"item": f"img{i}", "annotator": who, "label": "car",
                             "object_id": f"{who}/{i}/{j}", "width": W, "height": H,
                             **dict(zip(CUBOID_2D_COLUMNS, p, strict=True))})  # fmt: skip
    return pd.DataFrame(rows)


def _value(res, component="localization", annotator="(all)"):
    return float(res["agreement"].sel(component=component, label="(all)", annotator=annotator))


def test_iou_of_the_faces_against_shapely():
    rng = np.random.default_rng(1)
    a, b = _cuboids(rng, 50), _cuboids(rng, 50)
    b[:25] = a[:25] + rng.normal(0, 5, (25, 16))
    fa, ba = (shapely.polygons(a.reshape(-1, 2, 4, 2)[:, k]) for k in (0, 1))
    fb, bb = (shapely.polygons(b.reshape(-1, 2, 4, 2)[:, k]) for k in (0, 1))
    inter = shapely.area(shapely.intersection(fa, fb)) + shapely.area(shapely.intersection(ba, bb))
    union = shapely.area(shapely.union(fa, fb)) + shapely.area(shapely.union(ba, bb))
    np.testing.assert_allclose(CUBOID_2D.similarity(a, b), inter / union, atol=1e-12)
    np.testing.assert_allclose(CUBOID_2D.similarity(a, a), 1.0)
    # the kind's contract: inside its box, sharing at most the boxes' intersection
    from iaa_frames.geometry.kinds.box import box_intersection

    boxes_a, boxes_b = CUBOID_2D.bounds(a), CUBOID_2D.bounds(b)
    assert (CUBOID_2D.intersection(a, b) <= box_intersection(boxes_a, boxes_b) + 1e-9).all()
    assert shapely.contains(shapely.box(*boxes_a.T), CUBOID_2D.to_polygons(a)).all()


def test_rows_are_read_and_bow_ties_refused():
    df = corpus(n_items=3)
    assert set(kind_of_rows(df)) == {"cuboid_2d"}
    v = iaf.validate(df)
    np.testing.assert_allclose(v[["x0", "y0", "x1", "y1"]].to_numpy(), CUBOID_2D.bounds(
        df[list(CUBOID_2D_COLUMNS)].to_numpy()))  # fmt: skip
    bad = df.iloc[:1].copy()
    corners = ["c2d_fx2", "c2d_fy2", "c2d_fx3", "c2d_fy3"]
    bad[corners] = bad[corners[2:] + corners[:2]].to_numpy()  # tl, br, tr, bl: a bow tie
    assert CUBOID_2D.invalid(bad[list(CUBOID_2D_COLUMNS)].to_numpy()).all()


def test_identical_is_one_and_jitter_is_monotone():
    res = iaf.agreement(corpus(noise=(0.0,)), n_chance=300, n_boot=0, seed=0)
    for component in ("detection", "localization", "overall"):
        assert _value(res, component) == pytest.approx(1.0)
    ladder = [0.5, 2.0, 5.0, 10.0]
    pair = iaf.pairwise(corpus(noise=ladder, n_items=80), n_chance=500, n_boot=0)
    loc = [float(pair.sel(annotator_a="a0", annotator_b=f"a{k}")) for k in range(1, 5)]
    assert all(x > y for x, y in zip(loc, loc[1:], strict=False)), loc
    assert loc[0] > 0.8


def test_random_cuboids_are_at_chance():
    df = corpus(noise=(1.0,), n_items=150, random=True, seed=3)
    res = iaf.agreement(df, n_chance=1000, n_boot=0, seed=0)
    for component in ("detection", "overall"):
        assert abs(_value(res, component, "blind")) < 0.1, component
    pair = iaf.pairwise(df, n_chance=1000, n_boot=0)
    assert float(pair.sel(annotator_a="a0", annotator_b="a1")) > 0.7
    assert abs(float(pair.sel(annotator_a="a0", annotator_b="blind"))) < 0.15


def test_dask_equals_in_memory():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    df = corpus(noise=(2.0, 5.0), n_items=30)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=3, sort=False)
    params = {"n_chance": 200, "n_boot": 10, "seed": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(df, **params)
    for name, var in want.data_vars.items():
        if np.issubdtype(var.values.dtype, np.number):
            np.testing.assert_allclose(got[name].values, var.values, atol=1e-12, equal_nan=True,
                                       err_msg=name)  # fmt: skip
