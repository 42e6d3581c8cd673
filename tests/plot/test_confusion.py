"""plot.confusion laid out at one column (3.5 in) and full width (7 in) on many classes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from iaa_frames.plot.confusion import confusion as plot_confusion
from iaa_frames.simulate import simulate


@pytest.fixture(scope="module")
def many_classes():
    classes = [f"c{k:03d}" for k in range(40)]
    return simulate(n_items=60, seed=2, classes=classes, objects_per_item=6)


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_tick_labels_and_note_fit(many_classes, width):
    """Four-character classes, 12 shown of 40: the column labels do not overlap and the
    note about the hidden classes stays inside the figure (at 3.5 in both failed)."""
    ax = plot_confusion(many_classes, top=12, width=width, n_chance=100)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    assert len(boxes) == 12
    assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))
    note = next(t for t in ax.texts if t.get_gid() == "note")
    box = note.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    plt.close("all")
