"""Hostile review, round 6 (second wave), of ``consensus``: a misspelt keyword."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_frames as iaf


def _frame(n_items: int = 4) -> pd.DataFrame:
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10 + i + k * 2, y0=10,
             x1=50 + i + k * 2, y1=60, width=200, height=100)
        for i in range(n_items)
        for k, a in enumerate("ABC")
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_consensus_misspelt_keyword_names_the_nearest_keyword():
    with pytest.raises(TypeError, match=r"consensus\(\) got an unexpected keyword argument "
                       r"'min_suport'; did you mean 'min_support'\?"):  # fmt: skip
        iaf.consensus(_frame(), min_suport=2)


def test_consensus_still_checks_match_threshold_and_seed():
    with pytest.raises(iaf.ParameterError, match=r"match_threshold"):
        iaf.consensus(_frame(), match_threshold=2.0)
    with pytest.raises(iaf.ParameterError, match=r"seed must be an integer >= 0"):
        iaf.consensus(_frame(), seed=-1)
