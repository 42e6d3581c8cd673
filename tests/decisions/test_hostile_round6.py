"""Hostile review, round 6, of ``next_items``: corpora where no annotation can narrow the
interval (no within-item unit; distances that do not vary)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import iaa_frames as iaf


def _frame(offset_b: float, n_items: int) -> pd.DataFrame:
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=off + i, y0=10, x1=off + 40 + i,
             y1=60, width=200, height=100)
        for i in range(n_items)
        for a, off in (("A", 0.0), ("B", offset_b))
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_no_matched_pair_says_why_the_gains_are_nan_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = iaf.next_items(_frame(100.0, 8), budget=2, n_chance=50)
    assert np.isnan(out["gain"]).all()
    assert out.attrs["note"].startswith("no gain: the localization interval")
    assert "no matched object pair" in out.attrs["note"]


def test_identical_annotators_are_not_said_to_widen_the_interval():
    out = iaf.next_items(_frame(0.0, 3), budget=2, n_chance=50)
    assert (out["gain"] == 0).all()
    assert "already 0 wide" in out.attrs["note"]
    assert "widen" not in out.attrs["note"]
