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


def _volumes(names=("ana", "ben")) -> pd.DataFrame:
    from iaa_frames.geometry.kinds.volume import volume_params

    a = np.zeros((4, 4, 4), bool)
    a[:2] = True
    b = np.zeros((4, 4, 4), bool)
    b[1:3] = True
    return pd.DataFrame(
        [
            {"item": "s1", "annotator": names[0], "label": "liver", **volume_params(a)},
            {"item": "s1", "annotator": names[1], "label": "liver", **volume_params(b)},
        ]
    )


def test_volume_overlap_of_a_frame_of_boxes_is_a_schema_error_not_a_key_error():
    with pytest.raises(iaf.SchemaError, match=r"volume_overlap needs volume rows .* no vol_x0"):
        iaf.volume_overlap(_frame())


@pytest.mark.parametrize("frame", [None, [1, 2], "scan.nii"])
def test_volume_overlap_of_what_is_not_a_frame_is_a_schema_error(frame):
    with pytest.raises(iaf.SchemaError, match=r"volume_overlap needs a DataFrame"):
        iaf.volume_overlap(frame)


def test_volume_overlap_of_annotators_named_by_numbers_and_words():
    out = iaf.volume_overlap(_volumes(("ana", 7)))
    assert out[["annotator_a", "annotator_b"]].iloc[0].tolist() == [7, "ana"]
    assert out["iou"].round(3).tolist() == [0.333]


def test_volume_overlap_refuses_a_volume_row_without_an_annotator():
    frame = _volumes()
    frame.loc[1, "annotator"] = None
    with pytest.raises(iaf.InvalidAnnotationError, match=r"1 volume row\(s\) have no item"):
        iaf.volume_overlap(frame)


def test_volume_overlap_misspelt_keyword_is_named():
    with pytest.raises(
        TypeError,
        match=r"volume_overlap\(\) got an unexpected keyword argument 'instances'; it takes frame",
    ):
        iaf.volume_overlap(_volumes(), instances=False)
