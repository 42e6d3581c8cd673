"""The public signatures are written out: the engine keywords with the defaults of
``settings.parameters.DEFAULTS`` in every ``def``, seen by ``inspect``, by static tools
(jedi) and checked once per call."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import jedi
import pytest

import iaa_frames as iaf
from iaa_frames.accessor.frame import IAAAccessor
from iaa_frames.accessor.result import ResultAccessor
from iaa_frames.errors import ParameterError
from iaa_frames.plot.accessor import FramePlots, ResultPlots
from iaa_frames.settings.parameters import DEFAULTS, ENGINE
from iaa_frames.settings.thresholds import DEFAULT_SWEEP

PACKAGE = Path(iaf.__file__).parent


def _public_functions():
    for name in sorted(iaf.__all__):
        obj = getattr(iaf, name, None)
        if inspect.isfunction(obj):
            yield name, obj
    for klass in (IAAAccessor, ResultAccessor, FramePlots, ResultPlots):
        for name, member in inspect.getmembers(klass, inspect.isfunction):
            if not name.startswith("_"):
                yield f"{klass.__name__}.{name}", member
    for name in ("agreement", "pair_tables"):  # iaf.dask.*
        yield f"dask.{name}", getattr(iaf.dask, name)


PUBLIC = dict(_public_functions())
WITH_ENGINE = {
    name: f for name, f in PUBLIC.items() if set(inspect.signature(f).parameters) & set(ENGINE)
}


def test_many_entry_points_take_engine_keywords():
    assert len(WITH_ENGINE) > 60
    assert {"agreement", "sigma", "conflicts", "IAAAccessor.sigma", "FramePlots.forest"} <= set(
        WITH_ENGINE
    )


#: (function, keyword) -> its other default, and why
OTHER_DEFAULTS = {
    ("FramePlots.threshold_curve", "match_threshold"): DEFAULT_SWEEP,  # a τ sweep
    ("ResultAccessor.pairwise", "seed"): None,  # None: the result's bootstrap seed
}


@pytest.mark.parametrize("name", sorted(WITH_ENGINE))
def test_engine_defaults_are_those_of_DEFAULTS(name):
    """The defaults are written out in each ``def``: they must not drift from DEFAULTS."""
    params = inspect.signature(WITH_ENGINE[name]).parameters
    assert "settings" not in params
    for engine in set(params) & set(ENGINE):
        default = params[engine].default
        if (name, engine) in OTHER_DEFAULTS:
            assert default == OTHER_DEFAULTS[name, engine]
            continue
        if default is inspect.Parameter.empty:  # a keyword the caller must give
            continue
        expected = getattr(DEFAULTS, engine)
        assert type(default) is type(expected) and default == expected, (name, engine)


def test_no_signature_is_assigned_at_run_time():
    """Signatures live in the ``def``: nothing assigns ``__signature__``."""
    found = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"__signature__\s*=", p.read_text())
    ]
    assert found == []


def _jedi_signature(source: str) -> str:
    signatures = jedi.Script(source, path=str(PACKAGE.parent / "completion.py")).get_signatures()
    assert signatures, source
    return signatures[0].to_string()


@pytest.mark.parametrize(
    ("source", "keywords"),
    [
        ("import iaa_frames as iaf\niaf.agreement(", ["match_threshold", "n_chance", "n_boot"]),
        ("import iaa_frames as iaf\niaf.sigma(", ["component", "n_chance", "overall"]),
        ("import iaa_frames as iaf\niaf.conflicts(", ["reference", "seed", "progress"]),
        ("import iaa_frames as iaf\niaf.track_agreement(", ["track", "match_threshold"]),
        (
            "from iaa_frames.accessor.frame import IAAAccessor\nIAAAccessor(None).sigma(",
            ["component", "match_threshold", "n_chance"],
        ),
        (
            "from iaa_frames.plot.accessor import FramePlots\nFramePlots(None).forest(",
            ["components", "n_boot", "match_threshold"],
        ),
        (  # a method wrapped by keywords_checked alone (issue #42: "did you mean")
            "from iaa_frames.accessor.result import ResultAccessor\nResultAccessor(None).reading(",
            ["max_labels", "sweep"],
        ),
    ],
)
def test_static_tools_see_the_keywords(source, keywords, tmp_path, monkeypatch):
    """jedi (IDEs, Jupyter completion) reads the keywords from the source. It does not
    infer pandas accessors on a DataFrame, so ``df.iaa.sigma(`` is checked on the
    accessor class. Each test has a cache of its own: jedi's shared cache, written by two
    test processes at once (pytest -n), can be read half written."""
    monkeypatch.setattr(jedi.settings, "cache_directory", str(tmp_path / "jedi"))
    text = _jedi_signature(source)
    for keyword in keywords:
        assert re.search(rf"\b{keyword}\b", text), (keyword, text)
    assert "settings" not in text


def test_agreement_checks_the_threshold_once(monkeypatch):
    from iaa_frames.settings import thresholds

    df = iaf.simulate(n_items=4, seed=0)
    iaf.agreement(df, n_chance=20, n_boot=0)  # imports everything first
    calls = []
    original = thresholds.check_thresholds

    def spy(value):
        calls.append(value)
        return original(value)

    monkeypatch.setattr(thresholds, "check_thresholds", spy)
    iaf.agreement(df, match_threshold=0.5, n_chance=20, n_boot=0)
    assert calls == [0.5]


def test_a_bad_keyword_is_named_and_an_unknown_one_refused():
    df = iaf.simulate(n_items=2, seed=0)
    with pytest.raises(ParameterError, match="n_chance must be an integer >= 1; got 0"):
        iaf.agreement(df, n_chance=0)
    with pytest.raises(TypeError, match="n_chanse"):
        iaf.agreement(df, n_chanse=5)
    with pytest.raises(TypeError, match="settings"):
        iaf.conflicts(df, settings=DEFAULTS)
    with pytest.raises(TypeError, match="overall"):
        iaf.track_agreement(df, overall="pooled")  # a keyword it does not use is refused


def test_simulate_takes_the_keywords_of_simulate_with_truth():
    mine = inspect.signature(iaf.simulate).parameters
    theirs = inspect.signature(iaf.simulate_with_truth).parameters
    assert [(p.name, p.default) for p in mine.values()] == [
        (p.name, p.default) for p in theirs.values()
    ]


def test_a_bad_keyword_goes_through_one_wrapper_frame_at_most():
    """The traceback of a bad keyword: the entry point, the settings it builds, the check;
    at most the one frame of ``validate_params`` wraps them (the former signature
    machinery added two to four)."""
    import traceback

    df = iaf.simulate(n_items=2, seed=0)
    for call in (
        lambda: iaf.agreement(df, n_chance=0),
        lambda: df.iaa.sigma(n_chance=0),
        lambda: iaf.conflicts(df, n_chance=0),
    ):
        with pytest.raises(ParameterError) as caught:
            call()
        names = [f.name for f in traceback.extract_tb(caught.value.__traceback__)]
        assert names.count("validated") <= 1, names
        assert not {"entry", "checked", "call", "shortcut"} & set(names), names
