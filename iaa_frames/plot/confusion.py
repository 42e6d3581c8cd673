"""Label confusion matrix of matched pairs, with Krippendorff's α of the labels beside it."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.confusion import confusion as confusion_table
from iaa_frames.settings.parameters import engine_kwargs, not_default

from . import style

__all__ = ["ALPHA_HEADER", "confusion"]

#: Names of more than 8 classes are written at 7 pt: about 0.06 in a character, 0.14 in
#: a row.
_TICK_PT, _CHAR_IN, _ROW_IN = 7, 0.06, 0.14
#: The most characters of a class name the grid writes (its names run along both axes).
_NAME_CHARS = 20


def _name(name) -> str:
    return style.short_name(name, _NAME_CHARS)


_MAX_ANNOTATED = 15  # classes above which cell counts are not written

#: The header of the α column: Krippendorff's α of the pairs' labels (chance from the
#: labels' own frequencies), not the classification α of the tables.
ALPHA_HEADER = "Kripp. α"


def _is_confusion(data) -> bool:
    return (
        isinstance(data, pd.DataFrame)
        and "n_pairs" in data.attrs
        and list(data.index) == list(data.columns)
    )


def confusion(
    data,
    *,
    reference: str | None = None,
    annotator: str | None = None,
    top: int | None = 12,
    width: float | None = None,
    ax=None,
    cmap: str = "Blues",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Heatmap of the label confusion of matched pairs; binary α per class beside it.

    Each cell's text is the count of matched pairs. Off the diagonal, its shade is its
    share of the row's pairs whose labels differ (where the row's class ends up on the
    column side when the two disagree); the diagonal (pairs that agree) is grey, so that
    a few conflicts among many agreeing pairs stay visible. Beside each row, under the
    header "Kripp. α", Krippendorff's α of the pairs' labels for the class (binary α of
    {class, other}, chance from the labels' own frequencies: not the classification α of
    the agreement tables, whose chance is the labels of unrelated objects); below them,
    the pooled nominal α ("all"). Only the ``top`` classes are drawn, those in the most label conflicts first,
    then by support (pairs in their row and column); a note says how many were left out.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        The counts of :func:`iaa_frames.explore.confusion.confusion` (``normalize=False``), or
        an annotation frame / pair tables from which they are computed with
        ``reference``, ``annotator`` and ``**kwargs``.
    reference, annotator : str, optional
        See :func:`iaa_frames.explore.confusion.confusion`.
    top : int or None, default 12
    width : float, optional
        Figure width in inches when ``ax`` is not given (default: grows with the number
        of classes, up to 7).
    ax : matplotlib.axes.Axes, optional
    cmap : str, default "Blues"
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when computed here.

    Returns
    -------
    matplotlib.axes.Axes
        The shaded cells have ``gid="confusion"``, the grey diagonal ``gid="agreeing"``,
        cell texts ``gid="count"``, α texts ``gid="alpha"`` (the pooled one
        ``gid="alpha_all"``, the header ``gid="alpha_header"``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, annotators={"gold": "perfect", "bob": "mislabeler"},
    ...                   seed=0)
    >>> ax = confusion(df, reference="gold", n_chance=50)
    >>> len([t for t in ax.texts if t.get_gid() == "alpha"])
    3
    """
    ax = style.checked_ax(ax)
    top = views.check_top(top)
    if _is_confusion(data):
        if not_default(locals()) or reference is not None or annotator is not None:
            raise ParameterError(
                "reference, annotator and engine keywords only apply when "
                "the confusion matrix is computed here"
            )
        if data.attrs.get("normalize"):
            raise ParameterError(
                "pass the counts (normalize=False): the figure shows counts and shades by row share"
            )
        table = data
    else:
        table = confusion_table(
            data, reference=reference, annotator=annotator, **engine_kwargs(locals())
        )
    counts = table.to_numpy(dtype=float)
    support = counts.sum(axis=0) + counts.sum(axis=1)
    off = counts - np.diag(np.diag(counts))  # pairs whose two labels differ
    conflicts = off.sum(axis=0) + off.sum(axis=1)
    names = [str(x) for x in table.index]
    # the classes in conflicts first (most first), then by support: the top classes by
    # support alone agreed on every pair in LVIS, and hid its label conflicts
    order = sorted(range(len(names)), key=lambda i: (-conflicts[i], -support[i], names[i]))
    keep = order if top is None else order[:top]
    # the rows the figure holds: the grid is square, in what the names (rows at its
    # left, upright columns under it), the α column, the title and the x label leave; a row
    # of 7 pt names needs about 0.14 in (20 LVIS classes at 3.5 in overlapped, the y label
    # was cut at the left edge)
    longest = max((style.columns(_name(names[i])) for i in keep), default=0)
    if ax is None:
        # names beyond 12 characters (up to _NAME_CHARS) widen the figure by their
        # excess: a 1,000-character class (the frame's limit) collapsed the grid
        base = min(7.0, 2.4 + 0.55 * len(keep) + _CHAR_IN * max(0, longest - 12))
        fw = style.figure_width(width, base)
        fh = min(7.0, 1.9 + 0.5 * len(keep) + _CHAR_IN * max(0, longest - 12)) * fw / base
        if longest > 12:  # the names' room is not scaled with the width: the square grid
            # keeps what the row names and the α column leave of it (fw - names - 0.75),
            # and the height adds the column names and the title and x label (1.2)
            fh = max(fh, min(7.0, fw + 0.45))
    else:
        pos = ax.get_position()
        fw, fh = pos.width * ax.figure.get_figwidth(), pos.height * ax.figure.get_figheight()
    # the title and the x label wrapped to the room right of the row names (about 13
    # characters an inch): at 3.5 in one line ran past both edges of the figure; their
    # lines beyond the first two make the figure taller (else they took room from the grid)
    chars = max(24, int((fw - _CHAR_IN * longest - 0.5) * 13))
    n_off = int(off.sum())
    if counts.sum():  # pairs whose labels differ (a symmetric table counts both orders)
        n_off = int(round(n_off * table.attrs.get("n_pairs", counts.sum()) / counts.sum()))
    title = textwrap.fill(
        f"labels of {table.attrs.get('n_pairs', 0):,} matched pairs, {n_off:,} with different "
        "labels",
        chars,
    )
    shade = textwrap.fill(
        "(shade: share of the row's pairs with another label; grey: same label)", chars
    )
    extra = 0.15 * (title.count("\n") + shade.count("\n"))
    side = min(fw - _CHAR_IN * longest - 0.75, fh - _CHAR_IN * longest - 1.2)
    fit = max(2, int(side / _ROW_IN))
    if len(keep) > fit:
        keep, top = keep[:fit], fit
    keep = sorted(keep, key=lambda i: names[i])  # alphabetical, as every other figure
    hidden = len(names) - len(keep)
    sub = counts[np.ix_(keep, keep)]
    shown = [names[i] for i in keep]
    n = max(len(shown), 1)
    w = fw
    # the size reckoned above, with the room of the longest name (the rows' names at the
    # left, the columns' under the grid): a size of the number of classes alone left none
    # for them, and 20-character names at 3.5 in collapsed the layout
    ax = style.new_axes(ax, (fw, fh + extra))
    # the shade of a cell off the diagonal: its share of the row's pairs with another
    # label (where the row's class goes when the two differ); the diagonal (pairs that
    # agree) is not shaded, its count written: it would outshine every conflict
    row_off = off[keep].sum(axis=1, keepdims=True)
    sub_off = sub - np.diag(np.diag(sub))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(row_off > 0, sub_off / np.where(row_off > 0, row_off, 1), np.nan)
    share[np.diag_indices_from(share)] = np.nan
    colormap = plt.get_cmap(cmap).with_extremes(bad="0.93")
    edges = np.arange(len(shown) + 1) - 0.5  # vector cells (no raster in SVG exports)
    ax.pcolormesh(
        edges, edges, np.ma.masked_invalid(share), cmap=colormap, vmin=0, vmax=1, gid="confusion"
    )
    diag = np.eye(len(shown), dtype=bool)
    ax.pcolormesh(edges, edges, np.ma.masked_where(~diag, np.ones(diag.shape)),
                  cmap=ListedColormap(["0.85"]), gid="agreeing")  # fmt: skip
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[-1], edges[0])
    ax.set_aspect("equal")
    if len(shown) <= _MAX_ANNOTATED and side / len(shown) >= 0.22:  # room for "1,234"
        small = "x-small" if len(shown) > 6 else "small"
        for i in range(len(shown)):
            for j in range(len(shown)):
                s = share[i, j]
                color = "white" if np.isfinite(s) and s > 0.55 else "0.15"
                if i != j and not sub[i, j]:
                    color = "0.7"  # no conflict: a faint 0, the conflicts stand out
                ax.text(
                    j,
                    i,
                    f"{int(sub[i, j]):,}",
                    ha="center",
                    va="center",
                    fontsize=small,
                    color=color,
                    fontweight="bold" if i != j and sub[i, j] else "normal",
                    gid="count",
                )
    # upright when a label is wider than its column (about 0.065 in a character at 8 pt;
    # the grid takes about 0.7 of the width): 12 four-character classes at 3.5 in overlapped
    written = [_name(x) for x in shown]
    upright = max(map(style.columns, written), default=0) * 0.065 > 0.7 * w / n
    ax.set_xticks(
        range(len(shown)),
        written,
        rotation=90 if upright else 0,
        ha="right" if upright else "center",
        va="center" if upright else "top",
        rotation_mode="anchor",
    )
    ax.set_yticks(range(len(shown)), written)
    tight = len(shown) > 8 and side / len(shown) < 0.2  # small names only where rows are
    ax.tick_params(length=0, labelsize=_TICK_PT if tight else None)
    for spine in ax.spines.values():
        spine.set_visible(False)
    alphas = table.attrs.get("alpha_by_label", {})

    def right_of_grid(text, y, dy, va, **kw):  # the α column, right of the grid
        return ax.annotate(text, xy=(1.0, y), xycoords=("axes fraction", "data"),
                           xytext=(6, dy), textcoords="offset points", ha="left", va=va,
                           fontsize="small", annotation_clip=False, **kw)  # fmt: skip

    for i, name in enumerate(shown):
        right_of_grid(style.fmt(alphas.get(name)), i, 0, "center", gid="alpha")
    # Krippendorff's α of the pairs' labels, named so: a bare "α" read as the tables'
    # classification α (chance from unrelated objects), which it is not
    right_of_grid(ALPHA_HEADER, -0.5, 3, "bottom", fontweight="bold", gid="alpha_header")
    # the pooled α on one line, as high as the column names: on two lines it reached down
    # to the x label, which a wide wrapped label ran under
    right_of_grid(f"all {style.fmt(table.attrs.get('alpha'))}", len(shown) - 0.5, -3, "top",
                  fontweight="bold", gid="alpha_all")  # fmt: skip
    ax.set_ylabel(f"label: {table.index.name}")
    ax.set_xlabel(f"label: {table.columns.name}\n{shade}")
    ax.set_title(
        title,
        loc="left",
        fontsize="medium",
        wrap=True,  # wrapped again where it would pass the figure's right edge
        pad=16,
    )  # above the α header (its "p" reaches down to the grid's top)
    if hidden:
        # wrapped to the width right of the Axes' left edge (past the row names), which
        # the note starts at: at 3.5 in it ran off the right edge
        chars = max(20, int((fw - _CHAR_IN * longest - 0.45) * 14))
        text = style.hidden_note(hidden, "classes", top, by="label conflicts, then matched pairs")
        style.note(ax, textwrap.fill(text, chars, subsequent_indent="  "))
    return ax
