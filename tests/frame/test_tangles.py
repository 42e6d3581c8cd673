"""Tests for iaa_frames.frame.tangles and the tangled_polygon guard of validate: the
crossing count equals shapely's ``crosses`` over every pair of edges, stops at its limit,
and a scrambled outline is an invalid row in bounded time where GEOS's repair would take
minutes (hostile input #41 B2)."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.errors import InvalidAnnotationError
from iaa_frames.frame.tangles import MAX_CROSSINGS, crossings


def _brute(geom) -> int:
    """Pairs of edges of the geometry's rings that cross (shapely: interiors meet at a
    point), every pair tried."""
    edges = []
    for ring in shapely.get_rings(shapely.get_parts(geom)):
        xy = shapely.get_coordinates(ring)
        edges += [shapely.LineString(xy[k : k + 2]) for k in range(len(xy) - 1)]
    return sum(a.crosses(b) for a, b in itertools.combinations(edges, 2))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=3, max_size=14, unique=True
    )
)
def test_the_count_equals_shapely_crosses_over_every_pair_of_edges(points):
    geom = shapely.Polygon(points)
    assert crossings(np.array([geom], dtype=object), limit=10**6)[0] == _brute(geom)


def test_rings_and_parts_count_together():
    outer = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (12, 3), (2, 4)]])
    two = shapely.MultiPolygon([shapely.box(0, 0, 4, 4), shapely.box(2, 2, 6, 6)])
    got = crossings(np.array([outer, two], dtype=object), limit=10**6).tolist()
    assert got == [_brute(outer), _brute(two)] == [2, 2]


def test_the_count_stops_at_its_limit():
    rng = np.random.default_rng(0)
    scrambled = shapely.Polygon(rng.uniform(0, 100, (300, 2)))
    assert crossings(np.array([scrambled]), limit=50)[0] == 50
    assert crossings(np.array([shapely.box(0, 0, 1, 1)]), limit=50)[0] == 0


def test_a_scrambled_outline_is_an_invalid_row_in_bounded_time():
    rng = np.random.default_rng(1)
    rows = [
        dict(item="i", annotator="a", label="x", geometry=shapely.box(0, 0, 10, 10)),
        dict(item="i", annotator="b", label="x",
             geometry=shapely.Polygon(rng.uniform(0, 100, (10_000, 2)))),
        dict(item="i", annotator="c", label="x",
             geometry=shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])),  # a bow tie
    ]  # fmt: skip
    df = pd.DataFrame(rows)
    t = time.perf_counter()
    with pytest.raises(InvalidAnnotationError, match="tangled_polygon: 1"):
        iaf.validate(df)
    assert time.perf_counter() - t < 20  # GEOS's repair: out of memory at 10,000 vertices
    with pytest.warns(iaf.errors.DroppedRowsWarning):
        kept = iaf.validate(df, on_invalid="drop")
    assert kept["annotator"].tolist() == ["a", "c"]  # the bow tie is repaired and kept
    assert kept.attrs["iaa_repaired"] == 1
    reason = iaf.check(df).dropped["reason"].tolist()
    assert reason == ["tangled_polygon"]
    assert f"{MAX_CROSSINGS} times" in iaf.frame.schema.INVALID_REASONS["tangled_polygon"]


def test_a_long_outline_is_counted_in_time_proportional_to_it():
    """Hostile review, round 6: every pair of edges was compared, so an invalid outline of
    20,000 vertices (one swapped pair, or every vertex the same point) took 17 s; only
    edges whose boxes meet are compared now."""
    t = np.linspace(0, 2 * np.pi, 20_000, endpoint=False)
    circle = np.c_[np.cos(t), np.sin(t)]
    swapped = circle.copy()
    swapped[[10, 11]] = swapped[[11, 10]]
    geoms = np.array([shapely.Polygon(swapped), shapely.Polygon(np.ones((20_000, 2)))])
    start = time.perf_counter()
    assert crossings(geoms, limit=MAX_CROSSINGS).tolist() == [1, 0]
    assert time.perf_counter() - start < 5.0


def test_edges_whose_boxes_all_meet_are_looked_at_a_bounded_number_of_times():
    """A star of 20,000 long spikes with one crossing: nearly every pair of edge boxes
    meets (about 10^8 pairs), so past MAX_PAIRS of them the outline counts as tangled
    rather than costing minutes."""
    n = 40_000
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    radius = np.where(np.arange(n) % 2, 1.0, 0.01)
    star = np.c_[radius * np.cos(t), radius * np.sin(t)]
    star[[5, 7]] = star[[7, 5]]
    start = time.perf_counter()
    assert crossings(np.array([shapely.Polygon(star)]), limit=MAX_CROSSINGS)[0] == MAX_CROSSINGS
    assert time.perf_counter() - start < 20.0
