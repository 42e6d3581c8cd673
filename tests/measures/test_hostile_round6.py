"""Hostile review, round 6 (second wave), of the measures: ``accuracy`` with no reference,
``kalpha`` rounded past float64's range."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf


def _frame(n_items: int = 4) -> pd.DataFrame:
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10 + i + k * 2, y0=10,
             x1=50 + i + k * 2, y1=60, width=200, height=100)
        for i in range(n_items)
        for k, a in enumerate("AB")
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_accuracy_without_a_reference_is_refused_not_all_nan():
    with pytest.raises(iaf.ParameterError, match=r"accuracy needs reference="):
        iaf.accuracy(_frame(), reference=None, n_chance=20)


def test_accuracy_without_a_reference_is_refused_through_the_accessor():
    with pytest.raises(iaf.ParameterError, match=r"accuracy needs reference="):
        _frame().iaa.accuracy(reference=None, n_chance=20)


@pytest.mark.parametrize("decimals", [301, 309, 10**6, 2**31, 10**12])
def test_kalpha_decimals_past_float64_are_refused(decimals):
    with pytest.raises(iaf.ParameterError, match=r"decimals must be at most 300"):
        iaf.kalpha(_frame(), decimals=decimals)
    with pytest.raises(iaf.ParameterError, match=r"decimals must be at most 300"):
        iaf.kalpha_items(_frame(), decimals=decimals)


def test_kalpha_at_the_most_decimals_is_the_unrounded_figure():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        most = iaf.kalpha(_frame(), decimals=300)
    assert np.isfinite(most)
    assert most == pytest.approx(iaf.kalpha(_frame(), decimals=None), abs=1e-15)


@pytest.mark.parametrize(
    "function, wrong, right",
    [
        (iaf.kalpha, "decimal", "decimals"),
        (iaf.kalpha_items, "kinds", "kind"),
        (iaf.kalpha_units, "match_treshold", "match_threshold"),
        (iaf.annotator_quality, "n_boots", "n_boot"),
        (iaf.accuracy, "n_chanse", "n_chance"),
    ],
)
def test_a_misspelt_keyword_names_the_function_and_the_nearest_keyword(function, wrong, right):
    kw = {"reference": "A"} if function is iaf.accuracy else {}
    with pytest.raises(TypeError, match=rf"{function.__name__}\(\) got an unexpected keyword "
                       rf"argument '{wrong}'; did you mean '{right}'\?"):  # fmt: skip
        function(_frame(), **kw, **{wrong: 1})


def test_the_decorated_measures_still_check_their_keywords():
    with pytest.raises(iaf.ParameterError, match=r"n_chance must be an integer >= 1"):
        iaf.accuracy(_frame(), reference="A", n_chance=0)
    with pytest.raises(iaf.ParameterError, match=r"match_threshold must be"):
        iaf.annotator_quality(_frame(), match_threshold=2.0)
    with pytest.raises(iaf.ParameterError, match=r"match_threshold must be a number in \(0, 1\]"):
        iaf.kalpha(_frame(), match_threshold=0)
