"""Annotator x annotator heatmap of one component."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import ParameterError
from ..pairs import PairTables
from . import _style

__all__ = ["pairwise", "pairwise_frame"]


def pairwise_frame(data, *, component: str = "localization", top: int | None = 30,
                   **kwargs) -> pd.DataFrame:
    """The annotator x annotator matrix as a square DataFrame.

    Parameters
    ----------
    data : xarray.DataArray, PairTables or pandas.DataFrame
        A 2-D DataArray (as returned by :func:`iaa_frames.engine.pairwise`; rows and
        columns are annotators), pair tables, or a tidy annotation frame, from which it
        is computed with :func:`~iaa_frames.engine.pairwise_from_tables` /
        :func:`~iaa_frames.engine.pairwise` (``component=component, **kwargs``).
    component : str, default "localization"
        Used only when the matrix is computed here.
    top : int or None, default 30
        Keep the ``top`` annotators by support (the sum of the ``n_units`` coordinate
        over their row and column when present, else the number of defined cells; ties
        by name); ``attrs["n_hidden"]`` counts the others.
    **kwargs
        Passed to the engine (``label``; for a frame also ``distance``, ``n_chance``, ...).

    Returns
    -------
    pandas.DataFrame
        Square, index and columns are annotators; ``attrs`` holds ``long_name``,
        ``component``, ``measure`` and ``n_hidden``.

    Examples
    --------
    >>> import xarray as xr
    >>> m = xr.DataArray([[np.nan, 0.5], [0.5, np.nan]], dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": ["a", "b"], "annotator_b": ["a", "b"]})
    >>> pairwise_frame(m).loc["a", "b"]
    np.float64(0.5)
    """
    top = _style.check_top(top)
    if isinstance(data, (pd.DataFrame, PairTables)):
        from ..engine import pairwise as _pairwise  # the engine (imported lazily)
        from ..engine import pairwise_from_tables

        if isinstance(data, PairTables):
            data = pairwise_from_tables(data, component=component, **kwargs)
        else:
            data = _pairwise(data, component=component, **kwargs)
    elif kwargs:
        raise ParameterError(f"unexpected keyword(s) {sorted(kwargs)}: they only apply "
                             "when data is an annotation frame or pair tables")
    if isinstance(data, xr.Dataset):
        if "agreement" not in data:
            raise ParameterError("a pairwise Dataset needs an 'agreement' variable")
        data = data["agreement"]
    if not isinstance(data, xr.DataArray) or data.ndim != 2:
        raise ParameterError("data must be a 2-D annotator x annotator DataArray or an "
                             f"annotation frame; got {type(data).__name__}")
    rows, cols = data.dims
    frame = pd.DataFrame(np.asarray(data.values, dtype=float),
                         index=pd.Index([str(v) for v in data[rows].values], name=rows),
                         columns=pd.Index([str(v) for v in data[cols].values], name=cols))
    if "n_units" in data.coords and data["n_units"].dims == data.dims:
        units = np.nan_to_num(np.asarray(data["n_units"].values, dtype=float))
        weight, by = units.sum(axis=1) + units.sum(axis=0), "support (n_units)"
    else:
        finite = np.isfinite(frame.to_numpy())
        weight, by = finite.sum(axis=1) + finite.sum(axis=0), "number of defined cells"
    order = sorted(range(len(frame.index)), key=lambda i: (-weight[i], frame.index[i]))
    if len(frame.index) == len(frame.columns) and list(frame.index) == list(frame.columns):
        keep = order if top is None else sorted(order[:top])
        hidden = len(frame.index) - len(keep)
        frame = frame.iloc[keep, keep]
    else:
        hidden = 0
    comp = str(data.attrs.get("component", component))
    if "component" in data.coords and data["component"].ndim == 0:
        comp = str(data["component"].values)
    measure = str(data.attrs.get("measure", "alpha" if comp == "classification" else "sigma"))
    if "measure" in data.coords and data["measure"].ndim == 0:
        measure = str(data["measure"].values)
    frame.attrs = {"long_name": _style.long_name(data, "agreement"), "component": comp,
                   "measure": measure, "n_hidden": hidden, "top": top, "ranked_by": by}
    return frame


def pairwise(data, *, component: str = "localization", top: int | None = 30,
             annot: bool | None = None, cmap: str = _style.DIVERGING, vmin: float = -1.0,
             vmax: float = 1.0, ax=None, **kwargs):
    """Annotator x annotator heatmap of a component's agreement.

    The colormap is diverging and centred at 0 (chance): blue cells agree beyond chance,
    red cells disagree systematically. The diagonal is empty.

    Parameters
    ----------
    data : xarray.DataArray, PairTables or pandas.DataFrame
        See :func:`pairwise_frame`.
    component : str, default "localization"
        Used when the matrix is computed here; the title uses the DataArray's
        ``component`` attr when it has one.
    top : int or None, default 30
        Show at most ``top`` annotators, by support; a note says how many were left out.
    annot : bool, optional
        Write the values in the cells (default: when at most 12 annotators are shown).
    cmap : str, default "vlag_r"
    vmin, vmax : float, default -1, 1
        Color limits; the colormap is centred at 0.
    ax : matplotlib.axes.Axes, optional
    **kwargs
        Passed to the engine when the matrix is computed here (see :func:`pairwise_frame`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import xarray as xr
    >>> m = xr.DataArray([[np.nan, 0.5], [0.5, np.nan]], dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": ["a", "b"], "annotator_b": ["a", "b"]},
    ...                  attrs={"long_name": "agreement"})
    >>> ax = pairwise(m)
    >>> ax.get_xlabel()
    'annotator_b'
    """
    import seaborn as sns

    frame = pairwise_frame(data, component=component, top=top, **kwargs)
    n = max(len(frame.index), 1)
    side = min(max(3.5, 0.45 * n + 2.0), 14.0)
    ax = _style.new_axes(ax, (side + 1.2, side))
    if annot is None:
        annot = n <= 12
    with warnings.catch_warnings():  # seaborn's own use of Colormap.set_bad
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        sns.heatmap(frame, ax=ax, cmap=cmap, center=0.0, vmin=vmin, vmax=vmax, annot=annot,
                    fmt=".2f", square=True, linewidths=0.5, linecolor="white",
                    mask=~np.isfinite(frame.to_numpy()),
                    cbar_kws={"label": f"{frame.attrs['long_name']} "
                                       f"({_style.symbol(frame.attrs['measure'])})"})
    ax.set_xlabel(frame.columns.name or "annotator")
    ax.set_ylabel(frame.index.name or "annotator")
    ax.tick_params(axis="y", labelrotation=0)
    ax.set_title(f"{frame.attrs['component']}: annotator x annotator")
    _style.note(ax, _style.hidden_note(frame.attrs["n_hidden"], "annotators",
                                       frame.attrs["top"], by=frame.attrs["ranked_by"]))
    return ax
