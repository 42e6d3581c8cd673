"""Audit: the rare-event widening of blind annotators' cells in videos (items in groups).

Frames of one video are one ``group``: the cluster bootstrap resamples whole videos and
chance never pairs two frames of one video. Annotators who never watched the video draw
plausible tracks of their own (cars and people that enter and leave, moving smoothly):
their cells have agreement 0 in expectation. A lucky overlap of one of their tracks with
a true one lasts for a run of frames, so matches come in runs, one video at a time.
The corpora are drawn here (not with ``iaf.simulate`` or ``iaf.simulate_tracks``).
"""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf

W, H = 640.0, 480.0


def _tracks(rng, n_frames):
    """Tracks born uniformly on a longer timeline and cropped to the video (as many
    enter and leave at its ends as in its middle): (label, first, end, x, y, w, h, vx)."""
    out = []
    for _ in range(rng.poisson(3.5 * (n_frames + 60) / 60)):
        label = rng.choice(["car", "person"], p=[0.6, 0.4])
        start = int(rng.integers(-60, n_frames))
        end = int(min(n_frames, start + rng.integers(8, 60)))
        if end <= 0:
            continue
        if label == "car":
            w, h, y = rng.uniform(60, 120), rng.uniform(40, 70), rng.uniform(250, 380)
        else:
            w, h, y = rng.uniform(15, 30), rng.uniform(40, 80), rng.uniform(200, 360)
        vx = rng.normal(0, 4 if label == "car" else 1.5)
        x = rng.uniform(0, W - w) - vx * max(0, -start)
        out.append((label, max(start, 0), end, x, y, w, h, vx))
    return out


def video_corpus(seed, n_videos=8):
    """Videos of 30 to 60 frames; annotators ``a`` and ``b`` draw the true tracks (2 px
    of jitter), ``x`` and ``y`` tracks of their own; every frame seen by everybody."""
    rng = np.random.default_rng(seed)
    rows = []
    for v in range(n_videos):
        n = int(rng.integers(30, 61))
        truth = _tracks(rng, n)
        drawn = {"a": truth, "b": truth, "x": _tracks(rng, n), "y": _tracks(rng, n)}
        for ann, tracks in drawn.items():
            seen = set()
            for label, start, end, x, y, w, h, vx in tracks:
                for f in range(start, end):
                    x0 = np.clip(x + vx * (f - start), 0, W - w) + rng.normal(0, 2)
                    y0 = y + rng.normal(0, 2)
                    seen.add(f)
                    rows.append((f"v{v}_f{f:03d}", ann, label, x0, y0, x0 + w, y0 + h, f"v{v}", f))
            for f in sorted(set(range(n)) - seen):  # looked, drew nothing
                rows.append((f"v{v}_f{f:03d}", ann, None, *[np.nan] * 4, f"v{v}", f))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "group", "frame"]
    return pd.DataFrame(rows, columns=cols).assign(width=W, height=H)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "widen_rare_events counts event items and cell items in frames while the "
        "bootstrap resamples groups (videos): a blind annotator's class with no match in "
        "any of its ~350 frames, chance expecting ~4 matched frames (item-level rule of "
        "three: evidence of disagreement), is widened to [-0.016, -0.0001]; but matches "
        "come in runs of frames within one video, so seeing none in 8 videos is no "
        "evidence at all. Counting events per group needs a group event's credit when no "
        "group has one, which the frame-level chance pairs do not give."
    ),
)
def test_blind_cells_of_videos_without_a_match_cover_zero():
    """Cells of the blind annotators with no within match at all (observed 1): their
    intervals must reach 0, as on still images (``widen_rare_events``). Over seeds 0-11,
    9 of the 26 such cells lay wholly below 0 (and 12 of the 88 blind detection and
    overall cells, every miss below); on seeds 4, 5 and 7, 5 of them."""
    checked = misses = 0
    for seed in (4, 5, 7):
        res = iaf.agreement(video_corpus(seed), n_boot=60, seed=seed)
        for comp in ("detection", "overall"):
            for label in ("car", "person"):
                for ann in ("x", "y"):
                    c = res.sel(component=comp, label=label, annotator=ann)
                    det = res.sel(component="detection", label=label, annotator=ann)
                    if not (float(det.observed) == 1.0 and np.isfinite(float(c.ci_low))):
                        continue
                    checked += 1
                    misses += not (float(c.ci_low) <= 0.0 <= float(c.ci_high))
    assert checked >= 3
    assert misses <= 1, f"{misses} of {checked} blind cells without a match miss 0"
