"""Per-annotator quality corrected for the partners' quality (iaa_frames.ranking)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.pairs import PairTables
from iaa_frames.ranking import annotator_quality, annotator_quality_from_tables


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
    none = annotator_quality_from_tables(t)
    assert none["ci_low"].isna().all()
    np.testing.assert_allclose(none["quality"], one["quality"])


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
    assert out.loc["a", "note"] == ""


def test_named_like_the_frame_and_sorted_by_name():
    df = iaf.simulate(n_items=10, seed=0, annotators={"zed": "good", "amy": "good", "mo": "sloppy"})
    out = df.iaa.annotators()
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
