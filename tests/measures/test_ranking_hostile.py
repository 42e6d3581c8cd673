"""Hostile review, round 6: ``iaf.annotator_quality`` reported intervals of no width where
the noise of the pair scores was unknown or wrongly estimated as 0.

* Beside an annotator who reviewed every item and drew nothing (quality 0), the partners'
  noise ``φ_m`` was pooled over that annotator's groups too, whose residuals are 0 by
  construction (every score 0): ``φ_m`` came out 1.9e-36, and the two real annotators,
  on 12 items, read 0.949 [0.949, 0.949] and 0.953 [0.953, 0.953], not shrunk; the empty
  one 0 [9.1e-13, 9.1e-13] (an interval above its estimate).
* On one item the noise cannot be estimated (the note said so), yet every annotator got
  the interval [q, q].
"""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=12, seed=1).drop(columns=["truth_id", "object_id"])


def _with_an_empty_annotator(df):
    """``C`` reviews every item and draws nothing (coverage rows only)."""
    cov = df.loc[df["annotator"] == "C", ["item", "annotator"]].drop_duplicates()
    cov = cov.assign(label=None, x0=np.nan, y0=np.nan, x1=np.nan, y1=np.nan)
    return pd.concat([df[df["annotator"] != "C"], cov], ignore_index=True)


@pytest.mark.parametrize("n_boot", [0, 20])
def test_an_annotator_who_drew_nothing_leaves_the_others_intervals_their_width(df, n_boot):
    q = iaf.annotator_quality(_with_an_empty_annotator(df), n_boot=n_boot)
    q = q.set_index("annotator")
    assert int(q.loc["C", "n_objects"]) == 0 and float(q.loc["C", "unshrunk"]) == 0.0
    # every group of A or B has one partner who drew: the partners' noise cannot be told
    # from the annotator's own (NaN, the dispersion stands for it), it is not 0
    assert np.isnan(q.attrs["partner_noise"])  # was 1.9e-36
    assert q.attrs["dispersion"] > 1e-3
    for a in ("A", "B"):
        low, est, high = (float(q.loc[a, c]) for c in ("ci_low", "quality", "ci_high"))
        assert low < est < high and high - low > 0.01, a  # was [0.949, 0.949]
        assert 0.85 < est < 1.0
    # the empty annotator stays last, its interval holds its estimate and 0
    assert int(q.loc["C", "rank"]) == 3
    assert q.loc["C", "ci_low"] <= q.loc["C", "quality"] <= q.loc["C", "ci_high"] < 0.05
    assert (q["ci_low"] <= q["quality"]).all() and (q["quality"] <= q["ci_high"]).all()


@pytest.mark.parametrize("n_boot", [0, 20])
def test_on_one_item_there_is_no_interval_and_the_note_says_so(df, n_boot):
    q = iaf.annotator_quality(df[df["item"] == df["item"].iloc[0]], n_boot=n_boot)
    assert q["quality"].notna().all()
    assert q["ci_low"].isna().all() and q["ci_high"].isna().all()  # was [q, q]
    assert q["note"].str.contains("not shrunk and no interval").all()
    assert q["note"].str.contains("cannot be estimated").all()


def test_identical_annotators_still_read_exactly_one(df):
    one = df[df["annotator"] == "A"]
    same = pd.concat([one.assign(annotator=n) for n in "ABC"], ignore_index=True)
    q = iaf.annotator_quality(same, n_boot=20)
    assert (q["quality"] == 1.0).all()
    assert (q["ci_low"] == 1.0).all() and (q["ci_high"] == 1.0).all()
