"""simulate_tracks and simulate_drift: identity errors change ids only, draws depend on
the seed and the annotator's name."""

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError


def _objects(df, who):
    return df[(df["annotator"] == who) & df["x0"].notna()]


def test_identity_errors_change_only_the_ids():
    base = {"A": {"jitter": 0.05, "miss": 0.2}}
    clean = iaf.simulate_tracks(n_sequences=3, seed=7, annotators=base)
    for spec in ({"swaps": 2}, {"random_ids": True}):
        other = iaf.simulate_tracks(n_sequences=3, seed=7, annotators={"A": {**base["A"], **spec}})
        a, b = _objects(clean, "A"), _objects(other, "A")
        np.testing.assert_array_equal(a[["x0", "y0", "x1", "y1"]], b[["x0", "y0", "x1", "y1"]])
        # never two objects with one id on a frame; random ids permute those of the frame
        assert not b.duplicated(["item", "track_id"]).any()
        assert (a["track_id"].to_numpy() != b["track_id"].to_numpy()).any()


def test_random_ids_permute_the_ids_of_each_frame():
    """Without misses, the ids of a frame are those of its true objects, shuffled."""
    spec = {"jitter": 0.05, "random_ids": True}
    df = _objects(iaf.simulate_tracks(n_sequences=3, seed=2, annotators={"A": spec}), "A")
    got = df.groupby("item")["track_id"].apply(lambda s: sorted(s.tolist()))
    want = df.groupby("item")["truth_track"].apply(lambda s: sorted(s.tolist()))
    assert got.equals(want)
    assert (df["track_id"] != df["truth_track"]).mean() > 0.3


def test_misses_and_coverage():
    df = iaf.simulate_tracks(
        n_sequences=4, n_frames=30, seed=1, annotators={"A": {"miss": 0.25}, "B": {}}
    )
    a, b = _objects(df, "A"), _objects(df, "B")
    assert 0.65 < len(a) / len(b) < 0.85
    # every frame is covered by every annotator
    assert df.groupby("annotator")["item"].nunique().tolist() == [120, 120]
    assert iaf.validate(df)["track_id"].notna().sum() == len(a) + len(b)


def test_an_annotators_draws_do_not_depend_on_the_others():
    one = iaf.simulate_tracks(seed=3, annotators={"A": {"jitter": 0.1}})
    two = iaf.simulate_tracks(seed=3, annotators={"Z": {"jitter": 0.2}, "A": {"jitter": 0.1}})
    np.testing.assert_array_equal(
        _objects(one, "A")[["x0", "y1"]].to_numpy(), _objects(two, "A")[["x0", "y1"]].to_numpy()
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_frames": 1}, "n_frames"),
        ({"annotators": {"A": {"swap": 1}}}, "unknown track profile fields"),
        (
            {"annotators": {"A": {"jitter": 2}}},
            r"'A': jitter must be a finite number .* < 1.0; got 2",
        ),
        ({"annotators": {"A": "good"}}, "a track profile is a dict"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        iaf.simulate_tracks(**kwargs)


def test_drift_changes_the_profile_after_the_cut():
    df = iaf.simulate_drift(n_items=40, drift_at=0.5, before="perfect", after="sloppy", seed=0)
    first = df[df["time"] < df["time"].min() + 20 * (df["time"].max() - df["time"].min()) / 39]
    assert first["item"].nunique() == 20 and df["item"].nunique() == 40
    res = iaf.agreement(first, n_chance=100, n_boot=0)
    assert (
        float(res["agreement"].sel(component="localization", label="(all)", annotator="(all)"))
        == 1.0
    )
    with pytest.raises(ParameterError, match="drift_at"):
        iaf.simulate_drift(drift_at=2)
