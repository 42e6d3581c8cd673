# Over 400 lines: every table computed from a result Dataset for the report and the plots, in one
# place.
"""Views of the agreement result: the tables the report, the plots and ``res.iaa`` show.

Each view is computed from the result Dataset of :func:`iaa_frames.agreement` alone
(nothing is matched or sampled again); drawing and HTML are elsewhere.

==========================  ============================================================
:func:`headline`            the four components pooled over classes and annotators
:func:`by_label`            one row per class, one column group per component
:func:`by_annotator`        one row per annotator, one column group per component
:func:`component_frame`     long-form agreement of components along classes or
                            annotators (decomposition, annotator profiles)
:func:`support`             how many units back each class or annotator
:func:`top_by_support`      which classes or annotators to show, most supported first
:func:`label_order`         the order of classes in every figure and table of a result
:func:`cell_value`          one number of one cell (NaN where the result has none)
:func:`measure_of`          the measure of a component ("sigma" or "alpha")
:func:`symbol`              its symbol ("σ" or "α")
==========================  ============================================================

:func:`check_dataset`, :func:`check_top` and :func:`check_choice` are the argument checks
these views share with the plots.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.engine.result import MEASURES
from iaa_frames.errors import ParameterError
from iaa_frames.frame.names import natural_key
from iaa_frames.frame.schema import ALL

__all__ = [
    "SYMBOLS",
    "by_annotator",
    "by_label",
    "cell_value",
    "check_choice",
    "check_dataset",
    "check_top",
    "component_frame",
    "headline",
    "label_order",
    "measure_of",
    "support",
    "symbol",
    "top_by_support",
]

#: The symbol of each measure.
SYMBOLS = {"sigma": "σ", "alpha": "α"}


def check_top(top):
    """``top`` must be None or a positive integer.

    Examples
    --------
    >>> check_top(None), check_top(3)
    (None, 3)
    """
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ParameterError(f"top must be a positive integer or None; got {top!r}")
    return int(top)


def check_choice(name, value, choices):
    """``value`` when it is one of ``choices``; else an error naming ``name``.

    Examples
    --------
    >>> check_choice("kind", "hist", ("hist", "kde"))
    'hist'
    """
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(f"{name} must be one of {tuple(choices)}; got {value!r}")
    return value


def check_components(result, components) -> list[str]:
    """``components`` (one name or several) as a list, each a component of ``result``; a
    :class:`~iaa_frames.errors.ParameterError` naming the unknown ones.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=5, seed=0), n_chance=50, n_boot=0)
    >>> check_components(res, "overall")
    ['overall']
    """
    available = [str(c) for c in result["component"].values]
    components = [components] if isinstance(components, str) else list(components)
    unknown = [c for c in components if c not in available]
    if unknown or not components:
        raise ParameterError(f"unknown component(s) {unknown}; the result has {available}")
    return components


def check_cell(result, *, label: str, annotator: str) -> None:
    """A :class:`~iaa_frames.errors.ParameterError` unless ``label`` and ``annotator``
    are coordinates of ``result`` (the error lists those it has)."""
    for dim, value in (("label", label), ("annotator", annotator)):
        names = [str(v) for v in result[dim].values]
        if value not in names:
            raise ParameterError(f"unknown {dim} {value!r}; the result has {names}")


def check_dataset(result, variables=("agreement",), *, sweep: bool = False):
    """``result`` must be the agreement Dataset, with ``variables``; with a ``threshold``
    dimension only where ``sweep`` (a view of one threshold says how to pick one).

    Examples
    --------
    >>> check_dataset([1, 2])
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: expected the agreement result (an xarray.Dataset from iaa_frames.core.engine); got list
    """
    if not isinstance(result, xr.Dataset):
        raise ParameterError(
            "expected the agreement result (an xarray.Dataset from "
            f"iaa_frames.core.engine); got {type(result).__name__}"
        )
    if not sweep and "threshold" in result.dims:
        taus = [float(t) for t in result["threshold"].values]
        pick = taus[int(np.argmin(np.abs(np.asarray(taus) - 0.5)))]
        raise ParameterError(
            f"this result has a threshold dimension (τ = {', '.join(f'{t:g}' for t in taus)}); "
            f"this figure shows one threshold: select it first, e.g. "
            f"result.sel(threshold={pick:g}); plot.threshold_curve(result) draws every "
            "threshold"
        )
    missing = [v for v in variables if v not in result.data_vars]
    if missing:
        raise ParameterError(f"the result lacks the variable(s) {missing}")
    return result


def measure_of(result, component: str) -> str:
    """The measure ("sigma"/"alpha") of ``component``: the result's ``measure``
    coordinate, or :data:`iaa_frames.core.engine.result.MEASURES` when the result has none.

    Examples
    --------
    >>> import xarray as xr
    >>> measure_of(xr.Dataset(), "classification")
    'alpha'
    """
    if "measure" in result.coords:
        return str(result["measure"].sel(component=component).values)
    return MEASURES.get(component, "sigma")


def symbol(measure: str) -> str:
    """'σ' for sigma, 'α' for alpha, the measure itself otherwise.

    Examples
    --------
    >>> symbol("alpha"), symbol("kappa")
    ('α', 'kappa')
    """
    return SYMBOLS.get(str(measure), str(measure))


def cell_value(
    result, component: str, label: str = ALL, annotator: str = ALL, var: str = "agreement"
) -> float:
    """``var`` of one cell as a float; NaN when the result lacks the variable or component.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> cell_value(res, "localization", var="n_units") > 0
    True
    """
    if var not in result or component not in result["component"].values:
        return float("nan")
    return float(result[var].sel(component=component, label=label, annotator=annotator))


def support(result, dim: str):
    """Support of each coordinate of ``dim`` (``"label"`` or ``"annotator"``).

    Its localization ``n_units`` (matched object pairs of that class / involving that
    annotator), with the other dimension at ``"(all)"``; where the result has no
    localization, the largest ``n_units`` over components.

    Returns
    -------
    xarray.DataArray
        Along ``dim``; 0 where undefined.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> support(res, "label").dims
    ('label',)
    """
    other = "annotator" if dim == "label" else "label"
    n = result["n_units"]
    if other in n.dims:
        n = n.sel({other: ALL})
    if "component" in n.dims:
        comps = [str(c) for c in n["component"].values]
        n = (
            n.sel(component="localization")
            if "localization" in comps
            else n.max("component", skipna=True)
        )
    return n.fillna(0)


def top_by_support(result, dim: str, top: int | None, *, keep_all: bool = True):
    """The coordinates of ``dim`` to show: ``"(all)"`` first (when ``keep_all``), then the
    ``top`` others by :func:`support`, descending (ties by name).

    Returns
    -------
    shown : list of str
    n_hidden : int
        How many coordinates (other than "(all)") were left out.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> shown, hidden = top_by_support(res, "label", 1)
    >>> len(shown), hidden == res.sizes["label"] - 2
    (2, True)
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


def headline(result) -> pd.DataFrame:
    """The four components pooled over labels and annotators.

    Returns
    -------
    pandas.DataFrame
        One row per component: ``measure``, ``agreement``, ``ci_low``, ``ci_high``,
        ``observed``, ``expected``, ``ks``, ``ks_sign``, ``ks_pvalue``, ``raw_iou``,
        ``presence_alpha``, ``frac_below_chance``, ``n_units``, ``n_items``, ``n_chance``,
        ``note``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement
    >>> headline(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index.tolist()
    ['detection', 'classification', 'localization', 'overall']
    """
    sub = result.sel(label=ALL, annotator=ALL)
    cols = [
        v
        for v in (
            "agreement",
            "ci_low",
            "ci_high",
            "observed",
            "expected",
            "ks",
            "ks_sign",
            "ks_pvalue",
            "raw_iou",
            "presence_alpha",
            "frac_below_chance",
            "n_units",
            "n_items",
            "n_chance",
            "note",
        )
        if v in sub.data_vars
    ]
    frame = sub[cols].to_dataframe()
    frame = frame.drop(
        columns=[c for c in ("label", "annotator", "threshold") if c in frame.columns]
    )
    if "measure" in frame.columns:
        frame = frame[["measure"] + [c for c in frame.columns if c != "measure"]]
    return frame


def _by(result, dim):
    other = "annotator" if dim == "label" else "label"
    sub = result.sel({other: ALL})
    frame = (
        sub[
            [
                v
                for v in ("agreement", "ci_low", "ci_high", "n_units", "n_items", "note")
                if v in sub.data_vars
            ]
        ]
        .to_dataframe()
        .reset_index()
    )
    frame = frame.drop(columns=[c for c in (other, "measure") if c in frame.columns])
    wide = frame.pivot(index=dim, columns="component")
    wide.columns = [f"{comp}_{var}" for var, comp in wide.columns]
    order = [str(v) for v in result[dim].values]
    wide = wide.reindex(order)
    comps = [str(c) for c in result["component"].values]
    cols = [
        f"{c}_{v}"
        for c in comps
        for v in ("agreement", "ci_low", "ci_high", "n_units", "n_items", "note")
        if f"{c}_{v}" in wide.columns
    ]
    wide = wide[cols]
    for c in [c for c in cols if c.endswith("_n_units")]:  # counts: integers (NA if none)
        wide[c] = wide[c].round().astype("Int64")
    # "(all)" first, then natural order of the names ("2" before "10", case ignored)
    rest = sorted((n for n in wide.index if n != ALL), key=natural_key)
    wide = wide.reindex(([ALL] if ALL in wide.index else []) + rest)
    wide.index.name = dim
    return wide


def by_label(result) -> pd.DataFrame:
    """Agreement of every class (pooled over annotators), one column group per component.

    Returns
    -------
    pandas.DataFrame
        Indexed by label ("(all)" first, then the classes in natural order: "2" before
        "10", case ignored); for each component (detection, classification,
        localization, overall) the columns ``<component>_agreement`` (σ, or α for
        classification), ``<component>_ci_low``, ``<component>_ci_high`` (95% interval),
        ``<component>_n_units`` (within units, integer), ``<component>_n_items`` (items
        the cell rests on) and ``<component>_note`` (why the agreement is NaN, or what it
        assumes). ``res.iaa.table()`` is the compact view of it.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement
    >>> t = by_label(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100))
    >>> t.index[0], t.columns[0]
    ('(all)', 'detection_agreement')
    """
    return _by(result, "label")


def by_annotator(result) -> pd.DataFrame:
    """Agreement of every annotator (pooled over classes), one column group per component.

    Returns
    -------
    pandas.DataFrame
        As :func:`by_label`, indexed by annotator.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement
    >>> by_annotator(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index[0]
    '(all)'
    """
    return _by(result, "annotator")


def component_frame(
    result, *, components, along: str, fixed_dim: str, fixed: str, top: int | None
) -> pd.DataFrame:
    """Long-form agreement of ``components`` for the ``top`` entries of dim ``along``.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : str or sequence of str
    along : {"label", "annotator"}
        The rows: "(all)" first, then the ``top`` others by support.
    fixed_dim, fixed : str
        The other dimension and its coordinate.
    top : int or None

    Returns
    -------
    pandas.DataFrame
        One row per (entry, component): ``along, component, measure, agreement, ci_low,
        ci_high, n_units, note`` (why ``agreement`` is NaN); ``attrs`` hold ``n_hidden``, ``top`` and the fixed
        coordinate.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> f = component_frame(res, components=["detection", "localization"], along="label",
    ...                     fixed_dim="annotator", fixed="(all)", top=1)
    >>> f[["label", "component"]].values.tolist()[:2]
    [['(all)', 'detection'], ['(all)', 'localization']]
    """
    check_dataset(result, ("agreement", "n_units"))
    components = check_components(result, components)
    if fixed not in [str(v) for v in result[fixed_dim].values]:
        raise ParameterError(f"unknown {fixed_dim} {fixed!r}")
    at_fixed = result.sel({fixed_dim: [fixed]}).assign_coords({fixed_dim: [ALL]})
    shown, hidden = top_by_support(at_fixed, along, top)
    sub = result.sel({"component": components, along: shown, fixed_dim: fixed})
    cols = [v for v in ("agreement", "ci_low", "ci_high", "n_units", "note") if v in sub.data_vars]
    frame = sub[cols].to_dataframe().reset_index()
    for v in ("ci_low", "ci_high"):
        if v not in frame:
            frame[v] = np.nan
    if "note" not in frame:
        frame["note"] = ""
    frame["measure"] = [measure_of(result, c) for c in frame["component"]]
    order = {a: i for i, a in enumerate(shown)}
    corder = {c: i for i, c in enumerate(components)}
    frame = frame.iloc[
        np.lexsort((frame["component"].map(corder).to_numpy(), frame[along].map(order).to_numpy()))
    ]
    frame = frame[
        [along, "component", "measure", "agreement", "ci_low", "ci_high", "n_units", "note"]
    ].reset_index(drop=True)
    frame.attrs = {"n_hidden": hidden, "top": top, fixed_dim: fixed}
    return frame
