"""plot.crowd: which annotators of a big crowd a figure draws."""

from __future__ import annotations

import numpy as np
import xarray as xr

from iaa_frames.plot.crowd import shared_annotators, sharing_order, two_ends


def _defined_off_diagonal(values):
    return int(np.isfinite(values[~np.eye(len(values), dtype=bool)]).sum())


def test_sharing_order_joins_groups_that_meet_before_the_busiest():
    # a..d meet one another (a 4-clique, 1 unit each); x and y have the most units but
    # only with people outside the clique (u, v), and those cells are undefined
    names = ["a", "b", "c", "d", "u", "v", "x", "y"]
    n = len(names)
    values, units = np.full((n, n), np.nan), np.zeros((n, n))
    for i in range(4):
        for j in range(4):
            if i != j:
                values[i, j], units[i, j] = 0.5, 1
    for busy, other, k in ((6, 4, 60), (7, 5, 50)):
        units[busy, other] = units[other, busy] = k  # shared, but no defined value
    chosen = sharing_order(values, units, names, top=4)
    assert sorted(chosen) == [0, 1, 2, 3]
    by_support = np.argsort(-(units.sum(0) + units.sum(1)), kind="stable")[:4]
    assert _defined_off_diagonal(values[np.ix_(by_support, by_support)]) == 0
    # nothing defined at all: by support, as before
    none = sharing_order(np.full((n, n), np.nan), units, names, top=2)
    assert sorted(none) == [4, 6]  # u and x: 60 units each


def test_shared_annotators_pool_the_panels_and_keep_the_coordinate_values():
    # integer ids: the values of the coordinate come back, not their text
    ids = list(range(6))
    a = np.full((6, 6), np.nan)
    b = np.full((6, 6), np.nan)
    a[0, 1] = a[1, 0] = 0.4  # 0 and 1 meet in the first panel
    b[1, 5] = b[5, 1] = 0.7  # 1 and 5 in the second
    dims = ("annotator_a", "annotator_b")
    mats = [xr.DataArray(v, dims=dims, coords={d: ids for d in dims}) for v in (a, b)]
    names, hidden = shared_annotators(mats, top=3)
    assert names == [0, 1, 5] and hidden == 3
    assert all(type(x) is int for x in names)


def test_two_ends_keep_the_highest_and_the_lowest():
    order = list("abcdefg")
    assert two_ends(order, 4) == (["a", "b"], ["f", "g"])
    assert two_ends(order, 5) == (["a", "b", "c"], ["f", "g"])
    assert two_ends(order, 1) == (["a"], [])
    assert two_ends(order[:3], 4) == (["a", "b"], ["c"])  # at most top: every name
