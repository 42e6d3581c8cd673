"""Tests for iaa_frames.plot.item_shapes: the item viewer draws polylines as open paths and
points / point sets as markers (one Line2D per object, in the annotator's colour, gid
``shape:<annotator>``), unmatched ones dashed / hollow, links from a point on the shape,
and the conflict marks as for boxes (issue #26)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.explore.item import item_view
from iaa_frames.geometry.kinds import (
    POINT,
    POINT_SET,
    POLYLINE,
    DistanceKind,
    point_set_params,
    polyline_params,
    polyline_vertices,
)
from iaa_frames.geometry.kinds.distance_kind import point_line_distances
from iaa_frames.plot import ANNOTATOR_PALETTE, annotator_colors
from iaa_frames.plot.item import item, worst_items
from iaa_frames.plot.item_shapes import HOLLOW, shape_anchor, shape_points
from iaa_frames.simulate.polylines import PolylineProfile

matplotlib.use("Agg")
plt = matplotlib.pyplot


@pytest.fixture(scope="module")
def lines():
    return iaf.simulate_polylines(
        n_items=5,
        annotators={
            "a": PolylineProfile(jitter=0.5),
            "b": PolylineProfile(jitter=1.5, miss=0.3),
            "c": PolylineProfile(jitter=0.8, flip=0.3),
        },
        seed=0,
    )


def _points_frame():
    """Three annotators' landmarks (one missed by b, one by c) and a set of 3 points each."""
    rng = np.random.default_rng(0)
    truth = rng.uniform([50, 50], [590, 430], size=(6, 2))
    rows = []
    for a, sd, miss in (("a", 2, ()), ("b", 4, (2,)), ("c", 3, (4,))):
        for k, (x, y) in enumerate(truth):
            if k not in miss:
                dx, dy = rng.normal(0, sd, 2)
                rows.append((a, "nose" if k % 2 else "eye", shapely.Point(x + dx, y + dy)))
        cells = np.array([[300, 200], [320, 210], [340, 190]]) + rng.normal(0, sd, (3, 2))
        rows.append((a, "cells", shapely.MultiPoint(cells)))
    df = pd.DataFrame(rows, columns=["annotator", "label", "geometry"])
    return df.assign(item="img", width=640, height=480)


def _shapes(ax):
    return [ln for ln in ax.lines if str(ln.get_gid()).startswith("shape:")]


def test_polylines_are_open_paths_in_the_annotators_colour(lines):
    first = lines["item"].iloc[0]
    view = item_view(lines, first)
    ax = item(lines, first)
    drawn = _shapes(ax)
    assert len(drawn) == len(view.objects)  # one Line2D per line, no box, no polygon
    assert [p.get_gid() for p in ax.patches] == ["canvas"]
    colors = annotator_colors(sorted(lines["annotator"].unique()))
    params = view.objects[list(POLYLINE.columns)].to_numpy(float)
    for ln, row, p in zip(drawn, view.objects.itertuples(index=False), params, strict=True):
        assert ln.get_gid() == f"shape:{row.annotator}"
        np.testing.assert_allclose(matplotlib.colors.to_rgb(ln.get_color()),
                                   matplotlib.colors.to_rgb(colors[row.annotator]))  # fmt: skip
        np.testing.assert_allclose(ln.get_xydata(), polyline_vertices(POLYLINE, p))
        assert (ln.get_linestyle() == "-") == (row.conflict == "")
    links = [ln for ln in ax.lines if ln.get_gid() == "pair"]
    assert len(links) == len(view.pairs)
    plt.close(ax.figure)


def test_links_start_on_the_lines_and_marks_match_the_conflicts(lines):
    for name in pd.unique(lines["item"])[:3]:
        view = item_view(lines, name)
        ax = item(lines, name)
        ends = np.array([ln.get_xydata()[[0, -1]] for ln in ax.lines if ln.get_gid() == "pair"])
        ends = ends.reshape(-1, 2)
        verts = POLYLINE.vertices(view.objects[list(POLYLINE.columns)].to_numpy(float))
        # every link end lies on one of the item's lines (distance ~ 0 to the nearest)
        for e in ends:
            d = point_line_distances(np.repeat(e[None, None], len(verts), axis=0), verts)
            assert d.min() < 1e-6
        marks = [
            ln.get_gid().split(":", 1)[1]
            for ln in ax.lines
            if str(ln.get_gid()).startswith("conflict:")
        ]
        assert pd.Series(marks, dtype=object).value_counts().to_dict() == (
            view.conflicts["kind"].value_counts().to_dict()
        )
        plt.close(ax.figure)


def test_points_and_point_sets_are_markers():
    df = _points_frame()
    view = item_view(df, "img")
    ax = item(df, "img")
    drawn = _shapes(ax)
    assert len(drawn) == len(view.objects)
    assert [p.get_gid() for p in ax.patches] == ["canvas"]
    for ln, row in zip(drawn, view.objects.itertuples(index=False), strict=True):
        assert ln.get_gid() == f"shape:{row.annotator}"
        assert ln.get_linestyle() == "None" and ln.get_marker() == "o"
        n = 3 if row.label == "cells" else 1  # markers per object
        assert len(ln.get_xydata()) == n
        hollow = ln.get_markerfacecolor() == "white"
        assert hollow == (row.conflict != "") == (ln.get_label() == HOLLOW)
    texts = {t.get_text() for t in ax.get_legend().get_texts()}
    assert (view.objects["conflict"] != "").any()
    assert "point with no match (hollow)" in texts
    plt.close(ax.figure)


@pytest.mark.parametrize("width", [3.5, 7])
def test_worst_items_of_lines_and_points(lines, width):
    fig = worst_items(lines, n=4, width=width, n_chance=20)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title(loc="left")]
    # the items worse than the corpus mean only (positive excess), at most 4
    worse = (iaf.items(lines, n_chance=20)["excess"] > 0).sum()
    assert len(panels) == min(4, worse) >= 1
    assert all(_shapes(ax) for ax in panels)
    assert all(not [p for p in ax.patches if p.get_gid() != "canvas"] for ax in panels)
    plt.close(fig)
    # a second item where the three annotators agree exactly: "img" is worse than the mean
    points = _points_frame()
    calm = points[points["annotator"] == "a"].assign(item="calm")
    calm = pd.concat([calm.assign(annotator=a) for a in "abc"], ignore_index=True)
    fig = worst_items(pd.concat([points, calm], ignore_index=True), n=1, width=width, n_chance=20)
    texts = {t.get_text() for t in fig.legends[0].get_texts()}
    assert "point with no match (hollow)" in texts
    plt.close(fig)


def test_shape_points_and_anchor():
    line = polyline_params(POLYLINE, [(0, 0), (4, 0), (4, 4)])
    assert shape_points(POLYLINE, line).tolist() == [[0, 0], [4, 0], [4, 4]]
    assert shape_anchor(POLYLINE, line) == (4.0, 0.0)  # half of the length 8
    assert shape_anchor(POINT, [3.0, 5.0]) == (3.0, 5.0)
    pts = point_set_params(POINT_SET, [(0, 0), (2, 0), (4, 6)])
    assert shape_points(POINT_SET, pts).shape == (3, 2)
    assert shape_anchor(POINT_SET, pts) == (2.0, 2.0)

    class Circles(DistanceKind):
        name = "circles_unknown_to_the_viewer"

    with pytest.raises(TypeError, match="cannot draw shapes of the kind"):
        shape_points(Circles(), [0.0, 0.0])


def test_points_of_annotators_beyond_the_palette_differ_in_marker():
    # 20 annotators (the palette has 9) placing the same 3 landmarks, all matched
    names = [f"w{i:02d}" for i in range(20)]
    rows = [
        (a, "nose", shapely.Point(x + 0.1 * i, y)) for i, a in enumerate(names)
        for x, y in ((100, 100), (300, 200), (500, 300))
    ]  # fmt: skip
    df = pd.DataFrame(rows, columns=["annotator", "label", "geometry"])
    ax = item(df.assign(item="img", width=640, height=480), "img", n_chance=20)
    looks: dict = {}
    for ln in _shapes(ax):
        looks.setdefault(ln.get_gid().split(":", 1)[1], set()).add(
            (matplotlib.colors.to_hex(ln.get_markeredgecolor()), ln.get_marker())
        )
    assert sorted(looks) == names and all(len(v) == 1 for v in looks.values())
    assert len({next(iter(v)) for v in looks.values()}) == len(names)
    assert all(looks[a] == {(c.lower(), "o")} for a, c in zip(names, ANNOTATOR_PALETTE))
    # the legend shows each annotator's marker
    legend = ax.get_legend()
    handles = dict(zip((t.get_text() for t in legend.get_texts()), legend.legend_handles))
    assert {a: {(matplotlib.colors.to_hex(handles[a].get_color()), handles[a].get_marker())}
            for a in names} == looks  # fmt: skip
