"""plot.annotators on a crowd: undefined values and an interval below −1 at one column."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import itertools  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from results import make_result  # noqa: E402

from iaa_frames import plot  # noqa: E402

ALL = "(all)"
NAMES = [f"worker_{k:02d}" for k in range(10)]


@pytest.fixture
def crowd():
    """Ten annotators whose classification is undefined, the pooled classification's
    interval reaching −2.46 (as a crowd of 60 annotators on 20 items gave)."""
    nan_cells = [("classification", ALL, name) for name in NAMES]
    ds = make_result(annotators=NAMES, nan_cells=nan_cells)
    ds["ci_low"].loc[{"component": "classification", "label": ALL, "annotator": ALL}] = -2.46
    return ds


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_undefined_marks_keep_apart(crowd, width):
    """At 3.5 in ten upright "n/a" texts in one component's group overlapped into a
    smudge; what marks the undefined values in the band does not overlap."""
    ax = plot.annotators(crowd, width=width)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    marks = [a for a in ax.get_children() if a.get_gid() == "undefined"]
    assert marks
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_gid() == "undefined"]
    for a, b in itertools.combinations(boxes, 2):
        overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
        overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
        assert overlap_x <= 0.5 or overlap_y <= 0.5
    plt.close("all")


def test_an_interval_below_the_floor_stops_at_the_band_of_undefined_values(crowd):
    """The pooled interval reaching −2.46 was drawn through the band of undefined
    values (it read as an interval reaching "n/a"); it stops at the band, and the note
    says it is cut."""
    ax = plot.annotators(crowd, width=3.5)
    band = next(p for p in ax.patches if p.get_gid() == "na_band")
    band_top = band.get_extents().transformed(ax.transData.inverted()).y1
    low = min(
        c.get_paths()[0].vertices[:, 1].min() for c in ax.collections if c.get_gid() == "ci:(all)"
    )
    assert low >= band_top - 1e-9
    note = next(t for t in ax.texts + ax.figure.texts if t.get_gid() == "note")
    assert "cut at the edge of the axis" in note.get_text().replace("\n  ", " ")
    plt.close("all")
