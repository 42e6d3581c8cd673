"""The size of a forest plot (:func:`iaa_frames.plot.forest`): its grid of panels (two a
row at 3.5 in), its height (the rows, the legend and x label, the note under them), and the
rows it holds within a page when its height is not given."""

from __future__ import annotations

import math

from . import style

__all__ = ["figure", "grid", "name_columns", "rows_that_fit"]

_MIN_PANEL = 1.15  # inches: narrowest readable panel
_TITLED_PANEL = 1.0  # inches a panel keeps for its title ("classification α" at 9 pt)
_COLUMN = 0.058  # inches a column of a row's name (7.5 pt; a CJK character takes two)

#: Tallest forest drawn by default (inches; a page's text height is about 9 in, and a
#: one-column figure twice its width at the most).
_MAX_HEIGHT = 8.0
_ROW = 0.17  # inches a row of a panel
_PANEL_ROOM = 0.45  # inches of a grid row besides its rows: title, tick labels
_FIXED_ROOM = 0.95  # inches of the figure besides the grid rows and the note: legend, x label


def grid(n_panels, width):
    """``(width, columns, rows)`` of the grid of ``n_panels`` panels at ``width`` inches."""
    width = style.figure_width(width, style.WIDTH)
    label_room = 0.9
    ncols = max(1, min(n_panels, int((width - label_room) // _MIN_PANEL)))
    return width, ncols, math.ceil(n_panels / ncols)


def name_columns(n_panels, width) -> int:
    """The most columns (:func:`iaa_frames.plot.style.columns`) of a row's name: those the
    grid's first panel leaves for the names beside it, when every panel keeps room for its
    title (32-character names at 3.5 in left two panels of 0.6 in: their titles overlapped
    and ran past the right edge), and :data:`iaa_frames.plot.style.NAME_CHARS` at most.

    Examples
    --------
    >>> name_columns(5, 3.5), name_columns(5, 7.0)
    (21, 30)
    """
    w, ncols, _ = grid(n_panels, width)
    room = w - ncols * _TITLED_PANEL - 0.25  # the ticks, and the layout's pads
    return max(12, min(style.NAME_CHARS, int(room / _COLUMN)))


def rows_that_fit(n_panels, width, note_text) -> int:
    """Rows (besides "(all)") a default-height forest holds within :data:`_MAX_HEIGHT`."""
    w, _, nrows = grid(n_panels, width)
    cap = min(_MAX_HEIGHT, max(4.5, 2 * w))
    room = cap - _FIXED_ROOM - style.note_room(w, note_text) - (0.2 if note_text else 0)
    return int((room / nrows - _PANEL_ROOM) // _ROW) - 1


def figure(n_panels, n_rows, width, height, note_text=""):
    """A constrained-layout figure and its panels (sharing their y axis) for ``n_rows``
    rows; ``height`` None: as tall as the rows, the legend, the x label and the note."""
    width, ncols, nrows = grid(n_panels, width)
    per_grid_row = _PANEL_ROOM + _ROW * n_rows
    if height is None:  # the panels, the legend and x label, and the note under them
        note = style.note_room(width, note_text) + (0.2 if note_text else 0.0)
        height = _FIXED_ROOM + nrows * per_grid_row + note
    fig = style.figure(figsize=(width, height), layout="constrained")
    spec = fig.add_gridspec(nrows, ncols)
    axes = []
    for k in range(n_panels):
        r, c = divmod(k, ncols)
        share = axes[0] if axes else None
        axes.append(fig.add_subplot(spec[r, c], sharey=share))
    return fig, axes
