"""Hostile review, round 6, of the figures: items without any within-item unit."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import iaa_frames.plot as iplot  # noqa: E402


def _apart(n_items=8):
    """Two annotators whose boxes never overlap: no matched pair on any item."""
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=off + i * 0.5, y0=10, x1=off + 40,
             y1=60, width=100, height=100)
        for i in range(n_items)
        for a, off in (("A", 0), ("B", 50))
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("width", [3.5, 7])
def test_items_without_units_say_why_and_write_no_nan(width):
    before = len(plt.get_fignums())
    ax = iplot.items(_apart(), width=width, n_chance=50)
    fig = ax.figure
    texts = [t.get_text() for a in fig.axes for t in a.texts] + [t.get_text() for t in fig.texts]
    assert not [t for t in texts if "nan" in t.split()]  # an undefined excess is "n/a"
    marks = [t for t in ax.texts if t.get_gid() == "undefined"]
    assert len(marks) == 8
    notes = " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text)
                     if t.get_gid() == "note")  # fmt: skip
    assert "n/a: no within-item unit on the item (units 0): i0" in " ".join(notes.split())
    fig.canvas.draw()
    box = fig.bbox
    for t in fig.findobj(matplotlib.text.Text):
        if t.get_gid() == "note" and t.get_text():
            e = t.get_window_extent()
            assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1
    plt.close(fig)
    assert len(plt.get_fignums()) == before
