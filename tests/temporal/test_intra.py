"""Intra-annotator agreement: an annotator who redoes items with the same noise agrees
with themselves as two such annotators agree with each other."""

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError, SchemaError

#: "good" with label confusion, so that classification is not trivially 1
NOISY = {"preset": "good", "confusion": 0.1}


def _redone(seed, again=NOISY):
    df = iaf.simulate(n_items=60, seed=seed, annotators={"A": NOISY, "A again": again, "B": NOISY})
    df["round"] = df["annotator"].map({"A": 1, "A again": 2, "B": 1})
    df["annotator"] = df["annotator"].replace({"A again": "A"})
    return df


def _half(c, name):
    """Half-widths of the interval of ``name`` below and above its estimate."""
    est = float(c[name])
    return est - float(c[f"{name}_ci_low"]), float(c[f"{name}_ci_high"]) - est


@pytest.mark.parametrize("seed", range(4))
def test_redo_with_the_same_noise_equals_inter_within_intervals(seed):
    """Two estimates of one value: their difference lies within the half-widths of both
    intervals on the sides that face each other, combined as independent errors."""
    res = iaf.intra_agreement(_redone(seed), n_chance=500, n_boot=200, seed=seed)
    a = res.sel(annotator="A", label="(all)")
    for comp in ("detection", "localization", "overall", "classification"):
        c = a.sel(component=comp)
        diff = float(c["intra"]) - float(c["inter"])
        (intra_low, intra_high), (inter_low, inter_high) = _half(c, "intra"), _half(c, "inter")
        margin = np.hypot(intra_low, inter_high) if diff > 0 else np.hypot(intra_high, inter_low)
        assert abs(diff) <= margin, (comp, diff, margin)
    assert res["repeated_items"].sel(annotator="A") == 60
    assert np.isnan(res["intra"].sel(annotator="B")).all()
    # pooled over the annotators who redid items: here A only, so the same figures
    np.testing.assert_allclose(
        res["intra"].sel(annotator="(all)").values, res["intra"].sel(annotator="A").values
    )


def test_a_careless_redo_lowers_intra_only():
    res = iaf.intra_agreement(_redone(0, again="sloppy"), n_chance=500, n_boot=100)
    loc = res.sel(annotator="A", label="(all)", component="localization")
    assert float(loc["intra_ci_high"]) < float(loc["inter_ci_low"])


def test_the_chance_of_the_pooled_intra_never_pairs_one_image():
    """Pooled over two annotators who both redid every item: items are (item, annotator)
    grouped by image, so no chance pair joins two annotators' passes of one image."""
    df = iaf.simulate(n_items=30, seed=4, annotators={k: "good" for k in ("A", "A2", "B", "B2")})
    df["round"] = df["annotator"].str.len()
    df["annotator"] = df["annotator"].str[0]
    res = iaf.intra_agreement(df, n_chance=400, n_boot=100)
    loc = res.sel(label="(all)", component="localization")
    assert res["repeated_items"].values.tolist() == [60, 30, 30]
    lo, hi = (
        float(loc["intra_ci_low"].sel(annotator="(all)")),
        float(loc["intra_ci_high"].sel(annotator="(all)")),
    )
    assert lo <= float(loc["intra"].sel(annotator="A")) <= hi
    assert lo <= float(loc["inter"].sel(annotator="(all)")) <= hi


def test_errors():
    df = iaf.simulate(n_items=5, seed=0)
    with pytest.raises(SchemaError, match="no 'round' column"):
        iaf.intra_agreement(df, n_boot=0)
    with pytest.raises(ParameterError, match="no item was annotated twice"):
        iaf.intra_agreement(df.assign(round=1), n_boot=0)
    with pytest.raises(SchemaError, match="rows have no 'session'"):
        iaf.intra_agreement(df.assign(session=np.nan), repeat="session", n_boot=0)
