"""Text wrapped to a width measured by the renderer (not estimated in characters).

A title of parts ("img_00012  (640×480 px)", "632 unmatched (object, annotator)", "90 label",
…) is packed into lines no wider than its Axes: the first ``head`` parts on lines of their
own, the others joined by " · ", a part wider than the line broken between words (a word
wider than the line after a "/", "_", "-" or ".", and between characters only where a
part of it is still wider).
"""

from __future__ import annotations

import re
import weakref

from iaa_frames.errors import ParameterError

from .fonts import no_glyph_warnings

__all__ = ["figure_renderer", "fit_lines", "fitted_title_parts", "line_width", "lines_fit", "refit_title",
           "set_fitted_title"]  # fmt: skip

SEP = " · "


def figure_renderer(fig):
    """The renderer measuring ``fig``'s text: its canvas's (Agg and the backends built on
    it), else an Agg renderer of the figure's size and dpi (a canvas without one, e.g. a
    bare :class:`~matplotlib.figure.Figure` before it is shown)."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is not None:
        return get()
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(int(fig.bbox.width), int(fig.bbox.height), fig.dpi)


def line_width(text: str, prop, renderer) -> float:
    """Width in pixels of one line of ``text`` in the font ``prop``, as ``renderer`` draws
    it."""
    if not text:
        return 0.0
    with no_glyph_warnings():  # said once, when the figure is drawn
        width, _, _ = renderer.get_text_width_height_descent(text, prop, ismath=False)
    return float(width)


def lines_fit(lines, width: float, prop, renderer) -> bool:
    """Whether every line is at most ``width`` pixels wide."""
    return all(line_width(line, prop, renderer) <= width for line in lines)


def _break_word(word: str, width: float, prop, renderer) -> list[str]:
    """A word wider than ``width`` in pieces: after a "/", "_", "-" or "." where it has
    them (a file name breaks between its parts, "frames/" "cam_02/" "000123.jpg", not
    mid-part), and a part still too wide between characters."""
    parts = [p for p in re.split(r"(?<=[/_\-.])", word) if p]
    if len(parts) > 1:
        pieces, current = [], ""
        for part in parts:
            if line_width(part, prop, renderer) > width:
                if current:
                    pieces.append(current)
                    current = ""
                *whole, current = _break_chars(part, width, prop, renderer)
                pieces.extend(whole)  # its tail may take the next part
            elif current and line_width(current + part, prop, renderer) > width:
                pieces.append(current)
                current = part
            else:
                current += part
        return pieces + ([current] if current else [])
    return _break_chars(word, width, prop, renderer)


def _break_chars(word: str, width: float, prop, renderer) -> list[str]:
    pieces, current = [], ""
    for ch in word:
        if current and line_width(current + ch, prop, renderer) > width:
            pieces.append(current)
            current = ch
        else:
            current += ch
    return pieces + ([current] if current else [])


def _split(part: str, width: float, prop, renderer) -> list[str]:
    """``part`` as pieces no wider than ``width`` (whole when it fits)."""
    if line_width(part, prop, renderer) <= width:
        return [part]
    pieces, current = [], ""
    for word in part.split():
        broken = (
            [word]
            if line_width(word, prop, renderer) <= width
            else _break_word(word, width, prop, renderer)
        )
        for k, w in enumerate(broken):
            joined = f"{current} {w}" if current else w
            if k:  # the rest of a broken word: a line of its own, no space put in it
                pieces.append(current)
                current = w
            elif current and line_width(joined, prop, renderer) > width:
                pieces.append(current)
                current = w
            else:
                current = joined
    return pieces + ([current] if current else [])


def fit_lines(parts, width: float, prop, renderer, *, head: int = 1) -> list[str]:
    """``parts`` packed into lines at most ``width`` pixels wide in the font ``prop``.

    Parameters
    ----------
    parts : sequence of str
        The pieces of the text, in order.
    width : float
        The room, in pixels at the renderer's dpi.
    prop : matplotlib.font_manager.FontProperties
        The font of the text (e.g. ``ax.title.get_fontproperties()``).
    renderer
        The figure's renderer (``fig.canvas.get_renderer()``).
    head : int, default 1
        The first ``head`` parts each start a line of their own; the others are joined by
        " · " while the line fits.

    Returns
    -------
    list of str
        The lines (a part wider than ``width`` is broken between words).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = plt.figure(figsize=(2, 1))
    >>> renderer = fig.canvas.get_renderer()
    >>> prop = fig.text(0, 0, "", fontsize=8).get_fontproperties()
    >>> fit_lines(["img_1", "3 label", "2 low overlap"], 1000, prop, renderer)
    ['img_1', '3 label · 2 low overlap']
    >>> fit_lines(["img_1", "3 label", "2 low overlap"], 80, prop, renderer)
    ['img_1', '3 label', '2 low overlap']
    >>> plt.close(fig)
    """
    width = max(float(width), 1.0)
    lines: list[str] = []
    current = ""
    for i, part in enumerate(parts):
        pieces = _split(str(part), width, prop, renderer)
        if i < head:
            if current:
                lines.append(current)
                current = ""
            lines.extend(pieces)
            continue
        for piece in pieces:
            joined = f"{current}{SEP}{piece}" if current else piece
            if current and line_width(joined, prop, renderer) > width:
                lines.append(current)
                current = piece
            else:
                current = joined
    if current:
        lines.append(current)
    return lines


#: Axes -> the parts of its fitted title, and the lines drawn (see set_fitted_title).
_TITLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _room(ax, renderer, within: str) -> float:
    """Pixels of a line of the left title of ``ax``, which starts at the left edge of the
    Axes' drawn box: to the box's right edge (``within="box"``) or to its cell's
    (``"cell"``: the position the layout gave the Axes, before a fixed aspect narrows the
    box; a title fitted to the box of a portrait image would wrap, push the box down,
    narrow it, and wrap again)."""
    box = ax.get_window_extent(renderer)
    if within == "box":
        right = box.x1
    else:
        right = ax.get_position(original=True).transformed(ax.figure.transSubfigure).x1
    # a pixel spare for rounding, and 2 % for a layout drawn at another dpi (savefig)
    return 0.98 * (right - box.x0) - 1.0


def set_fitted_title(
    ax, parts, *, head: int = 1, fontsize="small", within: str = "box", renderer=None
):
    """Set the left title of ``ax`` to ``parts`` fitted to the width of the Axes (its box
    or its cell)
    (:func:`fit_lines`); :func:`refit_title` fits it again after the layout changes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    parts : sequence of str
    head : int, default 1
        Parts on lines of their own (see :func:`fit_lines`).
    fontsize : str or float, default "small"
        Resolved once, here (a relative size does not change with the rc settings of a
        later pass).
    within : {"box", "cell"}, default "box"
        The width fitted: the Axes' drawn box, or its cell in the layout (wider when a
        fixed aspect narrows the box).
    renderer : optional
        Default: the figure's.

    Returns
    -------
    matplotlib.text.Text
        The title.
    """
    title = ax.set_title(" ", loc="left", fontsize=fontsize)
    if renderer is None:
        renderer = figure_renderer(ax.figure)
    prop = title.get_fontproperties()
    if within not in ("box", "cell"):
        raise ParameterError(f"within must be 'box' or 'cell'; got {within!r}")
    lines = fit_lines(parts, _room(ax, renderer, within), prop, renderer, head=head)
    _TITLES[ax] = {"parts": list(parts), "head": head, "within": within, "lines": lines,
                   "extra": [], "text": "", "title": title}  # fmt: skip
    title.set_text("\n".join(lines))
    return title


def fitted_title_parts(ax) -> list[str] | None:
    """The parts of the title :func:`set_fitted_title` set on ``ax`` (None: none set)."""
    state = _TITLES.get(ax)
    return None if state is None else list(state["parts"])


def refit_title(ax, renderer, *, extra: str = "", move: bool = True) -> bool | None:
    """Fit the title of ``ax`` (set by :func:`set_fitted_title`) to its width again,
    with ``extra`` (e.g. "4 of 14 label tags left out (no room)") on lines of its own.

    Lines that still fit are kept (the wrapping changes only when a line no longer fits or
    ``extra`` changes), so that passes of a layout settle.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    renderer
    extra : str, default ""
    move : bool, default True
        False: a change of the number of lines (which moves the Axes) is not made.

    Returns
    -------
    bool or None
        Whether the title changed (the layout must be drawn again: a title's lines set the
        Axes' margins); None when ``ax`` has no fitted title.
    """
    state = _TITLES.get(ax)
    if state is None:
        return None
    title = state["title"]  # the loc="left" Text that set_title returned
    prop = title.get_fontproperties()
    width = _room(ax, renderer, state["within"])
    lines = state["lines"]
    if not lines_fit(lines, width, prop, renderer):
        lines = fit_lines(state["parts"], width, prop, renderer, head=state["head"])
    more = state["extra"]
    if extra != state["text"] or not lines_fit(more, width, prop, renderer):
        more = fit_lines([extra], width, prop, renderer) if extra else []
    text = "\n".join(lines + more)
    if text == title.get_text():
        return False
    if not move and len(lines) + len(more) != len(state["lines"]) + len(state["extra"]):
        return False
    state.update(lines=lines, extra=more, text=extra)
    title.set_text(text)
    return True
