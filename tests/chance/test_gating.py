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
