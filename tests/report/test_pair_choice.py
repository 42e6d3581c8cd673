"""Tests for iaa_frames.report.pair_choice: who the pair heatmaps draw, and the note."""

from __future__ import annotations

import numpy as np
import xarray as xr

from iaa_frames.report.pair_choice import pair_annotators


def _matrix(values):
    names = [f"w{k:02d}" for k in range(len(values))]
    return xr.DataArray(np.asarray(values, dtype=float), dims=("annotator_a", "annotator_b"),
                        coords={"annotator_a": names, "annotator_b": names})  # fmt: skip


def test_few_annotators_are_all_drawn_in_their_order():
    m = _matrix(np.full((5, 5), 0.5))
    assert pair_annotators([m], top=16) == (list(m.annotator_a.values), None, "")


def test_a_dense_crowd_is_drawn_by_its_two_ends():
    # annotator k agrees k / 30 with everybody: the ends are the highest and lowest k
    n = 30
    quality = np.arange(n) / n
    v = (quality[:, None] + quality[None, :]) / 2
    np.fill_diagonal(v, np.nan)
    m = _matrix(v)
    names, split, note = pair_annotators([m, m], top=6)
    assert names == ["w29", "w28", "w27", "w02", "w01", "w00"] and split == 3
    assert note.startswith("+ 24 more annotators not shown: drawn are the 3 of highest")
    assert "3 of lowest mean agreement with the others" in note


def test_a_sparse_crowd_is_drawn_by_who_shares_items():
    # 20 annotators, only w03-w07 meet each other: they are drawn, not the two ends
    v = np.full((20, 20), np.nan)
    v[3:8, 3:8] = 0.4
    np.fill_diagonal(v, np.nan)
    names, split, note = pair_annotators([_matrix(v)], top=5)
    assert names == ["w03", "w04", "w05", "w06", "w07"] and split is None
    assert note.startswith("+ 15 more annotators not shown") and "items shared" in note
