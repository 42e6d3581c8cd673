"""Agreement per time window, and who drifted when: :func:`agreement_over_time`.

An item enters the window in which its last annotation was made (the latest ``time`` of
its rows): its agreement is only known once every annotator is done with it. Windows
are exactly ``freq`` wide (:func:`item_windows`).

**Chance is the corpus's.** A window's agreement is ``1 - observed / expected`` with
``observed`` from the window's items only and ``expected`` the chance expectation of
the **whole corpus** (built once, :mod:`.windows`): chance is a property of the
population of items, and a window of a couple of dozen items has too few chance units of
its own (localization of small boxes: none at all). Localization's chance is
post-stratified to each window's own within pairs. Classification, an alpha with no
chance rows, is the window's alone; any component whose cells have a chance side gets
the corpus's.

**Intervals** are percentile intervals of a bootstrap that resamples, per replicate,
the items of every window within that window (the within side) and the items of the
whole corpus (the chance side, shared by every window of the replicate): they include
the chance side's uncertainty. They are plain percentile intervals, not the BCa
intervals of :func:`iaa_frames.agreement` (whose acceleration and width corrections are
defined for one population of items resampled on both sides).

**Flags.** The latest window is compared with all earlier windows pooled
(``baseline``). ``drop`` (baseline minus latest) is flagged when it exceeds
``drop_margin``: when the 2.5 % quantile of its replicates is above 0 (95 % intervals;
about 2.5 % false alarms per cell on a stationary corpus). An annotator's cell holds
the pairs that involve the annotator, so one annotator who degrades lowers every
annotator's cell; an annotator is therefore flagged (``recalibrate``) only when its
own cell's drop is beyond its margin **and** exceeds the drop of the other
annotators' pairs among themselves by more than ``contrast_margin`` (with fewer than
three annotators there are no such pairs: the cell's own drop decides). **When**:
``change_window`` is, per cell, the first window of the later run of the split of the
windows that lowers the cell most beyond its bootstrap error (for an annotator, of its
cell minus the other annotators' pairs; :func:`iaa_frames.temporal.drift.change_points`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.engine import CI_LEVEL, CellLayout
from iaa_frames.engine.assemble import name_order, names_in_order
from iaa_frames.engine.result import COMPONENTS, MEASURES, text
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.settings.keywords import engine_keywords
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings
from iaa_frames.settings.thresholds import concat_thresholds, with_threshold
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.bootstrap import block_size
from iaa_frames.stats.samples import percentile_ci
from iaa_frames.tables.pairs import iter_tables_from, pair_tables_from

from .drift import change_points, fall_margin
from .windows import SubsetCells, replicate_blocks

__all__ = ["agreement_over_time", "item_windows"]


def _datetimes(values: pd.Series) -> pd.Series:
    """Datetimes of a column (ISO 8601 strings with their own precision and offsets, as
    Label Studio and CVAT write them, then any other format pandas reads), in UTC."""
    if pd.api.types.is_datetime64_any_dtype(values):
        return pd.to_datetime(values, utc=True)
    out = pd.to_datetime(values, errors="coerce", utc=True, format="ISO8601")
    rest = out.isna() & values.notna()
    if rest.any():
        out[rest] = pd.to_datetime(values[rest], errors="coerce", utc=True, format="mixed")
    return out


def _offset(freq):
    """The pandas offset of a period alias with its multiple (``"2D"``, ``"50h"``,
    ``"3M"``)."""
    if isinstance(freq, (int, float)):
        raise ParameterError(
            f"freq must be a period alias ('D', 'W', ...) for datetimes, got {freq!r}"
        )
    try:
        offset = pd.PeriodDtype(freq).freq
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"freq {freq!r} is not a pandas period alias ({exc})") from None
    if offset.n < 1:
        raise ParameterError(f"freq {freq!r} must be a positive multiple of its unit")
    return offset


def window_starts(last: pd.Series, freq) -> pd.Series:
    """The start of the window of every (naive) datetime: windows exactly ``freq`` wide.

    A fixed-width ``freq`` (days, hours, minutes, seconds, with any multiple: ``"2D"``,
    ``"50h"``, ``"90min"``) cuts time into windows of that width from an origin, the
    earliest datetime floored to the unit (``"2D"``: its day, ``"50h"``: its hour). A
    calendar ``freq`` (``"W"``, ``"M"``, ``"Q"``, ``"Y"``) gives its calendar periods
    (weeks from Monday, months...), and with a multiple (``"2W"``, ``"3M"``) runs of
    that many periods from the earliest datetime's period.

    Examples
    --------
    >>> t = pd.Series(pd.to_datetime(["2026-01-01 07:00", "2026-01-02 23:00", "2026-01-03"]))
    >>> window_starts(t, "2D").astype(str).tolist()
    ['2026-01-01', '2026-01-01', '2026-01-03']
    >>> window_starts(t, "50h").astype(str).tolist()
    ['2026-01-01 07:00:00', '2026-01-01 07:00:00', '2026-01-03 09:00:00']
    """
    offset = _offset(freq)
    base = offset.base
    if isinstance(base, (pd.offsets.Tick, pd.offsets.Day)):
        width = pd.Timedelta(offset)
        origin = last.min().floor(base.freqstr)
        return origin + ((last - origin) // width) * width
    periods = last.dt.to_period(base)
    ordinal = periods.array.asi8
    first = ordinal.min()
    ordinal = first + (ordinal - first) // offset.n * offset.n
    starts = pd.PeriodIndex.from_ordinals(ordinal, freq=base).start_time
    return pd.Series(starts, index=last.index)


def item_windows(df: pd.DataFrame, *, time: str, freq) -> pd.Series:
    """The window (its start) of every item: the window of its last annotation.

    ``freq`` is a pandas period alias with an optional multiple (``"D"``, ``"2D"``,
    ``"50h"``, ``"W"``, ``"M"``...; windows as :func:`window_starts` cuts them) for a
    datetime ``time`` column, or a positive number, the window width, for a numeric one
    (windows ``[k freq, (k + 1) freq)``).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a", "a", "b"], "time": pd.to_datetime(
    ...     ["2026-01-01", "2026-01-09", "2026-01-02"])})
    >>> item_windows(df, time="time", freq="W").astype(str).to_dict()
    {'a': '2026-01-05', 'b': '2025-12-29'}
    >>> item_windows(df, time="time", freq="2D").astype(str).to_dict()
    {'a': '2026-01-08', 'b': '2026-01-02'}
    """
    if time not in df.columns:
        raise SchemaError(f"no {time!r} column: agreement over time needs the time of every row")
    values = df[time]
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if not numeric:
        values = _datetimes(values)
    last = values.groupby(df["item"].to_numpy()).max()
    if last.isna().any():
        bad = last.index[last.isna()][:5].tolist()
        raise SchemaError(f"{int(last.isna().sum())} items have no {time!r} at all, e.g. {bad}")
    if numeric:
        if not isinstance(freq, (int, float)) or isinstance(freq, bool) or not freq > 0:
            raise ParameterError(f"freq must be a positive number for a numeric {time!r}")
        return np.floor(last / freq) * freq
    if getattr(last.dt, "tz", None) is not None:
        last = last.dt.tz_localize(None)
    return window_starts(last, freq)


#: The variables of the result: name -> (long_name, description).
VARIABLES = {
    "agreement": ("chance-corrected agreement of the window", "1 - observed / expected."),
    "observed": ("observed disagreement of the window", "From the window's items only."),
    "expected": (
        "expected disagreement: the corpus's chance",
        "The chance expectation of the whole corpus (every window's, whatever its items); "
        "localization's post-stratified to the window's within pairs; classification's "
        "(an alpha) from the window's own clusters.",
    ),
    "ci_low": ("lower bound of the percentile interval", "Window items and corpus resampled."),
    "ci_high": ("upper bound of the percentile interval", "Window items and corpus resampled."),
    "others_agreement": (
        "agreement of the other annotators' pairs among themselves",
        "For an annotator's cell: the window's agreement of the pairs without the "
        "annotator (NaN for '(all)', and with fewer than three annotators).",
    ),
    "baseline": ("agreement of all windows before the latest, pooled", ""),
    "baseline_ci_low": ("lower bound of the baseline's interval", ""),
    "baseline_ci_high": ("upper bound of the baseline's interval", ""),
    "drop": ("baseline minus the latest window", ""),
    "drop_margin": (
        "margin of the drop",
        "drop minus the one-sided lower bound of its bootstrap replicates.",
    ),
    "contrast": (
        "drop of the annotator's cell beyond the drop of the other annotators' pairs",
        "NaN for '(all)' and where the other annotators' pairs are undefined.",
    ),
    "contrast_margin": ("margin of the contrast", ""),
    "recalibrate": (
        "the latest window falls below the baseline",
        "drop > drop_margin; for an annotator also contrast > contrast_margin (where "
        "defined): the annotator, not its partners, fell.",
    ),
    "change_window": (
        "first window of the lower run",
        "Start of the window from which the cell stays lower (for an annotator: its cell "
        "against the other annotators' pairs); NaT / NaN: no change.",
    ),
    "change_z": ("standardized fall at the change", "Its bootstrap z of the best split."),
}


@validate_params()
@engine_keywords
def agreement_over_time(
    df: pd.DataFrame,
    *,
    time: str = "time",
    freq="W",
    n_boot: int = DEFAULT_N_BOOT,
    min_items: int = 4,
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """Every component of the agreement per time window against the corpus's chance,
    with intervals, and flags that name who fell and when.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame with a ``time`` column (datetimes, e.g. Label Studio's
        ``updated_at``, or numbers).
    time : str, default "time"
        The column of the time of every row; an item's time is its latest.
    freq : str or number, default "W"
        The windows, exactly ``freq`` wide: a pandas period alias with an optional
        multiple for datetimes (``"D"``, ``"2D"``, ``"50h"``, ``"W"``, ``"M"``:
        :func:`window_starts`), a width for numbers.
    n_boot, distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`; the tables (matching, chance sample) are
        those of the whole corpus, built once.
    min_items : int, default 4
        Windows with fewer items are left out (their items still count in the
        corpus's chance).

    Returns
    -------
    xarray.Dataset
        By ``window`` (its start) x ``component`` x ``label`` x ``annotator``:
        ``agreement``, ``observed``, ``expected`` (the corpus's chance: attrs
        ``chance``), ``ci_low``, ``ci_high``, ``note`` and ``others_agreement``;
        ``n_items`` by window; by component x label x annotator: ``baseline`` (all
        windows before the latest, pooled) with ``baseline_ci_low`` and
        ``baseline_ci_high``, ``drop`` (baseline minus the latest window),
        ``drop_margin``, ``contrast``, ``contrast_margin``, ``recalibrate`` and
        ``change_window``, ``change_z`` (see the module docstring).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate_drift(n_items=60, freq="1h", seed=0)
    >>> res = iaf.agreement_over_time(df, freq="D", n_chance=200, n_boot=50)
    >>> res.sizes["window"], res["n_items"].values.tolist()
    (3, [24, 24, 12])
    >>> bool(res["recalibrate"].sel(component="detection", label="(all)",
    ...                             annotator="(all)"))
    True
    >>> res.attrs["chance"][:33]
    'the whole corpus (60 items), the '
    """
    windows = item_windows(df, time=time, freq=freq)
    counts = windows.value_counts().sort_index()
    kept = counts.index[counts.to_numpy() >= min_items]
    if len(kept) == 0:
        raise ParameterError(f"no window has {min_items} items or more; widen freq={freq!r}")
    kept = pd.Index(kept, name="window")
    if settings.several:
        every = iter_tables_from(df, settings.thresholds, settings)
        res = concat_thresholds(
            [_over_time(t, windows, kept, n_boot, settings.seed) for t in every]
        )
    else:
        res = _over_time(pair_tables_from(df, settings), windows, kept, n_boot, settings.seed)
    res["n_items"] = ("window", counts.reindex(kept).to_numpy())
    res.attrs |= {
        "time": time,
        "freq": str(freq),
        "window_origin": str(windows.min()),
        "latest_window": str(kept[-1]),
    }
    return res


def _over_time(tables, windows: pd.Series, kept: pd.Index, n_boot: int, seed: int) -> xr.Dataset:
    """The result of one threshold's tables."""
    corpus = tables.corpus
    n, n_windows = len(corpus.items), len(kept)
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    stratum = kept.get_indexer(windows.reindex(pd.Index(corpus.items)).to_numpy())
    masks = {j: stratum == j for j in range(n_windows)}
    if n_windows > 1:
        masks["baseline"] = (stratum >= 0) & (stratum < n_windows - 1)
    # the other annotators' pairs among themselves, for every annotator (three or more)
    without = [None] + (list(range(layout.n_annotators)) if layout.n_annotators >= 3 else [])
    cells = {
        (j, a): SubsetCells.build(tables, layout, m, a) for j, m in masks.items() for a in without
    }
    est = {key: c.estimates() for key, c in cells.items()}
    shape = (len(COMPONENTS), layout.n_cells)
    reps = {key: np.full((n_boot, *shape), np.nan) for key in cells}
    if n_boot:
        at = 0
        step = block_size(n_boot, 2 * n)
        for k in replicate_blocks(
            stratum, n_boot, seed=seed, clusters=corpus.group_codes(), block_size=step
        ):
            for key, c in cells.items():
                reps[key][at : at + len(k)] = c.replicates(k)
            at += len(k)
    series = {j: _with_others(est, reps, j, layout, without) for j in masks}
    values = _window_values(series, est, n_windows, n_boot)
    values |= _flags(series, n_windows, n_boot)
    return _dataset(values, tables, layout, kept, n_boot, seed)


def _with_others(est, reps, j, layout: CellLayout, without) -> dict:
    """A window's (or the baseline's) estimates and replicates, with, in every annotator's
    cell, the other annotators' pairs among themselves (``others``)."""
    own, own_reps = est[(j, None)], reps[(j, None)]
    others = np.full(own["agreement"].shape, np.nan)
    others_reps = np.full(own_reps.shape, np.nan)
    pooled = np.arange(layout.n_labels + 1) * layout.n_groups  # the cells of "(all)"
    for a in without[1:]:
        others[:, pooled + 1 + a] = est[(j, a)]["agreement"][:, pooled]
        others_reps[:, :, pooled + 1 + a] = reps[(j, a)][:, :, pooled]
    return {**own, "reps": own_reps, "others": others, "others_reps": others_reps}


def _interval(s: dict, n_boot: int):
    """Percentile interval of a window's cells, where defined on enough items."""
    if not n_boot:
        return np.full_like(s["agreement"], np.nan), np.full_like(s["agreement"], np.nan)
    low, high = percentile_ci(s["reps"], level=CI_LEVEL)
    shown = np.isfinite(s["agreement"]) & (s["interval_note"] == "")
    return np.where(shown, low, np.nan), np.where(shown, high, np.nan)


def _window_values(series: dict, est: dict, n_windows: int, n_boot: int) -> dict:
    """The variables by window, and the baseline's."""
    windows = [series[j] for j in range(n_windows)]
    out = {k: np.stack([s[k] for s in windows]) for k in ("agreement", "observed", "expected")}
    out["others_agreement"] = np.stack([s["others"] for s in windows])
    out["ci_low"], out["ci_high"] = (
        np.stack(v) for v in zip(*(_interval(s, n_boot) for s in windows))
    )
    out["note"] = np.stack(
        [np.where(s["note"] == "", s["interval_note"], s["note"]) for s in windows]
    ).astype(object)
    base = series.get("baseline")
    if base is None:
        nan = np.full_like(windows[-1]["agreement"], np.nan)
        out["baseline"] = out["baseline_ci_low"] = out["baseline_ci_high"] = nan
    else:
        out["baseline"] = base["agreement"]
        out["baseline_ci_low"], out["baseline_ci_high"] = _interval(base, n_boot)
    return out


def _flags(series: dict, n_windows: int, n_boot: int) -> dict:
    """drop, contrast and their margins, recalibrate, and the change points."""
    last = series[n_windows - 1]
    base = series.get("baseline") or {
        k: np.full(np.shape(last[k]), np.nan)
        for k in ("agreement", "reps", "others", "others_reps")
    }
    drop = base["agreement"] - last["agreement"]
    drop_reps = base["reps"] - last["reps"]
    others_drop = base["others"] - last["others"]
    contrast = drop - others_drop
    contrast_reps = drop_reps - (base["others_reps"] - last["others_reps"])
    out = {"drop": drop, "contrast": contrast}
    with np.errstate(invalid="ignore"):
        if n_boot:
            out["drop_margin"] = fall_margin(drop, drop_reps, level=CI_LEVEL)
            out["contrast_margin"] = fall_margin(contrast, contrast_reps, level=CI_LEVEL)
        else:
            out["drop_margin"] = out["contrast_margin"] = np.full_like(drop, np.nan)
        singled = ~np.isfinite(contrast) | (contrast > out["contrast_margin"])
        out["recalibrate"] = (drop > out["drop_margin"]) & singled
    # when: per cell, its series over the windows; an annotator's against the others'
    windows = [series[j] for j in range(n_windows)]
    own = np.stack([s["agreement"] for s in windows])
    others = np.stack([s["others"] for s in windows])
    own_reps = np.stack([s["reps"] for s in windows], axis=1)
    others_reps = np.stack([s["others_reps"] for s in windows], axis=1)
    contrasted = np.isfinite(others).any(axis=0)
    y = np.where(contrasted, own - others, own)
    y_reps = np.where(contrasted, own_reps - others_reps, own_reps)
    out["change_at"], out["change_z"] = change_points(y, y_reps, level=CI_LEVEL)
    return out


def _dataset(values: dict, tables, layout: CellLayout, kept: pd.Index, n_boot: int, seed: int):
    """The labelled result of one threshold."""
    corpus = tables.corpus
    labels, annotators = name_order(corpus.labels), name_order(corpus.annotators)

    def cells(v):  # (..., component, n_cells) -> (..., component, label, annotator)
        v = np.asarray(v)
        v = v.reshape(v.shape[:-1] + (layout.n_labels + 1, layout.n_groups))
        return v[..., labels, :][..., annotators]

    dims = ("component", "label", "annotator")
    data = {}
    for name, v in values.items():
        v = cells(v)
        if name == "change_at":
            start = np.asarray(kept)
            none = np.datetime64("NaT") if start.dtype.kind == "M" else np.nan
            name, v = "change_window", np.where(v >= 0, start[np.maximum(v, 0)], none)
        long_name, description = VARIABLES.get(name, ("reason agreement is NaN", ""))
        attrs = {"long_name": long_name} | ({"description": description} if description else {})
        data[name] = (("window", *dims) if v.ndim == 4 else dims, v, attrs)
    coords = {
        "window": kept,
        "component": text("component", COMPONENTS, "component of agreement"),
        "label": names_in_order(corpus.labels, labels),
        "annotator": names_in_order(corpus.annotators, annotators),
        "measure": text("component", [MEASURES[c] for c in COMPONENTS], "statistic"),
    }
    attrs = {
        "title": "iaa_frames agreement over time",
        **tables.params,
        "chance": (
            f"the whole corpus ({len(corpus.items)} items), the same for every window: "
            "a window's expected disagreement is the corpus's chance expectation "
            "(localization post-stratified to the window's within pairs); only the within "
            "side is the window's"
        ),
        "n_boot": int(n_boot),
        "seed": int(seed),
        "ci_level": CI_LEVEL,
        "ci_method": "percentile",
    }
    ds = xr.Dataset(data, coords=coords, attrs=attrs)
    ds["note"] = ds["note"].astype(object)
    return with_threshold(ds, tables.params["match_threshold"])
