"""Tests for iaa_frames.measures.reference.accuracy: recovery of injected miss, confusion and
false-positive rates on simulated corpora with truth, an independent brute-force matching
(scipy's Hungarian on shapely IoUs), per-class consistency with the conflicts and the
confusion matrix, the bootstrap, and the Dataset's shape and attrs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import shapely
import xarray as xr
from scipy.optimize import linear_sum_assignment

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.measures.reference import ACCURACY_METRICS, accuracy, accuracy_frame

ALL = "(all)"


def _with_gold(sim):
    """The simulated annotations plus the truth as annotator ``gold`` (with coverage rows
    for items without true objects)."""
    truth = sim.truth.assign(annotator="gold", object_id=lambda d: "t" + d["truth_id"].astype(str))
    ann = sim.annotations
    empty = sorted(set(ann["item"]) - set(truth["item"]))
    cover = pd.DataFrame({"item": empty, "annotator": "gold"})
    return pd.concat([truth.drop(columns="truth_id"), cover, ann], ignore_index=True)


PROFILES = {
    "m10": {"miss": 0.10, "confusion": 0.05},
    "m30": {"miss": 0.30, "confusion": 0.20},
    "c40": {"miss": 0.02, "confusion": 0.40},
}


@pytest.fixture(scope="module")
def recovered():
    sim = iaf.simulate_with_truth(n_items=300, annotators=PROFILES, seed=11, kind="mixed")
    df = _with_gold(sim)
    ds = accuracy(df, reference="gold", n_boot=400, seed=5, n_chance=50)
    return sim, df, ds


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_recovers_injected_rates_within_ci(recovered, name):
    _, _, ds = recovered
    p = PROFILES[name]
    cell = ds.sel(label=ALL, annotator=name)
    for metric, true in (
        ("recall", 1 - p["miss"]),
        ("label_accuracy", 1 - p["confusion"]),
        ("precision", 1.0),
    ):
        low = float(cell["ci_low"].sel(metric=metric))
        high = float(cell["ci_high"].sel(metric=metric))
        if true == 1.0:
            assert float(cell["score"].sel(metric=metric)) == 1.0
        else:
            assert low <= true <= high, (name, metric, low, true, high)
            assert high - low < 0.15  # informative intervals


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_point_estimates_are_the_realized_rates(recovered, name):
    """No jitter, no false positives: recall = share of true objects redrawn, label
    accuracy = share of redraws with the true label, exactly."""
    sim, _, ds = recovered
    ann = sim.annotations
    mine = ann[(ann["annotator"] == name) & ann["label"].notna()]
    truth = sim.truth.set_index("truth_id")
    redrawn = mine["truth_id"].astype(int)
    cell = ds["score"].sel(label=ALL, annotator=name)
    assert float(cell.sel(metric="recall")) == pytest.approx(len(redrawn) / len(truth))
    same = (mine["label"].to_numpy() == truth.loc[redrawn, "label"].to_numpy()).mean()
    assert float(cell.sel(metric="label_accuracy")) == pytest.approx(same)
    assert float(cell.sel(metric="mean_iou")) == pytest.approx(1.0)
    n = ds["n_reference"].sel(label=ALL, annotator=name)
    assert int(n) == len(truth)
    # per class: recall of class c over the true objects of class c
    for cls in sorted(truth["label"].unique()):
        of = truth.index[truth["label"] == cls]
        want = np.isin(of, redrawn).mean()
        got = float(ds["score"].sel(metric="recall", label=cls, annotator=name))
        assert got == pytest.approx(want)


def test_false_positives_lower_precision():
    sim = iaf.simulate_with_truth(n_items=200, seed=4, annotators={"fp": {"false_positives": 0.5}})
    df = _with_gold(sim)
    ds = accuracy(df, reference="gold", n_boot=300, n_chance=50)
    ann = sim.annotations
    mine = ann[(ann["annotator"] == "fp") & ann["label"].notna()]
    n_fp = int(mine["truth_id"].isna().sum())
    cell = ds.sel(label=ALL, annotator="fp")
    # every true object is redrawn exactly (IoU 1), so no false positive can take its match
    assert float(cell["score"].sel(metric="precision")) == pytest.approx(1 - n_fp / len(mine))
    assert float(cell["score"].sel(metric="recall")) == 1.0
    # Poisson(0.5) spurious objects per item against ~4 true ones: precision ~ 4 / 4.5
    expected_rate = 4 / 4.5
    lo, hi = (float(cell[v].sel(metric="precision")) for v in ("ci_low", "ci_high"))
    assert lo - 0.03 <= expected_rate <= hi + 0.03


def _brute_force(df, ref, other, tau=0.5):
    """Independent matching: per item, scipy's Hungarian on shapely IoUs (maximize the
    sum of eligible IoUs), pairs kept at IoU >= tau."""
    out = {"tp": 0, "n_ref": 0, "n_ann": 0, "iou": 0.0}
    cov = df.groupby("item")["annotator"].agg(set)
    for item, who in cov.items():
        if ref not in who or other not in who:
            continue
        sub = df[(df["item"] == item) & df["label"].notna()]
        a = sub[sub["annotator"] == ref]
        b = sub[sub["annotator"] == other]
        ga = [
            shapely.box(*r[["x0", "y0", "x1", "y1"]]) if r["geometry"] is None else r["geometry"]
            for _, r in a.iterrows()
        ]
        gb = [
            shapely.box(*r[["x0", "y0", "x1", "y1"]]) if r["geometry"] is None else r["geometry"]
            for _, r in b.iterrows()
        ]
        out["n_ref"] += len(ga)
        out["n_ann"] += len(gb)
        if not ga or not gb:
            continue
        m = np.array(
            [[shapely.intersection(x, y).area / shapely.union(x, y).area for y in gb] for x in ga]
        )
        score = np.where(m >= tau, m, 0.0)
        r, c = linear_sum_assignment(score, maximize=True)
        keep = m[r, c] >= tau
        out["tp"] += int(keep.sum())
        out["iou"] += float(m[r, c][keep].sum())
    return out


def test_against_brute_force_matching():
    df = iaf.load_sample("coco")
    ds = accuracy(df, reference="ana", n_chance=50)
    for other in ("ben", "chloe", "dev"):
        bf = _brute_force(df, "ana", other)
        cell = ds["score"].sel(label=ALL, annotator=other)
        assert float(cell.sel(metric="recall")) == pytest.approx(bf["tp"] / bf["n_ref"])
        assert float(cell.sel(metric="precision")) == pytest.approx(bf["tp"] / bf["n_ann"])
        assert float(cell.sel(metric="f1")) == pytest.approx(
            2 * bf["tp"] / (bf["n_ref"] + bf["n_ann"])
        )
        assert float(cell.sel(metric="mean_iou")) == pytest.approx(bf["iou"] / bf["tp"], rel=1e-9)


def test_consistent_with_conflicts_and_confusion():
    df = iaf.load_sample("coco")
    t = iaf.pair_tables(df, n_chance=100)
    ds = accuracy(t, reference="ana")
    c = iaf.conflicts(t, reference="ana")
    for other in ("ben", "chloe", "dev"):
        n_ref = int(ds["n_reference"].sel(label=ALL, annotator=other))
        n_match = int(ds["n_matched"].sel(label=ALL, annotator=other))
        mine = c[c["annotator_b"] == other]
        assert (mine["kind"] == "missed").sum() == n_ref - n_match
        n_ann = int(ds["n_annotator"].sel(label=ALL, annotator=other))
        assert (mine["kind"] == "extra").sum() == n_ann - n_match
        acc = float(ds["score"].sel(metric="label_accuracy", label=ALL, annotator=other))
        assert acc == pytest.approx(1 - (mine["kind"] == "label").sum() / n_match)
        # per class: the row-normalized diagonal of the confusion matrix
        shares = iaf.confusion(t, reference="ana", annotator=other, normalize=True)
        for cls in shares.index:
            got = float(ds["score"].sel(metric="label_accuracy", label=cls, annotator=other))
            assert got == pytest.approx(shares.loc[cls, cls])
    # "(all)" pools the annotators: ratio of sums
    n = ds["n_units"].sel(metric="recall", label=ALL)
    s = ds["score"].sel(metric="recall", label=ALL)
    pooled = float(
        (s.sel(annotator=["ben", "chloe", "dev"]) * n.sel(annotator=["ben", "chloe", "dev"])).sum()
        / n.sel(annotator=ALL)
    )
    assert float(s.sel(annotator=ALL)) == pytest.approx(pooled)


def test_coverage_limits_the_comparison():
    """Items the annotator never reviewed are neither misses nor extras."""
    sim = iaf.simulate_with_truth(n_items=80, seed=2, annotators={"half": {"coverage": 0.5}})
    df = _with_gold(sim)
    ds = accuracy(df, reference="gold", n_chance=30)
    assert float(ds["score"].sel(metric="recall", label=ALL, annotator="half")) == 1.0
    seen = set(df.loc[df["annotator"] == "half", "item"])
    n_true = int(sim.truth["item"].isin(seen).sum())
    assert int(ds["n_reference"].sel(label=ALL, annotator="half")) == n_true


def test_dataset_shape_attrs_and_netcdf(tmp_path):
    df = iaf.simulate(n_items=30, annotators={"g": "perfect", "b": "sloppy", "a": "misser"}, seed=0)
    ds = accuracy(df, reference="g", n_boot=50, n_chance=30)
    assert ds["score"].dims == ("metric", "label", "annotator")
    assert ds["metric"].values.tolist() == list(ACCURACY_METRICS)
    assert ds["annotator"].values.tolist() == [ALL, "a", "b"]
    assert ds["label"].values.tolist()[0] == ALL
    for name, var in ds.data_vars.items():
        assert var.attrs.get("long_name") and var.attrs.get("description"), name
    assert (
        "not agreement" in ds.attrs["description"].lower()
        or "not chance-corrected" in ds.attrs["description"]
    )
    assert ds.attrs["reference"] == "g"
    ok = np.isfinite(ds["score"].values)
    assert (ds["ci_low"].values[ok] <= ds["score"].values[ok] + 1e-12).all()
    assert (ds["score"].values[ok] <= ds["ci_high"].values[ok] + 1e-12).all()
    path = tmp_path / "acc.nc"
    ds.to_netcdf(path)
    back = xr.open_dataset(path)
    np.testing.assert_allclose(back["score"].values, ds["score"].values)
    long = accuracy_frame(ds)
    assert len(long) == ds["score"].size


def test_bootstrap_is_seeded():
    df = iaf.simulate(n_items=25, annotators={"g": "perfect", "b": "misser"}, seed=1)
    t = iaf.pair_tables(df, n_chance=30)
    a = accuracy(t, reference="g", n_boot=60, seed=3)
    b = accuracy(t, reference="g", n_boot=60, seed=3)
    c = accuracy(t, reference="g", n_boot=60, seed=4)
    xr.testing.assert_identical(a, b)
    assert not np.allclose(np.nan_to_num(a["ci_low"].values), np.nan_to_num(c["ci_low"].values))
    none = accuracy(t, reference="g")
    assert np.isnan(none["ci_low"].values).all()


def test_undefined_cells_have_notes():
    rows = [
        {"item": "i1", "annotator": "g", "label": "car", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
        {"item": "i1", "annotator": "b", "label": "car", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
        {"item": "i2", "annotator": "g", "label": "bus", "x0": 0, "y0": 0, "x1": 10, "y1": 10},
        {"item": "i2", "annotator": "b"},
    ]
    ds = accuracy(iaf.from_records(rows), reference="g", n_chance=5)
    cell = ds.sel(label="bus", annotator="b")
    assert np.isnan(float(cell["score"].sel(metric="precision")))
    assert cell["note"].sel(metric="precision").item() == "no objects of the annotator"
    assert float(cell["score"].sel(metric="recall")) == 0.0
    assert float(cell["score"].sel(metric="f1")) == 0.0


def test_errors_and_accessor():
    df = iaf.simulate(n_items=5, annotators={"g": "perfect", "b": "good"}, seed=0)
    with pytest.raises(ParameterError, match="reference must be one of"):
        accuracy(df, reference="x", n_chance=10)
    with pytest.raises(ParameterError, match="n_boot"):
        accuracy(df, reference="g", n_boot=-1, n_chance=10)
    xr.testing.assert_identical(
        df.iaa.accuracy(reference="g", n_chance=10), iaf.accuracy(df, reference="g", n_chance=10)
    )
