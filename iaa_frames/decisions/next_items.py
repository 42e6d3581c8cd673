"""Which items to send for one more annotation: the ones that narrow the interval most,
or the ones whose consensus an extra vote could still change.

``goal="interval"``: a variance-components model of the component's within-item
distances
----------------------------------------------------------------------------------------
The agreement is ``1 - O / E``: ``O`` the mean within-item distance over all units (matched
pairs for localization, pairings for detection and overall), ``E`` the chance mean. Item
``i`` has ``a_i`` annotators, ``p_i = a_i (a_i - 1) / 2`` pairings and ``n_i`` units; its
mean distance ``y_i`` varies around ``O`` with variance ``v_i = tau^2 + s^2 / p_i``: ``tau^2``
between items, ``s^2`` between the pairings of an item (one-way random effects, moments
estimates from the pairing means). The cluster-bootstrap variance of ``O`` over items is
(linearized) ``Var(O) = sum_i n_i^2 v_i / (sum_i n_i)^2`` and the half-width of the
interval ``1.96 sqrt(Var(O)) / E``. One more annotator on item ``i`` adds ``a_i``
pairings (an item with one annotator enters the corpus), hence ``r a_i`` units (``r``: the
mean number of units per pairing), and lowers ``v_i``. The model is the same for every
item: it does not try to guess from an item's own deviation whether its next annotator
will agree (on simulated crowds that guess did worse than the plain model). The ``gain``
of an item is the predicted drop of the
half-width when only it gets one more annotation; items are ranked by it, and
``halfwidth_after`` is the predicted half-width after sending every item up to that rank
(numerator and denominator are sums over items, so it is a cumulative sum).

``goal="consensus"``: decisions one vote could flip
----------------------------------------------------
From :func:`iaa_frames.decisions.consensus.consensus`: a cluster's acceptance can flip
when one more annotator could move it across the acceptance threshold: with the default
``quorum="auto"``, when its log odds of being a real object are within one annotator's
mean vote (``params["logit_step"]``) of the threshold's; with a numeric quorum, when one
annotator of the crowd's mean weight ``w`` could move its weighted share across it
(``|share - quorum| * W_item < w``, ``W_item`` the weight of who covered the item). Its
label can flip when ``margin * weight < w``. The ``gain`` of an item is the
number of its clusters with such a fragile decision.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine import CellLayout, component_cells, resolve
from iaa_frames.core.engine.rows import localization_rows, sets_rows
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import validate
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, check_int, checked_settings
from iaa_frames.settings.validation import validate_params

from .consensus import consensus

__all__ = ["GOALS", "interval_gains", "next_items"]

GOALS = ("interval", "consensus")
_SIGMA = ("detection", "localization", "overall")
_Z = 1.959963984540054


def _pairing_means(tables, component):
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    if component == "localization":
        rows, _ = localization_rows(tables, layout)
        keep = np.ones(len(rows.distance), dtype=bool)
    else:
        rows, _ = sets_rows(tables, component, layout)
        keep = rows.label_cells[:, 0] == 0  # the whole annotations
    expected = component_cells(tables, layout, component).statistics()[1][0]
    frame = pd.DataFrame(
        {
            "item": rows.item_a[keep],
            "a": rows.annotator_a[keep],
            "b": rows.annotator_b[keep],
            "d": rows.distance[keep],
        }
    )
    pm = frame.groupby(["item", "a", "b"], sort=True)["d"].agg(["mean", "size"]).reset_index()
    return pm, float(expected)


def interval_gains(tables, component: str = "localization"):
    """Per item: annotators, the predicted half-width gain of one more annotation, and the
    model's pieces (see the module docstring).

    Returns
    -------
    gains : pandas.DataFrame
        ``item`` (code), ``n_annotators``, ``units``, ``gain``, ``delta_num``,
        ``delta_den`` (the item's change of ``sum n^2 v`` and of ``sum n``).
    state : dict
        ``num`` (``sum n_i^2 v_i``), ``den`` (``sum n_i``), ``expected`` (E),
        ``halfwidth`` (now), ``tau2``, ``s2``, ``units_per_pairing``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=30, seed=0), n_chance=200)
    >>> g, state = interval_gains(t)
    >>> bool((g["delta_den"] > 0).all()), state["halfwidth"] > 0
    (True, True)
    """
    pm, expected = _pairing_means(tables, component)
    n_items = len(tables.corpus.items)
    a_i = np.bincount(tables.coverage["item"].to_numpy(), minlength=n_items).astype(float)
    item = pm["item"].to_numpy()
    r = pm["size"].to_numpy(float)
    d = pm["mean"].to_numpy(float)
    n_i = np.bincount(item, r, n_items)
    p_i = np.bincount(item, minlength=n_items).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        y_i = np.bincount(item, r * d, n_items) / n_i
    per_pairing = float(r.sum() / max(len(r), 1))
    # one-way random effects (moments): s2 within items (items with >= 2 pairings), tau2
    # between items
    has = n_i > 0
    multi = p_i[item] >= 2
    dev = d - y_i[item]
    s2 = float((dev[multi] ** 2).sum() / max((p_i[p_i >= 2] - 1).sum(), 1.0))
    grand = float((r * d).sum() / r.sum()) if r.sum() > 0 else np.nan
    tau2 = 0.0
    if has.any():
        tau2 = float(max(np.mean((y_i[has] - grand) ** 2) - np.mean(s2 / p_i[has]), 0.0))
    v = np.where(p_i > 0, tau2 + s2 / np.maximum(p_i, 1), 0.0)
    num = float((n_i**2 * v).sum())
    den = float(n_i.sum())
    # one more annotator on each item
    p_new = p_i + a_i
    n_new = np.where(p_i > 0, n_i * p_new / np.maximum(p_i, 1), per_pairing * p_new)
    v_new = tau2 + s2 / np.maximum(p_new, 1)
    delta_num = n_new**2 * v_new - n_i**2 * v
    delta_den = n_new - n_i
    with np.errstate(invalid="ignore", divide="ignore"):
        hw = _Z * np.sqrt(num) / den / expected
        hw_one = _Z * np.sqrt(num + delta_num) / (den + delta_den) / expected
    gains = pd.DataFrame(
        {
            "item": np.arange(n_items),
            "n_annotators": a_i.astype(np.int64),
            "units": n_i,
            "gain": hw - hw_one,
            "delta_num": delta_num,
            "delta_den": delta_den,
        }
    )
    state = dict(
        num=num,
        den=den,
        expected=expected,
        halfwidth=float(hw),
        tau2=tau2,
        s2=s2,
        units_per_pairing=per_pairing,
    )
    return gains, state


def _consensus_gains(df, *, weights, match_threshold, seed):
    c = consensus(df, weights=weights, match_threshold=match_threshold, seed=seed)
    clusters = pd.concat(
        [c.objects.dropna(subset=["label"]).assign(accepted=True), c.unsupported], ignore_index=True
    )
    clusters["accepted"] = clusters["accepted"].fillna(False).astype(bool)
    w = c.weights["weight"].to_numpy(float)
    mean_w = float(w.mean()) if len(w) else 1.0
    quorum = c.params["quorum"]
    share = clusters["share"].to_numpy(float)
    weight = clusters["weight"].to_numpy(float)
    if quorum == "auto":  # one annotator's vote moves the log odds by about logit_step
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.clip(clusters["p_real"].to_numpy(float), 1e-12, 1 - 1e-12)
            t = min(max(c.params["p_threshold"], 1e-12), 1 - 1e-12)
            gap = np.abs(np.log(p / (1 - p)) - np.log(t / (1 - t)))
        accept_fragile = gap < np.nan_to_num(c.params["logit_step"], nan=np.inf)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            covered = np.where(share > 0, weight / share, np.nan)
        accept_fragile = np.abs(share - quorum) * np.nan_to_num(covered, nan=0.0) < mean_w
    label_fragile = np.nan_to_num(clusters["margin"].to_numpy(float), nan=0.0) * weight < mean_w
    clusters["fragile"] = accept_fragile | label_fragile
    per_item = clusters.groupby("item")["fragile"].sum()
    n_ann = df[["item", "annotator"]].drop_duplicates().groupby("item").size()
    out = pd.DataFrame({"n_annotators": n_ann})
    out["gain"] = per_item.reindex(out.index).fillna(0).astype(float)
    return out.rename_axis("item").reset_index()


def _next_items(
    df: pd.DataFrame,
    *,
    budget: int = 10,
    goal: str = "interval",
    component: str = "localization",
    weights="quality",
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`next_items` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    budget = check_int(budget, "budget", low=1)
    if goal not in GOALS:
        raise ParameterError(f"goal must be one of {GOALS}, got {goal!r}")
    if goal == "interval" and component not in _SIGMA:
        raise ParameterError(f"component must be one of {_SIGMA}, got {component!r}")
    df = validate(df)
    names = None
    if goal == "interval":
        tables = resolve.tables_of(df, settings)
        gains, state = interval_gains(tables, component)
        names = np.asarray(tables.corpus.items, dtype=object)
        gains["item"] = names[gains["item"].to_numpy()]
    else:
        gains = _consensus_gains(
            df, weights=weights, match_threshold=settings.match_threshold, seed=settings.seed
        )
        state = {}
    gains["item_name"] = gains["item"].astype(str)
    ranked = gains.sort_values(
        ["gain", "n_annotators", "item_name"], ascending=[False, True, True], kind="stable"
    ).head(budget)
    out = pd.DataFrame(
        {
            "rank": np.arange(1, len(ranked) + 1, dtype=np.int64),
            "item": ranked["item"].astype(str).to_numpy(),
            "n_annotators": ranked["n_annotators"].to_numpy(np.int64),
            "gain": ranked["gain"].to_numpy(float),
        }
    )
    note = ""
    if goal == "interval":
        num = state["num"] + np.cumsum(ranked["delta_num"].to_numpy())
        den = state["den"] + np.cumsum(ranked["delta_den"].to_numpy())
        with np.errstate(invalid="ignore", divide="ignore"):  # no unit: NaN, said below
            out["halfwidth_after"] = _Z * np.sqrt(num) / den / state["expected"]
        widen = int((out["gain"] <= 0).sum())
        halfwidth = state["halfwidth"]
        if not np.isfinite(halfwidth):  # nothing to narrow: say why, not a NaN gain alone
            note = (
                f"no gain: the {component} interval of the model is undefined (no "
                f"within-item {component} unit: "
                + ("no matched object pair" if component == "localization" else "no pairing")
                + " on any item)"
            )
        elif halfwidth == 0:
            note = (
                f"no gain: the {component} interval of the model is already 0 wide (the "
                "within-item distances do not vary); no annotation narrows it"
            )
        elif widen:  # an item re-annotated alone outweighs the others: no narrower interval
            note = (
                f"{widen} of the {len(out)} items listed would widen the interval if "
                "re-annotated alone (gain <= 0): one more annotator adds weight to its "
                "item while the variance is mostly between items; more items narrow the "
                "interval, not more annotators on these"
            )
    out.attrs = {
        "goal": goal,
        "component": component if goal == "interval" else None,
        "note": note,
        **state,
    }
    return out


@validate_params(engine=False)
def next_items(
    df: pd.DataFrame,
    *,
    budget: int = 10,
    goal: str = "interval",
    component: str = "localization",
    weights="quality",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """The ``budget`` items to send for one more annotation, best first, with the gain
    expected.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    budget : int, default 10
        Number of re-annotations (one per item).
    goal : {"interval", "consensus"}, default "interval"
        Narrow the interval of ``component`` most, or settle the most consensus
        decisions (module docstring).
    component : {"localization", "detection", "overall"}, default "localization"
        The interval to narrow (``goal="interval"``).
    weights : default "quality"
        The consensus weights (``goal="consensus"``; see :func:`consensus`).
    match_threshold, n_chance
        Of the pair tables.
    seed : int, default 0
        Seed of the pair tables (ties are broken by fewer annotators, then item name).

    Returns
    -------
    pandas.DataFrame
        ``rank``, ``item``, ``n_annotators``, ``gain`` (interval: the predicted drop of the
        half-width if only this item is re-annotated; consensus: its fragile decisions)
        and, for the interval, ``halfwidth_after`` (predicted after sending every item up
        to this rank). ``attrs["halfwidth"]``: the predicted half-width now;
        ``attrs["note"]``: when some items listed have a gain of at most 0 (one more
        annotation on that item alone is predicted to widen the interval: it happens when
        every item already has many annotators and the items differ much), or when no item
        can narrow it (the interval is undefined, the gains NaN: no within-item unit; or
        already 0 wide), empty otherwise.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=30, seed=0, annotators={
    ...     "a": {"preset": "good", "coverage": 0.6}, "b": {"preset": "sloppy", "coverage": 0.6}})
    >>> nxt = iaf.next_items(df, budget=5)
    >>> nxt.columns.tolist()
    ['rank', 'item', 'n_annotators', 'gain', 'halfwidth_after']
    >>> bool(nxt["halfwidth_after"].is_monotonic_decreasing)
    True
    """
    settings = checked_settings(
        match_threshold=match_threshold, n_chance=n_chance, seed=seed
    ).single()
    return _next_items(
        df, budget=budget, goal=goal, component=component, weights=weights, settings=settings
    )
