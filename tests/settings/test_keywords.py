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


@pytest.mark.parametrize("name", ["conflicts", "items"])
def test_public_views_keep_their_engine_keywords(name):
    params = inspect.signature(getattr(iaf, name)).parameters
    assert set(ENGINE) <= set(params) and "settings" not in params
