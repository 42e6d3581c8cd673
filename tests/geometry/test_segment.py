"""The segment kind (iaa_frames.geometry.kinds.segment): temporal IoU against a brute-force
count on a grid, the box contract the matcher relies on, GIoU on the timeline, and the
agreement figures end to end: identical annotators 1, random segments ~0 (with classes of
their own typical positions and durations), a jitter ladder monotone."""

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.geometry.distances import Shapes, giou, iou, iou_upper_bound
from iaa_frames.geometry.kinds import SEGMENT, get_kind, kind_of_rows, temporal_iou

ALL = {"label": "(all)", "annotator": "(all)"}
COMPONENTS = ("detection", "classification", "localization", "overall")


# -- the measure ------------------------------------------------------------------------


def brute_tiou(a, b, step):
    """tIoU by counting the cells of a grid of width ``step`` each segment covers (exact
    when every end is a multiple of ``step``)."""
    out = []
    for (s1, e1), (s2, e2) in zip(a, b, strict=True):
        lo, hi = min(s1, s2), max(e1, e2)
        mid = np.arange(lo, hi, step) + step / 2
        in1, in2 = (mid > s1) & (mid < e1), (mid > s2) & (mid < e2)
        out.append((in1 & in2).sum() / (in1 | in2).sum())
    return np.array(out)


def random_pairs(m, seed, step=0.25, span=20):
    rng = np.random.default_rng(seed)
    ends = rng.integers(0, int(span / step), (m, 4)) * step
    a, b = np.sort(ends[:, :2], axis=1), np.sort(ends[:, 2:], axis=1)
    ok = (a[:, 1] > a[:, 0]) & (b[:, 1] > b[:, 0])
    return a[ok], b[ok]


def test_tiou_equals_a_brute_force_count_on_small_cases():
    hand = [  # (a, b, tIoU)
        ([0, 4], [2, 6], 2 / 6),
        ([0, 4], [4, 6], 0.0),  # touching: no overlap
        ([0, 10], [2, 3], 1 / 10),  # nested
        ([1, 3], [1, 3], 1.0),
        ([0, 1], [5, 9], 0.0),
    ]
    a = np.array([h[0] for h in hand], float)
    b = np.array([h[1] for h in hand], float)
    want = np.array([h[2] for h in hand])
    np.testing.assert_allclose(SEGMENT.similarity(a, b), want, atol=1e-12)
    np.testing.assert_allclose(temporal_iou(a, b), want, atol=1e-12)
    np.testing.assert_allclose(brute_tiou(a, b, 0.5), want, atol=1e-12)


def test_tiou_equals_the_brute_force_on_random_segments():
    a, b = random_pairs(400, seed=1)
    got = SEGMENT.similarity(a, b)
    assert (got > 0).sum() > 100 and (got == 0).sum() > 20
    np.testing.assert_allclose(got, brute_tiou(a, b, 0.25), atol=1e-12)
    np.testing.assert_allclose(got, SEGMENT.similarity(b, a), atol=1e-15)  # symmetric


def test_the_matchers_iou_is_the_tiou_and_the_box_contract_holds():
    a, b = random_pairs(300, seed=2)
    df = pd.DataFrame(np.vstack([a, b]), columns=["seg_start", "seg_end"])
    df[["x0", "y0", "x1", "y1"]] = SEGMENT.bounds(df.to_numpy())
    sh = Shapes.from_frame(df)
    m = len(a)
    sa, sb = sh.take(np.arange(m)), sh.take(np.arange(m, 2 * m))
    want = temporal_iou(a, b)
    np.testing.assert_allclose(iou(sa, sb), want, atol=1e-12)
    # the IoU of the bounding boxes is the tIoU itself, so the bound is exact
    assert (iou_upper_bound(sa, sb) >= want - 1e-12).all()
    boxes = SEGMENT.bounds(a)
    assert (boxes[:, 1] == 0).all() and (boxes[:, 3] == 1).all()
    assert (boxes[:, [0, 2]] == a).all()


def test_giou_on_the_timeline():
    a = np.array([[0.0, 2.0], [0.0, 2.0], [0.0, 4.0]])
    b = np.array([[6.0, 8.0], [1.0, 3.0], [0.0, 4.0]])
    df = pd.DataFrame(np.vstack([a, b]), columns=["seg_start", "seg_end"])
    bounds = SEGMENT.bounds(df.to_numpy())
    df[["x0", "y0", "x1", "y1"]] = bounds
    sh = Shapes.from_frame(df)
    sa, sb = sh.take(np.arange(3)), sh.take(np.arange(3, 6))
    # IoU - (C - U) / C: apart by 4 (C = 8, U = 4): -0.5; overlapping 1 of 3 (C = U): 1/3
    np.testing.assert_allclose(giou(sa, sb), [-0.5, 1 / 3, 1.0], atol=1e-12)


def test_invalid_segments_and_normalization():
    data = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 1.0], [np.nan, 4.0]])
    assert SEGMENT.invalid(data).tolist() == [False, True, True, True]
    # divided by the duration (width) alone; the height is not read
    got = SEGMENT.normalize(np.array([[10.0, 30.0]]), np.array([60.0]), np.array([7.0]))
    np.testing.assert_allclose(got, [[1 / 6, 0.5]])
    assert get_kind("segment") is SEGMENT


def test_validate_drops_reversed_segments_and_fills_the_boxes():
    df = pd.DataFrame(
        {
            "item": ["v"] * 3,
            "annotator": ["a", "b", "c"],
            "label": ["run"] * 3,
            "seg_start": [1.0, 5.0, 2.0],
            "seg_end": [4.0, 5.0, 1.0],
            "width": [10.0] * 3,
            "height": [1.0] * 3,
        }
    )
    res = iaf.check(df)
    assert sum(res.counts.values()) == 2
    assert res.frame[["x0", "y0", "x1", "y1"]].to_numpy().tolist() == [[1.0, 0.0, 4.0, 1.0]]
    assert kind_of_rows(res.frame).tolist() == ["segment"]


# -- agreement end to end ----------------------------------------------------------------

#: Classes with their own typical position (centre, fraction of the duration) and
#: length (fraction), as an intro, two kinds of action in the middle and credits at the
#: end (the two actions share their place: a chance pair at the same place can differ in
#: class, so classification has a chance baseline).
CLASSES = {
    "intro": (0.05, 0.08),
    "action": (0.5, 0.15),
    "fight": (0.45, 0.25),
    "credits": (0.93, 0.1),
}


def _draw(rng, duration, n):
    labels = rng.choice(list(CLASSES), n)
    centre = np.array([CLASSES[c][0] for c in labels]) + rng.normal(0, 0.08, n)
    length = np.array([CLASSES[c][1] for c in labels]) * rng.lognormal(0, 0.3, n)
    start = np.clip(centre - length / 2, 0, 1)
    end = np.clip(centre + length / 2, 0, 1)
    ok = end - start > 1e-3
    return labels[ok], start[ok] * duration, end[ok] * duration


def _frame(rows):
    return pd.DataFrame(
        rows, columns=["item", "annotator", "label", "seg_start", "seg_end", "width"]
    ).assign(height=1.0)


def random_corpus(n_items=150, annotators=("a", "b", "c"), seed=0):
    """Every annotator draws its segments (count, classes, positions) independently of
    the item: a random annotator, with the classes' typical positions and durations."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        duration = rng.uniform(20, 600)
        for who in annotators:
            for lab, s, e in zip(*_draw(rng, duration, rng.integers(1, 5)), strict=True):
                rows.append((f"v{i}", who, lab, s, e, duration))
    return _frame(rows)


def truth_corpus(n_items=150, seed=0):
    rng = np.random.default_rng(seed)
    truth = []
    for i in range(n_items):
        duration = rng.uniform(20, 600)
        for lab, s, e in zip(*_draw(rng, duration, rng.integers(1, 5)), strict=True):
            truth.append((f"v{i}", lab, s, e, duration))
    return truth


def jittered(truth, sigma, annotators=("a", "b", "c"), seed=0):
    """Each annotator moves each true start and end by a normal noise of ``sigma`` times
    the segment's length."""
    rng = np.random.default_rng(seed)
    rows = []
    for who in annotators:
        for item, lab, s, e, duration in truth:
            length = e - s
            ns, ne = np.sort([s, e] + rng.normal(0, sigma * length, 2))
            if ne - ns < 1e-6:
                ne = ns + 1e-3 * length
            rows.append((item, who, lab, ns, ne, duration))
    return _frame(rows)


def _figures(res):
    return {c: float(res["agreement"].sel(component=c, **ALL)) for c in COMPONENTS}


def test_identical_annotators_agree_fully():
    truth = truth_corpus(60, seed=3)
    df = jittered(truth, 0.0)
    res = iaf.agreement(df, n_chance=300, n_boot=0, seed=0)
    got = _figures(res)
    assert got == pytest.approx(dict.fromkeys(COMPONENTS, 1.0), abs=1e-12), got
    exp = float(res["expected"].sel(component="localization", **ALL))
    assert 0 < exp <= 1  # a real chance baseline (between-item pairs)


def test_random_segments_agree_at_chance():
    """Classes sit at their own places on the timeline, so raw tIoU of two random
    annotators is far from 0; the chance baseline of unrelated items removes it."""
    df = random_corpus(300, seed=1)
    res = iaf.agreement(df, n_chance=2000, n_boot=200, seed=0, distance="iou")
    got = _figures(res)
    raw = float(res["raw_iou"].sel(component="localization", **ALL))
    assert raw > 0.55  # matched pairs overlap a lot: position is class-typical
    for c in COMPONENTS:
        assert abs(got[c]) < 0.1, (c, got)
        lo = float(res["ci_low"].sel(component=c, **ALL))
        hi = float(res["ci_high"].sel(component=c, **ALL))
        assert lo <= 0.05 and hi >= -0.05, (c, lo, hi)


def test_a_jitter_ladder_is_monotone():
    truth = truth_corpus(120, seed=4)
    sigmas = (0.02, 0.05, 0.1, 0.2, 0.35)
    loc = []
    for k, sigma in enumerate(sigmas):
        df = jittered(truth, sigma, seed=10 + k)
        res = iaf.agreement(df, n_chance=1000, n_boot=0, seed=0, distance="iou")
        loc.append(float(res["agreement"].sel(component="localization", **ALL)))
    assert all(x > y for x, y in zip(loc, loc[1:], strict=False)), loc
    assert loc[0] > 0.8 and loc[-1] < loc[0] - 0.3, loc


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_in_memory_on_segments(npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    df = jittered(truth_corpus(40, seed=5), 0.1, seed=6)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    params = {"n_chance": 300, "n_boot": 20, "seed": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(df, **params)
    assert got.attrs == want.attrs
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name
