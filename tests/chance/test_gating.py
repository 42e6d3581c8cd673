"""Tests for iaa_frames.chance.gating: the estimate of the boxes' overlaps that decides,
before any tree is built, whether the chance index is listed or pairings are drawn."""

import numpy as np
import pytest

from iaa_frames.chance import gating


def _sweep(box):
    order = np.argsort(box[:, 0], kind="stable")
    later = np.searchsorted(box[order, 0], box[order, 2], side="left") - np.arange(len(box)) - 1
    return order, np.maximum(later, 0)


def _exact(box):
    x = np.minimum(box[:, None, 2], box[None, :, 2]) > np.maximum(box[:, None, 0], box[None, :, 0])
    y = np.minimum(box[:, None, 3], box[None, :, 3]) > np.maximum(box[:, None, 1], box[None, :, 1])
    return (np.triu(x & y, 1)).sum()


@pytest.mark.parametrize("size", [0.02, 0.1, 0.4])
@pytest.mark.parametrize("seed", [0, 1])
def test_overlaps_estimate_is_close_to_the_exact_count(size, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = 2_000
    lo = rng.random((n, 2))
    box = np.column_stack([lo, lo + size * rng.uniform(0.5, 1.5, (n, 2))])
    monkeypatch.setattr(gating, "TREE_SAMPLE_PAIRS", 50)  # the subsampling is exercised
    estimate = gating._overlaps_estimate(box, *_sweep(box))
    assert estimate == pytest.approx(_exact(box), rel=0.15)


def test_overlaps_estimate_of_disjoint_boxes_is_zero():
    box = np.column_stack([np.arange(10.0), np.zeros(10), np.arange(10.0) + 0.5, np.ones(10)])
    assert gating._overlaps_estimate(box, *_sweep(box)) == 0.0


def test_overlaps_estimate_reads_the_same_counts_from_a_function():
    rng = np.random.default_rng(4)
    lo = rng.random((500, 2))
    box = np.column_stack([lo, lo + 0.1])
    order, later = _sweep(box)
    assert gating._overlaps_estimate(box, order, later) == gating._overlaps_estimate(
        box, order, lambda pos: later[pos]
    )


@pytest.mark.parametrize("budget", [0, 300, 3_000, 30_000, 10**9])
@pytest.mark.parametrize("size", [0.01, 0.2])
def test_the_probe_of_the_sweep_decides_as_the_full_count(budget, size, monkeypatch):
    # the probe counts the x overlaps of every 64th sorted box: a lower bound of the sum,
    # so past the budget it must decide what the sum of every box decides
    import iaa_frames as iaf
    from iaa_frames.matching.corpus import prepare

    df = iaf.simulate(n_items=150, seed=1)
    w = (df["x1"] - df["x0"]) * size * 10
    df = df.assign(x1=df["x0"] + w.where(w > 0, 1.0))
    corpus = prepare(df)
    monkeypatch.setattr(gating, "OBJECT_PAIR_BUDGET", budget)
    probed = gating.gated_pairings(corpus, 0.3)
    monkeypatch.setattr(gating, "_PROBE_STEP", 1)  # the probe is the full count
    full = gating.gated_pairings(corpus, 0.3)
    assert (probed is None) == (full is None)
    if full is not None:
        for x, y in zip(probed, full, strict=True):
            assert np.array_equal(x, y)
