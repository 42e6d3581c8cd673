"""Tests for :mod:`iaa_frames.settings.validation`: one check per parameter at the public
boundary, with the parameter's name and what was expected; nothing checked again below."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, settings_of
from iaa_frames.settings.validation import (
    ENGINE_CONSTRAINTS,
    Integer,
    OneOf,
    Progress,
    below_boundary,
    validate_params,
)


@validate_params({"top": Integer(1, none=True), "kind": OneOf(("hist", "kde"))})
def view(data, *, top=None, kind="hist", n_chance=DEFAULTS.n_chance, **kwargs):
    """A view."""
    return data, top, kind, n_chance, kwargs, below_boundary()


def test_the_signature_and_the_docstring_are_the_function_s():
    assert list(inspect.signature(view).parameters) == ["data", "top", "kind", "n_chance", "kwargs"]
    assert view.__doc__ == "A view." and view.__name__ == "view"
    assert set(view.constraints) == {"top", "kind", "n_chance"}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"top": 0}, "top must be None or an integer >= 1; got 0"),
        ({"top": True}, "top must be None or an integer >= 1; got True"),
        ({"kind": "violin"}, r"kind must be one of \('hist', 'kde'\); got 'violin'"),
        ({"n_chance": 2.0}, "n_chance must be an integer >= 1; got 2.0"),
        # an engine parameter through **kwargs is checked too
        ({"seed": -1}, "seed must be an integer >= 0; got -1"),
        ({"overall": "mean"}, r"overall must be one of \('pooled', 'per_direction'\)"),
        ({"match_threshold": 1.5}, r"match_threshold must be a number in \[0, 1\]"),
        ({"progress": "yes"}, "progress must be None, True or False; got 'yes'"),
    ],
)
def test_a_bad_value_names_the_parameter_and_what_was_expected(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        view(None, **kwargs)


def test_good_values_pass_unchanged_and_below_nothing_is_checked_again():
    data, top, kind, n_chance, kwargs, inside = view("x", top=np.int64(2), seed=3)
    assert (data, kind, n_chance, kwargs) == ("x", "hist", DEFAULTS.n_chance, {"seed": 3})
    assert type(top) is np.int64  # validation does not convert
    assert inside and not below_boundary()


def test_a_call_through_nested_entry_points_checks_each_parameter_once(monkeypatch):
    """df.iaa.sigma -> iaf.sigma -> the memo -> pair tables -> agreement_from_tables: the
    constraint of ``progress`` is asked once."""
    checked = []

    class Counting(Progress):
        def check(self, name, value):
            checked.append(value)
            return super().check(name, value)

    monkeypatch.setitem(ENGINE_CONSTRAINTS, "progress", Counting())
    df = iaf.simulate(n_items=6, seed=0)
    df.iaa.sigma(n_chance=30, n_boot=0, progress=False)
    iaf.agreement(df, n_chance=30, n_boot=0, progress=False, match_threshold=[0.3, 0.5])
    assert checked == [False, False]


def test_an_unknown_name_in_the_declaration_is_an_error():
    with pytest.raises(TypeError, match="has no parameters"):
        validate_params({"topp": Integer(1)})(view.__wrapped__)


def test_the_settings_of_a_boundary_equal_the_checked_settings():
    params = {"match_threshold": [0.7, 0.3], "n_chance": np.int64(50), "seed": 2}
    assert settings_of(params) == MatchSettings(**params)
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_chanse'"):
        settings_of({"n_chanse": 1}, strict=True)


def test_a_mistyped_keyword_names_the_function_and_the_nearest_keyword():
    """issue #42: "got an unexpected keyword argument 'componet'" named no function and no
    fix; following the suggestion works."""
    import iaa_frames as iaf

    df = iaf.simulate(n_items=6, seed=0)
    with pytest.raises(TypeError, match=r"agreement\(\) .*'n_chanse'; did you mean 'n_chance'\?"):
        iaf.agreement(df, n_chanse=50, n_boot=0)
    with pytest.raises(TypeError, match=r"sigma\(\) .*'componet'; did you mean 'component'\?"):
        iaf.sigma(df, componet="detection", n_chance=50)
    assert iaf.sigma(df, component="detection", n_chance=50).ndim >= 0
    with pytest.raises(TypeError, match=r"'zzz'; it takes df, "):
        iaf.agreement(df, zzz=1)


@pytest.mark.parametrize(("keyword", "bound"), [("n_boot", "100,000"), ("n_chance", "10,000,000")])
def test_parameters_that_size_memory_are_bounded_at_every_entry_point(keyword, bound, capsys):
    """#41 B7: n_boot=1e12 was a MemoryError traceback from the API (the CLI had a
    ceiling); now every entry point refuses it before allocating, the CLI with the same
    bound."""
    from iaa_frames.cli.parser import build_parser
    from iaa_frames.settings.validation import MAX_N_BOOT, MAX_N_CHANCE

    df = iaf.simulate(n_items=3, seed=0)
    huge = {"n_boot": MAX_N_BOOT, "n_chance": MAX_N_CHANCE}[keyword] + 1
    for call in (
        lambda: iaf.agreement(df, **{keyword: huge}),
        lambda: df.iaa.agreement(**{keyword: huge}),
        lambda: iaf.attribute_agreement(df, attributes="label", **{keyword: huge}),
    ):
        with pytest.raises(ParameterError, match=f"{keyword} must be at most {bound}"):
            call()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["report", "x.json", f"--{keyword.replace('_', '-')}", str(huge)])
    assert f"{huge}" in capsys.readouterr().err
