"""Hostile review, round 6 (second wave), of the explore views: ``item_agreement`` given
components that are not a sequence."""

from __future__ import annotations

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


@pytest.mark.parametrize("components", [None, 0, 1.5, True])
def test_item_agreement_components_not_a_sequence_is_a_parameter_error(components):
    with pytest.raises(iaf.ParameterError, match=r"components must be a non-empty subset"):
        iaf.item_agreement(_frame(), components=components, n_chance=20)


def test_item_agreement_components_through_the_accessor():
    with pytest.raises(iaf.ParameterError, match=r"components must be a non-empty subset"):
        _frame().iaa.item_agreement(components=None, n_chance=20)


@pytest.mark.parametrize(
    "function, wrong, right",
    [
        (iaf.conflict_counts, "n_chanse", "n_chance"),
        (iaf.item_agreement, "low_overlapp", "low_overlap"),
        (iaf.confusion, "normalise", "normalize"),
        (iaf.label_alpha, "match_treshold", "match_threshold"),
    ],
)
def test_a_misspelt_keyword_names_the_function_and_the_nearest_keyword(function, wrong, right):
    with pytest.raises(TypeError, match=rf"{function.__name__}\(\) got an unexpected keyword "
                       rf"argument '{wrong}'; did you mean '{right}'\?"):  # fmt: skip
        function(_frame(), **{wrong: 1})


def test_conflict_counts_still_checks_the_engine_keywords():
    with pytest.raises(iaf.ParameterError, match=r"n_chance must be an integer >= 1"):
        iaf.conflict_counts(_frame(), n_chance=0)
    with pytest.raises(iaf.ParameterError, match=r"n_chance must be an integer >= 1"):
        iaf.label_alpha(_frame(), n_chance=0)


def test_label_alpha_says_why_each_nan_is_nan():
    same = _frame()  # one class, every pair matched
    far = _frame().assign(x0=lambda f: f["x0"] + 100 * (f["annotator"] == "B"))
    far["x1"] = far["x0"] + 40
    one = iaf.label_alpha(same, n_chance=20)
    none = iaf.label_alpha(far, n_chance=20)
    assert one.isna().all() and none.isna().all()
    assert one.attrs["notes"] == {
        "(all)": "every matched object carries one label: no expected disagreement",
        "cat": "every matched object is of the class: no expected disagreement",
    }
    assert set(none.attrs["notes"]) == {"(all)", "cat"}
    assert none.attrs["notes"]["(all)"].startswith("no matched pair of objects")
    assert iaf.confusion(same, n_chance=20).attrs["alpha_notes"] == one.attrs["notes"]


def test_label_alpha_has_no_note_where_alpha_is_a_number():
    df = iaf.simulate(n_items=12, annotators={"a": "good", "b": "mislabeler"}, seed=0)
    alpha = iaf.label_alpha(df, n_chance=20)
    assert alpha.notna().all() and alpha.attrs["notes"] == {}
