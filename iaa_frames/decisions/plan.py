"""How many items to annotate (with ``annotators`` annotators each) for a 95 % interval of
a given half-width, from a pilot.

The estimate
------------
The pilot's items are resampled as the engine's bootstrap resamples them (a cluster
bootstrap over items: the pair tables' rows reweighted by the items' multiplicities,
:mod:`iaa_frames.stats.bootstrap`, nothing recomputed), but with ``m`` items drawn instead
of ``n``: the *m-out-of-n bootstrap*. For subsample sizes ``m`` of 1/4, 1/2, 3/4 and all of
the pilot's ``n`` items, the half-width of the 95 % percentile interval of the component's
agreement over the replicates is the half-width a corpus of ``m`` such items would give.
The documented extrapolation has two terms::

    half-width(m)^2 = c^2 / m + c_chance^2 / m^2

fitted by non-negative least squares on those sizes. The first is the rate of a mean over
independent items. The second is the chance side's: an expected disagreement taken over
pairs of items (the chance pairings of ``m`` items grow as ``m^2``) narrows faster than a
mean over items while the pilot's chance units are few (classification, with its matched
chance pairs, and thin localization cells; a pilot of 40 items resampled at 10 to 40 showed
rates of 0.62 and 0.80 where 0.5 is a mean's, and ``c / sqrt(m)`` alone asked for
1.6 times the items needed). The plan is the smallest ``n*`` whose fitted half-width
reaches the target. The exponent of a free fit ``half-width ∝ m^-b`` is reported
(``exponent``) as a check of the rate.

The plan's own uncertainty
--------------------------
The pilot is itself a sample. The whole estimate is repeated on ``n_outer`` bootstrap
replicates of the pilot (each inner subsample then draws from the replicate's items):
``n_low``, ``n_high`` are the 2.5 % and 97.5 % quantiles of the replicated ``n*``.

Annotators per item
-------------------
Each item of the pilot keeps ``annotators`` of its annotators (drawn at random, seeded),
so that the pilot's intervals are those of the design being planned; an item with fewer
annotators keeps all of them and the ``note`` says how many items had fewer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from iaa_frames.engine import CellLayout, component_cells, resolve
from iaa_frames.engine.cells import label_cell
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL, validate
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, check_int, checked_settings
from iaa_frames.settings.validation import validate_params

__all__ = ["COMPONENTS", "Plan", "halfwidth_curve", "plan", "thin_annotators"]

COMPONENTS = ("detection", "classification", "localization", "overall")

#: Subsample sizes as fractions of the pilot.
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
_Z = 0.975  # the upper quantile of a 95 % interval


@dataclass(frozen=True)
class Plan:
    """What :func:`plan` returns.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per component: ``component``, ``label``, ``annotators``, ``n_pilot``,
        ``halfwidth_pilot`` (the fitted half-width at the pilot's size), ``target``,
        ``n_items`` (the plan), ``n_low``, ``n_high`` (its 95 % interval), ``c`` and
        ``c_chance`` (the fitted constants of the items' and the chance side's terms),
        ``exponent`` (the free fit's rate) and ``note``.
    curve : pandas.DataFrame
        The resampled half-widths: ``component``, ``m`` (items), ``halfwidth``.
    params : dict

    The figure of half-width against items is :func:`iaa_frames.plot.plan`.
    """

    table: pd.DataFrame
    curve: pd.DataFrame
    params: dict = field(default_factory=dict)


def thin_annotators(df: pd.DataFrame, annotators: int, seed: int):
    """``df`` with at most ``annotators`` annotators per item (drawn at random), and the
    number of items that had fewer.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=5, seed=0)
    >>> thinned, fewer = thin_annotators(df, 2, seed=0)
    >>> int(thinned.groupby("item")["annotator"].nunique().max()), fewer
    (2, 0)
    """
    pairs = df[["item", "annotator"]].drop_duplicates().reset_index(drop=True)
    rng = np.random.default_rng(seed)
    pairs["key"] = rng.random(len(pairs))
    pairs["rank"] = pairs.groupby("item")["key"].rank(method="first")
    kept = pairs[pairs["rank"] <= annotators][["item", "annotator"]]
    n_have = pairs.groupby("item").size()
    out = df.merge(kept, on=["item", "annotator"], how="inner")
    return out, int((n_have < annotators).sum())


def _multiplicities(rng, m, p, B):
    return rng.multinomial(m, p, size=B).astype(np.float64)


def halfwidth_curve(cells, cell: int, n: int, sizes, *, n_boot: int, rng, outer=None):
    """Half-width of the percentile interval at every subsample size (m-out-of-n
    bootstrap), optionally from the items of an outer replicate ``outer`` (counts).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import CellLayout, component_cells
    >>> t = iaf.pair_tables(iaf.simulate(n_items=60, seed=0))
    >>> cells = component_cells(t, CellLayout(3, 3), "localization")
    >>> hw = halfwidth_curve(cells, 0, 60, [15, 60], n_boot=100,
    ...                      rng=np.random.default_rng(0))
    >>> bool(hw[0] > hw[1] > 0)
    True
    """
    p = np.full(n, 1.0 / n) if outer is None else outer / outer.sum()
    out = np.full(len(sizes), np.nan)
    for j, m in enumerate(sizes):
        k = _multiplicities(rng, int(m), p, n_boot)
        a = cells.statistics(k)[2][:, cell]
        a = a[np.isfinite(a)]
        if len(a) >= max(10, n_boot // 2):
            lo, hi = np.quantile(a, [1 - _Z, _Z])
            out[j] = 0.5 * (hi - lo)
    return out


def _fit(sizes, hw):
    """``(a, b, exponent)`` of ``half-width(m)^2 = a / m + b / m^2`` (non-negative least
    squares on the squared half-widths) and the free fit's rate ``b`` of ``m^-b``."""
    ok = np.isfinite(hw) & (hw > 0)
    if ok.sum() < 2:
        return np.nan, np.nan, np.nan
    m = np.asarray(sizes, float)[ok]
    from scipy.optimize import nnls

    (a, b), _ = nnls(np.column_stack([1.0 / m, 1.0 / m**2]), hw[ok] ** 2)
    slope = -np.polyfit(np.log(m), np.log(hw[ok]), 1)[0]
    return float(a), float(b), float(slope)


def _items_for(a, b, target) -> float:
    """Items ``m`` with ``a / m + b / m^2 = target^2`` (NaN when nothing varies)."""
    if not (np.isfinite(a) and np.isfinite(b)) or a + b <= 0:
        return np.nan
    t2 = target**2
    return (a + math.sqrt(a * a + 4 * t2 * b)) / (2 * t2)


def _halfwidth(a, b, m):
    return np.sqrt(a / m + b / m**2)


def _check(target_halfwidth, component, annotators, n_boot, n_outer):
    if (
        isinstance(target_halfwidth, bool)
        or not isinstance(target_halfwidth, int | float)
        or not (math.isfinite(target_halfwidth) and 0 < target_halfwidth < 1)
    ):
        raise ParameterError(
            f"target_halfwidth must be a number in (0, 1), got {target_halfwidth!r}"
        )
    comps = COMPONENTS if component is None else (component,)
    for c in comps:
        if c not in COMPONENTS:
            raise ParameterError(f"component must be one of {COMPONENTS} or None, got {c!r}")
    check_int(annotators, "annotators", low=2)
    check_int(n_boot, "n_boot", low=20)
    check_int(n_outer, "n_outer", low=0)
    return comps


#: The engine keywords of the decisions: pair tables of one threshold.
KEYWORDS = ("match_threshold", "n_chance", "seed")


def _plan(
    pilot: pd.DataFrame,
    *,
    target_halfwidth: float = 0.05,
    component: str | None = None,
    label: str = ALL,
    annotators: int = 2,
    n_boot: int = 200,
    n_outer: int = 50,
    settings: MatchSettings = DEFAULTS,
) -> Plan:
    """:func:`plan` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    comps = _check(target_halfwidth, component, annotators, n_boot, n_outer)
    pilot = validate(pilot)
    seed = settings.seed
    thinned, fewer = thin_annotators(pilot, annotators, seed)
    tables = resolve.tables_of(thinned, settings)
    corpus = tables.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    cell = label_cell(tables, label) * layout.n_groups
    n = len(corpus.items)
    sizes = np.unique(np.maximum(np.round(np.asarray(FRACTIONS) * n).astype(int), 4))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(28,)))
    rows, curves = [], []
    for comp in comps:
        cells = component_cells(tables, layout, comp)
        hw = halfwidth_curve(cells, cell, n, sizes, n_boot=n_boot, rng=rng)
        a, b, exponent = _fit(sizes, hw)
        need = _items_for(a, b, target_halfwidth)
        need = math.ceil(need) if np.isfinite(need) else np.nan
        reps = []
        for _ in range(n_outer):
            outer = rng.multinomial(n, np.full(n, 1.0 / n)).astype(np.float64)
            a_b, b_b, _ = _fit(
                sizes, halfwidth_curve(cells, cell, n, sizes, n_boot=n_boot, rng=rng, outer=outer)
            )
            reps.append(_items_for(a_b, b_b, target_halfwidth))
        reps = np.asarray(reps, dtype=float)
        reps = reps[np.isfinite(reps)]
        low, high = np.ceil(np.quantile(reps, [0.025, 0.975])) if len(reps) else (np.nan, np.nan)
        note = []
        if fewer:
            note.append(f"{fewer} pilot items had fewer than {annotators} annotators")
        if np.isfinite(hw).any() and np.nanmax(hw) == 0:
            note.append("the agreement never varies on the pilot's resamples: no plan")
        elif not np.isfinite(a):
            note.append("no interval on the pilot: agreement undefined on its resamples")
        rows.append(
            {
                "component": comp,
                "label": label,
                "annotators": int(annotators),
                "n_pilot": n,
                "halfwidth_pilot": float(_halfwidth(a, b, n)) if np.isfinite(a) else np.nan,
                "target": float(target_halfwidth),
                "n_items": need,
                "n_low": low,
                "n_high": high,
                "c": math.sqrt(a) if np.isfinite(a) else np.nan,
                "c_chance": math.sqrt(b) if np.isfinite(b) else np.nan,
                "exponent": exponent,
                "note": "; ".join(note),
            }
        )
        curves.append(pd.DataFrame({"component": comp, "m": sizes, "halfwidth": hw}))
    table = pd.DataFrame(rows).astype({"n_items": "Int64", "n_low": "Int64", "n_high": "Int64"})
    params = dict(
        target_halfwidth=float(target_halfwidth),
        label=label,
        annotators=int(annotators),
        n_boot=int(n_boot),
        n_outer=int(n_outer),
        seed=int(seed),
        match_threshold=tables.params["match_threshold"],
    )
    return Plan(table, pd.concat(curves, ignore_index=True), params)


@validate_params(engine=False)
def plan(
    pilot: pd.DataFrame,
    *,
    target_halfwidth: float = 0.05,
    component: str | None = None,
    label: str = ALL,
    annotators: int = 2,
    n_boot: int = 200,
    n_outer: int = 50,
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
) -> Plan:
    """The number of items a 95 % interval of half-width ``target_halfwidth`` needs.

    Parameters
    ----------
    pilot : pandas.DataFrame
        A tidy annotation frame of a pilot (items annotated by at least ``annotators``).
    target_halfwidth : float, default 0.05
        The half-width wanted (in units of the agreement).
    component : str, optional
        ``"detection"``, ``"classification"``, ``"localization"`` or ``"overall"``; by
        default every component.
    label : str, default "(all)"
        A class, to plan for that class's agreement.
    annotators : int, default 2
        Annotators per item in the design planned (the pilot is thinned to it).
    n_boot : int, default 200
        Replicates per subsample size.
    n_outer : int, default 50
        Bootstrap replicates of the pilot for the plan's own interval (0: none).
    match_threshold, n_chance
        Of the pair tables (:func:`iaa_frames.pair_tables`).
    seed : int, default 0
        Seed of the thinning, the chance sample and the resampling.

    Returns
    -------
    Plan

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> pilot = iaf.simulate(n_items=40, seed=0, annotators={"a": "good", "b": "sloppy"})
    >>> p = iaf.plan(pilot, target_halfwidth=0.02, component="localization", n_outer=10)
    >>> row = p.table.iloc[0]
    >>> bool(row["n_low"] <= row["n_items"] <= row["n_high"])
    True
    """
    settings = checked_settings(
        match_threshold=match_threshold, n_chance=n_chance, seed=seed
    ).single()
    return _plan(
        pilot,
        target_halfwidth=target_halfwidth,
        component=component,
        label=label,
        annotators=annotators,
        n_boot=n_boot,
        n_outer=n_outer,
        settings=settings,
    )
