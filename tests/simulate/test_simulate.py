"""Tests for iaa_frames.simulate: structure, determinism, and the statistical properties
of every profile field (checked against the truth via ``truth_id``)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_frames.errors import ParameterError
from iaa_frames.simulate import (
    LAZY_CENTER_FRACTION,
    PRESETS,
    Profile,
    Simulated,
    simulate,
    simulate_with_truth,
)

COLUMNS = ["item", "annotator", "label", "object_id", "x0", "y0", "x1", "y1",
           "geometry", "width", "height", "truth_id"]  # fmt: skip
TRUTH_COLUMNS = ["item", "truth_id", "label", "x0", "y0", "x1", "y1", "geometry",
                 "width", "height"]  # fmt: skip
BOX = ["x0", "y0", "x1", "y1"]


# --------------------------------------------------------------------------- helpers


def assert_frames_identical(a: pd.DataFrame, b: pd.DataFrame):
    pd.testing.assert_frame_equal(a.drop(columns="geometry"), b.drop(columns="geometry"))
    wa = shapely.to_wkb(a["geometry"].to_numpy())
    wb = shapely.to_wkb(b["geometry"].to_numpy())
    assert list(wa) == list(wb)


def objects(df):
    return df[df["label"].notna()]


def coverage_rows(df):
    return df[df["label"].isna()]


def redraws(sim, annotator):
    """The annotator's rows that redraw a true object, joined with that object."""
    ann = sim.annotations
    rows = ann[(ann["annotator"] == annotator) & ann["truth_id"].notna()]
    rows = rows.assign(truth_id=rows["truth_id"].astype("int64"))
    return rows.merge(sim.truth, on="truth_id", suffixes=("", "_t"), validate="m:1")


def binomial_tol(p, n, z=4.5):
    return z * np.sqrt(max(p * (1 - p), 1e-4) / n)


def check_invariants(df):
    """Structural invariants every simulated frame must satisfy."""
    assert list(df.columns) == COLUMNS
    assert df["object_id"].is_unique and df["object_id"].dtype == np.int64
    for col in [*BOX, "width", "height"]:
        assert df[col].dtype == np.float64
    keys = list(zip(df["item"], df["annotator"]))
    assert keys == sorted(keys)
    obj, cov = objects(df), coverage_rows(df)
    # boxes inside the image with positive area
    assert (obj["x0"] >= 0).all() and (obj["y0"] >= 0).all()
    assert (obj["x1"] <= obj["width"]).all() and (obj["y1"] <= obj["height"]).all()
    assert (obj["x0"] < obj["x1"]).all() and (obj["y0"] < obj["y1"]).all()
    # polygons valid, and their bounds are the box columns
    poly = obj[obj["geometry"].notna()]
    g = poly["geometry"].to_numpy()
    assert shapely.is_valid(g).all()
    assert np.isin(shapely.get_type_id(g), [3, 6]).all()
    assert (shapely.area(g) > 0).all()
    np.testing.assert_allclose(shapely.bounds(g), poly[BOX].to_numpy())
    # coverage rows: no geometry, NaN box, no truth, and alone in their (item, annotator)
    assert cov[BOX].isna().all().all() and cov["geometry"].isna().all()
    assert cov["truth_id"].isna().all()
    sizes = df.groupby(["item", "annotator"]).size()
    cov_keys = pd.MultiIndex.from_frame(cov[["item", "annotator"]])
    assert cov_keys.is_unique
    assert (sizes.loc[cov_keys] == 1).all()


# --------------------------------------------------------------------------- structure


def test_columns_dtypes_and_names():
    sim = simulate_with_truth(n_items=30, seed=1)
    assert isinstance(sim, Simulated)
    df = sim.annotations
    check_invariants(df)
    assert str(df["item"].dtype) == "str" and str(df["annotator"].dtype) == "str"
    assert str(df["label"].dtype) == "str" and str(df["truth_id"].dtype) == "Int64"
    assert list(sim.truth.columns) == TRUTH_COLUMNS
    assert sorted(df["annotator"].unique()) == ["A", "B", "C"]
    assert set(df["item"]) <= {f"img_{i:05d}" for i in range(30)}
    assert set(objects(df)["label"]) <= {"car", "person", "bicycle"}
    assert df["geometry"].isna().all()  # boxes only by default


def test_item_names_pad_naturally():
    df = simulate(n_items=123_456, annotators={"a": "perfect"}, objects_per_item=0)
    assert df["item"].iloc[0] == "img_000000" and df["item"].iloc[-1] == "img_123455"
    assert df["item"].is_monotonic_increasing


@pytest.mark.parametrize("kind", ["box", "polygon", "mixed"])
def test_deterministic(kind):
    args = dict(n_items=40, kind=kind, seed=7,
                annotators={"a": "sloppy", "b": {"miss": 0.2, "false_positives": 1.0,
                                                   "confusion": 0.2, "coverage": 0.8},
                            "c": "random", "d": "lazy-center", "e": "mirror"})  # fmt: skip
    one, two = simulate_with_truth(**args), simulate_with_truth(**args)
    assert_frames_identical(one.annotations, two.annotations)
    assert_frames_identical(one.truth, two.truth)
    assert_frames_identical(simulate(**args), one.annotations)
    check_invariants(one.annotations)


def test_seed_changes_output():
    a = simulate_with_truth(n_items=20, seed=0)
    b = simulate_with_truth(n_items=20, seed=1)
    assert not a.truth[BOX].equals(b.truth[BOX])
    assert (
        not objects(a.annotations)[BOX]
        .reset_index(drop=True)
        .equals(objects(b.annotations)[BOX].reset_index(drop=True))
    )


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_annotator_streams_are_independent(kind):
    """Adding annotators (before or after in name order) leaves the others' draws as is."""
    profile = {"jitter": 0.1, "miss": 0.2, "false_positives": 0.5, "confusion": 0.2,
               "coverage": 0.7}  # fmt: skip
    alone = simulate_with_truth(n_items=50, kind=kind, seed=3, annotators={"m": profile})
    crowd = simulate_with_truth(
        n_items=50,
        kind=kind,
        seed=3,
        annotators={"z": "sloppy", "m": profile, "a": "random", "b": "good"},
    )
    assert_frames_identical(alone.truth, crowd.truth)
    a = alone.annotations.drop(columns="object_id").reset_index(drop=True)
    c = crowd.annotations.query("annotator == 'm'").drop(columns="object_id")
    assert_frames_identical(a, c.reset_index(drop=True))


def test_profile_fields_use_common_random_numbers():
    """Changing the miss rate does not change the jitter of the objects still drawn."""
    base = simulate_with_truth(n_items=100, seed=2, annotators={"a": {"jitter": 0.1}})
    more = simulate_with_truth(n_items=100, seed=2,
                               annotators={"a": {"jitter": 0.1, "miss": 0.5}})  # fmt: skip
    b = objects(base.annotations).set_index("truth_id")
    m = objects(more.annotations).set_index("truth_id")
    assert 0 < len(m) < len(b)
    pd.testing.assert_frame_equal(m[BOX], b.loc[m.index, BOX])


# --------------------------------------------------------------------------- truth


def test_perfect_annotator_reproduces_truth():
    for kind in ("box", "polygon", "mixed"):
        sim = simulate_with_truth(n_items=60, kind=kind, seed=4,
                                  annotators={"p": "perfect"})  # fmt: skip
        r = redraws(sim, "p")
        assert len(r) == len(sim.truth)
        np.testing.assert_array_equal(r[BOX].to_numpy(), r[[c + "_t" for c in BOX]].to_numpy())
        assert (r["label"] == r["label_t"]).all() and (r["item"] == r["item_t"]).all()
        g, gt = r["geometry"].to_numpy(), r["geometry_t"].to_numpy()
        assert (pd.isna(g) == pd.isna(gt)).all()
        has = ~pd.isna(g)
        assert shapely.equals_exact(g[has], gt[has], tolerance=1e-9).all()


def test_poisson_counts_and_empty_items():
    sim = simulate_with_truth(n_items=3000, objects_per_item=2.5, seed=5,
                              annotators={"p": "perfect"})  # fmt: skip
    counts = (
        sim.truth.groupby("item")
        .size()
        .reindex([f"img_{i:05d}" for i in range(3000)], fill_value=0)
    )
    assert abs(counts.mean() - 2.5) < 4.5 * np.sqrt(2.5 / 3000)
    assert abs(counts.var() - 2.5) < 0.3  # Poisson: variance = mean
    empty = set(counts.index[counts == 0])
    assert abs(len(empty) / 3000 - np.exp(-2.5)) < binomial_tol(np.exp(-2.5), 3000)
    # the perfect annotator has a coverage row exactly on the empty items
    assert set(coverage_rows(sim.annotations)["item"]) == empty


def test_fixed_counts():
    sim = simulate_with_truth(n_items=50, objects_per_item=3, objects_per="fixed", seed=1)
    assert (sim.truth.groupby("item").size() == 3).all() and len(sim.truth) == 150


def test_image_sizes_vary_or_are_fixed():
    t = simulate_with_truth(n_items=200, seed=1).annotations
    assert t["width"].nunique() > 3 and t["height"].nunique() > 3
    assert ((t["width"] >= 320) & (t["width"] <= 1920)).all()
    f = simulate(n_items=20, image_size=(300, 200), seed=1)
    assert (f["width"] == 300).all() and (f["height"] == 200).all()


def test_truth_boxes_reasonable():
    t = simulate_with_truth(n_items=500, seed=3).truth
    rw = (t["x1"] - t["x0"]) / t["width"]
    rh = (t["y1"] - t["y0"]) / t["height"]
    assert rw.between(0.01, 0.95).all() and rh.between(0.01, 0.95).all()
    assert 0.05 < rw.median() < 0.4
    assert (t["x0"] >= 0).all() and (t["x1"] <= t["width"]).all()


def test_class_weights():
    t = simulate_with_truth(n_items=2000, seed=1, classes=("a", "b", "c"),
                            class_weights=(6, 3, 1)).truth  # fmt: skip
    share = t["label"].value_counts(normalize=True)
    n = len(t)
    for label, p in zip("abc", (0.6, 0.3, 0.1)):
        assert abs(share[label] - p) < binomial_tol(p, n)


def test_single_center_layout():
    t = simulate_with_truth(n_items=300, layout="single_center", seed=2,
                            objects_per_item=4).truth  # fmt: skip
    assert len(t) == 300 and t["item"].is_unique
    cx = (t["x0"] + t["x1"]) / 2 / t["width"]
    cy = (t["y0"] + t["y1"]) / 2 / t["height"]
    assert cx.between(0.39, 0.61).all() and cy.between(0.39, 0.61).all()
    rw = (t["x1"] - t["x0"]) / t["width"]
    assert rw.between(0.34, 0.66).all()
    assert cx.std() > 0.03  # centred-ish, not exactly centred


# --------------------------------------------------------------------------- kinds


def test_kinds():
    box = simulate(n_items=50, kind="box", seed=1)
    assert box["geometry"].isna().all()
    poly = simulate(n_items=50, kind="polygon", seed=1)
    assert objects(poly)["geometry"].notna().all()
    check_invariants(poly)
    mixed = simulate(n_items=300, kind="mixed", seed=1)
    share = objects(mixed)["geometry"].notna().mean()
    assert 0.4 < share < 0.6
    check_invariants(mixed)


def test_polygon_vertex_counts():
    t = simulate_with_truth(n_items=200, kind="polygon", vertices=(6, 9), seed=1).truth
    nv = shapely.get_num_coordinates(t["geometry"].to_numpy()) - 1
    assert nv.min() == 6 and nv.max() == 9
    assert (shapely.get_type_id(t["geometry"].to_numpy()) == 3).all()


def test_polygons_stay_valid_under_heavy_jitter():
    df = simulate(n_items=300, kind="polygon", seed=9,
                  annotators={"s": {"jitter": 0.5, "false_positives": 1},
                              "m": {"jitter": 0.3, "mirror": True}})  # fmt: skip
    check_invariants(df)


def test_boxes_inside_and_positive_under_extreme_jitter():
    df = simulate(
        n_items=300,
        seed=9,
        image_size=(64, 48),
        annotators={"s": {"jitter": 3.0}, "t": {"jitter": 0.5, "mirror": True}},
    )
    check_invariants(df)
    obj = objects(df)
    assert ((obj["x1"] - obj["x0"]) >= 1 - 1e-9).all()


# --------------------------------------------------------------------------- rates


def test_miss_rate():
    sim = simulate_with_truth(n_items=6000, seed=11, annotators={"m": {"miss": 0.3}})
    n = len(sim.truth)
    drawn = redraws(sim, "m")["truth_id"].nunique()
    assert abs((n - drawn) / n - 0.3) < binomial_tol(0.3, n)


def test_false_positive_rate():
    sim = simulate_with_truth(n_items=3000, seed=12,
                              annotators={"f": {"false_positives": 0.7}})  # fmt: skip
    df = objects(sim.annotations)
    fp = df["truth_id"].isna().sum()
    assert abs(fp / 3000 - 0.7) < 4.5 * np.sqrt(0.7 / 3000)
    assert len(df) - fp == len(sim.truth)  # no misses
    check_invariants(sim.annotations)


def test_confusion_rate_and_uniform_wrong_labels():
    sim = simulate_with_truth(n_items=2000, seed=13, classes=("a", "b", "c", "d"),
                              annotators={"c": {"confusion": 0.25}})  # fmt: skip
    r = redraws(sim, "c")
    wrong = r["label"] != r["label_t"]
    assert abs(wrong.mean() - 0.25) < binomial_tol(0.25, len(r))
    # among the objects of class a that were relabelled, b, c, d are equally likely
    w = r[wrong & (r["label_t"] == "a")]["label"].value_counts(normalize=True)
    assert set(w.index) == {"b", "c", "d"}
    assert (abs(w - 1 / 3) < binomial_tol(1 / 3, wrong.sum() / 4)).all()


def test_single_class_confusion_is_harmless():
    df = simulate(n_items=20, classes=("x",), annotators={"c": {"confusion": 1.0}})
    assert set(objects(df)["label"]) == {"x"}


@pytest.mark.parametrize("jitter", [0.03, 0.1])
def test_jitter_scale_boxes(jitter):
    sim = simulate_with_truth(n_items=2000, seed=14, annotators={"j": {"jitter": jitter}})
    r = redraws(sim, "j")
    w, h = r["x1_t"] - r["x0_t"], r["y1_t"] - r["y0_t"]
    # keep objects whose 6-sigma neighbourhood is inside the image (no clipping)
    m = 6 * jitter
    inside = ((r["x0_t"] - m * w > 0) & (r["x1_t"] + m * w < r["width"])
              & (r["y0_t"] - m * h > 0) & (r["y1_t"] + m * h < r["height"]))  # fmt: skip
    r, w, h = r[inside], w[inside], h[inside]
    dev = np.concatenate([(r["x0"] - r["x0_t"]) / w, (r["x1"] - r["x1_t"]) / w,
                          (r["y0"] - r["y0_t"]) / h, (r["y1"] - r["y1_t"]) / h])  # fmt: skip
    n = len(dev)
    assert n > 10_000
    assert abs(dev.mean()) < 4.5 * jitter / np.sqrt(n)
    assert abs(dev.std() / jitter - 1) < 0.05


def _vertex_means(geoms):
    """Mean of each polygon's vertices (closing vertex excluded) and the vertex count:
    independent of the vertex order."""
    xy, idx = shapely.get_coordinates(geoms, return_index=True)
    n = np.bincount(idx, minlength=len(geoms))
    first = np.concatenate([[0], np.cumsum(n)[:-1]])
    k = n - 1
    sums = np.column_stack([np.bincount(idx, xy[:, d], minlength=len(geoms)) for d in (0, 1)])
    return (sums - xy[first]) / k[:, None], k


@pytest.mark.parametrize("jitter", [0.02, 0.06])
def test_jitter_scale_polygons(jitter):
    """Each vertex moves by Normal(0, jitter*size): the vertex mean moves by
    Normal(0, jitter*size/sqrt(k)) whatever the vertex order."""
    sim = simulate_with_truth(n_items=1500, kind="polygon", seed=15,
                              annotators={"j": {"jitter": jitter}})  # fmt: skip
    r = redraws(sim, "j")
    w, h = r["x1_t"] - r["x0_t"], r["y1_t"] - r["y0_t"]
    m = 6 * jitter
    inside = ((r["x0_t"] - m * w > 0) & (r["x1_t"] + m * w < r["width"])
              & (r["y0_t"] - m * h > 0) & (r["y1_t"] + m * h < r["height"]))  # fmt: skip
    r, w, h = r[inside], w[inside].to_numpy(), h[inside].to_numpy()
    mean, k = _vertex_means(r["geometry"].to_numpy())
    mean_t, k_t = _vertex_means(r["geometry_t"].to_numpy())
    assert (k == k_t).mean() > 0.99
    same = k == k_t
    z = (mean - mean_t)[same] * np.sqrt(k[same])[:, None] / (jitter * np.column_stack([w, h])[same])
    z = z.ravel()
    assert len(z) > 5000
    assert abs(z.mean()) < 4.5 / np.sqrt(len(z))
    assert abs(z.std() - 1) < 0.05


# --------------------------------------------------------------------------- coverage


def test_coverage_rows_exactly_for_reviewed_but_empty():
    sim = simulate_with_truth(
        n_items=400, seed=16, objects_per_item=1.0,
        annotators={"p": "perfect", "m": {"miss": 0.6}, "all_miss": {"miss": 1.0},
                    "f": {"miss": 0.5, "false_positives": 0.3}},
    )  # fmt: skip
    df = sim.annotations
    check_invariants(df)
    items = [f"img_{i:05d}" for i in range(400)]
    n_obj = objects(df).groupby(["item", "annotator"]).size()
    full = pd.MultiIndex.from_product([items, ["all_miss", "f", "m", "p"]])
    expected_empty = set(full.difference(n_obj.index))
    got = set(map(tuple, coverage_rows(df)[["item", "annotator"]].to_numpy()))
    assert got == expected_empty
    assert (coverage_rows(df)["annotator"] == "all_miss").sum() == 400
    assert len(df[df["annotator"] == "all_miss"]) == 400


def test_coverage_below_one_drops_items():
    sim = simulate_with_truth(n_items=2000, seed=17,
                              annotators={"c": {"coverage": 0.6}, "p": "perfect"})  # fmt: skip
    df = sim.annotations
    seen = df[df["annotator"] == "c"]["item"].unique()
    assert abs(len(seen) / 2000 - 0.6) < binomial_tol(0.6, 2000)
    assert df[df["annotator"] == "p"]["item"].nunique() == 2000
    # a reviewed item is fully redrawn (no misses): all its true objects are there
    r = redraws(sim, "c")
    truth_on_seen = sim.truth[sim.truth["item"].isin(seen)]
    assert set(r["truth_id"]) == set(truth_on_seen["truth_id"])
    check_invariants(df)


# --------------------------------------------------------------------------- behaviours


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_lazy_center(kind):
    sim = simulate_with_truth(n_items=200, seed=18, kind=kind,
                              annotators={"l": "lazy-center"})  # fmt: skip
    df = sim.annotations
    assert len(df) == 200 and df["item"].is_unique and df["label"].notna().all()
    assert df["truth_id"].isna().all()
    rel = np.column_stack([df["x0"] / df["width"], df["y0"] / df["height"],
                           df["x1"] / df["width"], df["y1"] / df["height"]])  # fmt: skip
    f0, f1 = (1 - LAZY_CENTER_FRACTION) / 2, (1 + LAZY_CENTER_FRACTION) / 2
    np.testing.assert_allclose(rel, np.tile([f0, f0, f1, f1], (200, 1)), atol=1e-12)
    # labelled with the item's first true class where the item has objects
    first = sim.truth.groupby("item")["label"].first()
    lab = df.set_index("item")["label"]
    assert (lab.loc[first.index] == first).all()
    if kind == "polygon":
        g = df["geometry"].to_numpy()
        assert np.allclose(shapely.area(g), (df["x1"] - df["x0"]) * (df["y1"] - df["y0"]))
    else:
        assert df["geometry"].isna().all()


@pytest.mark.parametrize("kind", ["box", "polygon", "mixed"])
def test_mirror(kind):
    sim = simulate_with_truth(n_items=100, seed=19, kind=kind, annotators={"m": "mirror"})
    r = redraws(sim, "m")
    assert len(r) == len(sim.truth)
    np.testing.assert_allclose(r["x0"], r["width"] - r["x1_t"])
    np.testing.assert_allclose(r["x1"], r["width"] - r["x0_t"])
    np.testing.assert_array_equal(r[["y0", "y1"]].to_numpy(), r[["y0_t", "y1_t"]].to_numpy())
    has = r["geometry"].notna().to_numpy()
    if has.any():
        g, gt = r["geometry"].to_numpy()[has], r["geometry_t"].to_numpy()[has]
        w = r["width"].to_numpy()[has]
        flipped = np.array([shapely.transform(p, lambda xy, w=wi: np.column_stack(
            [w - xy[:, 0], xy[:, 1]])) for p, wi in zip(gt, w)])  # fmt: skip
        assert shapely.equals_exact(shapely.normalize(g), shapely.normalize(flipped),
                                    tolerance=1e-6).all()  # fmt: skip


def test_random_is_independent_of_truth():
    n = 4000
    sim = simulate_with_truth(n_items=n, seed=20, objects_per_item=1, objects_per="fixed",
                              image_size=(800, 600),
                              annotators={"r": "random", "p": "perfect"})  # fmt: skip
    df = objects(sim.annotations)
    r = df[df["annotator"] == "r"].set_index("item")
    assert r["truth_id"].isna().all() and r.index.is_unique and len(r) == n
    t = sim.truth.set_index("item").loc[r.index]
    tol = 4.5 / np.sqrt(n)
    for lo, hi in (("x0", "x1"), ("y0", "y1")):
        corr = np.corrcoef((r[lo] + r[hi]) / 2, (t[lo] + t[hi]) / 2)[0, 1]
        assert abs(corr) < tol
    # labels agree only by chance (3 uniform classes)
    agree = (r["label"] == t["label"]).mean()
    assert abs(agree - 1 / 3) < binomial_tol(1 / 3, n)
    # and the random annotator's boxes spread over the whole image
    cx = (r["x0"] + r["x1"]) / 2 / 800
    assert cx.min() < 0.1 and cx.max() > 0.9


def test_random_counts_follow_the_truth_distribution_not_the_item():
    sim = simulate_with_truth(n_items=3000, seed=21, objects_per_item=3,
                              annotators={"r": "random"})  # fmt: skip
    items = [f"img_{i:05d}" for i in range(3000)]
    rc = objects(sim.annotations).groupby("item").size().reindex(items, fill_value=0)
    tc = sim.truth.groupby("item").size().reindex(items, fill_value=0)
    assert abs(rc.mean() - 3) < 4.5 * np.sqrt(3 / 3000)
    assert abs(np.corrcoef(rc, tc)[0, 1]) < 4.5 / np.sqrt(3000)


# --------------------------------------------------------------------------- profiles


def test_presets():
    assert PRESETS["good"] == Profile(jitter=0.02, miss=0.02)
    assert PRESETS["sloppy"].jitter == 0.15 and PRESETS["misser"].miss == 0.3
    assert PRESETS["mislabeler"].confusion == 0.3
    assert PRESETS["random"].random and PRESETS["mirror"].mirror
    assert PRESETS["lazy-center"].lazy_center
    assert PRESETS["perfect"] == Profile()
    assert Profile.preset("lazy_center") == PRESETS["lazy-center"]
    assert Profile.preset("good", coverage=0.5) == Profile(jitter=0.02, miss=0.02,
                                                           coverage=0.5)  # fmt: skip


def test_profile_forms_are_equivalent():
    forms = [Profile(jitter=0.15, coverage=0.5), {"jitter": 0.15, "coverage": 0.5},
             {"preset": "sloppy", "coverage": 0.5}]  # fmt: skip
    frames = [simulate(n_items=30, seed=2, annotators={"x": f}) for f in forms]
    for f in frames[1:]:
        assert_frames_identical(frames[0], f)
    assert_frames_identical(simulate(n_items=30, seed=2, annotators={"x": "sloppy"}),
                            simulate(n_items=30, seed=2,
                                     annotators={"x": PRESETS["sloppy"]}))  # fmt: skip


def test_profile_is_frozen_and_keyword_only():
    p = Profile(jitter=0.1)
    with pytest.raises(AttributeError):
        p.jitter = 0.2
    with pytest.raises(TypeError):
        Profile(0.1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(jitter=-0.1), "jitter"),
        (dict(miss=1.5), "miss"),
        (dict(confusion=-1), "confusion"),
        (dict(false_positives=float("nan")), "false_positives"),
        (dict(coverage=0.0), "coverage"),
        (dict(miss="0.2"), "miss"),
        (dict(mirror=1), "mirror"),
        (dict(lazy_center=True, random=True), "at most one"),
    ],
)
def test_bad_profile(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        Profile(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(annotators={"a": "sloppyy"}), r"unknown annotator preset 'sloppyy'.*good"),
        (dict(annotators={"a": {"jiter": 0.1}}), r"unknown profile field.*'jiter'.*jitter"),
        (dict(annotators={"a": {"preset": "good", "bogus": 1}}), "bogus"),
        (dict(annotators={"a": 3}), "profile must be"),
        (dict(annotators={}), "non-empty dict"),
        (dict(annotators=["a", "b"]), "non-empty dict"),
        (dict(annotators={1: "good"}), "annotator names"),
        (dict(annotators={"(all)": "good"}), "reserved"),
        (dict(n_items=0), "n_items"),
        (dict(n_items=2.5), "n_items"),
        (dict(kind="circle"), "kind must be one of"),
        (dict(layout="grid"), "layout"),
        (dict(objects_per="normal"), "objects_per"),
        (dict(objects_per_item=-1), "objects_per_item"),
        (dict(objects_per_item=2.5, objects_per="fixed"), "whole number"),
        (dict(classes="car"), "classes"),
        (dict(classes=()), "classes"),
        (dict(classes=("a", "a")), "distinct"),
        (dict(classes=("a", "(all)")), "reserved"),
        (dict(classes=("a", "b"), class_weights=(1, 2, 3)), "class_weights"),
        (dict(class_weights=(1, -1, 1)), "class_weights"),
        (dict(seed=-1), "seed"),
        (dict(seed=1.5), "seed"),
        (dict(image_size=(100,)), "image_size"),
        (dict(image_size=(0, 100)), "image_size"),
        (dict(vertices=(3, 12)), "vertices"),
        (dict(vertices=(8, 6)), "vertices"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        simulate(n_items=kwargs.pop("n_items", 5), **kwargs)


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        simulate(10)
    with pytest.raises(TypeError):
        simulate_with_truth(10)


# --------------------------------------------------------------------------- properties


profiles = st.fixed_dictionaries(
    {},
    optional={
        "jitter": st.floats(0, 1),
        "miss": st.floats(0, 1),
        "false_positives": st.floats(0, 3),
        "confusion": st.floats(0, 1),
        "mirror": st.booleans(),
        "coverage": st.floats(0.05, 1),
    },
) | st.sampled_from(sorted(PRESETS))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    annotators=st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]), profiles, min_size=1, max_size=3
    ),  # fmt: skip
    kind=st.sampled_from(["box", "polygon", "mixed"]),
    n_items=st.integers(1, 12),
    objects_per_item=st.floats(0, 6),
    layout=st.sampled_from(["random", "single_center"]),
    seed=st.integers(0, 2**32),
)
def test_invariants_hold_for_any_profiles(annotators, kind, n_items, objects_per_item,
                                          layout, seed):  # fmt: skip
    sim = simulate_with_truth(n_items=n_items, annotators=annotators, kind=kind, seed=seed,
                              objects_per_item=objects_per_item, layout=layout)  # fmt: skip
    check_invariants(sim.annotations)
    assert set(sim.annotations["annotator"]) <= set(annotators)


# --------------------------------------------------------------------------- validate


@pytest.mark.parametrize("kind", ["box", "polygon", "mixed"])
def test_validate_accepts_simulated_frames(kind):
    frame = pytest.importorskip("iaa_frames.frame.schema")
    validate = getattr(frame, "validate", None)
    if validate is None:
        pytest.skip("iaa_frames.frame.schema.validate is not available yet")
    df = simulate(n_items=60, kind=kind, seed=5,
                  annotators={"a": "good", "m": {"miss": 0.7, "coverage": 0.8},
                              "r": "random", "l": "lazy-center"})  # fmt: skip
    assert coverage_rows(df).shape[0] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = validate(df)
    assert len(out) == len(df)
    assert set(out["object_id"]) == set(df["object_id"])
