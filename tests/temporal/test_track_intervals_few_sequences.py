"""Hostile review, round 6: ``iaf.track_agreement`` resamples sequences; on one sequence
every replicate is the corpus itself, and the "95 % interval" of a noisy pair read
0.384 [0.384, 0.384] with an empty note (two or three sequences gave intervals nearly as
short). As :func:`iaa_frames.agreement` does below 4 items, a cell on fewer than
``MIN_CI_ITEMS`` sequences now has NaN intervals and a note that says why."""

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.stats.intervals import MIN_CI_ITEMS

NOISY = {
    "A": {"jitter": 0.1, "swaps": 1, "miss": 0.1},
    "B": {"jitter": 0.1, "swaps": 2, "miss": 0.1},
}


@pytest.fixture(scope="module")
def videos():
    return iaf.simulate_tracks(n_sequences=5, n_frames=20, n_tracks=4, seed=2, annotators=NOISY)


def _first(df, k):
    return df[df["group"].isin(sorted(df["group"].unique())[:k])]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_cells_on_fewer_than_four_sequences_have_no_interval_and_say_why(videos, k):
    res = iaf.track_agreement(_first(videos, k), n_chance=100, n_boot=50)
    cell = res.sel(label="(all)", annotator="A", partner="B")
    assert np.isfinite(float(cell.identity)) and np.isfinite(float(cell.idf1))
    for name in ("identity", "idf1", "mota"):
        assert np.isnan(float(cell[f"{name}_ci_low"])), name
        assert np.isnan(float(cell[f"{name}_ci_high"])), name
    word = "sequence" if k == 1 else "sequences"
    expected = f"intervals not reported: rest on {k} {word} (fewer than {MIN_CI_ITEMS})"
    assert str(cell.note.values) == expected
    bounds = res[[f"{n}_ci_{e}" for n in ("identity", "idf1", "mota") for e in ("low", "high")]]
    assert all(bool(v.isnull().all()) for v in bounds.data_vars.values())


def test_four_sequences_keep_their_intervals_and_an_empty_note(videos):
    res = iaf.track_agreement(_first(videos, 4), n_chance=100, n_boot=50)
    cell = res.sel(label="(all)", annotator="A", partner="B")
    assert float(cell.identity_ci_low) < float(cell.identity_ci_high)
    assert float(cell.idf1_ci_low) < float(cell.idf1_ci_high)
    assert str(cell.note.values) == ""


def test_without_bootstrap_the_note_says_nothing_of_intervals(videos):
    res = iaf.track_agreement(_first(videos, 1), n_chance=100, n_boot=0)
    assert str(res.sel(label="(all)", annotator="A", partner="B").note.values) == ""
