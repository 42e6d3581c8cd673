"""Annotator x annotator heatmap of one component.

Over 400 lines: the heatmap, the sizing of its names to its cells and its table
(:func:`pairwise_frame`) are one figure; both entry points write out their keywords and the
six engine parameters (explicit signatures for ``help()``, jedi and mypy).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.api import results
from iaa_frames.core.engine import pairwise_from_tables
from iaa_frames.core.engine.result import MEASURES
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params

from . import style
from .crowd import sharing_order

__all__ = ["heatmap_ticks", "names_that_fit", "pairwise", "pairwise_frame", "undefined_reason"]

#: Smallest cell side in inches: the annotator names beside it stay readable.
_MIN_CELL = 0.13


def _pairwise_frame(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 30,
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`pairwise_frame` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    top = views.check_top(top)
    if isinstance(data, PairTables):
        data = pairwise_from_tables(data, component=component, label=label)
    elif isinstance(data, pd.DataFrame):
        data = results.pairwise(data, settings, component=component, label=label)
    if isinstance(data, xr.Dataset):
        if "agreement" not in data:
            raise ParameterError("a pairwise Dataset needs an 'agreement' variable")
        data = data["agreement"]
    if not isinstance(data, xr.DataArray) or data.ndim != 2:
        raise ParameterError(
            "data must be a 2-D annotator x annotator DataArray, pair "
            f"tables or an annotation frame; got {type(data).__name__}"
        )
    rows, cols = data.dims
    notes = (
        np.asarray(data["note"].values, dtype=object)
        if "note" in data.coords and data["note"].dims == data.dims
        else np.full(data.shape, "", dtype=object)
    )
    frame = pd.DataFrame(
        np.asarray(data.values, dtype=float),
        index=pd.Index([str(v) for v in data[rows].values], name="annotator"),
        columns=pd.Index([str(v) for v in data[cols].values], name="annotator"),
    )
    units = None
    if "n_units" in data.coords and data["n_units"].dims == data.dims:
        units = np.nan_to_num(np.asarray(data["n_units"].values, dtype=float))
    by = "items shared with each other"
    if len(frame.index) == len(frame.columns) and list(frame.index) == list(frame.columns):
        kept = sharing_order(frame.to_numpy(dtype=float), units, list(frame.index), top=top)
        # shown in natural order of the names ("2" before "10"); all of them: in their order
        keep = kept if top is None else sorted(kept, key=lambda i: natural_key(frame.index[i]))
        hidden = len(frame.index) - len(keep)
        frame = frame.iloc[keep, keep]
        notes = notes[np.ix_(keep, keep)]
    else:
        hidden = 0
    comp = str(data.attrs.get("component", component))
    if "component" in data.coords and data["component"].ndim == 0:
        comp = str(data["component"].values)
    measure = str(data.attrs.get("measure", MEASURES.get(comp, "sigma")))
    if "measure" in data.coords and data["measure"].ndim == 0:
        measure = str(data["measure"].values)
    frame.attrs = {
        "long_name": style.long_name(data, "agreement"),
        "component": comp,
        "measure": measure,
        "label": str(data.attrs.get("label", label)),
        "n_hidden": hidden,
        "top": top,
        "ranked_by": by,
        "notes": notes,
    }
    return frame


@validate_params(engine=False)
def pairwise_frame(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 30,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """The annotator x annotator matrix as a square DataFrame.

    Parameters
    ----------
    data : xarray.DataArray, PairTables or pandas.DataFrame
        A 2-D DataArray (as returned by :func:`iaa_frames.pairwise`; rows and columns are
        annotators), pair tables, or a tidy annotation frame, from which it is computed
        (:func:`iaa_frames.api.results.pairwise`, cached) with ``component``, ``label`` and the parameters.
    component : str, default "localization"
        Used only when the matrix is computed here.
    label : str, default "(all)"
        Used only when the matrix is computed here.
    top : int or None, default 30
        Keep at most ``top`` annotators (None: all, in their order), chosen so that they share items
        (:func:`~iaa_frames.plot.crowd.sharing_order`: the pair of most shared units first, then, one at a time,
        the annotator with most defined cells with those already kept; in a sparse crowd
        the annotators of most support rarely meet, and their matrix is mostly empty);
        ``attrs["n_hidden"]`` counts the others.
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`, when ``data`` is a frame.

    Returns
    -------
    pandas.DataFrame
        Square, index and columns are annotators (named "annotator"); ``attrs`` holds
        ``long_name``, ``component``, ``measure``, ``label`` and ``n_hidden``.

    Examples
    --------
    >>> import xarray as xr
    >>> m = xr.DataArray([[np.nan, 0.5], [0.5, np.nan]], dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": ["a", "b"], "annotator_b": ["a", "b"]})
    >>> pairwise_frame(m).loc["a", "b"]
    np.float64(0.5)
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _pairwise_frame(data, component=component, label=label, top=top, settings=settings)


#: Tick names of a heatmap: at most this size (points), at least MIN_TICK_PT; below it,
#: every k-th name is written (as seaborn's ``xticklabels="auto"``).
MAX_TICK_PT, MIN_TICK_PT = 7.5, 5.0


def heatmap_ticks(ax, cell: float) -> float:
    """Size the names of a heatmap's rows and columns (one tick each, set on ``ax``) to
    cells ``cell`` inches wide: a line of text no taller than a cell (between
    :data:`MIN_TICK_PT` and :data:`MAX_TICK_PT`; narrower cells name every k-th row and
    column), the column names slanted at 45° when slanted neighbours stay apart, else
    upright.

    Returns
    -------
    float
        The size of the names in points.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> names = [f"annotator_{k:02d}" for k in range(40)]
    >>> _ = ax.set_xticks(range(40), names), ax.set_yticks(range(40), names)
    >>> heatmap_ticks(ax, 0.05), sum(t.get_visible() for t in ax.get_yticklabels())
    (5.0, 20)
    >>> plt.close(fig)
    """
    pitch = 72.0 * float(cell)  # points between neighbouring names
    line = 1.2  # a line of text, in its size
    size = max(MIN_TICK_PT, min(MAX_TICK_PT, pitch / line))
    step = max(1, math.ceil(line * size / max(pitch, 1e-9) - 1e-9))
    slanted = step == 1 and pitch * math.sqrt(0.5) >= line * size and size >= 6.0
    ax.tick_params(which="major", labelsize=size)
    for axis in (ax.xaxis, ax.yaxis):
        for k, t in enumerate(axis.get_ticklabels()):
            t.set_fontsize(size)
            t.set_visible(k % step == 0)
    for t in ax.get_xticklabels():
        if slanted:
            t.set(rotation=45, ha="right", va="top", rotation_mode="anchor")
        else:
            t.set(rotation=90, ha="center", va="top", rotation_mode="default")
    return size


def names_that_fit(ax) -> int:
    """How many annotator names a heatmap on ``ax`` fits (about 0.13 in each)."""
    room = ax.get_position().width * ax.figure.get_figwidth() - 0.2
    return max(2, int(room / _MIN_CELL))


def undefined_reason(frame: pd.DataFrame) -> str:
    """Why the undefined cells of a :func:`pairwise_frame` are missing, grouped by reason
    (:func:`~iaa_frames.plot.style.na_note`); "" when every pair is defined."""
    values = frame.to_numpy(dtype=float)
    notes = frame.attrs.get("notes")
    if notes is None:
        return ""
    ia, ib = (
        np.triu_indices(len(frame.index), k=1)
        if values.shape[0] == values.shape[1]
        else (np.indices(values.shape).reshape(2, -1))
    )
    where = [
        (f"{frame.index[i]}–{frame.columns[j]}", notes[i, j])
        for i, j in zip(ia, ib)
        if not np.isfinite(values[i, j])
    ]
    return style.na_note(where, limit=4)


def _pairwise(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 30,
    annot: bool | None = None,
    cmap: str = style.DIVERGING,
    vmin: float | None = None,
    vmax: float = 1.0,
    width: float | None = None,
    ax=None,
    colorbar: bool = True,
    caption: str = "",
    settings: MatchSettings = DEFAULTS,
):
    """:func:`pairwise` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    ax = style.checked_ax(ax)
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle

    engine = settings.as_kwargs()  # the engine keywords, to pass on
    frame = pairwise_frame(
        data,
        component=component,
        label=label,
        top=top,
        **engine,
    )
    n = max(len(frame.index), 1)
    own = ax is None  # the figure is ours: its height follows the panel
    if ax is None:
        w = style.figure_width(width, min(max(3.5, 0.32 * n + 1.6), 7.0))
        room = w - 1.9  # inches left for the cells (names, colour bar)
    else:
        w = None
        room = ax.get_position().width * ax.figure.get_figwidth() - 0.2
    fit = max(2, int(room / _MIN_CELL)) if own else names_that_fit(ax)
    more = len(frame.index) > fit and frame.attrs["n_hidden"] + len(frame.index) > fit
    if top is not None and more:  # None: every annotator, as given
        frame = pairwise_frame(data, component=component, label=label, top=fit, **engine)
        n = max(len(frame.index), 1)
    names = list(frame.index)
    values = frame.to_numpy(dtype=float)
    colors = style.annotator_colors(names)
    # names as every figure writes them, a long one cut at an ellipsis; in a figure of
    # ours, to a width that leaves the cells their room (names of 80 characters squeezed a
    # 3.5 in panel to nothing: "constrained_layout not applied")
    limit = min(style.NAME_CHARS, max(12, int(5.5 * w))) if own else style.NAME_CHARS
    shown = {a: style.short_name(a, limit) for a in [*frame.index, *frame.columns]}
    with style.theme():
        if ax is None:
            # square cells: as tall as the cells and the names below them (about 0.55 em a
            # character, slanted or upright), the title and a line of the x label
            longest = max((style.columns(shown[c]) for c in frame.columns), default=1)
            names_in = 0.55 * longest * min(7.5, 72 * room / n / 1.2) / 72
            h = room * len(frame.index) / max(len(frame.columns), 1) + names_in + 0.75
            fig, ax = style.subplots(figsize=(w, h), layout="compressed")
            fig.get_layout_engine().set(w_pad=0.06, h_pad=0.06)  # room for the y label
        if annot is None:  # values written when the cells have room for "0.82"
            annot = n <= 12 and room / n >= 0.24
        cm = plt.get_cmap(cmap).with_extremes(bad="white")
        finite = values[np.isfinite(values)]
        if vmin is None:
            vmin = max(min(-0.25, float(finite.min()) if finite.size else 0.0), style.FLOOR)
        norm = TwoSlopeNorm(vcenter=0.0, vmin=min(float(vmin), -1e-6), vmax=max(vmax, 1e-6))
        # vector cells (pcolormesh, not a raster image): sharp in print and in SVG
        image = ax.pcolormesh(
            np.arange(values.shape[1] + 1) - 0.5,
            np.arange(values.shape[0] + 1) - 0.5,
            np.ma.masked_invalid(values),
            cmap=cm,
            norm=norm,
        )
        ax.set_aspect("equal")
        ax.set_xlim(-0.5, values.shape[1] - 0.5)
        ax.set_ylim(values.shape[0] - 0.5, -0.5)
        image.set_gid("cells")
        diagonal = np.arange(n) if len(frame.index) == len(frame.columns) else []
        off = values[~np.eye(*values.shape, dtype=bool)] if values.size else values
        # no pair defined: a blank panel holding why (no "n/a" in every cell, no hatched
        # diagonal, no box drawn over cells)
        empty = bool(off.size) and not np.isfinite(off).any()
        for i in [] if empty else diagonal:
            ax.add_patch(
                Rectangle(
                    (i - 0.5, i - 0.5),
                    1,
                    1,
                    facecolor="0.88",
                    edgecolor="0.7",
                    hatch="////",
                    linewidth=0,
                    gid="diagonal",
                )
            )
        ax.set_xticks(
            range(len(frame.columns)),
            [shown[a] for a in frame.columns],
            rotation=45,
            ha="right",
            rotation_mode="anchor",
        )
        ax.set_yticks(range(len(frame.index)), [shown[a] for a in frame.index])
        for axis_names, ticks in ((frame.columns, ax.get_xticklabels()),
                                  (frame.index, ax.get_yticklabels())):  # fmt: skip
            for a, t in zip(axis_names, ticks):
                t.set_color(style.text_color(colors.get(a, "black")))
        heatmap_ticks(ax, room / n)  # sizes set before the layout, which makes room
        ax.set_xticks(np.arange(len(frame.columns) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(frame.index) + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=1.0)
        ax.tick_params(which="minor", length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        if annot and not empty:
            size = 7 if n <= 8 else 6
            for i in range(values.shape[0]):
                for j in range(values.shape[1]):
                    if i == j and len(diagonal):
                        continue
                    v = values[i, j]
                    dark = np.isfinite(v) and abs(float(norm(v)) - 0.5) > 0.3
                    ax.text(
                        j,
                        i,
                        style.fmt(v),
                        ha="center",
                        va="center",
                        fontsize=size,
                        color=("white" if dark else ("0.15" if np.isfinite(v) else style.grey())),
                        gid="value",
                    )
        ax.set_xlabel("annotator")
        ax.set_ylabel("annotator")
        what = f"{frame.attrs['component']} {views.symbol(frame.attrs['measure'])}"
        if frame.attrs.get("label", ALL) != ALL:
            what += f", label {frame.attrs['label']}"
        ax.set_title(f"{what}: pairs of annotators")
        if colorbar:
            cax = ax.inset_axes([1.04, 0.0, 0.045, 1.0])  # as tall as the cells
            below = bool(finite.size) and float(finite.min()) < norm.vmin
            cbar = ax.figure.colorbar(image, cax=cax, extend="min" if below else "neither")
            cbar.set_label(f"{frame.attrs['long_name']} ({views.symbol(frame.attrs['measure'])})")
            cbar.solids.set_edgecolor("face")  # no seams between the color bands
            cbar.solids.set_rasterized(False)
            cbar.ax.axhline(0, color="0.3", linewidth=0.6)
            # the lowest tick rounded towards 0, inside the norm: a tick below vmin (-0.26
            # for vmin -0.257) stretched the bar past the norm, which drew it empty
            low = math.ceil(float(norm.vmin) * 100) / 100
            cbar.set_ticks(sorted({low, 0.0, 0.5, float(norm.vmax)}))
        reason = undefined_reason(frame)
        if empty:
            # nothing to see: say why in the panel, and what to ask for instead
            other = {"localization": "detection"}.get(frame.attrs["component"], "localization")
            why = re.sub(r"\s*\(n=[^)]*\)", "", reason.split("\n")[0][len("n/a: ") :])
            box = (
                f"no pair has a defined {frame.attrs['component']} value: "
                f"{why.split(':')[0]}; try component={other!r}"
            )
            panel = ax.get_position().width * ax.figure.get_figwidth()  # inches
            style.panel_message(ax, box, chars=max(18, int(panel * 15)), gid="undefined")
        notes = [
            style.hidden_note(
                frame.attrs["n_hidden"],
                "annotators",
                frame.attrs["top"],
                by=frame.attrs["ranked_by"],
            ),
            reason,
            caption,
        ]
        text = "\n".join(n for n in notes if n)
        if own:
            # the square panel: no blank strip above it; the note under the figure, where
            # its width does not squeeze the panel (under the Axes it stood out to the
            # right of a narrow panel, and the layout shrank the panel to make room)
            fig = ax.figure
            fig.set_figheight(fig.get_figheight() + style.note_room(fig, text))
            style.note(fig, text)
        else:
            style.note(ax, text)
    return ax


@validate_params(engine=False)
def pairwise(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 30,
    annot: bool | None = None,
    cmap: str = style.DIVERGING,
    vmin: float | None = None,
    vmax: float = 1.0,
    width: float | None = None,
    ax=None,
    colorbar: bool = True,
    caption: str = "",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Annotator x annotator heatmap of a component's agreement.

    The colormap is diverging and centred at 0 (chance): blue cells agree beyond chance,
    red cells disagree systematically. The diagonal (an annotator with itself) is grey
    and hatched: it is not a value. Undefined cells are white and marked "n/a". Annotator
    names are in their colors of :func:`~iaa_frames.plot.annotator_colors`.

    Parameters
    ----------
    data : xarray.DataArray, PairTables or pandas.DataFrame
        See :func:`pairwise_frame`.
    component, label : str
        Used when the matrix is computed here; the title uses the DataArray's
        ``component`` attr when it has one.
    top : int or None, default 30
        Show at most ``top`` annotators, chosen so that they share items (see
        :func:`pairwise_frame`; fewer when the panel is too narrow for their names: about
        0.13 in each), in natural order of their names; a note says how many were left out.
        None: every annotator of ``data``, in its order (the names shrink to their cells).
    annot : bool, optional
        Write the values in the cells (default: when at most 12 annotators are shown and
        the cells are at least 0.24 in wide).
    cmap : str, default "vlag_r"
    vmin : float, optional
        Lowest color (default: the lowest value, at most -0.25 and at least -1; lower
        values take the lowest color, the colorbar a triangle). The colormap is centred
        at chance (0) with its two halves scaled apart, so that the range 0 to ``vmax``
        (where agreement usually lies) takes the whole blue half.
    vmax : float, default 1
    width : float, optional
        Figure width in inches when ``ax`` is not given (default: 3.5 up to 8 annotators,
        then wider).
    ax : matplotlib.axes.Axes, optional
    colorbar : bool, default True
    caption : str, default ""
        A line added to the note under the panel (which says why cells are "n/a").
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`, when ``data`` is a frame.

    Returns
    -------
    matplotlib.axes.Axes
        The cells are a mesh with ``gid="cells"``, the diagonal ``gid="diagonal"``.

    Examples
    --------
    >>> import xarray as xr
    >>> m = xr.DataArray([[np.nan, 0.5], [0.5, np.nan]], dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": ["a", "b"], "annotator_b": ["a", "b"]},
    ...                  attrs={"long_name": "agreement"})
    >>> ax = pairwise(m)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('annotator', 'annotator')
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _pairwise(
        data,
        component=component,
        label=label,
        top=top,
        annot=annot,
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        width=width,
        ax=ax,
        colorbar=colorbar,
        caption=caption,
        settings=settings,
    )
