"""Forest plot of agreement per label, one panel per component."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..frame import ALL
from . import _style

__all__ = ["agreement", "forest_frame"]


def forest_frame(result, *, components=None, annotator: str = ALL,
                 top: int | None = 20) -> pd.DataFrame:
    """The numbers of the forest plot, in long form.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result (DESIGN §6).
    components : sequence of str, optional
        Default: every component of the result.
    annotator : str, default "(all)"
        Whose figures to show.
    top : int or None, default 20
        Keep "(all)" and the ``top`` labels by support (their localization ``n_units``,
        see ``_style.support``); ``attrs["n_hidden"]`` counts the others.

    Returns
    -------
    pandas.DataFrame
        One row per (component, label): ``component``, ``measure``, ``label``,
        ``agreement``, ``ci_low``, ``ci_high``, ``raw_iou``, ``n_units``, ``note``; labels
        in display order.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> forest_frame(res, top=2)["label"].unique().tolist()
    ['(all)', 'bicycle', 'car']
    """
    _style.check_dataset(result, ("agreement", "n_units"))
    comps = _components(result, components)
    if annotator not in [str(a) for a in result["annotator"].values]:
        raise ParameterError(f"unknown annotator {annotator!r}")
    labels, hidden = _style.top_by_support(result.sel(annotator=annotator).expand_dims(
        annotator=[annotator]), "label", top)
    sub = result.sel(component=comps, label=labels, annotator=annotator)
    variables = [v for v in ("agreement", "ci_low", "ci_high", "raw_iou", "n_units", "note")
                 if v in sub.data_vars]
    frame = sub[variables].to_dataframe().reset_index()
    for v in ("ci_low", "ci_high", "raw_iou"):
        if v not in frame:
            frame[v] = np.nan
    if "note" not in frame:
        frame["note"] = ""
    frame["measure"] = [_style.measure_of(result, c) for c in frame["component"]]
    frame = frame[["component", "measure", "label", "agreement", "ci_low", "ci_high",
                   "raw_iou", "n_units", "note"]]
    frame.attrs = {"n_hidden": hidden, "top": top, "annotator": annotator}
    return frame


def _components(result, components):
    available = [str(c) for c in result["component"].values]
    if components is None:
        return [c for c in _style.COMPONENTS if c in available] + \
            [c for c in available if c not in _style.COMPONENTS]
    if isinstance(components, str):
        components = [components]
    unknown = [c for c in components if c not in available]
    if unknown:
        raise ParameterError(f"unknown component(s) {unknown}; the result has {available}")
    return list(components)


def agreement(result, *, components=None, annotator: str = ALL, top: int | None = 20,
              raw_iou: bool = True, axes=None, height: float | None = None,
              panel_width: float = 3.2):
    """Forest plot: agreement per label with bootstrap CIs, one panel per component.

    Each label is a dot at its agreement (σ or α) with whiskers from ``ci_low`` to
    ``ci_high`` (when the result was computed with ``n_boot > 0``); the dashed line at 0
    is chance. On the localization panel the uncorrected mean IoU of matched pairs
    (``raw_iou``) is drawn beside σ as a hollow diamond, to show how much raw IoU
    flatters. Undefined values (NaN) are written "n/a".

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result (DESIGN §6).
    components : sequence of str, optional
        Panels, in order; default every component.
    annotator : str, default "(all)"
    top : int or None, default 20
        "(all)" plus the ``top`` labels by support (localization ``n_units``: matched
        pairs of the class); a note at the bottom says how many labels were left out.
    raw_iou : bool, default True
        Draw ``raw_iou`` on the localization panel.
    axes : sequence of matplotlib Axes, optional
        One Axes per component to draw into; by default a new figure.
    height : float, optional
        Figure height in inches (default grows with the number of labels).
    panel_width : float, default 3.2
        Width of a panel in inches.

    Returns
    -------
    matplotlib.figure.Figure
        Points have ``gid="estimate"``, whiskers ``gid="ci"`` (a LineCollection, one
        segment per label with a finite CI), raw IoU ``gid="raw_iou"``, the chance line
        ``gid="chance"``, the truncation note ``gid="note"``.

    See Also
    --------
    forest_frame : the numbers drawn.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=20)
    >>> fig = agreement(res, components=["detection", "localization"])
    >>> [ax.get_title() for ax in fig.axes]
    ['detection (σ)', 'localization (σ)']
    """
    frame = forest_frame(result, components=components, annotator=annotator, top=top)
    comps = list(dict.fromkeys(frame["component"]))
    labels = list(dict.fromkeys(frame["label"]))
    if axes is None:
        h = height if height is not None else 1.4 + 0.32 * len(labels)
        fig, axes = plt.subplots(1, len(comps), figsize=(panel_width * len(comps), h),
                                 sharey=True, layout="constrained", squeeze=False)
        axes = axes[0]
    else:
        axes = list(np.ravel(axes))
        if len(axes) != len(comps):
            raise ParameterError(f"axes must hold {len(comps)} Axes (one per component); "
                                 f"got {len(axes)}")
        fig = axes[0].figure
    y_of = {lab: i for i, lab in enumerate(labels)}
    xlabel = _style.long_name(result["agreement"], "agreement")
    for ax, comp in zip(axes, comps):
        sub = frame[frame["component"] == comp]
        _panel(ax, sub, comp, y_of, raw_iou and comp == "localization")
        ax.set_title(f"{comp} ({_style.symbol(sub['measure'].iloc[0])})")
        ax.set_xlabel(xlabel)
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].set_ylim(len(labels) - 0.5, -0.5)
    axes[0].set_ylabel("label")
    if annotator != ALL:
        fig.suptitle(f"annotator {annotator}")
    raw_name = _style.long_name(result["raw_iou"], "raw IoU") if "raw_iou" in result else "raw IoU"
    has_ci = bool((np.isfinite(frame["ci_low"]) & np.isfinite(frame["ci_high"])).any())
    has_raw = raw_iou and bool(np.isfinite(
        frame.loc[frame["component"] == "localization", "raw_iou"]).any())
    if fig.get_layout_engine() is not None and hasattr(fig.get_layout_engine(), "set"):
        _legend(fig, has_ci, has_raw, raw_name)
    else:
        axes[0].legend(handles=_legend_handles(has_ci, has_raw, raw_name), fontsize="x-small")
    _style.note(fig, _style.hidden_note(frame.attrs["n_hidden"], "labels", top))
    return fig


def _panel(ax, sub, comp, y_of, with_raw):
    color = _style.component_color(comp)
    y = np.array([y_of[lab] for lab in sub["label"]], dtype=float)
    x = sub["agreement"].to_numpy(dtype=float)
    lo, hi = sub["ci_low"].to_numpy(dtype=float), sub["ci_high"].to_numpy(dtype=float)
    has_ci = np.isfinite(lo) & np.isfinite(hi)
    _style.chance_line(ax)
    if has_ci.any():
        ax.hlines(y[has_ci], lo[has_ci], hi[has_ci], color=color, linewidth=1.6, gid="ci")
    ok = np.isfinite(x)
    ax.plot(x[ok], y[ok], "o", color=color, markersize=6, gid="estimate")
    for yy in y[~ok]:
        ax.text(0.02, yy, "n/a", transform=ax.get_yaxis_transform(), va="center",
                fontsize="small", color=_style.grey(), gid="undefined")
    if with_raw:
        r = sub["raw_iou"].to_numpy(dtype=float)
        fin = np.isfinite(r)
        if fin.any():
            ax.plot(r[fin], y[fin] + 0.25, "D", markerfacecolor="none",
                    markeredgecolor=_style.grey(), markersize=5, gid="raw_iou")
    if 0 in y:  # separate "(all)" from the classes
        ax.axhline(0.5, color="0.85", linewidth=0.8, zorder=0)
    finite = np.concatenate([x[ok], lo[has_ci], hi[has_ci]])
    left = min(0.0, float(finite.min())) if finite.size else 0.0
    right = max(1.0, float(finite.max())) if finite.size else 1.0
    ax.set_xlim(left - 0.08, right + 0.05)
    ax.grid(axis="x", color="0.92")


def _legend_handles(with_ci, with_raw, raw_name):
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="none", color="0.2",
                      label="agreement (σ or α)")]
    if with_ci:
        handles.append(Line2D([], [], color="0.2", linewidth=1.6, label="95% bootstrap CI"))
    if with_raw:
        handles.append(Line2D([], [], marker="D", linestyle="none", markerfacecolor="none",
                              markeredgecolor=_style.grey(), label=f"{raw_name} (uncorrected)"))
    handles.append(Line2D([], [], color=_style.grey(), linestyle="--", label="chance (0)"))
    return handles


def _legend(fig, with_ci, with_raw, raw_name):
    handles = _legend_handles(with_ci, with_raw, raw_name)
    return fig.legend(handles=handles, loc="outside upper center", ncols=len(handles),
                      fontsize="small", frameon=False)
