"""Audit: the rare-event widening of blind annotators' cells in videos (items in groups).

Frames of one video are one ``group``: the cluster bootstrap resamples whole videos and
chance never pairs two frames of one video. Annotators who never watched the video draw
plausible tracks of their own (cars and people that enter and leave, moving smoothly):
their cells have agreement 0 in expectation. A lucky overlap of one of their tracks with
a true one lasts for a run of frames, so matches come in runs, one video at a time.
The corpora are drawn here (not with ``iaf.simulate`` or ``iaf.simulate_tracks``).
"""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import iaa_frames as iaf
from iaa_frames.stats.bootstrap import ItemSums, PairSums
from iaa_frames.stats.intervals import (
    MIN_EVENT_ITEMS,
    disagreement_events,
    event_items,
    widen_rare_disagreements,
    widen_rare_events,
)

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


def test_blind_cells_of_videos_without_a_match_cover_zero():
    """Cells of the blind annotators with no within match at all (observed 1): their
    intervals must reach 0, as on still images (``widen_rare_events``). Counted in
    frames, 5 of the 18 such cells of seeds 0-11 lay wholly below 0 (and 8 of the 80
    blind detection and overall cells, every miss below), 4 of them on seeds 4, 5 and 7:
    no match in ~350 frames of 8 videos is evidence of disagreement only if the frames
    were independent draws. Counted in videos (the clusters the bootstrap draws) none
    misses 0, and the widened upper ends stay below 0.2 (seeds 0-11)."""
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
                    assert float(c.ci_high) < 0.25  # 8 videos' worth, not the range of agreement
    assert checked >= 3
    assert misses <= 1, f"{misses} of {checked} blind cells without a match miss 0"


def test_careful_annotators_keep_the_bootstrap_interval():
    """``a`` and ``b`` match in every video: no cell of theirs is widened (fewer than 4
    videos with a match), and their intervals are as narrow as the bootstrap's (widths
    0.04-0.24 over seeds 0-11, bit for bit those counted in frames)."""
    for seed in (4, 5):
        res = iaf.agreement(video_corpus(seed), n_boot=60, seed=seed)
        for comp in ("detection", "overall"):
            for label in ("car", "person"):
                for ann in ("a", "b"):
                    c = res.sel(component=comp, label=label, annotator=ann)
                    assert 0.0 < float(c.ci_high - c.ci_low) < 0.25
                    assert float(c.ci_low) > 0.0


def test_items_of_one_frame_each_are_counted_as_before():
    """A group column with every item its own group is no group at all: the events are
    counted per item, the intervals bit for bit those of the corpus without it (blind
    annotators' still images: the rare-event widening fires)."""
    still = video_corpus(4, n_videos=3).drop(columns=["group", "frame"])
    res = iaf.agreement(still, n_boot=40, seed=0)
    grouped = iaf.agreement(still.assign(group=still["item"]), n_boot=40, seed=0)
    for var in ("agreement", "ci_low", "ci_high"):
        np.testing.assert_array_equal(res[var].values, grouped[var].values)
    det = res.sel(component="detection", label="car", annotator="x")
    assert float(det.ci_low) < 0.0 < float(det.ci_high)


def _grouped_sums(seed, n_cells=4):
    """Within sums ([count | distance] of ``n_cells`` cells) of 60 items in 9 clusters and
    chance sums of pairs of items of different clusters; cell ``c``'s events (a distance
    below the count) lie in the items of clusters ``0 .. 2c - 1`` only (some of them),
    so the cells hold 0, 2, 4 and 6 event clusters at most."""
    rng = np.random.default_rng(seed)
    clusters = np.sort(rng.integers(0, 9, 60))
    item, column, value = [], [], []
    for i, g in enumerate(clusters):
        for c in range(n_cells):
            count = int(rng.integers(0, 3))
            if not count:
                continue
            event = g < 2 * c and rng.random() < 0.5
            dist = count - rng.uniform(0.2, 0.9) if event else float(count)
            item += [i, i]
            column += [c, n_cells + c]
            value += [count, dist]
    within = ItemSums.from_entries(item, column, value, n_items=60, n_columns=2 * n_cells)
    a, b = np.triu_indices(60, 1)
    keep = (clusters[a] != clusters[b]) & (rng.random(len(a)) < 0.05)
    a, b = a[keep], b[keep]
    rows = np.repeat(np.arange(len(a)), 2 * n_cells)
    cols = np.tile(np.arange(2 * n_cells), len(a))
    dist = np.where(rng.random((len(a), n_cells)) < 0.03, rng.uniform(0.3, 0.9), 1.0)
    vals = np.hstack([np.ones((len(a), n_cells)), dist]).ravel()
    between = PairSums.from_entries(a, b, rows, cols, vals, n_columns=2 * n_cells)
    return clusters, within, between


def _by_brute_force(clusters, within, between, n_cells, *, disagreement=False):
    """Per cell, (event clusters, cell clusters, cell items, credit, units, chance
    credit) by loops over the dense sums."""
    w, b = within.matrix.toarray(), between.matrix.toarray()
    out = []
    for c in range(n_cells):
        count, dist = w[:, c], w[:, n_cells + c]
        gain = dist if disagreement else count - dist
        cell = count != 0
        event = gain > 1e-9
        chance_gain = b[:, n_cells + c] if disagreement else b[:, c] - b[:, n_cells + c]
        chance = chance_gain[chance_gain > 1e-9]
        out.append(
            (
                len(set(clusters[event])),
                len(set(clusters[cell])),
                int(cell.sum()),
                gain[event].sum(),
                count.sum(),
                chance.mean() if chance.size else np.nan,
            )
        )
    return out


def _exact_credit(x, g, k, credit, chance_credit, n):
    """The credit range of ``x`` of ``g`` clusters holding an event, from scipy's exact
    binomial interval: an event cluster's credit is its mean, at least ``k / g`` chance
    events (a whole cluster of the cell's mean size)."""
    ci = binomtest(x, g).proportion_ci(confidence_level=0.95, method="exact")
    per = max(credit / x if x else -np.inf, k / g * chance_credit)
    return per * g * ci.low, min(per * g * ci.high, n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cluster_bounds_are_the_exact_binomial_bounds_of_the_clusters(seed):
    """``widen_rare_events`` with clusters against a brute-force count of the event
    clusters and scipy's Clopper-Pearson interval (``binomtest``): cells with fewer than
    ``MIN_EVENT_ITEMS`` event clusters reach the bounds, the others are left as they are;
    with every item its own cluster the results are those without clusters, bit for bit."""
    n_cells = 4
    clusters, within, between = _grouped_sums(seed, n_cells)
    parts = {"detection": SimpleNamespace(within=within, between=between)}
    expected = np.full(n_cells, 0.98)
    brute = _by_brute_force(clusters, within, between, n_cells)
    k = np.array([row[2] for row in brute], dtype=np.float64)
    cells = {"expected": expected[None], "n_items": k[None]}
    start = (np.full((1, n_cells), 1.0), np.full((1, n_cells), -1.0))  # the bounds show
    low, high = widen_rare_events(
        *start, parts, cells, ["detection"], ["detection"], clusters=clusters
    )
    assert [row[0] for row in brute][0] == 0 and [row[0] for row in brute][-1] >= 4
    for c, (x, g, kc, credit, n, chance_credit) in enumerate(brute):
        if x >= MIN_EVENT_ITEMS:
            assert (low[0, c], high[0, c]) == (1.0, -1.0)
            continue
        lo, hi = _exact_credit(x, g, kc, credit, chance_credit, n)
        want = (1.0 - (1.0 - lo / n) / expected[c], 1.0 - (1.0 - hi / n) / expected[c])
        np.testing.assert_allclose((low[0, c], high[0, c]), want, rtol=1e-10)
    ev = event_items(within, between, n_cells=n_cells, clusters=clusters)
    assert ev["clusters"].tolist() == [row[0] for row in brute]
    assert ev["cell_clusters"].tolist() == [row[1] for row in brute]
    # every item its own cluster: the rule in items
    own = widen_rare_events(
        *start, parts, cells, ["detection"], ["detection"], clusters=np.arange(60)
    )
    none = widen_rare_events(*start, parts, cells, ["detection"], ["detection"])
    np.testing.assert_array_equal(own, none)


def test_disagreements_are_counted_in_clusters():
    """``disagreement_events`` and ``widen_rare_disagreements`` with clusters against the
    brute-force count and scipy's exact binomial interval (classification's events:
    units with a distance above 0)."""
    n_cells = 4
    clusters, within, between = _grouped_sums(3, n_cells)
    expected = np.full(n_cells, 0.3)
    brute = _by_brute_force(clusters, within, between, n_cells, disagreement=True)
    ev = disagreement_events(within, between, n_cells=n_cells, clusters=clusters)
    assert ev["clusters"].tolist() == [row[0] for row in brute]
    assert ev["cell_clusters"].tolist() == [row[1] for row in brute]
    units = np.array([row[4] for row in brute])
    k = np.array([row[2] for row in brute], dtype=np.float64)
    low, high = widen_rare_disagreements(
        np.full(n_cells, 2.0), np.full(n_cells, -2.0), ev, units, expected, k
    )
    for c, (x, g, kc, credit, n, chance_credit) in enumerate(brute):
        if x >= MIN_EVENT_ITEMS:
            assert (low[c], high[c]) == (2.0, -2.0)
            continue
        lo, hi = _exact_credit(x, g, kc, credit, chance_credit, n)
        want = (1.0 - hi / (n * expected[c]), 1.0 - lo / (n * expected[c]))
        np.testing.assert_allclose((low[c], high[c]), want, rtol=1e-10)
