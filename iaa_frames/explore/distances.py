"""The distances behind a cell, in long form: what :func:`iaa_frames.plot.distributions`
draws.

:func:`distance_samples` takes a component's within-item and chance distances from the
pair tables, exactly the rows the engine averages for each cell
(:func:`iaa_frames.core.engine.cell_distances`), faceted by class or annotator;
:func:`sample_summary` computes σ, the KS statistic and where the two ECDFs are furthest
apart, per facet.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine import cell_distances, resolve
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.samples import ks as _ks
from iaa_frames.stats.samples import sigma as _sigma

from .matches import tables_of
from .views import check_choice

__all__ = ["distance_samples", "sample_summary", "tables_of"]

_DISTANCE_COMPONENTS = ("localization", "detection", "overall")
_BY = (None, "label", "annotator")


def _distance_name(component: str, distance: str) -> str:
    if component == "localization":
        return f"{distance} distance" if distance else "distance"
    if component == "detection":
        return "1 − F1 of the matching"
    return "set distance"


def _distance_samples(
    data,
    *,
    component: str = "localization",
    by: str | None = None,
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`distance_samples` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    check_choice("component", component, _DISTANCE_COMPONENTS)
    if by not in _BY:
        raise ParameterError(f"by must be one of {_BY}; got {by!r}")
    t = resolve.tables_of(data, settings)
    d = cell_distances(t, component, by=by)
    if by is None:
        facet = d["label"]
    else:
        facet = d[by]
        d = d[(d["annotator"] == ALL) if by == "label" else (d["label"] == ALL)]
        facet = facet[d.index]
    out = pd.DataFrame(
        {
            "facet": facet.to_numpy(),
            "sample": d["sample"].to_numpy(),
            "distance": d["distance"].to_numpy(dtype=float),
            "weight": d["weight"].to_numpy(dtype=float),
        }
    )
    out["facet"] = out["facet"].astype(str)
    out["sample"] = out["sample"].astype(str)
    out.attrs = {
        "component": component,
        "by": by or "",
        "long_name": _distance_name(component, str(t.params.get("distance", ""))),
    }
    return out


@validate_params(engine=False)
def distance_samples(
    data,
    *,
    component: str = "localization",
    by: str | None = None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """The within-item and chance distances of a component, in long form.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame (tables are built with the parameters below) or tables.
    component : {"localization", "detection", "overall"}
        Classification has no distances (it is a nominal α).
    by : {None, "label", "annotator"}
        Facet: ``"(all)"`` only, or ``"(all)"`` and every class / annotator. The rows of
        a facet are exactly those the engine averages for that cell
        (:func:`iaa_frames.core.engine.cell_distances`).
    distance, match_threshold, n_chance, seed, overall, progress
        Used when ``data`` is a frame (its cached tables:
        :func:`iaa_frames.explore.matches.tables_of`).

    Returns
    -------
    pandas.DataFrame
        Columns ``facet`` (str; ``"(all)"`` first), ``sample`` (``"within"`` or
        ``"between"``), ``distance`` and ``weight`` (1, or the weight of a pooled chance
        unit). ``attrs`` holds ``component``, ``by`` and
        ``long_name`` (the distance's axis label).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> s = distance_samples(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> sorted(s["sample"].unique())
    ['between', 'within']
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _distance_samples(data, component=component, by=by, settings=settings)


def sample_summary(samples: pd.DataFrame) -> pd.DataFrame:
    """σ and KS of each facet of :func:`distance_samples`.

    Returns
    -------
    pandas.DataFrame
        Indexed by facet (``"(all)"`` first, then by decreasing ``n_within``), columns
        ``n_within``, ``n_between``, ``sigma``, ``ks``, ``ks_sign``, ``ks_pvalue``, and
        ``gap_at``, ``gap_within``, ``gap_between``: where the ECDFs are furthest apart
        and their values there.

    Examples
    --------
    >>> s = pd.DataFrame({"facet": "(all)", "sample": ["within"] * 2 + ["between"] * 2,
    ...                   "distance": [0.1, 0.3, 0.4, 0.6]})
    >>> sample_summary(s).loc["(all)", ["n_within", "sigma", "ks"]].tolist()
    [2.0, 0.6, 1.0]
    """
    rows = {}
    for facet, g in samples.groupby("facet", sort=False):
        is_w = g["sample"].to_numpy() == "within"
        x = g["distance"].to_numpy(dtype=float)
        within, between = x[is_w], x[~is_w]
        weight = (
            g["weight"].to_numpy(dtype=float)[~is_w] if "weight" in g else np.ones(len(between))
        )
        res = _ks(within, between, between_weights=weight)
        at, fw, fb = _gap(within, between, weight)
        rows[facet] = dict(
            n_within=len(within),
            n_between=len(between),
            sigma=float(_sigma(within, between, between_weights=weight)),
            ks=res.statistic,
            ks_sign=res.sign,
            ks_pvalue=res.pvalue,
            gap_at=at,
            gap_within=fw,
            gap_between=fb,
        )
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "facet"
    if len(out):
        key = np.where(out.index == ALL, np.inf, out["n_within"].to_numpy(dtype=float))
        out = out.iloc[np.lexsort((out.index.to_numpy().astype(str), -key))]
    return out


def _gap(within, between, weight=None):
    """Where |F_within - F_between| is largest (the chance ECDF weighted), and both
    ECDFs there."""
    if len(within) == 0 or len(between) == 0:
        return np.nan, np.nan, np.nan
    weight = np.ones(len(between)) if weight is None else np.asarray(weight, dtype=float)
    w = np.sort(within)
    order = np.argsort(between, kind="stable")
    b, cum = between[order], np.r_[0.0, np.cumsum(weight[order])]
    grid = np.unique(np.concatenate([w, b]))
    fw = np.searchsorted(w, grid, side="right") / len(w)
    fb = cum[np.searchsorted(b, grid, side="right")] / cum[-1]
    k = int(np.argmax(np.abs(fw - fb)))
    return float(grid[k]), float(fw[k]), float(fb[k])
