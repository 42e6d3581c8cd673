"""Shared look of the plots: palette, component colors, labels from attrs, truncation notes.

Every plotting function of :mod:`iaa_frames.plot` draws its artists with a ``gid`` so that
tests (and users post-processing a figure) can find them: ``"estimate"``, ``"ci"``,
``"raw_iou"``, ``"chance"``, ``"note"``, ``"stat"``, ``"ks_gap"``, ``"undefined"``.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.transforms import ScaledTranslation

from ..errors import ParameterError
from ..frame import ALL

__all__ = [
    "ANNOTATOR_PALETTE",
    "COMPONENTS",
    "PALETTE",
    "annotator_colors",
    "label_order",
    "theme",
    "component_color",
    "fmt",
    "fmt_p",
    "long_name",
    "new_axes",
    "note",
    "support",
    "symbol",
    "top_by_support",
]

#: The components in display order.
COMPONENTS = ("detection", "classification", "localization", "overall")

#: Seaborn palette used throughout (colorblind-safe).
PALETTE = "colorblind"

#: Diverging colormap for agreement values centred at chance (0).
DIVERGING = "vlag_r"

#: Colors of annotators, in order of their names (Paul Tol's colorblind-safe "muted"
#: scheme, reordered so that the first ones are the most distinct); distinct from the
#: component colors. Beyond nine annotators the colors repeat (markers still differ).
ANNOTATOR_PALETTE = ("#332288", "#CC6677", "#117733", "#44AA99", "#882255", "#999933",
                     "#AA4499", "#88CCEE", "#DDCC77")

#: Color of "(all)" (everybody) wherever annotators are drawn.
ALL_COLOR = "black"

#: Sizes for figures printed at 3.5 in (one column) to 7 in (full page width): 8 pt text.
RC = {"font.size": 8, "axes.titlesize": 9, "axes.labelsize": 8, "xtick.labelsize": 7.5,
      "ytick.labelsize": 7.5, "legend.fontsize": 7.5, "legend.title_fontsize": 8,
      "figure.titlesize": 9.5, "axes.titlepad": 4, "lines.linewidth": 1.3,
      "savefig.dpi": 200, "figure.dpi": 100, "svg.fonttype": "none"}

#: Default figure width in inches (full page width; 3.5 is one column).
WIDTH = 7.0

_SYMBOL = {"sigma": "σ", "alpha": "α"}
_GREY = "0.45"


def theme():
    """Context manager with the figure sizes of :data:`RC` (used around every plot).

    Examples
    --------
    >>> with theme():
    ...     import matplotlib.pyplot as plt
    ...     plt.rcParams["font.size"]
    8.0
    """
    return plt.rc_context(RC)


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
    names = sorted(n for n in dict.fromkeys(names) if n != ALL)
    out = {ALL: ALL_COLOR}
    out.update({n: ANNOTATOR_PALETTE[i % len(ANNOTATOR_PALETTE)] for i, n in enumerate(names)})
    return out


def label_order(data) -> list[str]:
    """The order of labels in every figure and table of a result: "(all)" first, then the
    classes by support (matched object pairs of the class, most first; ties by name).

    Parameters
    ----------
    data : xarray.Dataset or PairTables
        An agreement result (localization ``n_units`` of each class) or pair tables
        (matched within-item pairs whose two objects carry the class: the same count).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> label_order(res)[0], len(label_order(res)) == res.sizes["label"]
    ('(all)', True)
    """
    if hasattr(data, "corpus"):
        w = data.localization_within
        la, lb = w["label_a"].to_numpy(), w["label_b"].to_numpy()
        names = [str(v) for v in data.corpus.labels]
        count = np.bincount(la[la == lb], minlength=len(names))
        ranked = sorted(zip(names, count), key=lambda t: (-t[1], t[0]))
        return [ALL] + [n for n, _ in ranked]
    shown, _ = top_by_support(data, "label", None)
    return shown


def colors(n: int) -> list:
    """``n`` colorblind-safe colors (cycled beyond the palette's 10)."""
    base = sns.color_palette(PALETTE, 10)
    return [base[i % len(base)] for i in range(n)]


def component_color(component: str):
    """The fixed color of a component (the same in every figure)."""
    base = sns.color_palette(PALETTE, 10)
    index = {"detection": 0, "classification": 1, "localization": 2, "overall": 4}
    return base[index.get(component, 7)]


def symbol(measure: str) -> str:
    """'σ' for sigma, 'α' for alpha, the measure itself otherwise."""
    return _SYMBOL.get(str(measure), str(measure))


def long_name(obj, default: str) -> str:
    """The ``long_name`` attr of a DataArray / DataFrame column, else ``default``."""
    attrs = getattr(obj, "attrs", None) or {}
    name = attrs.get("long_name")
    return str(name) if name else default


def fmt(x, digits: int = 2) -> str:
    """A number for a label: ``0.82``, ``-0.10``, or ``n/a`` for NaN/None."""
    if x is None:
        return "n/a"
    x = float(x)
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}f}"


def fmt_p(p) -> str:
    """A p-value: ``p = 0.032``, ``p < 0.001`` or ``p = n/a``."""
    if p is None or not math.isfinite(float(p)):
        return "p = n/a"
    p = float(p)
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def check_top(top):
    """``top`` must be None or a positive integer."""
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ParameterError(f"top must be a positive integer or None; got {top!r}")
    return int(top)


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(f"{name} must be one of {tuple(choices)}; got {value!r}")
    return value


def support(result, dim: str):
    """Support of each coordinate of ``dim`` (``"label"`` or ``"annotator"``): its
    localization ``n_units`` (matched object pairs of that class / involving that
    annotator), with the other dimension at ``"(all)"``; where the result has no
    localization, the largest ``n_units`` over components. (Classification's ``n_units``
    of a class counts every pairable cluster, so it cannot rank classes.)"""
    other = "annotator" if dim == "label" else "label"
    n = result["n_units"]
    if other in n.dims:
        n = n.sel({other: ALL})
    if "component" in n.dims:
        comps = [str(c) for c in n["component"].values]
        n = n.sel(component="localization") if "localization" in comps \
            else n.max("component", skipna=True)
    return n.fillna(0)


def top_by_support(result, dim: str, top: int | None, *, keep_all: bool = True):
    """The coordinates of ``dim`` to show: ``"(all)"`` first (when ``keep_all``), then the
    ``top`` others by support, descending (ties by name).

    Returns
    -------
    shown : list of str
    n_hidden : int
        How many coordinates (other than "(all)") were left out.
    """
    top = check_top(top)
    s = support(result, dim)
    names = [str(v) for v in s[dim].values]
    values = np.asarray(s.values, dtype=float)
    others = [(n, v) for n, v in zip(names, values) if n != ALL]
    others.sort(key=lambda t: (-t[1], t[0]))
    kept = [n for n, _ in others] if top is None else [n for n, _ in others[:top]]
    hidden = len(others) - len(kept)
    shown = ([ALL] if keep_all and ALL in names else []) + kept
    return shown, hidden


def hidden_note(n_hidden: int, what: str, top: int | None,
                by: str = "support (localization n_units)") -> str:
    """'+ 1,188 more labels not shown (top 12 by support ...)' or ''."""
    if n_hidden <= 0:
        return ""
    plural = what if n_hidden != 1 else what.rstrip("s")
    return f"+ {n_hidden:,} more {plural} not shown (top {top} by {by})"


def legend_below(ax, *, ncols: int | None = None, min_width: float = 1.0, **kwargs):
    """An Axes legend centred below the x label (all entries on as few rows as fit).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ncols : int, optional
        Default: as many as fit, ``min_width`` inches per entry.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.legend`.
    """
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if ncols is None:
        ncols = max(1, min(len(handles), int(ax.figure.get_figwidth() // min_width)))
    fig = ax.figure
    fig.canvas.draw()  # where the x label ends, below the axes
    renderer = fig.canvas.get_renderer()
    boxes = [ax.xaxis.label.get_window_extent(renderer)] if ax.get_xlabel() else []
    boxes += [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    axes_bottom = ax.get_window_extent(renderer).y0
    bottom = min((b.y0 for b in boxes), default=axes_bottom)
    # anchored that far below the axes in inches, not in axes fractions: the layout
    # engine then shrinks the axes to make room for the legend without moving the legend
    # onto the x label
    drop = (axes_bottom - bottom) / fig.dpi + 0.03
    anchor = ax.transAxes + ScaledTranslation(0, -drop, fig.dpi_scale_trans)
    return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0),
                     bbox_transform=anchor, ncols=ncols, frameon=False, borderaxespad=0.2,
                     **kwargs)


def note(target, text: str, *, below=None):
    """Write a small grey note under an Axes (below its x label, or below the artist
    ``below``, e.g. a legend) or at the bottom of a Figure (gid "note")."""
    if not text:
        return None
    if hasattr(target, "transAxes"):
        # below the x label (set the label first) or the given artist
        return target.annotate(text, xy=(0.0, 0.0), xycoords=("axes fraction",
                                                               below if below is not None
                                                               else target.xaxis.label),
                               xytext=(0, -4), textcoords="offset points", ha="left",
                               va="top", fontsize="small", color=_GREY, style="italic",
                               gid="note", annotation_clip=False)
    engine = target.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        # keep a strip at the bottom free of axes for the note
        try:
            engine.set(rect=(0, 0.3 / target.get_figheight(), 1,
                             1 - 0.3 / target.get_figheight()))
        except TypeError:  # a layout engine without rect
            pass
    return target.text(0.01, 0.005, text, ha="left", va="bottom", fontsize="small",
                       color=_GREY, style="italic", gid="note")


def new_axes(ax, figsize):
    """``ax`` itself, or a fresh Axes on a new Figure of ``figsize``."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def chance_line(ax, *, orientation: str = "vertical", label: str = "chance (0)"):
    """The reference line at 0 (chance agreement)."""
    kw = dict(color=_GREY, linestyle="--", linewidth=1, zorder=0, gid="chance", label=label)
    return ax.axvline(0, **kw) if orientation == "vertical" else ax.axhline(0, **kw)


def as_float(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def check_dataset(result, variables=("agreement",), *, sweep: bool = False):
    """``result`` must be the agreement Dataset; with a ``threshold`` dimension only where
    ``sweep`` (figures of one threshold say how to pick one)."""
    import xarray as xr

    if not isinstance(result, xr.Dataset):
        raise ParameterError("expected the agreement result (an xarray.Dataset from "
                             f"iaa_frames.engine); got {type(result).__name__}")
    if not sweep and "threshold" in result.dims:
        taus = [float(t) for t in result["threshold"].values]
        pick = taus[int(np.argmin(np.abs(np.asarray(taus) - 0.5)))]
        raise ParameterError(
            f"this result has a threshold dimension (τ = {', '.join(f'{t:g}' for t in taus)}); "
            f"this figure shows one threshold: select it first, e.g. "
            f"result.sel(threshold={pick:g}); plot.threshold_curve(result) draws every "
            "threshold")
    missing = [v for v in variables if v not in result.data_vars]
    if missing:
        raise ParameterError(f"the result lacks the variable(s) {missing}")
    return result


def measure_of(result, component: str) -> str:
    """The measure ("sigma"/"alpha") of ``component``."""
    if "measure" in result.coords:
        return str(result["measure"].sel(component=component).values)
    return "alpha" if component == "classification" else "sigma"


def grey() -> str:
    return _GREY


def component_frame(result, *, components, along: str, fixed_dim: str, fixed: str,
                    top: int | None):
    """Long-form agreement of ``components`` for the ``top`` entries of dim ``along``
    (by support, "(all)" first), at ``fixed_dim == fixed``: one row per (entry,
    component), columns ``along, component, measure, agreement, ci_low, ci_high,
    n_units``; ``attrs`` hold ``n_hidden``, ``top`` and the fixed coordinate."""
    check_dataset(result, ("agreement", "n_units"))
    available = [str(c) for c in result["component"].values]
    if isinstance(components, str):
        components = [components]
    components = list(components)
    unknown = [c for c in components if c not in available]
    if unknown or not components:
        raise ParameterError(f"unknown component(s) {unknown}; the result has {available}")
    if fixed not in [str(v) for v in result[fixed_dim].values]:
        raise ParameterError(f"unknown {fixed_dim} {fixed!r}")
    at_fixed = result.sel({fixed_dim: [fixed]}).assign_coords({fixed_dim: [ALL]})
    shown, hidden = top_by_support(at_fixed, along, top)
    sub = result.sel({"component": components, along: shown, fixed_dim: fixed})
    cols = [v for v in ("agreement", "ci_low", "ci_high", "n_units") if v in sub.data_vars]
    frame = sub[cols].to_dataframe().reset_index()
    for v in ("ci_low", "ci_high"):
        if v not in frame:
            frame[v] = np.nan
    frame["measure"] = [measure_of(result, c) for c in frame["component"]]
    order = {a: i for i, a in enumerate(shown)}
    corder = {c: i for i, c in enumerate(components)}
    frame = frame.iloc[np.lexsort((frame["component"].map(corder).to_numpy(),
                                   frame[along].map(order).to_numpy()))]
    frame = frame[[along, "component", "measure", "agreement", "ci_low", "ci_high",
                   "n_units"]].reset_index(drop=True)
    frame.attrs = {"n_hidden": hidden, "top": top, fixed_dim: fixed}
    return frame
