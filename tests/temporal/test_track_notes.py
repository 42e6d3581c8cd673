"""Audit: every n/a of ``iaf.track_agreement`` carries a note that says why."""

import numpy as np
import pandas as pd

import iaa_frames as iaf


def _videos(n_videos=4, n_frames=30):
    """Annotator ``a`` draws a car crossing the frame, ``blind`` a car of its own at the
    other side of the image (never within IoU 0.5 of ``a``'s), both with steady ids."""
    rows = []
    for v in range(n_videos):
        for f in range(n_frames):
            for ann, x in (("a", 10.0 + 5 * f), ("blind", 500.0 - 5 * f)):
                if ann == "blind" and abs(x - (10.0 + 5 * f)) < 120:
                    x += 240.0
                rows.append((f"v{v}_f{f:02d}", ann, "car", x, 200.0, x + 80, 250.0, f"v{v}", f, 1))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "group", "frame", "track_id"]
    return pd.DataFrame(rows, columns=cols).assign(width=640.0, height=480.0)


def test_nan_identity_says_why():
    res = iaf.track_agreement(_videos(), frame="frame", n_boot=20, seed=0)
    cell = res.sel(label="(all)", annotator="a", partner="blind")
    assert not np.isfinite(float(cell.identity))
    assert "note" in res.data_vars
    assert str(cell.note.values).startswith("no matched object pair")
    # a defined identity has an empty note; every NaN identity has one
    identity, note = res["identity"].values, res["note"].values.astype(str)
    assert (note[np.isfinite(identity)] == "").all()
    assert (note[~np.isfinite(identity)] != "").all()


def test_annotators_who_never_match_do_not_crash():
    """Two annotators with no object pair within the threshold on any frame: CLEAR MOT's
    switch mask had length 1 for no matched pair (IndexError); now no match, no switch,
    IDF1 0."""
    res = iaf.track_agreement(_videos(), frame="frame", n_boot=20, seed=0)
    cell = res.sel(label="(all)", annotator="a", partner="blind")
    assert float(cell.matched) == 0.0
    assert float(cell.id_switches) == 0.0
    assert float(cell.idf1) == 0.0
