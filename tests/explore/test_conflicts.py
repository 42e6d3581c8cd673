"""Tests for iaa_frames.explore.conflicts: injected faults are listed exactly, one by one (on the
bundled sample with hand-made faults, and on a simulated corpus with its truth), the
counts agree with the pair tables, and the counting function's margins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.affinity import translate

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.conflicts import (
    CONFLICT_COLUMNS,
    KINDS,
    conflict_counts,
    conflicts,
    partners,
)

TAU, LOW = 0.5, 0.8
KEY = [
    "kind",
    "item",
    "annotator_a",
    "annotator_b",
    "object_id_a",
    "object_id_b",
    "label_a",
    "label_b",
]


def _shape(row):
    g = row["geometry"]
    return g if g is not None else shapely.box(row["x0"], row["y0"], row["x1"], row["y1"])


def _iou(g, h):
    inter = shapely.intersection(g, h).area
    return inter / (g.area + h.area - inter)


def _moved(row, dx):
    """The row translated by dx pixels (bounds updated)."""
    row = row.copy()
    g = translate(_shape(row), xoff=dx)
    if row["geometry"] is not None:
        row["geometry"] = g
    row["x0"], row["y0"], row["x1"], row["y1"] = g.bounds
    return row


def _shift_to(row, target, width):
    """A shift dx (toward the side with room) giving IoU(moved, original) ~ target, by
    bisection; None when the shape leaves the image first."""
    g = _shape(row)
    sign = 1.0 if width - row["x1"] > row["x0"] else -1.0
    room = (width - row["x1"]) if sign > 0 else row["x0"]
    lo, hi = 0.0, row["x1"] - row["x0"]
    for _ in range(50):
        mid = (lo + hi) / 2
        if _iou(g, translate(g, xoff=sign * mid)) > target:
            lo = mid
        else:
            hi = mid
    return sign * hi if hi <= room else None


def _faulty_corpus(base, rng, *, n_miss=6, n_extra=5, n_flip=6, n_low=5, n_far=3):
    """``gold`` (a copy of ``base``) and ``eve`` (a copy with faults), plus the expected
    conflicts of eve against gold, one row per injected fault."""
    classes = sorted(base["label"].dropna().unique())
    gold = base.assign(annotator="gold", object_id="gold/" + base["object_id"].astype(str))
    eve = base.assign(annotator="eve", object_id="eve/" + base["object_id"].astype(str))
    objects = eve[eve["label"].notna()]
    shapes = {
        oid: _shape(r)
        for oid, r in gold.set_index("object_id").iterrows()
        if r["label"] is not None and not pd.isna(r["label"])
    }
    by_item = {k: list(v) for k, v in gold[gold["label"].notna()].groupby("item")["object_id"]}
    # objects on items with >= 2 objects (a miss never empties an item), isolated from
    # the other objects of their item (IoU < 0.05 with each), in random order
    cand = []
    for idx, r in objects.iterrows():
        gid = "gold/" + r["object_id"][4:]
        others = [o for o in by_item[r["item"]] if o != gid]
        if len(others) >= 1 and all(_iou(shapes[gid], shapes[o]) < 0.05 for o in others):
            cand.append(idx)
    cand = list(rng.permutation(cand))
    expected, drop, used_items = [], [], set()

    def gold_of(r):
        return "gold/" + r["object_id"][4:]

    # misses: one per item
    for idx in cand[:]:
        if len(drop) == n_miss:
            break
        r = eve.loc[idx]
        if r["item"] in used_items:
            continue
        used_items.add(r["item"])
        cand.remove(idx)
        drop.append(idx)
        expected.append(
            ("missed", r["item"], "gold", "eve", gold_of(r), None, r["label"], None, np.nan)
        )
    # label flips
    for idx in cand[:n_flip]:
        r = eve.loc[idx]
        new = classes[(classes.index(r["label"]) + 1) % len(classes)]
        eve.loc[idx, "label"] = new
        expected.append(
            ("label", r["item"], "gold", "eve", gold_of(r), r["object_id"], r["label"], new, 1.0)
        )
    cand = cand[n_flip:]
    # shifts: low overlap (IoU ~0.62) and far (IoU ~0.3: a miss plus an extra)
    n_done = {"low": 0, "far": 0}
    for idx in cand:
        if n_done["low"] == n_low and n_done["far"] == n_far:
            break
        r = eve.loc[idx]
        kind = "low" if n_done["low"] < n_low else "far"
        dx = _shift_to(r, 0.62 if kind == "low" else 0.3, r["width"])
        if dx is None:
            continue
        moved = _moved(r, dx)
        g = _shape(moved)
        others = [o for o in by_item[r["item"]] if o != gold_of(r)]
        if any(_iou(g, shapes[o]) >= 0.05 for o in others):
            continue
        iou = _iou(g, shapes[gold_of(r)])
        for col in ("x0", "y0", "x1", "y1", "geometry"):
            eve.at[idx, col] = moved[col]
        n_done[kind] += 1
        if kind == "low":
            assert TAU <= iou < LOW
            expected.append(
                (
                    "low_overlap",
                    r["item"],
                    "gold",
                    "eve",
                    gold_of(r),
                    r["object_id"],
                    r["label"],
                    r["label"],
                    iou,
                )
            )
        else:
            assert iou < TAU
            expected.append(
                ("missed", r["item"], "gold", "eve", gold_of(r), None, r["label"], None, np.nan)
            )
            expected.append(
                ("extra", r["item"], "gold", "eve", None, r["object_id"], None, r["label"], np.nan)
            )
    assert n_done == {"low": n_low, "far": n_far}
    # extra objects: small boxes overlapping nothing of gold's on their item
    extras = []
    items_ = sorted(by_item)
    k = 0
    while len(extras) < n_extra:
        item = items_[int(rng.integers(len(items_)))]
        ref = gold[gold["item"] == item].iloc[0]
        W, H = ref["width"], ref["height"]
        x, y = rng.uniform(0, 0.9) * W, rng.uniform(0, 0.9) * H
        box = shapely.box(x, y, x + 0.06 * W, y + 0.06 * H)
        if any(_iou(box, shapes[o]) >= 0.1 for o in by_item[item]):
            continue
        oid = f"eve/extra{k}"
        k += 1
        label = classes[int(rng.integers(len(classes)))]
        extras.append(
            {
                "item": item,
                "annotator": "eve",
                "label": label,
                "object_id": oid,
                "x0": x,
                "y0": y,
                "x1": x + 0.06 * W,
                "y1": y + 0.06 * H,
                "geometry": None,
                "width": W,
                "height": H,
            }
        )
        expected.append(("extra", item, "gold", "eve", None, oid, None, label, np.nan))
    eve = pd.concat([eve.drop(index=drop), pd.DataFrame(extras)], ignore_index=True)
    exp = pd.DataFrame(expected, columns=KEY + ["iou"])
    return gold, eve, exp


def _as_set(frame):
    rows = frame[KEY].astype(object).where(frame[KEY].notna(), None)
    return {tuple(r) for r in rows.itertuples(index=False)}


@pytest.fixture(scope="module")
def sample_faults():
    df = iaf.load_sample("coco")
    base = df[df["annotator"] == "ana"].drop(columns=["area", "iscrowd"])
    gold, eve, exp = _faulty_corpus(base, np.random.default_rng(7))
    full = pd.concat([df.drop(columns=["area", "iscrowd"]), gold, eve], ignore_index=True)
    return full, gold, eve, exp


def test_sample_faults_listed_exactly_against_reference(sample_faults):
    full, _, _, exp = sample_faults
    t = iaf.pair_tables(full, n_chance=200)
    got = conflicts(t, reference="gold", low_overlap=LOW)
    assert (got["annotator_a"] == "gold").all()
    mine = got[got["annotator_b"] == "eve"]
    assert len(mine) == len(exp)  # no duplicates, nothing else
    assert _as_set(mine) == _as_set(exp)
    # the low-overlap IoUs are the injected ones (independent shapely computation)
    low = mine[mine["kind"] == "low_overlap"].set_index("object_id_b")["iou"]
    want = exp[exp["kind"] == "low_overlap"].set_index("object_id_b")["iou"]
    np.testing.assert_allclose(low.sort_index(), want.sort_index(), rtol=1e-9)


def test_sample_faults_without_reference(sample_faults):
    _, gold, eve, exp = sample_faults
    got = conflicts(pd.concat([gold, eve], ignore_index=True), n_chance=100)
    want = []
    for r in exp.itertuples(index=False):
        if r.kind == "missed":
            want.append(("unmatched", r.item, "gold", "eve", r.object_id_a, None, r.label_a, None))
        elif r.kind == "extra":
            want.append(("unmatched", r.item, "eve", "gold", r.object_id_b, None, r.label_b, None))
        else:  # pairs are ordered by annotator name: eve < gold
            want.append(
                (r.kind, r.item, "eve", "gold", r.object_id_b, r.object_id_a, r.label_b, r.label_a)
            )
    assert len(got) == len(want)
    assert _as_set(got) == set(want)


def test_simulated_truth_faults_listed_exactly():
    sim = iaf.simulate_with_truth(
        n_items=60,
        seed=3,
        kind="mixed",
        annotators={"m": {"miss": 0.25, "confusion": 0.25}, "p": "perfect"},
    )
    truth = sim.truth.assign(annotator="gold", object_id=lambda d: "t" + d["truth_id"].astype(str))
    ann = sim.annotations
    # items without true objects: the reference reviewed them and drew nothing
    empty = sorted(set(ann["item"]) - set(truth["item"]))
    cover = pd.DataFrame({"item": empty, "annotator": "gold"})
    df = pd.concat(
        [truth.drop(columns="truth_id"), cover, ann.drop(columns="truth_id")], ignore_index=True
    )
    got = conflicts(df, reference="gold", n_chance=100)
    assert set(got["annotator_b"]) <= {"m"}  # the perfect copy has no conflict at all
    m = ann[(ann["annotator"] == "m") & ann["label"].notna()]
    drawn = set(m["truth_id"].astype(int))
    t_label = truth.set_index("truth_id")["label"]
    want = set()
    for r in truth.itertuples(index=False):
        if r.truth_id not in drawn:
            want.add(("missed", r.item, "gold", "m", f"t{r.truth_id}", None, r.label, None))
    for r in m.itertuples(index=False):
        true = t_label[int(r.truth_id)]
        if r.label != true:
            want.add(
                ("label", r.item, "gold", "m", f"t{int(r.truth_id)}", r.object_id, true, r.label)
            )
    assert len(want) > 30  # the test has teeth
    assert len(got) == len(want)
    assert _as_set(got) == want


def test_unmatched_rows_are_the_detection_counts():
    """Per pairing, unmatched rows = n_a + n_b - 2 n_matched of the sets table."""
    t = iaf.pair_tables(iaf.load_sample("coco"), n_chance=200)
    got = conflicts(t)
    s = t.sets_within[t.sets_within["label"] == -1]
    c = t.corpus
    want = pd.Series(
        (s["n_a"] + s["n_b"] - 2 * s["n_matched"]).to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [
                c.items[s["item"]],
                [
                    frozenset(p)
                    for p in zip(c.annotators[s["annotator_a"]], c.annotators[s["annotator_b"]])
                ],
            ]
        ),
    )
    un = got[got["kind"] == "unmatched"]
    have = un.groupby(
        [un["item"].to_numpy(), [frozenset(p) for p in zip(un["annotator_a"], un["annotator_b"])]]
    ).size()
    want = want[want > 0].groupby(level=[0, 1]).sum()
    assert have.sort_index().to_dict() == want.sort_index().to_dict()
    w = t.localization_within
    label = c.label
    assert (got["kind"] == "label").sum() == int(
        (label[w["object_a"]] != label[w["object_b"]]).sum()
    )
    assert (got["kind"] == "low_overlap").sum() == int((w["iou"] < LOW).sum())


def test_columns_dtypes_and_order():
    df = iaf.load_sample("coco")
    got = conflicts(df, reference="ana", n_chance=100)
    assert list(got.columns) == list(CONFLICT_COLUMNS)
    assert got.attrs["reference"] == "ana" and got.attrs["low_overlap"] == LOW
    assert set(got["kind"]) <= set(KINDS) - {"unmatched"}
    assert got["item"].is_monotonic_increasing
    missed = got[got["kind"] == "missed"]
    assert missed["object_id_b"].isna().all() and missed["iou"].isna().all()
    extra = got[got["kind"] == "extra"]
    assert extra["object_id_a"].isna().all() and extra["label_a"].isna().all()
    # object ids join back to the frame
    ids = set(df["object_id"].dropna())
    assert set(got["object_id_a"].dropna()) <= ids and set(got["object_id_b"].dropna()) <= ids


def test_row_order_and_low_overlap_none():
    df = iaf.load_sample("coco")
    a = conflicts(df, n_chance=50)
    b = conflicts(df.sample(frac=1, random_state=1), n_chance=50)
    pd.testing.assert_frame_equal(a, b)
    none = conflicts(df, low_overlap=None, n_chance=50)
    assert "low_overlap" not in set(none["kind"])
    assert len(none) == (a["kind"] != "low_overlap").sum()


def test_partners_matches_localization_table():
    t = iaf.pair_tables(iaf.simulate(n_items=20, seed=1), n_chance=50)
    p = partners(t)
    assert int(p["matched"].sum()) == 2 * len(t.localization_within)
    assert (p["owner"] != p["other"]).all()


def test_single_annotator_and_two_items():
    one = iaf.simulate(n_items=3, annotators={"solo": "good"}, seed=0)
    with pytest.raises(iaf.NotComparableError, match="two annotators"):
        conflicts(one, n_chance=10)  # nothing to compare: an error, not an empty table
    got = conflicts(
        iaf.simulate(n_items=3, annotators={"a": "perfect", "b": "perfect"}, seed=0), n_chance=10
    )
    assert got.empty and list(got.columns) == list(CONFLICT_COLUMNS)
    counts = conflict_counts(got)
    assert counts.empty and list(counts.columns) == ["kind", "label", "annotator", "count"]
    two = iaf.simulate(n_items=2, annotators={"a": "good", "b": "misser"}, seed=2)
    assert set(conflicts(two, n_chance=10)["item"]) <= set(two["item"])


def test_counts_margins_and_involvement():
    df = iaf.load_sample("coco")
    c = conflicts(df, n_chance=100)
    counts = conflict_counts(c)
    whole = counts[(counts["label"] == "(all)") & (counts["annotator"] == "(all)")]
    assert whole.set_index("kind")["count"].to_dict() == c["kind"].value_counts().to_dict()
    # every conflict counts under both annotators of its pair
    ann = counts[(counts["label"] == "(all)") & (counts["annotator"] != "(all)")]
    for (kind, a), n in ann.set_index(["kind", "annotator"])["count"].items():
        sub = c[c["kind"] == kind]
        assert n == int(((sub["annotator_a"] == a) | (sub["annotator_b"] == a)).sum())
    # a label conflict counts for both of its classes
    lab = counts[
        (counts["kind"] == "label")
        & (counts["annotator"] == "(all)")
        & (counts["label"] != "(all)")
    ].set_index("label")["count"]
    sub = c[c["kind"] == "label"]
    for cls, n in lab.items():
        assert n == int(((sub["label_a"] == cls) | (sub["label_b"] == cls)).sum())


def test_counts_reference_mode():
    df = iaf.load_sample("coco")
    c = conflicts(df, reference="ana", n_chance=100)
    counts = conflict_counts(df, reference="ana", n_chance=100)
    assert "ana" not in set(counts["annotator"])
    per = counts[(counts["label"] == "(all)") & (counts["annotator"] != "(all)")]
    want = c.groupby(["kind", "annotator_b"]).size()
    assert (
        per.set_index(["kind", "annotator"])["count"].sort_index().to_dict()
        == want.sort_index().to_dict()
    )
    extra = counts[
        (counts["kind"] == "extra")
        & (counts["annotator"] == "(all)")
        & (counts["label"] != "(all)")
    ].set_index("label")["count"]
    assert extra.to_dict() == c[c["kind"] == "extra"].groupby("label_b").size().to_dict()
    with pytest.raises(ParameterError, match="unexpected"):
        conflict_counts(c, n_chance=5)


def test_errors():
    df = iaf.simulate(n_items=3, seed=0)
    with pytest.raises(ParameterError, match="reference must be one of"):
        conflicts(df, reference="nobody", n_chance=10)
    with pytest.raises(ParameterError, match="low_overlap"):
        conflicts(df, low_overlap=1.5, n_chance=10)
    with pytest.raises(ParameterError, match="PairTables"):
        conflicts([1, 2], n_chance=10)


def test_integer_object_ids_stay_integers():
    df = iaf.simulate(n_items=10, annotators={"g": "perfect", "m": "misser"}, seed=0)
    assert df["object_id"].dtype == np.int64
    got = conflicts(df, reference="g", n_chance=20)
    assert str(got["object_id_a"].dtype) == "Int64" == str(got["object_id_b"].dtype)
    assert got["object_id_b"].isna().all() and set(got["object_id_a"]) <= set(df["object_id"])


def test_accessor_equals_function():
    df = iaf.simulate(n_items=8, annotators={"g": "perfect", "s": "sloppy"}, seed=0)
    pd.testing.assert_frame_equal(
        df.iaa.conflicts(reference="g", n_chance=30), iaf.conflicts(df, reference="g", n_chance=30)
    )
    pd.testing.assert_frame_equal(
        df.iaa.conflict_counts(n_chance=30), iaf.conflict_counts(df, n_chance=30)
    )
