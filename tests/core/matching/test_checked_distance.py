"""Hostile review, round 6: what a user's ``distance=`` callable returns is checked where
the engine first sees it.

Before: NaN leaked numpy's "invalid value encountered in minimum" warnings and then
stopped the KS test ("distances must be finite"); a negative value gave every
localization cell n/a with the note "no variation: expected disagreement is 0" (the
expected disagreement was -4.8); text was a raw ``ValueError``; 1e306 overflowed with
numpy warnings. Each is now one ``ParameterError`` naming the distance and the value.
"""

import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import get_distance

GIOU = get_distance("giou")


def giou(a, b):
    return GIOU(a, b)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=8, seed=1).drop(columns="truth_id")


@pytest.mark.parametrize(
    "distance, shown",
    [
        (lambda a, b: giou(a, b) - 5, r"returned -4\.\d+"),
        (lambda a, b: np.full(len(a), np.nan), "returned nan"),
        (lambda a, b: np.full(len(a), np.inf), "returned inf"),
        (lambda a, b: giou(a, b) * 1e306 + 1e306, r"returned \d\.\d+e\+306"),
        (lambda a, b: np.array(["x"] * len(a)), "returned values of dtype <U1"),
    ],
    ids=["negative", "nan", "inf", "huge", "text"],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda d, f: iaf.agreement(d, n_boot=0, n_chance=100, distance=f),
        lambda d, f: iaf.pair_tables(d, n_chance=100, distance=f),
    ],
    ids=["agreement", "pair_tables"],
)
def test_a_callable_returning_no_distance_is_a_parameter_error(df, call, distance, shown):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning on the way
        with pytest.raises(ParameterError, match=rf"distance '<lambda>' {shown}"):
            call(df, distance)


def test_track_agreement_checks_the_callable_too():
    tracks = iaf.simulate_tracks(n_sequences=2, n_frames=4, seed=0)
    with pytest.raises(ParameterError, match=r"distance 'negative' returned -"):

        def negative(a, b):
            return giou(a, b) - 5

        iaf.track_agreement(tracks, n_boot=0, n_chance=50, distance=negative)


def test_a_good_callable_gives_the_figures_of_the_registered_distance(df):
    named = iaf.agreement(df, n_boot=0, n_chance=100, distance="giou")
    mine = iaf.agreement(df, n_boot=0, n_chance=100, distance=giou)
    loc = dict(component="localization")
    np.testing.assert_allclose(mine.agreement.sel(**loc), named.agreement.sel(**loc))
