"""The polyline simulator through the normal agreement: identical 1, random lines 0,
per-vertex jitter lowers localization monotonically, drops and flips lower their
components (issue #26); its profiles, determinism and common random numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.kinds import POLYLINE
from iaa_frames.simulate.polylines import PolylineProfile, simulate_polylines


def _agreement(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return iaf.agreement(df, n_boot=0, seed=0, **kw)


def _value(ds, component):
    return float(ds["agreement"].sel(component=component, label="(all)", annotator="(all)"))


def test_identical_annotators_agree_fully():
    profiles = {"a": PolylineProfile(), "b": PolylineProfile()}
    ds = _agreement(simulate_polylines(n_items=150, annotators=profiles, seed=0))
    for c in ("detection", "classification", "localization", "overall"):
        assert _value(ds, c) == pytest.approx(1.0, abs=1e-12), c


def test_random_lines_agree_at_chance():
    # lines drawn independently of the image: sigma near 0 over several seeds (#26)
    values = []
    for seed in range(4):
        profiles = {"a": PolylineProfile(random=True), "b": PolylineProfile(random=True)}
        ds = _agreement(simulate_polylines(n_items=100, annotators=profiles, seed=seed))
        values.append([_value(ds, "detection"), _value(ds, "overall")])
    assert (np.abs(np.mean(values, axis=0)) <= 0.02).all(), values


def test_jitter_lowers_localization_monotonically():
    got = []
    for jitter in (0.1, 0.25, 0.5, 0.75):
        profiles = {"a": PolylineProfile(jitter=jitter), "b": PolylineProfile(jitter=jitter)}
        ds = _agreement(simulate_polylines(n_items=120, annotators=profiles, seed=3))
        got.append(_value(ds, "localization"))
    assert all(a > b for a, b in zip(got, got[1:], strict=False)), got


def test_dropped_lines_and_label_flips_lower_their_components():
    base = {"a": PolylineProfile(jitter=0.3), "b": PolylineProfile(jitter=0.3)}
    ref = _agreement(simulate_polylines(n_items=80, annotators=base, seed=4))
    miss = dict(base, b=PolylineProfile(jitter=0.3, miss=0.3))
    flip = dict(base, b=PolylineProfile(jitter=0.3, flip=0.3))
    dm = _agreement(simulate_polylines(n_items=80, annotators=miss, seed=4))
    df = _agreement(simulate_polylines(n_items=80, annotators=flip, seed=4))
    assert _value(dm, "detection") < _value(ref, "detection") - 0.1
    assert _value(df, "classification") < _value(ref, "classification") - 0.1
    assert _value(df, "detection") == pytest.approx(_value(ref, "detection"), abs=1e-12)


def test_profiles_are_checked():
    with pytest.raises(ParameterError, match=r"PolylineProfile.jitter must be a number"):
        PolylineProfile(jitter=-1)
    with pytest.raises(
        ParameterError, match=r"PolylineProfile.miss must be a number in \[0, 1.0\]"
    ):
        PolylineProfile(miss=2)
    with pytest.raises(ParameterError, match="needs a PolylineProfile; got dict"):
        simulate_polylines(annotators={"a": {}})
    with pytest.raises(ParameterError, match="needs annotators"):
        simulate_polylines(annotators={})
    with pytest.raises(ParameterError, match=r"n_vertices must be an integer in 2\.\.32"):
        simulate_polylines(annotators={"a": PolylineProfile()}, n_vertices=40)


def test_seeded_and_common_random_numbers():
    profiles = {"a": PolylineProfile(jitter=0.5), "b": PolylineProfile(jitter=0.5)}
    one = simulate_polylines(n_items=10, annotators=profiles, seed=4)
    assert one.equals(simulate_polylines(n_items=10, annotators=profiles, seed=4))
    assert not one.equals(simulate_polylines(n_items=10, annotators=profiles, seed=5))
    # dropping lines leaves the jitter of the kept ones alone, and another annotator's draws
    missed = simulate_polylines(
        n_items=10, annotators=dict(profiles, b=PolylineProfile(jitter=0.5, miss=0.5)), seed=4
    )
    cols = list(POLYLINE.columns)
    a_one, a_missed = (f[f["annotator"] == "a"][cols].to_numpy() for f in (one, missed))
    np.testing.assert_array_equal(a_one, a_missed)
    b_one = one[one["annotator"] == "b"].dropna(subset=cols)[cols].to_numpy()
    b_missed = missed[missed["annotator"] == "b"].dropna(subset=cols)[cols].to_numpy()
    assert len(b_missed) < len(b_one)
    assert all((row == b_one).all(axis=1).any() for row in b_missed)
    # the jitter is per vertex, in units of δ times the diagonal
    diag = np.hypot(1280, 720)
    exact = simulate_polylines(n_items=200, annotators={"t": PolylineProfile()}, seed=4)
    noisy = simulate_polylines(n_items=200, annotators={"t": PolylineProfile(jitter=2)}, seed=4)
    moved = (noisy[cols].to_numpy() - exact[cols].to_numpy())[:, :16].ravel()
    moved = moved[np.isfinite(moved)]
    assert np.std(moved) / (POLYLINE.tolerance * diag) == pytest.approx(2.0, rel=0.05)
