"""Tests for the ``DataFrame.iaa`` accessor (:mod:`iaa_frames.accessor`): every method takes
the parameters and defaults of the plain function it stands for and returns what that
function returns on fresh tables, whatever path filled the cache (a sweep, another
method); parameters are keyword-only and checked uniformly; the accessor is cheap and
stateless. ``res.iaa``: tests/accessor/test_result.py."""

from __future__ import annotations

import functools
import inspect

import golden_corpora
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from helpers import TABLES
from oracles import component_alpha, component_ks, component_sigma

from iaa_frames.accessor import IAAAccessor
from iaa_frames.api import shortcuts
from iaa_frames.core.engine import agreement, agreement_from_tables, pairwise, rater_kind_agreement
from iaa_frames.core.tables.pairs import between, pair_tables, within
from iaa_frames.decisions.consensus import consensus
from iaa_frames.decisions.next_items import next_items
from iaa_frames.decisions.plan import plan
from iaa_frames.errors import ParameterError
from iaa_frames.explore.conflicts import conflict_counts, conflicts
from iaa_frames.explore.confusion import confusion
from iaa_frames.explore.item_agreement import item_agreement
from iaa_frames.explore.items import items
from iaa_frames.measures.attributes import attribute_agreement
from iaa_frames.measures.kalpha import kalpha
from iaa_frames.measures.ranking import annotator_quality
from iaa_frames.measures.reference import accuracy
from iaa_frames.simulate import simulate
from iaa_frames.temporal import agreement_over_time, intra_agreement, track_agreement

PARAMS = dict(n_chance=150, seed=3)


@pytest.fixture(scope="module")
def df():
    return simulate(
        n_items=25, annotators={"ann": "good", "bob": "sloppy", "cyd": "mislabeler"}, seed=8
    )


def _untagged(ds):
    """The accessor's result names its cached tables in attr ``tables_key``; otherwise it
    is the plain function's result."""
    ds = ds.copy()
    assert isinstance(ds.attrs.pop("tables_key"), str)
    return ds


def test_agreement_equals_function(df):
    xr.testing.assert_identical(
        _untagged(df.iaa.agreement(n_boot=10, **PARAMS)), agreement(df, n_boot=10, **PARAMS)
    )


@pytest.mark.parametrize(
    "method, function, kwargs",
    [
        ("sigma", component_sigma, {}),
        ("sigma", component_sigma, {"component": "detection"}),
        ("ks", component_ks, {}),
        ("alpha", component_alpha, {}),
        ("alpha", component_alpha, {"component": "detection"}),
        ("pairwise", pairwise, {"component": "classification"}),
    ],
)
def test_dataarray_methods_equal_functions(df, method, function, kwargs):
    got = getattr(df.iaa, method)(**kwargs, **PARAMS)
    xr.testing.assert_identical(got, function(df, **kwargs, **PARAMS))


def test_shortcuts_are_slices_of_the_dataset(df):
    ds = df.iaa.agreement(**PARAMS)
    loc = ds.sel(component="localization")
    s = df.iaa.sigma(**PARAMS)
    assert s.dims == ("label", "annotator")
    np.testing.assert_array_equal(s.values, loc["agreement"].values)
    np.testing.assert_array_equal(s["note"].values, loc["note"].values)
    np.testing.assert_array_equal(df.iaa.ks(**PARAMS).values, loc["ks"].values)
    a = df.iaa.alpha(**PARAMS)
    np.testing.assert_array_equal(a.values, ds["agreement"].sel(component="classification").values)
    p = df.iaa.alpha(component="detection", **PARAMS)
    np.testing.assert_array_equal(p.values, ds["presence_alpha"].sel(component="detection").values)


@pytest.mark.parametrize(
    "method, function",
    [
        ("within", within),
        ("between", between),
    ],
)
def test_table_methods_equal_functions(df, method, function):
    pd.testing.assert_frame_equal(getattr(df.iaa, method)(**PARAMS), function(df, **PARAMS))


def test_items_and_plot_are_reachable(df):
    from iaa_frames.plot import FramePlots

    pd.testing.assert_frame_equal(
        df.iaa.items(component="detection", top=3, **PARAMS),
        items(df, component="detection", top=3, **PARAMS),
    )
    pd.testing.assert_frame_equal(
        df.iaa.items(label="car", **PARAMS), items(df, label="car", **PARAMS)
    )
    plot = df.iaa.plot
    assert isinstance(plot, FramePlots) and plot._df is df


def test_tables_equal_pair_tables(df):
    got, ref = df.iaa.tables(**PARAMS), pair_tables(df, **PARAMS)
    assert got.params == ref.params
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(got, name), getattr(ref, name))
    xr.testing.assert_identical(
        agreement_from_tables(got, seed=3), _untagged(df.iaa.agreement(**PARAMS))
    )


def test_accessor_is_cheap_and_stateless(df):
    bad = pd.DataFrame({"nothing": [1, 2]})
    acc = bad.iaa  # no validation, no work until a method runs
    assert isinstance(acc, IAAAccessor)
    assert vars(acc).keys() == {"_df"}
    assert df.iaa is not df.iaa  # pandas 3 does not cache accessors
    assert "agreement()" in repr(df.iaa) and "<table>" in df.iaa._repr_html_()


def test_parameters_are_keyword_only():
    for name, member in inspect.getmembers(IAAAccessor, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = list(inspect.signature(member).parameters.values())[1:]
        assert all(p.kind is p.KEYWORD_ONLY for p in params), name
    with pytest.raises(TypeError):
        simulate(n_items=2, seed=0).iaa.agreement("giou")


#: method -> (the function it stands for, the function that function passes **kwargs to)
WRAPS = {
    "agreement": (agreement, None),
    "sigma": (shortcuts.sigma, None),
    "ks": (shortcuts.ks, None),
    "alpha": (shortcuts.alpha, None),
    "pairwise": (pairwise, None),
    "items": (items, None),
    "tables": (pair_tables, None),
    "within": (within, pair_tables),
    "between": (between, pair_tables),
    "conflicts": (conflicts, None),
    "conflict_counts": (conflict_counts, conflicts),
    "confusion": (confusion, pair_tables),
    "item_agreement": (item_agreement, pair_tables),
    "accuracy": (accuracy, None),
    "annotator_quality": (annotator_quality, None),
    "kalpha": (kalpha, None),
    "attribute_agreement": (attribute_agreement, None),
    "rater_kind_agreement": (rater_kind_agreement, None),
    "consensus": (consensus, None),
    "plan": (plan, None),
    "next_items": (next_items, None),
    "track_agreement": (track_agreement, None),
    "agreement_over_time": (agreement_over_time, None),
    "intra_agreement": (intra_agreement, None),
}


def _keywords(function, forwarded=None) -> dict:
    """name -> default of the parameters after the data; ``**kwargs`` stands for the
    parameters of the function it is passed to."""
    params = list(inspect.signature(function).parameters.values())[1:]
    out = {p.name: p.default for p in params if p.kind is not p.VAR_KEYWORD}
    if any(p.kind is p.VAR_KEYWORD for p in params):
        assert forwarded is not None, f"{function.__name__} passes **kwargs on"
        for name, default in _keywords(forwarded).items():
            out.setdefault(name, default)
    return out


def test_every_method_says_which_function_it_stands_for():
    public = {
        name
        for name, _ in inspect.getmembers(IAAAccessor, inspect.isfunction)
        if not name.startswith("_")
    }
    assert public == set(WRAPS)


@pytest.mark.parametrize("method", sorted(WRAPS))
def test_methods_take_the_parameters_and_defaults_of_their_function(method):
    function, forwarded = WRAPS[method]
    mine = _keywords(getattr(IAAAccessor, method))
    theirs = _keywords(function, forwarded)
    assert mine.keys() == theirs.keys(), method
    differ = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
    assert differ == {}, method


#: method, the plain function computing from fresh tables, keywords
FROM_TABLES = [
    ("agreement", agreement, {"n_boot": 10}),
    ("sigma", component_sigma, {"component": "overall", "n_boot": 10}),
    ("ks", component_ks, {"component": "detection"}),
    ("alpha", component_alpha, {}),
    ("pairwise", pairwise, {"component": "classification", "label": "car"}),
    (
        "rater_kind_agreement",
        rater_kind_agreement,
        {"kinds": {"ann": "human", "bob": "human", "cyd": "machine"}, "n_boot": 20},
    ),
    ("items", items, {"component": "detection", "top": 4}),
    ("within", within, {}),
    ("between", between, {}),
    ("conflicts", conflicts, {"reference": "ann", "low_overlap": 0.9}),
    ("conflict_counts", conflict_counts, {}),
    ("confusion", confusion, {"reference": "ann", "normalize": True}),
    ("accuracy", accuracy, {"reference": "bob", "n_boot": 20}),
    ("item_agreement", item_agreement, {"low_overlap": None}),
]


def _assert_same(got, want):
    if isinstance(got, xr.Dataset):  # agreement names its cached tables, accuracy not
        xr.testing.assert_identical(_untagged(got) if "tables_key" in got.attrs else got, want)
    elif isinstance(got, xr.DataArray):
        xr.testing.assert_identical(got, want)
    else:
        pd.testing.assert_frame_equal(got, want)
        assert got.attrs == want.attrs


@pytest.mark.parametrize(
    "method, function, kwargs", FROM_TABLES, ids=[case[0] for case in FROM_TABLES]
)
def test_results_from_tables_a_sweep_cached_equal_fresh_ones(
    df, counted_sweeps, method, function, kwargs
):
    """The cache is filled by a sweep (pair_tables_by_threshold); the method then reads
    τ = 0.5 from it and must return what the function computes from fresh tables."""
    df.iaa.agreement(match_threshold=[0.5, 0.3], n_boot=0, **PARAMS)
    assert sorted(counted_sweeps) == [0.3, 0.5]
    got = getattr(df.iaa, method)(**kwargs, **PARAMS)
    assert sorted(counted_sweeps) == [0.3, 0.5], "the tables were computed again"
    _assert_same(got, function(df, **kwargs, **PARAMS))


#: methods that need columns the generic corpus lacks (a sequence, a time, a pass) or
#: compute more than the cached tables: tests/temporal and tests/decisions check them
_SPECIAL = (
    "annotator_quality",
    "kalpha",
    "consensus",
    "plan",
    "next_items",
    "track_agreement",
    "agreement_over_time",
    "intra_agreement",
)


@pytest.mark.parametrize("method", [m for m in sorted(WRAPS) if m not in _SPECIAL])
def test_parameters_are_checked_once_per_call_on_a_cache_hit(df, method, monkeypatch):
    """The boundary checks each parameter once (the declared constraint of ``progress``
    is asked once), however many layers the call goes through."""
    from iaa_frames.settings.validation import ENGINE_CONSTRAINTS, Progress

    kwargs = {
        "accuracy": {"reference": "ann"},
        "attribute_agreement": {"attributes": "truth_id"},
        "rater_kind_agreement": {"kinds": {"ann": "human", "bob": "human", "cyd": "machine"}},
    }.get(method, {})
    getattr(df.iaa, method)(**kwargs, **PARAMS)  # fills the cache
    checked = []

    class Counting(Progress):
        def check(self, name, value):
            checked.append(value)
            return super().check(name, value)

    monkeypatch.setitem(ENGINE_CONSTRAINTS, "progress", Counting())
    getattr(df.iaa, method)(progress=False, **kwargs, **PARAMS)
    assert checked == [False]
    with pytest.raises(ParameterError, match="progress must be None, True or False"):
        getattr(df.iaa, method)(progress="yes", **kwargs, **PARAMS)


@functools.cache
def _golden_cases():
    return golden_corpora.cases()


@pytest.mark.parametrize("name", ["boxes_sampled", "sample_coco"])
def test_the_accessor_gives_the_golden_results(name, counted_sweeps):
    """Through the cache, after a sweep computed the tables, the result still equals the
    stored golden result (tests/test_golden.py computes it with iaf.agreement)."""
    frame, kwargs = _golden_cases()[name]
    frame.iaa.agreement(match_threshold=[0.5, 0.7], n_boot=0, seed=0, progress=False, **kwargs)
    got = frame.iaa.agreement(n_boot=golden_corpora.N_BOOT, seed=0, progress=False, **kwargs)
    assert sorted(counted_sweeps) == [0.5, 0.7]
    want = xr.load_dataset(golden_corpora.GOLDEN / f"{name}.nc")
    for var in want.data_vars:
        a, b = got[var].values, want[var].values
        if b.dtype.kind in "OUS":
            assert a.astype(str).tolist() == b.astype(str).tolist(), var
        else:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=var)


@pytest.mark.parametrize(
    "method, kwargs, message",
    [
        ("agreement", {"n_boot": -2}, "n_boot must be an integer >= 0; got -2"),
        ("sigma", {"progress": 1}, "progress must be None, True or False; got 1"),
        ("sigma", {"component": "classification"}, "component must be one of"),
        ("ks", {"match_threshold": -0.1}, "match_threshold must be a number in"),
        ("alpha", {"component": "localization"}, "component must be one of"),
        ("pairwise", {"component": "everything"}, "component must be one of"),
        ("pairwise", {"label": "unicorn"}, "label must be"),
        ("within", {"n_chance": 0}, "n_chance must be an integer >= 1"),
        ("between", {"overall": "max"}, "overall must be one of"),
        ("tables", {"seed": 1.5}, "seed must be an integer >= 0"),
    ],
)
def test_bad_values_raise_uniform_parameter_errors(method, kwargs, message):
    df = simulate(n_items=4, seed=0)
    with pytest.raises(ParameterError, match=message):
        getattr(df.iaa, method)(**kwargs)


# ------------------------------------------------------------- compute once, explore


class _Misses:
    """The pair tables the memo computed: ``len()`` counts its misses."""

    def __len__(self):
        from iaa_frames.core.engine import memo as cache

        return cache.info()["misses"]


@pytest.fixture
def counted():
    """How many times the pair tables (the expensive part) were computed through the
    memo: its miss count (a behaviour, not a patched import site)."""
    from iaa_frames.core.engine import memo as cache

    cache.clear()
    yield _Misses()
    cache.clear()


def test_tables_are_computed_once_per_frame_and_parameters(df, counted):
    res = df.iaa.agreement(**PARAMS)
    assert len(counted) == 1
    df.iaa.sigma(**PARAMS), df.iaa.ks(component="detection", **PARAMS)
    df.iaa.alpha(**PARAMS), df.iaa.pairwise(**PARAMS), df.iaa.items(label="car", **PARAMS)
    df.iaa.within(**PARAMS), df.iaa.tables(**PARAMS)
    df.copy().iaa.sigma(**PARAMS)  # same content, another object
    res.iaa.pairwise(component="classification"), res.iaa.items()
    assert len(counted) == 1
    df.iaa.sigma(n_chance=151, seed=3)  # other parameters: new tables
    assert len(counted) == 2
    edited = df.copy()
    edited.loc[edited.index[0], "x0"] = edited["x0"].iloc[0] + 1.0  # other content
    edited.iaa.sigma(**PARAMS)
    assert len(counted) == 3


def test_default_intervals_are_numbers(df):
    res = df.iaa.agreement(n_chance=150, seed=3)
    assert res.attrs["n_boot"] == 200
    ci = res["ci_low"].sel(component="localization", label="(all)", annotator="(all)")
    assert np.isfinite(float(ci))


def test_public_names_stay_where_they_were():
    import iaa_frames as iaf
    from iaa_frames import accessor as acc
    from iaa_frames.api import shortcuts

    for name in ("sigma", "ks", "alpha"):
        assert getattr(iaf, name) is getattr(shortcuts, name) is getattr(acc, name)
    assert type(pd.DataFrame().iaa) is acc.IAAAccessor
    assert type(xr.Dataset().iaa) is acc.ResultAccessor


@pytest.mark.parametrize("cls", ["IAAAccessor", "ResultAccessor", "FramePlots", "ResultPlots"])
def test_signatures_are_explicit(cls):
    from iaa_frames import accessor as acc
    from iaa_frames import plot

    klass = getattr(acc, cls, None) or getattr(plot, cls)
    for name, member in inspect.getmembers(klass, inspect.isfunction):
        if name.startswith("_"):
            continue
        kinds = {p.kind for p in inspect.signature(member).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{cls}.{name} takes **kwargs"
        assert inspect.Parameter.VAR_POSITIONAL not in kinds, f"{cls}.{name} takes *args"


# ------------------------------------------------------------------ threshold sweeps


class _Computed:
    """The thresholds whose pair tables the memo computed, sorted: those of its entries,
    and a NaN for each other miss (tables computed again after leaving the cache)."""

    def __iter__(self):
        from iaa_frames.core.engine import memo as cache

        taus = sorted(float(e.tables.params["match_threshold"]) for e in cache.cached())
        return iter(taus + [float("nan")] * (cache.info()["misses"] - len(taus)))


@pytest.fixture
def counted_sweeps():
    """Count the thresholds computed through the cache (single and swept), from the
    memo's entries and misses."""
    from iaa_frames.core.engine import memo as cache

    cache.clear()
    yield _Computed()
    cache.clear()


def test_sweep_equals_function_and_caches_each_threshold(df, counted_sweeps):
    taus = [0.3, 0.5, 0.7]
    res = df.iaa.agreement(match_threshold=[0.7, 0.3, 0.5], n_boot=10, **PARAMS)
    assert sorted(counted_sweeps) == taus  # each threshold computed once
    assert len(res.attrs["tables_key"].split()) == 3
    plain = agreement(df, match_threshold=taus, n_boot=10, **PARAMS)
    xr.testing.assert_identical(_untagged(res), plain)
    # every threshold's tables are cached as if computed alone
    for tau in taus:
        one = df.iaa.agreement(match_threshold=tau, n_boot=10, **PARAMS)
        xr.testing.assert_identical(res.sel(threshold=tau).drop_attrs(), one.drop_attrs())
    assert sorted(counted_sweeps) == taus
    # a later sweep computes only the thresholds it lacks
    df.iaa.agreement(match_threshold=[0.5, 0.6], n_boot=0, **PARAMS)
    assert sorted(counted_sweeps) == [0.3, 0.5, 0.6, 0.7]


def test_sweep_of_shortcuts_and_pairwise(df):
    taus = [0.4, 0.6]
    for method in ("sigma", "ks", "alpha"):
        da = getattr(df.iaa, method)(match_threshold=taus, **PARAMS)
        assert da.dims == ("threshold", "label", "annotator")
        one = getattr(df.iaa, method)(match_threshold=0.6, **PARAMS)
        xr.testing.assert_identical(da.sel(threshold=0.6).drop_attrs(), one.drop_attrs())
    pw = df.iaa.pairwise(match_threshold=taus, **PARAMS)
    xr.testing.assert_identical(pw, pairwise(df, match_threshold=taus, **PARAMS))


@pytest.mark.parametrize("method", ["agreement", "sigma", "ks", "alpha", "pairwise"])
def test_sweep_values_are_checked(df, method):
    with pytest.raises(ParameterError, match="match_threshold"):
        getattr(df.iaa, method)(match_threshold=[0.5, 1.5], **PARAMS)
    with pytest.raises(ParameterError, match="empty"):
        getattr(df.iaa, method)(match_threshold=[], **PARAMS)


@pytest.mark.parametrize("method", ["tables", "within", "between", "items"])
def test_table_methods_take_one_threshold(df, method):
    with pytest.raises(ParameterError, match="several thresholds are accepted"):
        getattr(df.iaa, method)(match_threshold=[0.3, 0.5], **PARAMS)


def test_the_repr_lists_every_public_method(df):
    from iaa_frames.accessor.frame import IAAAccessor

    public = {n for n in dir(IAAAccessor) if not n.startswith("_")}
    lines = repr(df.iaa).splitlines()[1:]
    assert {line.split()[0].lstrip(".").split("(")[0] for line in lines} == public
