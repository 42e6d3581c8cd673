"""The Figure of every plot of :mod:`iaa_frames.plot` (:class:`ShownOnce`: Jupyter shows
it once), the checked ``width=`` and ``ax=`` every plot takes (:func:`figure_width`,
:func:`checked_ax`), its layout without rendering (:func:`laid_out`) and the
colour of names written as text (:func:`text_color`).

Re-exported by :mod:`iaa_frames.plot.style`.
"""

from __future__ import annotations

import numbers

import matplotlib.colors
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import Collection
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from iaa_frames.errors import ParameterError

from .fonts import glyphs_said_once

__all__ = [
    "MAX_WIDTH",
    "MIN_WIDTH",
    "ShownOnce",
    "checked_ax",
    "figure",
    "figure_width",
    "laid_out",
    "subplots",
    "text_color",
]

#: The narrowest figure a plot draws, in inches (a column is 3.5): narrower, its names,
#: notes and legends have no room and matplotlib's layout collapses ("constrained_layout
#: not applied because axes sizes collapsed to zero").
MIN_WIDTH = 3.0

#: The widest, in inches (a poster's width): a wider one is a width in pixels or points
#: by mistake, and a figure of millions of pixels.
MAX_WIDTH = 100.0


def figure_width(width, default: float) -> float:
    """The ``width=`` of a plot in inches (``default`` when None), checked before anything
    is drawn: a :class:`~iaa_frames.errors.ParameterError` for what is not a number in
    [:data:`MIN_WIDTH`, :data:`MAX_WIDTH`] (0, a negative or NaN width failed deep in the
    layout, as a singular matrix or a NaN that is not an integer, and left a figure open;
    2 in collapsed the layout of a heatmap, with a warning from matplotlib).

    Examples
    --------
    >>> figure_width(None, 7.0), figure_width(3.5, 7.0)
    (7.0, 3.5)
    """
    if width is None:
        return float(default)
    if isinstance(width, bool) or not isinstance(width, numbers.Real):
        ok = False
    else:
        ok = MIN_WIDTH <= float(width) <= MAX_WIDTH  # False for NaN
    if not ok:
        raise ParameterError(
            f"width must be the figure's width in inches, a number in [{MIN_WIDTH:g}, "
            f"{MAX_WIDTH:g}] (7 for a page, 3.5 for a column); got {width!r}"
        )
    return float(width)


def checked_ax(ax):
    """The ``ax=`` of a plot: None (a new figure) or a matplotlib Axes; a
    :class:`~iaa_frames.errors.ParameterError` otherwise (a Figure, an array of Axes).

    Examples
    --------
    >>> checked_ax(None) is None
    True
    """
    if ax is not None and not isinstance(ax, Axes):
        raise ParameterError(
            f"ax must be a matplotlib Axes (or None for a new figure); got {type(ax).__name__}"
            + (
                ": pass one of its Axes"
                if isinstance(ax, (Figure, list, tuple, np.ndarray))
                else ""
            )
        )
    return ax


#: The artists :func:`laid_out` hides while it measures, where they are clipped to their Axes.
_SHAPES = (Patch, Line2D, Collection, AxesImage)


class ShownOnce(Figure):
    """The Figure of every plot of :mod:`iaa_frames.plot`: a matplotlib Figure that Jupyter
    shows once, and that says once (drawn or measured) which of its texts have characters
    no installed font draws, instead of a warning per character and draw.

    In Jupyter a Figure returned by the last line of a cell is shown twice: as the cell's
    result and again by pyplot's inline backend, which shows every open figure after the
    cell. Shown as a result, this one is taken out of pyplot's figures first, so the
    backend does not show it again; a figure assigned to a name is shown once by the
    backend. Everywhere else it is a plain :class:`matplotlib.figure.Figure`.
    """

    #: Whether the figure said which of its texts have characters no font draws
    #: (:func:`iaa_frames.plot.fonts.glyphs_said_once`: once, not per character and draw).
    glyphs_said = False

    def __repr__(self) -> str:
        return super().__repr__().replace(type(self).__name__, "Figure", 1)

    def draw(self, renderer):
        with glyphs_said_once(self):
            return super().draw(renderer)

    def get_tightbbox(self, renderer=None, *args, **kwargs):
        with glyphs_said_once(self):
            return super().get_tightbbox(renderer, *args, **kwargs)

    def _ipython_display_(self):
        from IPython import get_ipython
        from IPython.display import publish_display_data

        shell = get_ipython()
        if shell is None:  # pragma: no cover - only called by IPython
            return
        manager = getattr(self.canvas, "manager", None)
        if manager is not None and plt.fignum_exists(manager.num):
            plt.close(self)  # pyplot's inline backend will not show it a second time
        data, metadata = {}, {}
        for mime, formatter in shell.display_formatter.formatters.items():
            if mime in shell.display_formatter.active_types:
                out = formatter(self)
                if out is not None:
                    if isinstance(out, tuple):
                        out, metadata[mime] = out
                    data[mime] = out
        publish_display_data(data, metadata=metadata)


def figure(**kwargs) -> Figure:
    """:func:`matplotlib.pyplot.figure` of a :class:`ShownOnce` figure."""
    return plt.figure(FigureClass=ShownOnce, **kwargs)


def subplots(*args, **kwargs):
    """:func:`matplotlib.pyplot.subplots` on a :class:`ShownOnce` figure."""
    return plt.subplots(*args, FigureClass=ShownOnce, **kwargs)


def laid_out(fig):
    """Lay ``fig`` out as drawing it does (the layout engine, titles, legends, text
    extents) without rendering a pixel (:meth:`~matplotlib.figure.Figure.draw_without_rendering`),
    and return the renderer that measures its artists.

    The artists drawn wholly inside their Axes (patches, lines, collections and images
    clipped to it: the shapes of a panel) are hidden meanwhile. No layout depends on them
    (matplotlib's own layout and tight boxes leave them out), and a panel of many
    polygons spends most of a layout pass drawing them.

    Examples
    --------
    >>> fig, ax = subplots(figsize=(2, 2), layout="constrained")
    >>> line, = ax.plot([0, 1], [0, 1])
    >>> title = ax.set_title("a title")
    >>> bool(laid_out(fig) is fig.canvas.get_renderer()), line.get_visible()
    (True, True)
    >>> plt.close(fig)
    """
    hidden = [a for ax in fig.axes for a in ax.get_children() if _inside_axes(a, ax)]
    for artist in hidden:
        artist.set_visible(False)
    try:
        fig.draw_without_rendering()
    finally:
        for artist in hidden:
            artist.set_visible(True)
    return fig.canvas.get_renderer()


def _inside_axes(artist, ax) -> bool:
    """Whether ``artist`` is a visible shape drawn wholly inside ``ax``: clipped to the
    Axes' box (or its patch) and to nothing else."""
    if not isinstance(artist, _SHAPES) or artist is ax.patch or not artist.get_visible():
        return False
    if not artist.get_clip_on():
        return False
    box = artist.get_clip_box()  # set from the Axes' rectangle when added to it
    return (
        box is not None
        and artist.get_clip_path() is None
        and bool((box.extents == ax.bbox.extents).all())
    )


def text_color(color) -> tuple:
    """``color`` for text on white: a light colour (e.g. the palette's sand and sky blue)
    is darkened until it reads (a contrast of at least 3:1 with white).

    Examples
    --------
    >>> text_color("#332288") == matplotlib.colors.to_rgb("#332288")
    True
    >>> round(_luminance(text_color("#DDCC77")), 2) <= 0.3
    True
    """
    rgb = matplotlib.colors.to_rgb(color)
    for _ in range(20):
        if _luminance(rgb) <= 0.3:  # (1.05) / (L + 0.05) >= 3
            break
        rgb = tuple(0.85 * c for c in rgb)
    return rgb


def _luminance(rgb) -> float:
    """WCAG relative luminance of an RGB triple in [0, 1]."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
