"""Tests for iaa_frames.settings.keywords: the engine keywords of an entry point are its
public signature, reach the function as one MatchSettings and are checked at the boundary."""

import inspect

import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.settings.keywords import engine_keywords
from iaa_frames.settings.parameters import DEFAULTS, ENGINE, MatchSettings
from iaa_frames.settings.validation import validate_params


@validate_params()
@engine_keywords
def _view(data, *, top=None, settings: MatchSettings = DEFAULTS):
    return data, top, settings


def test_signature_lists_own_keywords_then_the_engine_in_order():
    names = list(inspect.signature(_view).parameters)
    assert names == ["data", "top", *ENGINE]
    assert all(
        inspect.signature(_view).parameters[n].default == getattr(DEFAULTS, n) for n in ENGINE
    )


def test_engine_keywords_arrive_as_one_settings():
    data, top, settings = _view("df", top=3, n_chance=50, match_threshold=0.3)
    assert (data, top) == ("df", 3)
    assert settings == MatchSettings(n_chance=50, match_threshold=0.3)
    assert _view("df")[2] == DEFAULTS


def test_bad_values_are_refused_at_the_boundary_and_unknown_names_raise():
    with pytest.raises(ParameterError, match="n_chance"):
        _view("df", n_chance=0)
    with pytest.raises(TypeError, match="n_chanse"):
        _view("df", n_chanse=5)
    with pytest.raises(TypeError):
        _view("df", settings=DEFAULTS)  # the settings object is not a public keyword


def test_a_function_without_settings_is_refused():
    with pytest.raises(TypeError, match="no settings keyword"):
        engine_keywords(lambda data, *, top=None: None)


_TRACKS = {"distance", "match_threshold", "n_chance", "seed"}
_DECISIONS = {"match_threshold", "n_chance", "seed"}
_THRESHOLD = {"distance", "n_chance", "seed", "progress"}


@pytest.mark.parametrize(
    ("name", "engine"),
    [
        *((n, set(ENGINE)) for n in ("agreement", "sigma", "ks", "alpha", "pair_tables")),
        *((n, set(ENGINE)) for n in ("conflicts", "items", "report", "attribute_agreement")),
        ("keypoint_agreement", set(ENGINE)),
        ("track_agreement", _TRACKS),
        ("track_figures", _TRACKS),
        ("plan", _DECISIONS),
        ("next_items", _DECISIONS),
        ("suggest_threshold", _THRESHOLD),
        ("threshold_separation", _THRESHOLD),
        ("pair_tables_by_threshold", set(ENGINE) - {"match_threshold"}),
    ],
)
def test_public_entry_points_list_their_engine_keywords(name, engine):
    """Completion and help() see each keyword, though the function takes one settings
    object; keywords it does not use are refused, not ignored."""
    own = {"thresholds": [0.5]} if name == "pair_tables_by_threshold" else {}
    params = inspect.signature(getattr(iaf, name)).parameters
    assert set(params) & set(ENGINE) == engine and "settings" not in params
    if engine != set(ENGINE):
        unused = sorted(set(ENGINE) - engine)[0]
        with pytest.raises(TypeError, match=unused):
            getattr(iaf, name)(iaf.simulate(n_items=2, seed=0), **own, **{unused: 0.5})
