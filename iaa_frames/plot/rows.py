"""Which rows (classes or annotators) a figure or table shows, and which it does not read.

One rule for the figures, their captions, the report's tables and its reading: when the
corpus has intervals, a class (or annotator) whose figures have none rests on too few
items to be read (its levels would be point estimates of a handful of units). It is
ranked after the classes that are read, so that the top rows of a figure are not classes
of one or two images, and a caption never names it as the highest or the lowest.
"""

from __future__ import annotations

import numpy as np

from iaa_frames.explore import views
from iaa_frames.frame.schema import ALL

__all__ = ["TRIAD", "has_intervals", "ranked", "unread"]

#: The components a class is read on.
TRIAD = ("detection", "classification", "localization")


def has_intervals(result) -> bool:
    """Whether the pooled cell has an interval (detection; else the first component)."""
    if "ci_low" not in result.data_vars or "ci_high" not in result.data_vars:
        return False
    comps = [str(c) for c in result["component"].values]
    comp = "detection" if "detection" in comps else comps[0]
    cell = {"component": comp, "label": ALL, "annotator": ALL}
    cell = {k: v for k, v in cell.items() if k in result.dims}
    lo, hi = float(result["ci_low"].sel(cell)), float(result["ci_high"].sel(cell))
    return bool(np.isfinite(lo) and np.isfinite(hi))


def unread(result, dim: str = "label", *, fixed: str = ALL) -> list[str]:
    """The coordinates of ``dim`` whose figures are not read.

    When the pooled cell has an interval, a coordinate with a finite value of
    detection, classification or localization that has no interval rests on fewer items
    than an interval needs (fewer than 4): it is not read. Without intervals in the
    corpus (``n_boot=0``) every coordinate is read.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    dim : {"label", "annotator"}, default "label"
    fixed : str, default "(all)"
        The coordinate of the other dimension.

    Returns
    -------
    list of str
        In the result's order, "(all)" never among them.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> unread(res)
    []
    """
    if not has_intervals(result):
        return []
    other = "annotator" if dim == "label" else "label"
    comps = [c for c in TRIAD if c in [str(v) for v in result["component"].values]]
    names = [str(v) for v in result[dim].values]
    sub = result.sel(component=comps, **{other: fixed}).transpose("component", dim, ...)
    values = sub["agreement"].values
    low = sub["ci_low"].values
    out = []
    for k, name in enumerate(names):
        if name == ALL:
            continue
        finite = np.isfinite(values[:, k])
        if finite.any() and not np.isfinite(low[finite, k]).all():
            out.append(name)
    return out


def ranked(result, along: str, top: int | None, *, fixed_dim: str, fixed: str = ALL):
    """The rows to show: "(all)", then the ``top`` coordinates of ``along`` by support
    (:func:`~iaa_frames.explore.views.top_by_support`), those that are read first
    (:func:`unread`).

    Returns
    -------
    shown : list of str
    n_hidden : int
        Coordinates (other than "(all)") left out.
    n_unread : int
        Coordinates not read (shown or not).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> ranked(res, "label", 1, fixed_dim="annotator")[0][0]
    '(all)'
    """
    top = views.check_top(top)
    at_fixed = result.sel({fixed_dim: [fixed]}).assign_coords({fixed_dim: [ALL]})
    every, _ = views.top_by_support(at_fixed, along, None)
    not_read = set(unread(result, along, fixed=fixed))
    others = [r for r in every if r != ALL]
    order = [r for r in others if r not in not_read] + [r for r in others if r in not_read]
    kept = order if top is None else order[:top]
    shown = ([ALL] if ALL in every else []) + kept
    return shown, len(others) - len(kept), len(not_read)


def by_note(n_unread: int, what: str = "classes") -> str:
    """How the rows are ranked, for :func:`~iaa_frames.plot.style.hidden_note`."""
    by = "support (localization n_units)"
    if n_unread:
        by += f"; {what} with an interval first"
    return by
