"""iaa_frames.core.engine.alpha: the pairable clusters of every cell, from the members."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_frames.core.engine.alpha import member_units_per_cell, units_per_cell
from iaa_frames.core.engine.cells import CellLayout
from iaa_frames.core.matching.assignment import pairs_within_runs


@pytest.mark.parametrize("seed", range(4))
def test_member_units_per_cell_are_those_of_the_pairs(seed):
    """Counted from the members, the clusters of every cell are those counted from
    every pair of values (clusters of two members or more, an annotator or a class more
    than once in some)."""
    rng = np.random.default_rng(seed)
    n_labels, n_annotators, n = 4, 3, 400
    cluster = np.sort(rng.integers(0, 150, n)) * 3  # codes with gaps
    annotator, label = rng.integers(0, n_annotators, n), rng.integers(0, n_labels, n)
    order = np.lexsort((annotator, cluster))
    cluster, annotator, label = cluster[order], annotator[order], label[order]
    size = np.bincount(cluster)
    keep = size[cluster] >= 2
    cluster, annotator, label = cluster[keep], annotator[keep], label[keep]
    layout = CellLayout(n_labels, n_annotators)
    i, j = pairs_within_runs(cluster)
    want = units_per_cell(
        layout, cluster[i], label[i], label[j], layout.groups(annotator[i], annotator[j])
    )
    got = member_units_per_cell(layout, cluster, annotator, label)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    empty = member_units_per_cell(layout, cluster[:0], annotator[:0], label[:0])
    np.testing.assert_array_equal(empty, np.zeros(layout.n_cells))
