# Over 400 lines: one idea, the plan: the model of the engine's interval, its fit on the pilot and the figure's curve.
"""How many items to annotate (with ``annotators`` annotators each) for a 95 % interval of
a given half-width, from a pilot.

The estimate
------------
The plan predicts the interval :func:`iaa_frames.agreement` will report on a corpus of
``m`` items like the pilot's, and the item count is the smallest ``m`` at which that
interval's half-width reaches the target. The engine's interval is a cluster-bootstrap
BCa interval scaled by :func:`iaa_frames.stats.intervals.interval_scale`: about
``t_nu * sqrt(V * r * 2 / (1 + r))``, with ``V`` the jackknife variance over items (the
squared item influences), ``r = (V - P) / (V + P)`` the pair-level correction of the
components with chance rows and ``t_nu`` Student's quantile at the jackknife's
Satterthwaite degrees of freedom. From the pilot's ``n`` items the plan takes ``V``,
``r`` and ``nu`` as the engine computes them and scales them to ``m`` items: ``V`` as
``n / m`` (the variance of a mean over independent items), ``nu`` as ``m / n`` (at most
``m - 1``), ``r`` unchanged (``P / V`` stays about 0.05 for localization from 40 to 480
items). On 40 and 120 items of the plan study's crowd the model at the corpus's own size
is 0.81-1.07 of the half-width the engine reports there (classification 0.86-0.94).

This replaced an extrapolation of the m-out-of-n bootstrap's percentile half-widths
(``half-width(m)^2 = c^2 / m + c_chance^2 / m^2`` fitted on 1/4 to all of the pilot):
those half-widths are not the interval the engine reports (no BCa, no pair-level or
Student correction) and on a 40-item pilot the fit's second term was mostly noise; the
realised half-width over the target had medians 0.85 (localization) to 1.16 (detection)
(the decisions benchmark of the source repository; the documentation's validation page
on decisions, "Planning calibration"). The m-out-of-n half-widths are still computed, for the figure
(``curve``), with the rate of their free fit ``half-width ∝ m^-b`` (``exponent``); ``c``
and ``c_chance`` are now the constants of the model's expansion
``half-width(m)^2 ~ c^2 / m + c_chance^2 / m^2`` (``t^2 ~ z^2 (1 + (z^2 + 1) / (2 df))``),
the line :func:`iaa_frames.plot.plan` draws.

What the model cannot see is a pilot too thin for the component: the variance of a
classification resting on a few dozen matched pairs with a label disagreement is itself
estimated from few items (heavy-tailed influences), and the plan's own interval
(``n_low``-``n_high``) is then wide; read it.

The plan's own uncertainty
--------------------------
The pilot is itself a sample. ``V`` is recomputed on ``n_outer`` bootstrap replicates of
the pilot (a jackknife over the replicate's drawn copies; ``r`` and ``nu`` kept):
``n_low``, ``n_high`` are the 2.5 % and 97.5 % quantiles of the replicated ``n*``. With
heavy-tailed item influences the replicates' median sits above the plan (on a 40-item
localization pilot the replicates' ``V`` had median 1.28 times the pilot's): the interval
is wide and leans high, and with few replicates it need not hold the plan.

Notes
-----
The ``note`` says when the plan rests on a pilot that cannot carry it: a component the
engine leaves undefined on the pilot (:func:`iaa_frames.agreement`'s note, e.g.
classification with too few chance units), and a classification whose pilot holds fewer
than :data:`THIN_PILOT_ITEMS` items with a label disagreement. The number is still
given; its interval ``n_low``-``n_high`` is then the figure to read.

Planning in two stages
----------------------
A 40-item pilot holds too few label disagreements for a stable classification variance:
one-shot plans from such pilots realised 0.60-3.58 times the target. ``n_first``
(:func:`first_batch`: half the plan, at least the pilot) is the first batch to annotate,
after which the plan is made again on every item annotated;
:func:`iaa_frames.plan_sequential` runs the stages (with 3 batches, classification
within 20 % of the target in 13 of 14 runs, against 6 of 14 one-shot).

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

from iaa_frames.core.engine import CellLayout, component_cells, resolve
from iaa_frames.core.engine.cells import SIGMA_COMPONENTS, label_cell
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL, validate
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, check_int, checked_settings
from iaa_frames.settings.validation import validate_params

__all__ = [
    "COMPONENTS",
    "HALFWIDTH_NA",
    "Plan",
    "first_batch",
    "halfwidth_curve",
    "plan",
    "thin_annotators",
]

COMPONENTS = ("detection", "classification", "localization", "overall")

#: Fewest pilot items with a label disagreement below which a classification plan says
#: it rests on too few (on 40-item pilots of the plan study, 3 and 6 such items gave
#: realised / target 1.49 and 0.69; 10-13 gave 0.66-0.95).
THIN_PILOT_ITEMS = 10

#: What a plan's note says after the reason a component has no interval on the pilot
#: (undefined there): its ``halfwidth_pilot`` is NaN.
HALFWIDTH_NA = "halfwidth_pilot is n/a (no interval on the pilot)"

#: Subsample sizes as fractions of the pilot.
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
_Z = 0.975  # the upper quantile of a 95 % interval

#: The share of the plan annotated before re-planning (:func:`first_batch`).
FIRST_SHARE = 0.5


def first_batch(n_items, n_pilot: int):
    """The items to annotate (in all, the pilot's included) before planning again on
    them: ``FIRST_SHARE`` of the plan ``n_items``, at least the pilot's ``n_pilot``
    (missing where the plan is).

    Re-planning on half the plan's items stabilises the variance a thin pilot estimates
    badly, and stops short of the plan unless the pilot over-estimated it more than
    twice (where stopping at the first batch gives a narrower interval than asked).

    Examples
    --------
    >>> first_batch(300, 40), first_batch(60, 40), first_batch(30, 40)
    (150, 40, 40)
    """
    if n_items is None or n_items is pd.NA or not np.isfinite(n_items):
        return np.nan
    return int(max(n_pilot, math.ceil(FIRST_SHARE * n_items)))


@dataclass(frozen=True)
class Plan:
    """What :func:`plan` returns.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per component: ``component``, ``label``, ``annotators``, ``n_pilot``,
        ``halfwidth_pilot`` (the modelled half-width at the pilot's size), ``target``,
        ``n_items`` (the plan), ``n_low``, ``n_high`` (its 95 % interval), ``n_first``
        (the items to annotate first, the pilot's included, before planning again on
        them: :func:`first_batch`), ``c`` and
        ``c_chance`` (the constants of the model's expansion ``c^2 / m + c_chance^2 /
        m^2``), ``exponent`` (the m-out-of-n free fit's rate) and ``note``.
    curve : pandas.DataFrame
        The resampled half-widths: ``component``, ``m`` (items), ``halfwidth``.
    params : dict

    The figure of half-width against items is :func:`iaa_frames.plot.plan`.
    """

    table: pd.DataFrame
    curve: pd.DataFrame
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line per component: the plan (and its interval) and the pilot's half-width,
        "n/a" with the note's reason where the pilot has no interval or there is no plan."""
        p, head = self.params, "<Plan"
        if "target_halfwidth" in p:
            head += f": ±{p['target_halfwidth']:g} with {p.get('annotators', '?')} annotators"
            if p.get("label", ALL) != ALL:
                head += f", class {p['label']!r}"
        lines = [head]
        for row in self.table.itertuples(index=False):
            if pd.isna(row.n_items):
                text = "no plan"
            else:
                text = f"{int(row.n_items):,} items"
                if not (pd.isna(row.n_low) or pd.isna(row.n_high)):
                    text += f" ({int(row.n_low):,}-{int(row.n_high):,})"
            hw = float(row.halfwidth_pilot)
            text += f", pilot half-width {hw:.3f}" if np.isfinite(hw) else ", pilot half-width n/a"
            if row.note:
                text += f": {row.note}"
            lines.append(f"  {row.component}: {text}")
        return "\n".join(lines) + ">"


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
    >>> from iaa_frames.core.engine import CellLayout, component_cells
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


def _variance(cells, cell: int, n: int, weights=None):
    """``(V, nu)``: the jackknife variance of the cell's agreement on the bootstrap's
    scale (:func:`~iaa_frames.stats.intervals.jackknife_variance`, the squared item
    influences) and its Satterthwaite degrees of freedom
    (:func:`~iaa_frames.stats.intervals.jackknife_df`), as the engine computes them for
    its interval; ``weights``: the items' multiplicities of an outer bootstrap replicate
    (each drawn copy is a unit: a copy left out at a time)."""
    from iaa_frames.stats.bootstrap import jackknife_blocks
    from iaa_frames.stats.intervals import jackknife_df, jackknife_variance

    if weights is None:
        jack = np.concatenate(
            [cells.statistics(k.astype(np.float64))[2][:, cell] for k in jackknife_blocks(n)]
        )
        return float(jackknife_variance(jack, n_items=n)), float(jackknife_df(jack))
    drawn = np.flatnonzero(weights > 0)
    k = np.repeat(weights[None, :], len(drawn), axis=0)
    k[np.arange(len(drawn)), drawn] -= 1.0
    t = cells.statistics(k)[2][:, cell]
    w = weights[drawn]
    ok = np.isfinite(t)
    if ok.sum() < 2:
        return np.nan, np.nan
    t, w = t[ok], w[ok]
    units = w.sum()
    mean = np.sum(w * t) / units
    v = (units - 1.0) / units * np.sum(w * (t - mean) ** 2) * (units - 1.0) / units
    return float(v), np.nan


def _reported_halfwidth(v, kept, nu, n: int, m):
    """The half-width the engine reports for a corpus of ``m`` items of the pilot's kind
    (``n`` items, jackknife variance ``v``, degrees of freedom ``nu``; ``kept``: the
    pair-level factor ``(V - P) / (V + P)`` of the pilot, 1 without chance rows): the
    variance of the items' influences falls as ``1 / m``, the degrees of freedom grow as
    ``m`` (at most ``m - 1``), and the interval is Student's ``t`` times the standard
    error (:func:`iaa_frames.stats.intervals.interval_scale`)."""
    from scipy.special import stdtrit

    m = np.asarray(m, dtype=np.float64)
    df = np.fmin(nu * m / n if np.isfinite(nu) else m - 1.0, m - 1.0)
    t = stdtrit(np.maximum(df, 1.0), _Z)
    return t * np.sqrt(v * kept * (1.0 + (1.0 - kept) / (1.0 + kept)) * n / m)


def _needed(v, kept, nu, n: int, target: float, cap: int = 10_000_000) -> float:
    """The smallest ``m >= 2`` whose reported half-width is at most ``target``."""
    if not (np.isfinite(v) and v > 0):
        return np.nan
    lo, hi = 2, 2
    while _reported_halfwidth(v, kept, nu, n, hi) > target:
        if hi >= cap:
            return np.nan
        lo, hi = hi, min(hi * 2, cap)
    while lo < hi:
        mid = (lo + hi) // 2
        if _reported_halfwidth(v, kept, nu, n, mid) <= target:
            hi = mid
        else:
            lo = mid + 1
    return float(hi)


def _engine_notes(tables, label: str, seed: int) -> dict:
    """Per component, the note of :func:`iaa_frames.agreement` on the pilot for the
    planned label ("" where the engine reports the agreement): a plan for a component
    the engine leaves undefined on the pilot (classification with too few chance units,
    as on every 40-item pilot of the independent generator with 4 classes) says so."""
    from iaa_frames.core.engine.assemble import agreement_from_tables

    ds = agreement_from_tables(tables, n_boot=0, seed=seed, progress=False)
    out = {}
    for comp in COMPONENTS:
        value = ds["note"].sel(component=comp, label=label, annotator=ALL).values.item()
        if np.isnan(ds["agreement"].sel(component=comp, label=label, annotator=ALL).values):
            out[comp] = str(value) or "undefined"
    return out


def _disagreement_items(cells, cell: int) -> int:
    """Items of the pilot with a label disagreement in classification's cell ``cell``
    (its within part's disagreement column)."""
    w = cells.within.matrix.tocsc()[:, cells.n_cells + cell]
    return int((np.abs(w.toarray().ravel()) > 1e-12).sum())


def _kept(cells, cell: int, v: float) -> float:
    """The pilot's pair-level factor ``(V - P) / (V + P)`` in ``[1/3, 1]``
    (:func:`iaa_frames.stats.intervals.pair_level_shrink`): ``P``, the pair-level part of
    the bootstrap variance of a component with chance rows, falls with the items about
    as ``V`` does (``P / V`` about 0.05 for localization on 40, 160 and 480 items of the
    plan study's crowd), so the factor is carried over to every size."""
    p = float(np.asarray(cells.pair_variance())[cell])
    if not (np.isfinite(v) and v > 0 and np.isfinite(p)):
        return 1.0
    return float(np.clip((v - p) / (v + p), 1.0 / 3.0, 1.0))


def _constants(v, kept, nu, n: int):
    """``(c^2, c_chance^2)`` of ``half-width(m)^2 ~ c^2 / m + c_chance^2 / m^2``, the
    expansion of :func:`_reported_halfwidth` (``t^2 ~ z^2 (1 + (z^2 + 1) / (2 df))``, with
    ``df = nu m / n``), which :func:`iaa_frames.plot.plan` draws."""
    if not (np.isfinite(v) and v > 0):
        return np.nan, np.nan
    from scipy.special import ndtri

    z = float(ndtri(_Z))
    var = v * kept * 2.0 / (1.0 + kept) * n
    df_rate = nu / n if np.isfinite(nu) and nu > 0 else 1.0
    return z * z * var, z * z * (z * z + 1.0) / (2.0 * df_rate) * var


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
    engine_notes = _engine_notes(tables, label, seed)
    for comp in comps:
        cells = component_cells(tables, layout, comp)
        hw = halfwidth_curve(cells, cell, n, sizes, n_boot=n_boot, rng=rng)
        exponent = _fit(sizes, hw)[2]
        v, nu = _variance(cells, cell, n)
        kept = _kept(cells, cell, v) if comp in SIGMA_COMPONENTS else 1.0
        need = _needed(v, kept, nu, n, target_halfwidth)
        need = math.ceil(need) if np.isfinite(need) else np.nan
        a, b = _constants(v, kept, nu, n)
        reps = []
        for _ in range(n_outer):
            outer = rng.multinomial(n, np.full(n, 1.0 / n)).astype(np.float64)
            v_b, _ = _variance(cells, cell, n, weights=outer)
            reps.append(_needed(v_b, kept, nu, n, target_halfwidth))
        reps = np.asarray(reps, dtype=float)
        reps = reps[np.isfinite(reps)]
        low, high = np.ceil(np.quantile(reps, [0.025, 0.975])) if len(reps) else (np.nan, np.nan)
        note = []
        if fewer:
            note.append(f"{fewer} pilot items had fewer than {annotators} annotators")
        # why the component has no interval on the pilot ("": it has one): its
        # halfwidth_pilot is then NaN, not the model's value (0.0 where the agreement is
        # undefined on the pilot and constant on its resamples)
        undefined = ""
        if comp == "classification" and len(corpus.labels) < 2:
            undefined = (
                "the pilot has one class: there is no label to disagree on, and no pilot "
                "size changes that"
            )
        elif engine_notes.get(comp):
            undefined = f"the engine reports no {comp} on the pilot ({engine_notes[comp]})"
        elif not np.isfinite(v):
            undefined = "agreement undefined on the pilot's resamples"
        if undefined:
            note.append(f"{undefined}, so {HALFWIDTH_NA}")
        if engine_notes.get(comp) and np.isfinite(need):
            note.append(
                "the plan extrapolates a statistic the pilot cannot support: a larger pilot"
            )
        if comp == "classification" and np.isfinite(v):
            k = _disagreement_items(cells, cell)
            if k < THIN_PILOT_ITEMS:
                note.append(
                    f"the pilot's classification rests on {k} items with a label "
                    f"disagreement: its variance, and the plan, are uncertain "
                    f"(n_low-n_high); a larger pilot"
                )
        if np.isfinite(hw).any() and np.nanmax(hw) == 0:
            note.append("the agreement never varies on the pilot's resamples: no plan")
        rows.append(
            {
                "component": comp,
                "label": label,
                "annotators": int(annotators),
                "n_pilot": n,
                "halfwidth_pilot": (
                    np.nan if undefined else float(_reported_halfwidth(v, kept, nu, n, n))
                ),
                "target": float(target_halfwidth),
                "n_items": need,
                "n_low": low,
                "n_high": high,
                "n_first": first_batch(need, n),
                "c": math.sqrt(a) if np.isfinite(a) else np.nan,
                "c_chance": math.sqrt(b) if np.isfinite(b) else np.nan,
                "exponent": exponent,
                "note": "; ".join(note),
            }
        )
        curves.append(pd.DataFrame({"component": comp, "m": sizes, "halfwidth": hw}))
    table = pd.DataFrame(rows).astype(
        {"n_items": "Int64", "n_low": "Int64", "n_high": "Int64", "n_first": "Int64"}
    )
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
        Replicates per subsample size of the m-out-of-n ``curve`` (drawn by
        :func:`iaa_frames.plot.plan`; the plan itself rests on the pilot's jackknife).
    n_outer : int, default 50
        Bootstrap replicates of the pilot for the plan's own interval (0: none).
    match_threshold, n_chance
        Of the pair tables (:func:`iaa_frames.pair_tables`).
    seed : int, default 0
        Seed of the thinning, the chance sample and the resampling.

    Returns
    -------
    Plan
        With ``n_first``, the first batch: annotate it, then plan again on every item
        annotated (:func:`iaa_frames.plan_sequential` runs the stages); a one-shot plan
        from a thin pilot misses the target most for classification.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> pilot = iaf.simulate(n_items=40, seed=0, annotators={"a": "good", "b": "sloppy"})
    >>> p = iaf.plan(pilot, target_halfwidth=0.02, component="localization", n_outer=50)
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
