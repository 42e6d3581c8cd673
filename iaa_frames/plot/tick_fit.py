"""Tick labels of a heatmap that do not overlap, measured at the figure's layout.

Names beside square cells overlap when the cells are smaller than a line of text, and
names written at 45° overlap their neighbours when they are long (the box of a slanted
name is wide). :func:`fit_heatmap_ticks` shrinks the names to their cells (down to
:data:`MIN_TICK_PT`) and stands the column names upright when slanted ones would overlap.
"""

from __future__ import annotations

__all__ = ["MIN_TICK_PT", "fit_heatmap_ticks", "overlapping"]

#: Smallest tick label size (points) a heatmap's names are shrunk to.
MIN_TICK_PT = 5.0

#: Points a step of shrinking takes.
_STEP = 0.5


def _boxes(labels, renderer):
    return [t.get_window_extent(renderer) for t in labels if t.get_visible() and t.get_text()]


def overlapping(labels, renderer, *, gap: float = 0.0) -> int:
    """How many pairs of neighbouring labels (in tick order) overlap, by their extents
    (``gap`` pixels apart at least)."""
    boxes = _boxes(labels, renderer)
    return sum(
        bool(a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap and b.y0 < a.y1 + gap)
        for a, b in zip(boxes, boxes[1:])
    )


def _upright(labels):
    for t in labels:
        t.set_rotation(90)
        t.set_rotation_mode("default")
        t.set_ha("center")
        t.set_va("top")


def fit_heatmap_ticks(ax, renderer, *, size: float | None = None) -> float:
    """Fit the tick labels of a heatmap drawn on ``ax`` (one tick a row or column) to its
    cells, at the present layout.

    The font shrinks (to :data:`MIN_TICK_PT` at the least) until a line is no taller than
    a cell; the column names stand upright when at 45° they overlap; then the font shrinks
    again while neighbours still overlap.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    renderer
        The figure's renderer (``fig.canvas.get_renderer()``), after the layout is drawn.
    size : float, optional
        The starting size in points (default: the labels' own).

    Returns
    -------
    float
        The size of the labels in points.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 2))
    >>> names = [f"annotator_{k:02d}" for k in range(15)]
    >>> _ = ax.set_xticks(range(15), names, rotation=45, ha="right")
    >>> _ = ax.set_yticks(range(15), names)
    >>> fig.canvas.draw()
    >>> size = fit_heatmap_ticks(ax, fig.canvas.get_renderer())
    >>> renderer = fig.canvas.get_renderer()
    >>> size < 8, overlapping(ax.get_xticklabels(), renderer), overlapping(ax.get_yticklabels(), renderer)
    (True, 0, 0)
    >>> plt.close(fig)
    """
    xs = [t for t in ax.get_xticklabels() if t.get_text()]
    ys = [t for t in ax.get_yticklabels() if t.get_text()]
    labels = xs + ys
    if not labels:
        return float(size or 0.0)
    size = float(size if size is not None else labels[0].get_fontsize())
    box = ax.get_window_extent(renderer)
    cell = min(box.width / max(len(xs), 1), box.height / max(len(ys), 1))

    def set_size(s):
        ax.tick_params(which="major", labelsize=s)  # kept by ticks made later
        for t in labels:
            t.set_fontsize(s)

    set_size(size)
    # a line of text no taller than a cell (the extent of an upright y name)
    probe = ys[0] if ys else xs[0]
    while size > MIN_TICK_PT and probe.get_window_extent(renderer).height > cell:
        size = max(MIN_TICK_PT, size - _STEP)
        set_size(size)
    if xs and overlapping(xs, renderer):
        _upright(xs)
    while size > MIN_TICK_PT and (overlapping(xs, renderer) or overlapping(ys, renderer)):
        size = max(MIN_TICK_PT, size - _STEP)
        set_size(size)
    return size
