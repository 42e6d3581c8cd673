"""Track identity agreement: IDF1, ID switches and fragmentations against the real
``motmetrics`` package, swaps and random ids against the chance-corrected identity
agreement, intervals by resampling sequences."""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError, SchemaError

PAIR = {"A": {"jitter": 0.05, "miss": 0.1}, "B": {"jitter": 0.05, "miss": 0.1}}


def _iou_distance(g, h, tau):
    """1 - IoU of every box pair, NaN below ``tau`` (motmetrics' convention; its own
    iou_matrix calls np.asfarray, gone in NumPy 2)."""
    a = g[["x0", "y0", "x1", "y1"]].to_numpy()[:, None, :]
    b = h[["x0", "y0", "x1", "y1"]].to_numpy()[None, :, :]
    iw = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    ih = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = iw * ih
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])  # noqa: E731
    iou = inter / (area(a) + area(b) - inter)
    return np.where(iou >= tau, 1 - iou, np.nan)


def _mot_figures(df, gt, hyp, tau=0.5):
    """IDF1, ID switches and fragmentations of ``hyp`` against ``gt`` per sequence, by
    motmetrics (its IoU distance, matches at IoU >= tau)."""
    mm = pytest.importorskip("motmetrics")
    out = {}
    for seq, part in df.loc[df["x0"].notna()].groupby("group"):
        acc = mm.MOTAccumulator(auto_id=False)
        for fr in range(int(df["frame"].max()) + 1):
            g = part[(part["annotator"] == gt) & (part["frame"] == fr)]
            h = part[(part["annotator"] == hyp) & (part["frame"] == fr)]

            dist = _iou_distance(g, h, tau)
            acc.update(
                g["track_id"].astype(int).tolist(),
                h["track_id"].astype(int).tolist(),
                dist,
                frameid=fr,
            )
        summary = mm.metrics.create().compute(
            acc, metrics=["idf1", "num_switches", "num_fragmentations"], name=seq
        )
        out[seq] = summary.iloc[0]
    return pd.DataFrame(out).T


@pytest.mark.parametrize(
    "spec", [{}, {"swaps": 2}, {"random_ids": True}, {"swaps": 1, "miss": 0.3}]
)
def test_idf1_switches_fragmentations_equal_motmetrics(spec):
    df = iaf.simulate_tracks(
        n_sequences=4,
        n_frames=30,
        n_tracks=4,
        seed=3,
        annotators={"A": PAIR["A"], "B": {**PAIR["B"], **spec}},
    )
    ours = iaf.track_figures(df, match_threshold=0.5, n_chance=10)
    ours = ours[(ours["label"] == "(all)") & (ours["annotator"] == "A")].set_index("sequence")
    theirs = _mot_figures(df, "A", "B")
    assert len(ours) == len(theirs) == 4
    np.testing.assert_allclose(ours["idf1"], theirs.loc[ours.index, "idf1"], atol=1e-12)
    np.testing.assert_array_equal(ours["id_switches"], theirs.loc[ours.index, "num_switches"])
    np.testing.assert_array_equal(
        ours["fragmentations"], theirs.loc[ours.index, "num_fragmentations"]
    )
    # the other direction: B as the reference
    back = iaf.track_figures(df, match_threshold=0.5, n_chance=10)
    back = back[(back["label"] == "(all)") & (back["annotator"] == "B")].set_index("sequence")
    theirs = _mot_figures(df, "B", "A")
    np.testing.assert_array_equal(back["id_switches"], theirs.loc[back.index, "num_switches"])
    np.testing.assert_array_equal(
        back["fragmentations"], theirs.loc[back.index, "num_fragmentations"]
    )
    if spec.get("swaps") or spec.get("random_ids"):
        assert ours["id_switches"].sum() > 0


def _cell(res):
    return res.sel(label="(all)", annotator="(all)", partner="(all)")


def test_swaps_lower_identity_while_localization_stays():
    base = {"A": {"jitter": 0.05}, "B": {"jitter": 0.05}}
    clean = iaf.simulate_tracks(n_sequences=12, seed=5, annotators=base)
    swapped = iaf.simulate_tracks(
        n_sequences=12, seed=5, annotators={**base, "B": {"jitter": 0.05, "swaps": 2}}
    )
    a, b = (_cell(iaf.track_agreement(d, n_chance=200, n_boot=100)) for d in (clean, swapped))
    assert float(a["identity"]) == 1.0 and float(a["idf1"]) > 0.97
    assert float(b["identity"]) < float(b["identity_ci_high"]) < float(a["identity_ci_low"])
    assert float(b["idf1"]) < float(a["idf1"])
    # per-frame localization (and detection) of the frames: the same numbers
    frames = [d.drop(columns=["track_id", "truth_track"]) for d in (clean, swapped)]
    la, lb = (iaf.agreement(d, n_boot=0, n_chance=300, seed=1) for d in frames)
    np.testing.assert_array_equal(la["agreement"].values, lb["agreement"].values)


@pytest.mark.parametrize("seed", range(5))
def test_random_ids_score_about_zero(seed):
    """An annotator who draws the right boxes but shuffles the ids on every frame: its
    identity agreement is 0 within the interval (while IDF1 stays well above 0)."""
    df = iaf.simulate_tracks(
        n_sequences=10,
        seed=seed,
        annotators={"A": {"jitter": 0.05}, "B": {"jitter": 0.05, "random_ids": True}},
    )
    c = _cell(iaf.track_agreement(df, n_chance=400, n_boot=200, seed=seed))
    assert float(c["identity_ci_low"]) <= 0 <= float(c["identity_ci_high"])
    assert abs(float(c["identity"])) < 0.1
    assert 0.3 < float(c["idf1"]) < 0.8


def test_per_class_and_per_annotator_cells():
    df = iaf.simulate_tracks(
        n_sequences=6,
        seed=2,
        annotators={
            "A": {"jitter": 0.05},
            "B": {"jitter": 0.05, "swaps": 1},
            "C": {"jitter": 0.05},
        },
    )
    res = iaf.track_agreement(df, n_chance=100, n_boot=0)
    assert list(res["label"].values) == ["(all)", "car", "person"]
    sel = res.sel(label="(all)")
    # A and C agree exactly; every cell with B is below 1
    assert float(sel["identity"].sel(annotator="A", partner="C")) == 1.0
    assert float(sel["identity"].sel(annotator="A", partner="B")) < 1.0
    assert float(sel["identity"].sel(annotator="B", partner="(all)")) < float(
        sel["identity"].sel(annotator="A", partner="(all)")
    )
    # the per-pair figures pool the sequences of track_figures
    t = iaf.track_figures(df, n_chance=100)
    t = t[(t["label"] == "(all)") & (t["annotator"] == "A") & (t["partner"] == "B")]
    idf1 = 2 * t["idtp"].sum() / (t["n_annotator"].sum() + t["n_partner"].sum())
    assert float(sel["idf1"].sel(annotator="A", partner="B")) == pytest.approx(idf1)
    assert float(sel["id_switches"].sel(annotator="A", partner="B")) == t["id_switches"].sum()
    assert np.isnan(float(sel["identity"].sel(annotator="A", partner="A")))


def test_errors_name_the_problem():
    df = iaf.simulate_tracks(n_sequences=2, seed=0)
    with pytest.raises(ParameterError, match="group"):
        iaf.track_agreement(df.drop(columns="group"), n_boot=0)
    with pytest.raises(SchemaError, match="no 'tid' column"):
        iaf.track_agreement(df, track="tid", n_boot=0)
    with pytest.raises(SchemaError, match="no 'fr' column"):
        iaf.track_agreement(df, frame="fr", n_boot=0)
    dup = df.copy()
    dup.loc[dup["x0"].notna(), "track_id"] = 7
    with pytest.raises(SchemaError, match="two objects on item"):
        iaf.track_agreement(dup, n_boot=0)


def test_cvat_video_tracks():
    """The CVAT video fixtures of tests/io: ana's car on frames 0-3 and a person on frame
    2, ben's car on frames 0-5 (the same boxes on 0-3): IDTP 4, IDF1 = 2 * 4 / (5 + 6)."""
    from pathlib import Path

    fix = Path(__file__).resolve().parents[1] / "fixtures" / "cvat"
    df = iaf.read_cvat([fix / "video_job_ana.xml", fix / "video_job_ben_keyframes.xml"])
    t = iaf.track_figures(df, n_chance=20).set_index(["label", "annotator"])
    assert t.loc[("(all)", "ana"), "idf1"] == pytest.approx(8 / 11)
    assert t.loc[("car", "ana"), "idf1"] == pytest.approx(8 / 10)
    assert t.loc[("person", "ana"), "idf1"] == 0
    assert t.loc[("(all)", "ana"), "id_switches"] == 0
    # one object per frame: no identity to confuse, no chance-corrected identity
    res = iaf.track_agreement(df, n_chance=20, n_boot=0)
    assert np.isnan(float(res["identity"].sel(label="(all)", annotator="ana", partner="ben")))


def test_per_sequence_counts_are_integers_and_the_pooled_ones_float_with_nan():
    df = iaf.simulate_tracks(
        n_sequences=3, seed=4, annotators={"A": {"jitter": 0.05}, "B": {"swaps": 2}}
    )
    t = iaf.track_figures(df, n_chance=20)
    counts = ["n_annotator", "n_partner", "matched", "idtp", "id_switches", "fragmentations"]
    assert all(t[c].dtype == np.int64 for c in counts), t.dtypes
    # the rates stay float, and agree with the integer counts they are made of
    assert t["idf1"].dtype == np.float64
    np.testing.assert_allclose(t["idf1"], 2 * t["idtp"] / (t["n_annotator"] + t["n_partner"]))
    assert t["id_switches"].sum() > 0  # B swaps: the integers are not all zero
    # the Dataset keeps float counts: NaN marks the cells without a sequence pair (A with A)
    res = iaf.track_agreement(df, n_chance=20, n_boot=0).sel(label="(all)")
    assert res["id_switches"].dtype == np.float64
    assert np.isnan(float(res["id_switches"].sel(annotator="A", partner="A")))
    pooled = t[(t["label"] == "(all)") & (t["annotator"] == "B") & (t["partner"] == "A")]
    assert float(res["id_switches"].sel(annotator="B", partner="A")) == pooled["id_switches"].sum()
