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


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_long_class_names_keep_rows_apart(width):
    """Twenty LVIS-like names (up to 11 characters) at 3.5 in: the row labels and the α
    column overlapped one another and the y label was cut at the left edge; the figure
    now shows the rows its width holds and says how many are hidden."""
    classes = [f"class_{k:02d}_name"[: 6 + k % 6] + f"{k:02d}" for k in range(24)]
    df = simulate(n_items=80, seed=3, classes=classes, objects_per_item=8)
    ax = plot_confusion(df, top=20, width=width, n_chance=100)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for texts in (
        [t for t in ax.get_yticklabels() if t.get_text()],
        [t for t in ax.texts if t.get_gid() == "alpha"],
    ):
        boxes = sorted((t.get_window_extent(renderer) for t in texts), key=lambda b: b.y0)
        assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))
    label = ax.yaxis.label.get_window_extent(renderer)
    assert label.x0 >= 0
    note = next((t for t in ax.texts if t.get_gid() == "note"), None)
    if note is not None:
        box = note.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    plt.close("all")
