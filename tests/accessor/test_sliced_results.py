"""Hostile review, round 6: the views of ``res.iaa`` on a result sliced by the user.

``res.sel(label="car")`` drops the ``label`` dimension (a scalar coordinate remains), and
``res.sel(annotator=["A", "B"])`` drops the pooled ``"(all)"`` cell; ``headline()``,
``by_label()``, ``by_annotator()``, ``table()`` and ``reading()`` then failed inside
xarray (``ValueError: Could not automatically create PandasIndex``, ``TypeError: iteration
over a 0-d array``, ``KeyError: not all values found in index``). They are
``ParameterError``\\ s that say how to keep what the view reads; the slices that work
(``sigma()``, ``pairwise()``, ``by_label()`` without the pooled class) still work.
``reading(max_labels=nan)`` was a ``TypeError`` from the report's formatting.
"""

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError


@pytest.fixture(scope="module")
def res():
    df = iaf.simulate(n_items=10, seed=4, annotators={"A": "good", "B": "sloppy", "C": "good"})
    return iaf.agreement(df, n_boot=0, n_chance=100)


VIEWS = {
    "headline": lambda r: r.iaa.headline(),
    "by_label": lambda r: r.iaa.by_label(),
    "by_annotator": lambda r: r.iaa.by_annotator(),
    "table": lambda r: r.iaa.table(),
    "reading": lambda r: r.iaa.reading(),
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dim, one", [("label", "car"), ("annotator", "A")])
def test_a_dimension_selected_away_says_to_keep_it_with_a_list(res, view, dim, one):
    with pytest.raises(ParameterError) as err:
        VIEWS[view](res.sel({dim: one}))
    msg = str(err.value)
    assert f"needs the result's '{dim}' dimension" in msg
    assert f"res.sel({dim}=['(all)', '{one}'])" in msg


def test_a_component_selected_away_is_named_not_called_another_dataset(res):
    one = res.sel(component="detection")
    for call in (lambda r: r.iaa.headline(), lambda r: r.iaa.sigma()):
        with pytest.raises(ParameterError, match=r"res.sel\(component=\['detection'\]\)"):
            call(one)


@pytest.mark.parametrize(
    "view, dim",
    [
        ("headline", "annotator"),
        ("by_label", "annotator"),
        ("table", "annotator"),
        ("reading", "annotator"),
        ("headline", "label"),
        ("by_annotator", "label"),
        ("reading", "label"),
    ],
)
def test_a_view_without_its_pooled_cell_says_which(res, view, dim):
    others = [v for v in res[dim].values if v != "(all)"]
    with pytest.raises(ParameterError, match=rf"reads the '\(all\)' {dim} .* no longer holds"):
        VIEWS[view](res.sel({dim: others}))


def test_the_slices_that_worked_still_work(res):
    np.testing.assert_array_equal(
        res.sel(label="car").iaa.sigma().values, res.iaa.sigma().sel(label="car").values
    )
    assert list(res.sel(label=["car", "person"]).iaa.by_label().index) == ["car", "person"]
    assert list(res.sel(annotator=["A", "B"]).iaa.by_annotator().index) == ["A", "B"]
    assert res.sel(annotator=["(all)", "A"]).iaa.headline().shape[0] > 0


@pytest.mark.parametrize("bad", [np.nan, -1, 2.5])
def test_reading_max_labels_must_be_a_count(res, bad):
    with pytest.raises(ParameterError, match="max_labels must be an integer >= 0"):
        res.iaa.reading(max_labels=bad)


@pytest.mark.parametrize("by", ["nope", None, ["label"]])
def test_a_bad_table_view_is_still_named(res, by):
    with pytest.raises(ParameterError, match="by must be one of"):
        res.iaa.table(by=by)


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.iaa.items(label=["car"]),
        lambda r: r.iaa.items(component=["localization"]),
        lambda r: r.iaa.items(sort=["excess"]),
        lambda r: r.iaa.pairwise(component=["detection"]),
    ],
)
def test_a_list_where_a_name_goes_is_the_views_own_parameter_error(call):
    """Hostile review, round 6 (second wave): the memo's key was built before the view's
    checks ran, so a list gave Python's "unhashable type: 'list'"."""
    res = iaf.agreement(iaf.simulate(n_items=6, seed=0), n_chance=50, n_boot=20)
    with pytest.raises(ParameterError, match=r"must be .*got \["):
        call(res)


def test_reading_of_a_result_without_every_component_says_so():
    res = iaf.agreement(iaf.simulate(n_items=6, seed=0), n_chance=50, n_boot=0)
    with pytest.raises(ParameterError, match="reads the four components together"):
        res.isel(component=[0]).iaa.reading()
    assert res.iaa.reading()  # the whole result still reads
