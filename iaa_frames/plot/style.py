# Over 400 lines: the one place every figure takes its colors, line styles, markers, sizes
# and notes from (annotators told apart by color, then line style and marker, included).
"""The look of the plots: palette, component and annotator colors, sizes for print,
axis labels from attrs, number formats, legends and notes below an Axes. Style only: what
a figure shows comes from :mod:`iaa_frames.explore.views` and each module's ``*_frame``.
Every plot draws its artists with a ``gid`` that tests (and users post-processing a
figure) can find: ``"estimate"``, ``"ci"``, ``"raw_iou"``, ``"chance"``, ``"note"``,
``"stat"``, ``"ks_gap"``, ``"undefined"``, ``"off-scale"``.
"""

from __future__ import annotations

import contextlib
import math
import textwrap
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

import matplotlib
import matplotlib.pyplot as plt
import seaborn as sns
from matplotlib.colors import to_rgba
from matplotlib.font_manager import FontProperties
from matplotlib.layout_engine import ConstrainedLayoutEngine

from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL

from .figure import ShownOnce, checked_ax, figure, figure_width, subplots, text_color
from .fonts import columns, families
from .marks import FLOOR, GREY, na_marks, na_note, off_scale, off_scale_note, value_range

__all__ = [
    "ALL_COLOR",
    "ANNOTATOR_LINESTYLES",
    "ANNOTATOR_MARKERS",
    "ANNOTATOR_PALETTE",
    "AnnotatorStyle",
    "DIVERGING",
    "FLOOR",
    "PALETTE",
    "RC",
    "WIDTH",
    "ShownOnce",
    "annotator_colors",
    "annotator_styles",
    "cell_width",
    "chance_line",
    "checked_ax",
    "colors",
    "columns",
    "figure",
    "figure_width",
    "component_color",
    "fmt",
    "fmt_p",
    "grey",
    "hidden_note",
    "safe_name",
    "short_name",
    "legend_below",
    "legend_columns",
    "long_name",
    "na_marks",
    "na_note",
    "new_axes",
    "note_height",
    "note_lines",
    "note_room",
    "note",
    "off_scale",
    "off_scale_note",
    "subplots",
    "text_color",
    "theme",
    "value_range",
]

#: Seaborn palette used throughout (colorblind-safe).
PALETTE = "colorblind"

#: Diverging colormap for agreement values centred at chance (0).
DIVERGING = "vlag_r"

#: Colors of annotators, in order of their names (Paul Tol's colorblind-safe "muted"
#: scheme, reordered so that the first ones are the most distinct); distinct from the
#: component colors. Beyond nine annotators the colors repeat (markers still differ; line
#: styles in the item figure: :func:`annotator_styles`).
ANNOTATOR_PALETTE = (
    "#332288",
    "#CC6677",
    "#117733",
    "#44AA99",
    "#882255",
    "#999933",
    "#AA4499",
    "#88CCEE",
    "#DDCC77",
)

#: Line styles that tell apart annotators of one color in the figures that outline their
#: shapes (:func:`iaa_frames.plot.item`): the first annotator of a color is solid, the next
#: ones (the palette's second, third, fourth round) dotted, dash-dot and dash-dot-dot, so
#: that 36 annotators differ; beyond, the styles repeat. Plain dashes are not among them:
#: the item figure dashes the outline of an unmatched object.
ANNOTATOR_LINESTYLES = (
    "-",
    (0, (1, 1.3)),
    (0, (3.5, 1.5, 1, 1.5)),
    (0, (3.5, 1.2, 1, 1.2, 1, 1.2)),
)

#: Markers of points and keypoint joints, in the same rounds as
#: :data:`ANNOTATOR_LINESTYLES` (the first annotator of a color: a disc).
ANNOTATOR_MARKERS = ("o", "s", "^", "D")

#: Color of "(all)" (everybody) wherever annotators are drawn.
ALL_COLOR = "black"
#: One marker per component, in the figures that draw the four side by side.
COMPONENT_MARKERS = {"detection": "o", "classification": "s", "localization": "^", "overall": "D"}

#: Sizes for figures printed at 3.5 in (one column) to 7 in (full page width): 8 pt text.
RC = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "legend.title_fontsize": 8,
    "figure.titlesize": 9.5,
    "axes.titlepad": 4,
    "lines.linewidth": 1.3,
    "savefig.dpi": 200,
    "figure.dpi": 100,
    "svg.fonttype": "none",
}

#: Default figure width in inches (full page width; 3.5 is one column).
WIDTH = 7.0

_GREY = GREY


def theme():
    """Context manager with the figure sizes of :data:`RC` (used around every plot).

    Examples
    --------
    >>> with theme():
    ...     import matplotlib.pyplot as plt
    ...     plt.rcParams["font.size"]
    8.0
    """
    return _theme()


@contextlib.contextmanager
def _theme():
    # pyplot loads its backend on the first figure, inside this context; in Jupyter the
    # inline backend then turns interactive mode on, which rc_context would undo on exit
    # (and the inline backend would stop showing figures): interactive mode is kept
    # the default font, then the CJK fonts installed (a class named in Chinese is drawn,
    # not as boxes, where one is)
    with plt.rc_context({**RC, "font.family": families()}):
        try:
            yield
        finally:
            interactive = matplotlib.is_interactive()
    matplotlib.interactive(interactive)


def _names(dim_values) -> list[str]:
    return [str(v) for v in dim_values if str(v) != ALL]


def annotator_colors(data) -> dict:
    """One fixed color per annotator of a result, the same in every figure.

    Parameters
    ----------
    data : xarray.Dataset, PairTables or sequence of str
        An agreement result (its ``annotator`` coordinate), pair tables (their
        annotators), or the annotator names. Colors follow the names' sorted order, so
        two results over the same annotators color them alike.

    Returns
    -------
    dict
        ``name -> color`` (``"(all)"`` -> black).

    Examples
    --------
    >>> annotator_colors(["ben", "ana"])
    {'(all)': 'black', 'ana': '#332288', 'ben': '#CC6677'}
    """
    if hasattr(data, "corpus"):
        names = [str(v) for v in data.corpus.annotators]
    elif hasattr(data, "coords") and "annotator" in data.coords:
        names = _names(data["annotator"].values)
    else:
        names = [str(v) for v in data]
    names = sorted((n for n in dict.fromkeys(names) if n != ALL), key=natural_key)
    out = {ALL: ALL_COLOR}
    out.update({n: ANNOTATOR_PALETTE[i % len(ANNOTATOR_PALETTE)] for i, n in enumerate(names)})
    return out


class AnnotatorStyle(NamedTuple):
    """How one annotator's shapes are drawn: :func:`annotator_styles`."""

    color: object
    linestyle: object
    marker: str
    #: The annotator's round of its color: 0 for the first annotator of a color (solid
    #: lines, discs), 1 for the next one, ...
    round: int


def annotator_styles(data) -> dict:
    """One color, line style and marker per annotator: annotators of one color (beyond
    the palette's nine, or in a mapping given by the user) differ in line style and marker.

    Parameters
    ----------
    data : mapping, xarray.Dataset, PairTables or sequence of str
        Annotator -> color (as :func:`annotator_colors` returns, or a user's own), or
        what :func:`annotator_colors` takes (the colors are then its colors).

    Returns
    -------
    dict
        ``name -> AnnotatorStyle(color, linestyle, marker, round)``, without ``"(all)"``.
        In the names' sorted order, the ``k``-th annotator of a color has the line style
        and marker ``k`` of :data:`ANNOTATOR_LINESTYLES` and :data:`ANNOTATOR_MARKERS`
        (cycled): the first annotator of each color is solid, with discs; annotators of
        distinct colors are all solid.

    Examples
    --------
    >>> styles = annotator_styles([f"w{i}" for i in range(12)])
    >>> styles["w0"].linestyle, styles["w9"].linestyle, styles["w9"].color == styles["w0"].color
    ('-', (0, (1, 1.3)), True)
    >>> annotator_styles({"a": "red", "b": "red", "c": "blue"})["b"].marker
    's'
    """
    colors = dict(data) if isinstance(data, Mapping) else annotator_colors(data)
    seen: dict = {}
    out = {}
    for name in sorted((n for n in colors if n != ALL), key=lambda n: natural_key(str(n))):
        key = to_rgba(colors[name])
        k = seen.get(key, 0)
        seen[key] = k + 1
        out[name] = AnnotatorStyle(
            colors[name],
            ANNOTATOR_LINESTYLES[k % len(ANNOTATOR_LINESTYLES)],
            ANNOTATOR_MARKERS[k % len(ANNOTATOR_MARKERS)],
            k,
        )
    return out


def colors(n: int) -> list:
    """``n`` colorblind-safe colors (cycled beyond the palette's 10)."""
    base = sns.color_palette(PALETTE, 10)
    return [base[i % len(base)] for i in range(n)]


def component_color(component: str):
    """The fixed color of a component (the same in every figure)."""
    base = sns.color_palette(PALETTE, 10)
    index = {"detection": 0, "classification": 1, "localization": 2, "overall": 4}
    return base[index.get(component, 7)]


def long_name(obj, default: str) -> str:
    """The ``long_name`` attr of a DataArray / DataFrame column, else ``default``."""
    attrs = getattr(obj, "attrs", None) or {}
    name = attrs.get("long_name")
    return str(name) if name else default


#: The most characters of a name (a label, an annotator) a figure writes: a longer one
#: (a frame allows 1,000) keeps its start and its end around an ellipsis.
NAME_CHARS = 32


#: Bidirectional classes of the explicit embedding, override and isolate controls
#: (U+202A-U+202E, U+2066-U+2069): in a figure's text (an SVG ``<text>`` the browser lays
#: out) one of them in a name reorders the rest of the tick label, title or legend entry.
_BIDI_CONTROLS = frozenset({"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"})


def safe_name(name) -> str:
    """``name`` as a figure may write it whole: without the bidirectional embedding,
    override and isolate controls (U+202A-U+202E, U+2066-U+2069), so that a name cannot
    reverse or reorder the text drawn after it (a right-to-left override in a class name
    wrote the rest of its tick label backwards in the report's SVG). Right-to-left
    letters are kept; tables and files keep the name as given.

    Examples
    --------
    >>> safe_name("car"), safe_name("evil\u202egnp.exe"), safe_name("\u2067שלום\u2069")
    ('car', 'evilgnp.exe', 'שלום')
    """
    text = str(name)
    if not any(unicodedata.bidirectional(ch) in _BIDI_CONTROLS for ch in text):
        return text
    return "".join(ch for ch in text if unicodedata.bidirectional(ch) not in _BIDI_CONTROLS)


def short_name(name, limit: int = NAME_CHARS) -> str:
    """``name`` as a figure writes it: at most ``limit`` columns (:func:`columns`: an East
    Asian wide character takes two), a longer name cut in the middle at an ellipsis (its
    start and end kept: names that differ at their end, as ``..._left`` and ``..._right``,
    stay apart), without bidirectional controls (:func:`safe_name`). Tables and files
    keep the full name.

    Examples
    --------
    >>> short_name("car"), short_name("x" * 40 + "_end")
    ('car', 'xxxxxxxxxxxxxxxxxxxxx…xxxxxx_end')
    >>> short_name("中文类别名称非常长的一个类别", 12)
    '中文类…类别'
    >>> short_name("\u202ecar")
    'car'
    """
    text = safe_name(name)
    if columns(text) <= limit:
        return text
    tail = limit // 3
    head, rest = _take(text, limit - tail - 1), _take(text[::-1], tail)[::-1]
    return head + "…" + rest


def _take(text: str, room: int) -> str:
    """The longest start of ``text`` at most ``room`` columns wide."""
    out = ""
    for ch in text:
        if columns(out + ch) > room:
            break
        out += ch
    return out


def fmt(x, digits: int = 2) -> str:
    """A number for a label: ``0.82``, ``-0.10``, ``0.00`` for -0.001 (never "-0.00"), or
    ``n/a`` for NaN/None."""
    if x is None:
        return "n/a"
    x = float(x)
    if not math.isfinite(x):
        return "n/a"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # never "-0.00"


def fmt_p(p) -> str:
    """A p-value: ``p = 0.032``, ``p < 0.001`` or ``p = n/a``."""
    if p is None or not math.isfinite(float(p)):
        return "p = n/a"
    p = float(p)
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def hidden_note(
    n_hidden: int, what: str, top: int | None, by: str = "support (localization n_units)"
) -> str:
    """'+ 1,188 more labels not shown (top 12 by support ...)' or ''."""
    if n_hidden <= 0:
        return ""
    plural = what if n_hidden != 1 else what.rstrip("s")
    return f"+ {n_hidden:,} more {plural} not shown (top {top} by {by})"


def legend_below(ax, *, ncols: int | None = None, min_width: float = 1.0, **kwargs):
    """The legend of ``ax`` below it, placed by the layout engine: a figure legend
    ``loc="outside lower center"`` when ``ax`` is the only Axes of a figure with a
    constrained (or compressed) layout; else an Axes legend outside its right edge (an
    Axes among others: the engine makes room there without knowing what is below).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ncols : int, optional
        Default: as many as fit, ``min_width`` inches per entry at the least, and the
        longest name's width per entry (estimated from its characters).
    **kwargs
        Passed to :meth:`matplotlib.figure.Figure.legend` (or the Axes').

    Returns
    -------
    matplotlib.legend.Legend or None
        None when ``ax`` has nothing to put in a legend.

    Examples
    --------
    >>> fig, ax = subplots(figsize=(3.5, 2.5), layout="constrained")
    >>> _ = ax.plot([0, 1], label="detection"), ax.plot([1, 0], label="localization")
    >>> legend_below(ax) in fig.legends
    True
    """
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    fig = ax.figure
    if ncols is None:
        ncols = legend_columns(labels, fig.get_figwidth(), min_width=min_width, **kwargs)
    engine = fig.get_layout_engine()
    alone = [a for a in fig.axes if a.get_visible()] == [ax]
    if alone and isinstance(engine, ConstrainedLayoutEngine):  # compressed is one too
        return fig.legend(handles, labels, loc="outside lower center", ncols=ncols,
                          frameon=False, **kwargs)  # fmt: skip
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                     frameon=False, borderaxespad=0.2, **kwargs)  # fmt: skip


def legend_columns(
    labels,
    width: float,
    *,
    min_width: float = 1.0,
    fontsize=None,
    handlelength: float = 2.0,
    columnspacing: float = 2.0,
    **_,
) -> int:
    """Columns of a legend of ``labels`` that fit ``width`` inches: an entry is its handle
    and spacing and about 0.55 em a column of its name (:func:`columns`), ``min_width``
    inches at the least.

    Examples
    --------
    >>> legend_columns(["detection", "localization"], 7.0)
    2
    >>> legend_columns(["no match by (✕ colour)", "36 annotators, one colour each"], 3.5,
    ...                fontsize="x-small")
    1
    """
    labels = [str(t) for t in labels]
    if not labels:
        return 1
    font = plt.rcParams["legend.fontsize"] if fontsize is None else fontsize
    em = FontProperties(size=font).get_size_in_points() / 72
    handle = handlelength + 0.8 + columnspacing
    entry = max(min_width, em * (handle + 0.55 * max(columns(t) for t in labels)))
    return max(1, min(len(labels), int(0.96 * width // entry)))


def _wrap(text: str, width: float, share: float = 1.0) -> str:
    # wrapped to ``share`` of the figure's ``width`` inches (about 15 columns of small
    # italic per inch: a wide CJK character takes two), so that a long note never widens
    # the layout
    chars = max(30, int(width * share * 15))
    return "\n".join(_fill(line, chars) for line in str(text).split("\n"))


def _fill(line: str, chars: int) -> str:
    """``line`` in lines of at most ``chars`` columns (:func:`columns`), the next ones
    indented by two spaces; a word wider than a line is cut."""
    pieces = []
    for word in line.split():
        while columns(word) > chars - 2:
            head = _take(word, chars - 2)
            pieces.append(head)
            word = word[len(head) :]
        pieces.append(word)
    lines, current = [], ""
    for piece in pieces:
        limit = chars - 2 if lines else chars
        if current and columns(current) + 1 + columns(piece) > limit:
            lines.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    return "\n  ".join([*lines, current])


def panel_message(ax, text: str, *, chars: int, gid: str):
    """Write ``text`` in the middle of ``ax``, wrapped at ``chars`` characters, small and
    dark grey (the panel of a figure with nothing to draw, saying why).

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> panel_message(ax, "nothing to draw " * 4, chars=30, gid="note").get_text().count("\\n")
    2
    >>> plt.close(fig)
    """
    return ax.text(
        0.5,
        0.5,
        textwrap.fill(text, chars, break_long_words=False),
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize="small",
        color="0.2",
        gid=gid,
    )


def note_lines(text: str, *, width: float) -> int:
    """Lines a note under an Axes (:func:`note`) of a figure ``width`` inches wide takes.

    Examples
    --------
    >>> note_lines("", width=7), note_lines("a note", width=7), note_lines("word " * 40, width=3.5)
    (0, 1, 6)
    """
    return _wrap(text, width, 0.75).count("\n") + 1 if text else 0


def note_height(text: str, width: float) -> float:
    """Inches a note under an Axes (:func:`note`) of a figure ``width`` inches wide takes,
    to make the figure that much taller; 0 for no note.

    Examples
    --------
    >>> note_height("", 7.0), note_height("a note", 7.0)
    (0.0, 0.25)
    """
    lines = note_lines(text, width=width)
    return 0.12 + 0.13 * lines if lines else 0.0


def note_room(fig, text: str) -> float:
    """Inches a note of the Figure (:func:`note`) takes at its bottom; 0 for no note.

    ``fig`` is the Figure, or its width in inches (to size a figure before making it).

    Examples
    --------
    >>> note_room(7.0, ""), note_room(7.0, "one line")
    (0.0, 0.25)
    """
    if not text:
        return 0.0
    width = float(fig) if isinstance(fig, (int, float)) else fig.get_figwidth()
    return 0.12 + 0.13 * (_wrap(text, width).count("\n") + 1)


def note(target, text: str, *, below=None, reserve: float = 0.0, width: float | None = None):
    """Write a small grey note under an Axes (below its x label, or below the artist
    ``below``, e.g. a legend) or at the bottom of a Figure (gid "note"); on a Figure,
    ``reserve`` inches more are kept free above the note (for a label placed there by
    hand).

    The note is wrapped to ``width`` inches (default: 0.75 of the figure's width under an
    Axes, which it starts at, right of the tick labels; all of it on a Figure), and again
    by matplotlib where a line would still run past the figure's right edge
    (``wrap=True``).
    """
    if not text:
        return None
    text = safe_name(text)  # the names a note quotes keep the text after them in place
    fig = target.figure if hasattr(target, "transAxes") else target
    # under an Axes the note starts at the Axes' left edge, right of the tick labels
    if width is None and hasattr(target, "transAxes") and not isinstance(fig, ShownOnce):
        # an Axes of the user's figure (ax=): as wide as its cell of the grid, not 0.75
        # of a figure whose other cells hold other panels (it ran across them)
        text = _wrap(text, cell_width(target), 0.75)
    elif width is None:
        text = _wrap(text, fig.get_figwidth(), 0.75 if hasattr(target, "transAxes") else 1.0)
    else:
        text = _wrap(text, width)
    look = {"ha": "left", "fontsize": "small", "color": _GREY, "style": "italic", "gid": "note",
            "wrap": True}  # fmt: skip
    if hasattr(target, "transAxes"):
        # below the x label (set the label first) or the given artist
        # (not below a figure's legend: the layout puts it at the figure's bottom, under
        # the Axes and its note)
        if below is not None and (below in fig.legends or _beside(below, target)):
            below = None  # nor below a legend right of the Axes: it ran over the panel
        at = below if below is not None else target.xaxis.label
        return target.annotate(text, xy=(0.0, 0.0), xycoords=("axes fraction", at),
                               xytext=(0, -4), textcoords="offset points", va="top",
                               annotation_clip=False, **look)  # fmt: skip
    engine = target.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        # keep a strip at the bottom free of axes for the note
        room = (note_room(target, text) + reserve) / target.get_figheight()
        try:
            engine.set(rect=(0, room, 1, 1 - room))
        except TypeError:  # a layout engine without rect
            pass
    return target.text(0.01, 0.005, text, va="bottom", **look)


def _beside(legend, ax) -> bool:
    """Whether ``legend`` is anchored right of ``ax`` (:func:`legend_below` of an Axes
    among others), not under it."""
    anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    return anchor.x0 >= 1.0


def cell_width(ax) -> float:
    """Inches of the columns of its grid that ``ax`` spans (the figure's width for the only
    Axes of a figure; its own width when it has no grid: an inset, an Axes placed by
    hand), the room of what is written under it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(1, 4, figsize=(8, 2))
    >>> cell_width(axes[0])
    2.0
    >>> plt.close(fig)
    """
    fig = ax.figure
    spec = ax.get_subplotspec()
    if spec is None:
        return float(ax.get_position().width * fig.get_figwidth())
    return float(fig.get_figwidth() * len(spec.colspan) / spec.get_gridspec().ncols)


def new_axes(ax, figsize):
    """``ax`` itself, or a fresh Axes on a new Figure of ``figsize``."""
    if ax is not None:
        return ax
    _, ax = subplots(figsize=figsize, layout="constrained")
    return ax


def chance_line(ax, *, orientation: str = "vertical", label: str = "chance (0)"):
    """The reference line at 0 (chance agreement)."""
    kw = dict(color=_GREY, linestyle="--", linewidth=1, zorder=0, gid="chance", label=label)
    return ax.axvline(0, **kw) if orientation == "vertical" else ax.axhline(0, **kw)


def grey() -> str:
    """The grey of chance lines, notes and undefined values."""
    return _GREY
