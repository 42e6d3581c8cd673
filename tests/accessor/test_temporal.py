"""df.iaa.track_agreement(), .agreement_over_time(), .intra_agreement(): the functions
applied to the frame."""

import xarray as xr

import iaa_frames as iaf


def test_methods_equal_their_functions():
    tracks = iaf.simulate_tracks(n_sequences=3, seed=1)
    xr.testing.assert_identical(
        tracks.iaa.track_agreement(n_chance=50, n_boot=20),
        iaf.track_agreement(tracks, n_chance=50, n_boot=20),
    )
    drift = iaf.simulate_drift(n_items=48, seed=1)
    xr.testing.assert_identical(
        drift.iaa.agreement_over_time(freq="D", n_chance=100, n_boot=0),
        iaf.agreement_over_time(drift, freq="D", n_chance=100, n_boot=0),
    )
    redo = drift.assign(round=drift["annotator"].map({"A": 1, "B": 2, "C": 1}))
    redo["annotator"] = redo["annotator"].replace({"B": "A"})
    xr.testing.assert_identical(
        redo.iaa.intra_agreement(n_chance=100, n_boot=0),
        iaf.intra_agreement(redo, n_chance=100, n_boot=0),
    )
