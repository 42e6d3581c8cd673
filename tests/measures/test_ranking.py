"""Per-annotator quality corrected for the partners' quality (iaa_frames.measures.ranking)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

import iaa_frames as iaf
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.measures.ranking import (
    DEFAULT_N_BOOT,
    annotator_quality,
    annotator_quality_from_tables,
)


def synthetic_tables(q, items_of_pair, pq=None):
    """PairTables whose within-item PQ is known: every pairing has one object per side
    (den = 1) and one matched pair of the same label with IoU = pq(a, b)."""
    pq = pq or (lambda a, b: q[a] * q[b])
    sets, loc = [], []
    for item, (a, b) in items_of_pair:
        sets.append(
            {
                "item": item,
                "annotator_a": a,
                "annotator_b": b,
                "label": -1,
                "n_a": 1,
                "n_b": 1,
                "n_matched": 1,
                "detection": 0.0,
                "overall": 0.0,
            }
        )
        loc.append(
            {
                "item": item,
                "annotator_a": a,
                "annotator_b": b,
                "label_a": 0,
                "label_b": 0,
                "object_a": 0,
                "object_b": 0,
                "iou": pq(a, b),
                "distance": 0.0,
            }
        )
    sets, loc = pd.DataFrame(sets), pd.DataFrame(loc)
    n_items = int(sets["item"].max()) + 1
    cov = pd.concat(
        [
            sets[["item", "annotator_a"]].set_axis(["item", "annotator"], axis=1),
            sets[["item", "annotator_b"]].set_axis(["item", "annotator"], axis=1),
        ]
    ).drop_duplicates()
    units = pd.DataFrame(
        {
            "item": cov["item"],
            "annotator": cov["annotator"],
            "label": 0,
            "cluster": np.arange(len(cov)),
        }
    )
    corpus = SimpleNamespace(
        annotators=np.array([f"a{k}" for k in range(len(q))], dtype=object),
        items=np.arange(n_items),
        labels=np.array(["x"], dtype=object),
    )
    return PairTables(
        corpus=corpus,
        localization_within=loc,
        localization_between=loc[:0],
        sets_within=sets,
        sets_between=sets[:0],
        units=units,
        coverage=cov,
        params={"match_threshold": 0.5},
    )


def test_recovers_the_multiplicative_model_exactly():
    # PQ_ab = q_a q_b without noise: the fixed point is q itself, whatever the design
    q = np.array([0.95, 0.9, 0.7, 0.5, 0.3])
    rng = np.random.default_rng(0)
    pairs = [(i, tuple(sorted(rng.choice(5, 2, replace=False)))) for i in range(40)]
    out = annotator_quality_from_tables(synthetic_tables(q, pairs))
    np.testing.assert_allclose(out["quality"].to_numpy(), q, atol=1e-8)
    assert out["rank"].tolist() == [1, 2, 3, 4, 5]


def test_partner_correction_where_raw_agreement_misleads():
    # a0 and a1 are equally good (0.9); a0 only meets the poor a2, a3 (0.4), a1 only
    # the good a4 (0.95); the poor and good groups meet once to connect the design.
    q = np.array([0.9, 0.9, 0.4, 0.4, 0.95])
    pairs = [
        (k, p)
        for k, p in enumerate([(0, 2), (0, 3)] * 10 + [(1, 4)] * 20 + [(2, 3), (2, 4), (3, 4)] * 5)
    ]
    out = annotator_quality_from_tables(synthetic_tables(q, pairs)).set_index("annotator")
    raw = out["raw_pq"]
    assert raw["a0"] < 0.4 and raw["a1"] > 0.8  # raw agreement: a0 looks much worse
    assert out.loc["a0", "quality"] == pytest.approx(out.loc["a1", "quality"], abs=1e-8)


def test_pairings_weigh_by_their_number_of_objects():
    # the fixed point is the least-squares fit with weights den: a pairing of 4 objects
    # counts like 4 pairings of 1 object
    q = np.array([0.9, 0.6, 0.5])
    base = synthetic_tables(
        q,
        [(0, (0, 1)), (1, (1, 2)), (2, (0, 2))],
        pq=lambda a, b: [[0, 0.5, 0.45], [0.5, 0, 0.35], [0.45, 0.35, 0]][a][b],
    )
    heavy = base.sets_within.copy()
    heavy.loc[0, ["n_a", "n_b"]] = 4
    loc = base.localization_within.copy()
    loc = pd.concat([loc, pd.concat([loc.iloc[[0]]] * 3)], ignore_index=True)
    t4 = PairTables(
        corpus=base.corpus,
        localization_within=loc,
        localization_between=loc[:0],
        sets_within=heavy,
        sets_between=heavy[:0],
        units=base.units,
        coverage=base.coverage,
        params=base.params,
    )
    repeated = synthetic_tables(
        q,
        [(0, (0, 1)), (3, (0, 1)), (4, (0, 1)), (5, (0, 1)), (1, (1, 2)), (2, (0, 2))],
        pq=lambda a, b: [[0, 0.5, 0.45], [0.5, 0, 0.35], [0.45, 0.35, 0]][a][b],
    )
    np.testing.assert_allclose(
        annotator_quality_from_tables(t4)["quality"],
        annotator_quality_from_tables(repeated)["quality"],
        atol=1e-8,
    )


def test_quality_orders_simulated_profiles():
    df = iaf.simulate(
        n_items=40,
        seed=3,
        annotators={
            "good1": "good",
            "good2": "good",
            "sloppy": "sloppy",
            "misser": "misser",
            "mislabeler": "mislabeler",
            "spam": "random",
        },
    )
    out = annotator_quality(df).set_index("annotator")
    assert set(out.sort_values("rank").index[:2]) == {"good1", "good2"}
    assert out.loc["spam", "rank"] == 6
    assert out.loc["spam", "quality"] < 0.05
    assert out.loc["good1", "quality"] > 0.85
    # the partners err too: raw PQ with peers sits below the corrected quality
    assert (out["raw_pq"] <= out["quality"] + 1e-9).all()
    assert (out["n_items"] == 40).all()


def test_bootstrap_interval_and_determinism():
    df = iaf.simulate(n_items=30, seed=1, annotators={"a": "good", "b": "sloppy", "c": "misser"})
    t = iaf.pair_tables(df, n_chance=50)
    one = annotator_quality_from_tables(t, n_boot=60, seed=4)
    two = annotator_quality_from_tables(t, n_boot=60, seed=4)
    pd.testing.assert_frame_equal(one, two)
    assert (one["ci_low"] <= one["quality"]).all() and (one["quality"] <= one["ci_high"]).all()
    assert (one["ci_high"] - one["ci_low"] > 0).all()
    # without replicates: the posterior interval at the estimated crowd parameters, which
    # the replicates' spread of those parameters can only widen on average
    none = annotator_quality_from_tables(t, n_boot=0)
    assert none[["ci_low", "ci_high"]].notna().all().all()
    np.testing.assert_allclose(none["quality"], one["quality"])  # the point does not move
    assert (none["ci_low"] <= none["quality"]).all() and (none["quality"] <= none["ci_high"]).all()


def test_intervals_and_notes_by_default():
    df = iaf.simulate(n_items=12, seed=2, annotators={"a": "good", "b": "sloppy", "c": "misser"})
    out = df.iaa.annotator_quality()
    assert out.attrs["n_boot"] == DEFAULT_N_BOOT > 0
    assert out[["ci_low", "ci_high"]].notna().all().all()
    assert (out["ci_low"] < out["ci_high"]).all()
    assert out["note"].str.startswith("12 items, 2 partners: shrunk ").all()
    assert (out["n_items"] == 12).all() and (out["n_partners"] == 2).all()


def test_annotator_without_peers_is_nan_with_a_note():
    rows = [
        {"item": "i", "annotator": a, "label": "cat", "x0": 0, "y0": 0, "x1": 10 + d, "y1": 10}
        for a, d in (("a", 0), ("b", 1))
    ]
    rows.append(
        {"item": "j", "annotator": "lonely", "label": "cat", "x0": 0, "y0": 0, "x1": 5, "y1": 5}
    )
    out = annotator_quality(iaf.from_records(rows)).set_index("annotator")
    assert np.isnan(out.loc["lonely", "quality"])
    assert out.loc["lonely", "note"] == "no pairing with a peer that holds objects"
    assert pd.isna(out.loc["lonely", "rank"])
    assert np.isnan(out.loc["lonely", "ci_low"]) and np.isnan(out.loc["lonely", "ci_high"])
    assert out.loc["lonely", "n_partners"] == 0
    # nobody covers two items with a partner: the noise cannot be estimated, no shrinkage
    assert out.loc["a", "note"].startswith("1 item, 1 partner: not shrunk")
    assert out.loc["a", "quality"] == out.loc["a", "unshrunk"]


def test_named_like_the_frame_and_sorted_by_name():
    df = iaf.simulate(n_items=10, seed=0, annotators={"zed": "good", "amy": "good", "mo": "sloppy"})
    out = df.iaa.annotator_quality()
    assert out["annotator"].tolist() == ["amy", "mo", "zed"]
    pd.testing.assert_frame_equal(out, annotator_quality(df))
    assert set(out.attrs["long_names"]) == set(out.columns)


@pytest.mark.parametrize(
    "kwargs", [{"n_boot": -1}, {"seed": 1.5}, {"max_iter": 0}, {"progress": "no"}]
)
def test_bad_parameters(kwargs):
    df = iaf.simulate(n_items=3, seed=0)
    with pytest.raises(ParameterError):
        annotator_quality(df, **kwargs)


def test_tables_must_be_pair_tables():
    with pytest.raises(ParameterError, match="PairTables"):
        annotator_quality_from_tables(pd.DataFrame())


def test_every_pair_order_gives_the_same_result():
    q = np.array([0.8, 0.7, 0.6, 0.9])
    pairs = [(i, p) for i, p in enumerate(itertools.combinations(range(4), 2))]
    t = synthetic_tables(q, pairs)
    shuffled = synthetic_tables(q, pairs[::-1])
    np.testing.assert_allclose(
        annotator_quality_from_tables(t)["quality"],
        annotator_quality_from_tables(shuffled)["quality"],
    )


# ----------------------------------------------------------------- properties of quality


@st.composite
def noisy_designs(draw):
    """Pair tables with PQ anywhere in [0, 1] (not following the model), annotators with
    one item or many, pairings of 1 to 6 objects per side."""
    n_ann = draw(st.integers(3, 9))
    n_items = draw(st.integers(2, 14))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = []
    for item in range(n_items):
        who = rng.choice(n_ann, int(rng.integers(2, min(n_ann, 5) + 1)), replace=False)
        for a, b in itertools.combinations(sorted(who), 2):
            rows.append((item, (int(a), int(b)), float(rng.uniform(0, 1)), int(rng.integers(1, 7))))
    return rows


def _tables_from(rows, n_ann):
    q = np.ones(n_ann)
    scores = {(item, pair): pq for item, pair, pq, _ in rows}
    t = synthetic_tables(q, [(item, pair) for item, pair, _, _ in rows])
    sets = t.sets_within.copy()
    sizes = np.array([n for *_, n in rows])
    sets["n_a"], sets["n_b"] = sizes, sizes
    loc = t.localization_within.copy()
    # n matched pairs per pairing, IoU chosen so that the pairing's PQ is as drawn
    loc = loc.loc[loc.index.repeat(sizes)].reset_index(drop=True)
    loc["iou"] = [
        scores[(i, (a, b))] for i, a, b in loc[["item", "annotator_a", "annotator_b"]].to_numpy()
    ]
    return PairTables(
        corpus=t.corpus,
        localization_within=loc,
        localization_between=loc[:0],
        sets_within=sets,
        sets_between=sets[:0],
        units=t.units,
        coverage=t.coverage,
        params=t.params,
    )


@settings(max_examples=40, deadline=None)
@given(noisy_designs())
def test_quality_and_interval_are_bounded_by_zero_and_one(rows):
    n_ann = 1 + max(max(pair) for _, pair, _, _ in rows)
    out = annotator_quality_from_tables(_tables_from(rows, n_ann), n_boot=15, seed=0)
    ok = out["quality"].notna()
    assert ok.any()
    for col in ("quality", "ci_low", "ci_high"):
        assert out.loc[ok, col].between(0.0, 1.0).all(), out
    assert (out.loc[ok, "ci_low"] <= out.loc[ok, "quality"] + 1e-9).all()
    assert (out.loc[ok, "quality"] <= out.loc[ok, "ci_high"] + 1e-9).all()
    assert out.loc[ok, "shrinkage"].between(0.0, 1.0).all()


def _crowd_frame(seed, n_workers, items_per_worker, *, n_items=None):
    """A simulated crowd: every worker has its own jitter / miss / confusion; each item
    gets 3 to 7 workers; ``items_per_worker`` (lo, hi) items per worker."""
    rng = np.random.default_rng(seed)
    names = [f"w{k:04d}" for k in range(n_workers)]
    profiles = {
        w: {
            "jitter": float(rng.uniform(0, 0.25)),
            "miss": float(rng.uniform(0, 0.4)),
            "confusion": float(rng.uniform(0, 0.4)),
        }
        for w in names
    }
    slots = np.repeat(names, rng.integers(items_per_worker[0], items_per_worker[1] + 1, n_workers))
    slots = slots[rng.permutation(len(slots))]
    bounds = np.cumsum(rng.integers(3, 8, len(slots)))
    item = np.searchsorted(bounds[bounds < len(slots)], np.arange(len(slots)), side="right")
    n_items = int(item.max()) + 1
    chosen = pd.DataFrame({"item": [f"img_{i:05d}" for i in item], "annotator": slots})
    sim = iaf.simulate(n_items=n_items, annotators=profiles, seed=seed, objects_per_item=3)
    return sim.merge(chosen.drop_duplicates(), on=["item", "annotator"])


def test_sparse_crowd_does_not_put_one_item_workers_on_top():
    # 300 workers with 1 to 5 items each (a sparse crowd, about a fifth with one item)
    for seed in (0, 1):
        df = _crowd_frame(seed, 300, (1, 5))
        out = annotator_quality(df, n_boot=0)
        top = out.sort_values(["rank", "annotator"]).head(10)
        assert (top["n_items"] == 1).sum() <= 2, top
        assert out["quality"].max() <= 1.0
        # shrinking keeps the order of the rest: close to the unshrunk ranking
        assert spearmanr(out["quality"], out["unshrunk"], nan_policy="omit")[0] > 0.8


def test_one_item_moves_towards_the_crowd_more_than_fifty():
    df = iaf.simulate(
        n_items=60,
        seed=5,
        annotators={
            "a": "good",
            "b": "sloppy",
            "c": "misser",
            "d": "mislabeler",
            "e": {"jitter": 0.05, "miss": 0.1},
            "rookie": "perfect",
            "veteran": "perfect",
        },
    )
    items = sorted(df["item"].unique())
    keep = ~df["annotator"].isin(["rookie", "veteran"])
    keep |= (df["annotator"] == "rookie") & (df["item"] == items[0])
    keep |= (df["annotator"] == "veteran") & df["item"].isin(items[:50])
    out = annotator_quality(df[keep], n_boot=0).set_index("annotator")
    mu = out.attrs["crowd_mean"]
    rookie, veteran = out.loc["rookie"], out.loc["veteran"]
    assert (rookie["n_items"], veteran["n_items"]) == (1, 50)
    # shrunk for the partners' noise only (the quality on its own items): more for one
    # item than for fifty, but a perfect one-item worker stays near the top
    assert rookie["shrinkage"] > 2 * veteran["shrinkage"]
    assert rookie["note"].startswith("1 item, 6 partners: shrunk")

    def share(r):  # the share of the way from the unshrunk estimate to the crowd mean
        return (r["unshrunk"] - r["quality"]) / (r["unshrunk"] - mu)

    assert share(rookie) > share(veteran) > 0
    assert out.loc["rookie", "rank"] > out.loc["veteran", "rank"]


def test_identical_annotators_have_quality_one():
    # nothing to shrink: identical annotators leave no residual (dispersion 0)
    df = iaf.simulate(
        n_items=15, seed=0, annotators={"a": "perfect", "b": "perfect", "c": "perfect"}
    )
    out = annotator_quality(df)
    assert out.attrs["dispersion"] == 0.0
    assert (out["quality"] == 1.0).all()
    assert (out["ci_low"] == 1.0).all() and (out["ci_high"] == 1.0).all()
    assert (out["shrinkage"] == 0.0).all()


def test_invariant_to_row_order_and_names():
    df = iaf.simulate(
        n_items=25, seed=4, annotators={"a": "good", "b": "sloppy", "c": "misser", "d": "good"}
    )
    df = df[~((df["annotator"] == "d") & (df["item"] > "img_00002"))]  # d: 3 items
    base = annotator_quality(df, n_boot=40, seed=3)
    shuffled = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    pd.testing.assert_frame_equal(annotator_quality(shuffled, n_boot=40, seed=3), base)
    # annotators renamed, in another order: the same rows under the new names
    rename = {"a": "zoe", "b": "kim", "c": "al", "d": "bo"}
    out = annotator_quality(df.assign(annotator=df["annotator"].map(rename)), n_boot=40, seed=3)
    out = out.set_index("annotator").loc[[rename[x] for x in base["annotator"]]]
    cols = ["quality", "ci_low", "ci_high", "rank", "unshrunk", "shrinkage", "n_items"]
    pd.testing.assert_frame_equal(
        out[cols].reset_index(drop=True), base[cols].reset_index(drop=True)
    )
    # items renamed in another order: the bootstrap draws other items, the point does not
    items = {it: f"x{k:03d}" for k, it in enumerate(sorted(df["item"].unique(), reverse=True))}
    out = annotator_quality(df.assign(item=df["item"].map(items)), n_boot=0)
    np.testing.assert_allclose(out["quality"], base["quality"], rtol=1e-9)
    pd.testing.assert_frame_equal(out, annotator_quality(df, n_boot=0))


def test_raw_pq_is_the_pooled_pq_with_peers():
    """raw_pq is documented as the raw mean PQ with peers (the baseline of
    docs/validation/ranking.md). It divided by side a's directed denominator on both sides
    of each pairing, taking the partner's corroborated misses out of the annotator's own
    count: here 0.33, 0.57, 0.29 where PQ pooled over the pairings is 2/7, 1/2, 2/9 (c,
    who missed the object a and b both drew, was charged least)."""
    rows = []
    for i in range(6):
        for who, objs in (("a", (0,)), ("b", (0, 1)), ("c", (1, 2, 3))):
            for o in objs:
                rows.append(dict(item=f"i{i}", annotator=who, label="o", x0=5 + 30 * o, y0=10,
                                 x1=30 + 30 * o, y1=40, width=150, height=100))  # fmt: skip
    out = annotator_quality(pd.DataFrame(rows), n_boot=0).set_index("annotator")
    np.testing.assert_allclose(out.loc[["a", "b", "c"], "raw_pq"], [2 / 7, 1 / 2, 2 / 9])
