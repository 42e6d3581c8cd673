"""Hostile review, round 6: attribute values and names that reached raw errors.

* A column of numpy arrays (what ``pd.read_parquet`` gives for a list column) was read
  as nominal, and every call failed with ``TypeError: unhashable type: 'numpy.ndarray'``;
  it is "masi" like lists, with the same figures.
* ``levels="nominal"`` on a column of sets failed the same way (``'set'``).
* A dict, or a list inside a choice, was a raw ``TypeError``; it is a ``ParameterError``
  naming the attribute and the value.
* ``attributes=5`` (a column named by a number) was ``TypeError: 'int' object is not
  iterable``.
"""

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError

FAST = dict(n_boot=0, n_chance=100)
CHOICES = {"red": ["a", "b"], "blue": ["b"], "green": ["a"]}


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(
        n_items=15,
        seed=0,
        attributes={"color": ["red", "blue", "green"]},
        annotators={"a": "good", "b": {"preset": "good", "attribute_flip": 0.3}, "c": "good"},
    )


def _as(df, convert):
    return df.assign(color=df["color"].map(lambda c: convert(CHOICES[c]), na_action="ignore"))


def test_arrays_of_choices_are_masi_with_the_figures_of_lists(df):
    lists = iaf.attribute_agreement(_as(df, list), **FAST)
    arrays = iaf.attribute_agreement(_as(df, np.array), **FAST)
    assert str(arrays["level"].sel(attribute="color").item()) == "masi"
    np.testing.assert_array_equal(arrays["alpha"].values, lists["alpha"].values)
    assert 0.2 < float(lists["alpha"].sel(attribute="color", label="(all)", annotator="(all)"))


@pytest.mark.parametrize("convert", [set, np.array, tuple], ids=["set", "array", "tuple"])
def test_choices_at_the_nominal_level_are_compared_as_sets(df, convert):
    want = iaf.attribute_agreement(_as(df, frozenset), levels="nominal", **FAST)
    got = iaf.attribute_agreement(_as(df, convert), levels="nominal", **FAST)
    np.testing.assert_array_equal(got["alpha"].values, want["alpha"].values)


@pytest.mark.parametrize(
    "value, levels, shown",
    [
        (lambda c: {"colour": c}, None, r"holds \{'colour': '(red|blue|green)'\} \(dict\)"),
        (lambda c: [CHOICES[c]], "masi", r"holds \[\[.*\]\] \(list\)"),
        (lambda c: [{"c": c}], "nominal", r"\(list\)"),
    ],
    ids=["dict", "list-in-a-choice", "dict-in-a-list"],
)
def test_values_that_cannot_be_compared_are_a_parameter_error(df, value, levels, shown):
    bad = df.assign(color=df["color"].map(value, na_action="ignore"))
    with pytest.raises(ParameterError, match=r"attribute 'color' .*" + shown + ".*cannot be"):
        iaf.attribute_agreement(bad, levels=levels, **FAST)


def test_a_column_named_by_a_number_says_to_rename_it(df):
    numbered = df.rename(columns={"color": 5})
    with pytest.raises(ParameterError, match=r"strings; got \[5\].*rename.*\{5: '5'\}"):
        iaf.attribute_agreement(numbered, attributes=5, **FAST)
    with pytest.raises(ParameterError, match=r"strings; got \[5\]"):
        iaf.attribute_agreement(numbered, attributes=[5], **FAST)


@pytest.mark.parametrize(
    "names",
    [lambda: ("color",), lambda: np.array(["color"]), lambda: {"color": 0}.keys()],
    ids=["tuple", "array", "dict-keys"],
)
def test_any_collection_of_names_still_names_the_attributes(df, names):
    got = iaf.attribute_agreement(df, attributes=names(), **FAST)
    assert list(got["attribute"].values) == ["color"]
