"""Tests for iaa_frames.explore.views: the tables of a result hold the Dataset's own numbers, in the
order every figure and table uses (classes by support), and the argument checks say what
is wrong. Exact checks on hand-built results (tests/support/results.py), then the real engine."""

from __future__ import annotations

import numpy as np
import pytest
from results import make_result

from iaa_frames.core.engine import agreement_from_tables
from iaa_frames.core.engine.result import COMPONENTS, MEASURES
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.views import (
    by_annotator,
    by_label,
    cell_value,
    check_choice,
    check_dataset,
    check_top,
    component_frame,
    headline,
    label_order,
    measure_of,
    support,
    symbol,
    top_by_support,
)
from iaa_frames.frame.schema import ALL
from iaa_frames.simulate import simulate


@pytest.fixture(scope="module")
def engine_result():
    df = simulate(n_items=15, seed=3, annotators={"a": "good", "b": "sloppy", "c": "misser"})
    tables = pair_tables(df, n_chance=200, seed=0)
    return tables, agreement_from_tables(tables, n_boot=0)


def test_tables_of_a_result():
    ds = make_result()
    assert headline(ds).index.tolist() == ["detection", "classification", "localization", "overall"]
    lab = by_label(ds)
    assert lab.index.tolist() == [ALL, "bicycle", "car", "person"]  # natural order
    assert str(lab["localization_n_units"].dtype) == "Int64"  # counts are integers
    assert lab.loc["car", "overall_agreement"] == float(
        ds["agreement"].sel(component="overall", label="car", annotator=ALL)
    )
    assert by_annotator(ds).index.tolist() == [ALL, "ana", "ben", "chloe"]


def test_headline_and_wide_tables_hold_every_cell():
    ds = make_result()
    head = headline(ds)
    assert head.columns[0] == "measure"
    assert head["measure"].tolist() == [MEASURES[c] for c in COMPONENTS]
    for var in ("agreement", "ci_low", "n_units", "note", "presence_alpha"):
        np.testing.assert_array_equal(
            head[var].to_numpy(), ds[var].sel(label=ALL, annotator=ALL).values
        )
    wide = by_annotator(ds)
    for comp in COMPONENTS:
        for var in ("agreement", "ci_high", "n_units"):
            np.testing.assert_array_equal(
                wide[f"{comp}_{var}"].to_numpy(), ds[var].sel(component=comp, label=ALL).values
            )
    # the undefined cell keeps its note
    assert by_label(ds).loc["bicycle", "classification_note"] == str(
        ds["note"].sel(component="classification", label="bicycle", annotator=ALL).values
    )


def test_headline_of_one_threshold_of_a_sweep_has_no_threshold_column():
    ds = make_result().expand_dims(threshold=[0.4, 0.6])
    head = headline(ds.sel(threshold=0.6))
    assert "threshold" not in head.columns and len(head) == 4


def test_support_and_top_by_support():
    ds = make_result(labels=("car", "person", "bicycle", "dog"))
    s = support(ds, "label")
    np.testing.assert_array_equal(
        s.values, ds["n_units"].sel(component="localization", annotator=ALL).values
    )
    assert top_by_support(ds, "label", None) == ([ALL, "car", "person", "bicycle", "dog"], 0)
    assert top_by_support(ds, "label", 2) == ([ALL, "car", "person"], 2)
    assert top_by_support(ds, "label", 2, keep_all=False) == (["car", "person"], 2)
    # without localization: the largest n_units over the components
    no_loc = ds.sel(component=["detection", "overall"])
    np.testing.assert_array_equal(
        support(no_loc, "annotator").values,
        no_loc["n_units"].sel(label=ALL).max("component").values,
    )
    # ties by name
    tied = ds.copy(deep=True)
    tied["n_units"][:] = 7.0
    assert top_by_support(tied, "label", None)[0] == [ALL, "bicycle", "car", "dog", "person"]


def test_label_order_is_the_same_from_the_result_and_the_tables(engine_result):
    tables, res = engine_result
    order = label_order(res)
    assert order == label_order(tables)
    assert order[0] == ALL and sorted(order) == sorted(str(v) for v in res["label"].values)


def test_component_frame_values_order_and_attrs():
    ds = make_result(labels=("car", "person", "bicycle"))
    # rows by ben's support (localization pairs involving ben): person, car, bicycle
    ds["n_units"].loc[dict(component="localization", annotator="ben")] = [90, 20, 30, 10]
    f = component_frame(
        ds,
        components=["localization", "detection"],
        along="label",
        fixed_dim="annotator",
        fixed="ben",
        top=2,
    )
    assert f["label"].tolist() == [ALL, ALL, "person", "person", "car", "car"]
    assert f["component"].tolist() == ["localization", "detection"] * 3
    assert f.attrs == {"n_hidden": 1, "top": 2, "annotator": "ben"}
    for row in f.itertuples(index=False):
        cell = ds.sel(component=row.component, label=row.label, annotator="ben")
        assert row.agreement == float(cell["agreement"])
        assert row.ci_low == float(cell["ci_low"])
        assert row.measure == MEASURES[row.component]
    with pytest.raises(ParameterError, match="unknown component"):
        component_frame(
            ds, components=["precision"], along="label", fixed_dim="annotator", fixed=ALL, top=None
        )
    with pytest.raises(ParameterError, match="unknown annotator 'zoe'"):
        component_frame(
            ds, components="detection", along="label", fixed_dim="annotator", fixed="zoe", top=None
        )


def test_measure_symbol_and_cell_value():
    ds = make_result()
    bare = ds.drop_vars("measure")  # a result without the coord: the one fallback
    for comp in COMPONENTS:
        assert measure_of(ds, comp) == measure_of(bare, comp) == MEASURES[comp]
    assert symbol(measure_of(ds, "classification")) == "α"
    assert symbol("sigma") == "σ"
    assert cell_value(ds, "overall", "car", "ana") == float(
        ds["agreement"].sel(component="overall", label="car", annotator="ana")
    )
    assert np.isnan(cell_value(ds, "overall", var="no_such_variable"))
    assert np.isnan(cell_value(ds.sel(component=["detection"]), "overall"))


def test_argument_checks():
    assert check_top(None) is None and check_top(np.int64(3)) == 3
    for bad in (0, -1, True, 2.5, "3"):
        with pytest.raises(ParameterError, match="top must be a positive integer"):
            check_top(bad)
    with pytest.raises(ParameterError, match=r"kind must be one of \('hist', 'kde'\)"):
        check_choice("kind", "violin", ("hist", "kde"))
    ds = make_result()
    assert check_dataset(ds) is ds
    with pytest.raises(ParameterError, match="xarray.Dataset"):
        check_dataset(ds["agreement"])
    with pytest.raises(ParameterError, match=r"lacks the variable\(s\) \['raw'\]"):
        check_dataset(ds, ("agreement", "raw"))
    sweep = ds.expand_dims(threshold=[0.3, 0.45, 0.7])
    with pytest.raises(ParameterError, match=r"result\.sel\(threshold=0\.45\)"):
        check_dataset(sweep)
    assert check_dataset(sweep, sweep=True) is sweep
