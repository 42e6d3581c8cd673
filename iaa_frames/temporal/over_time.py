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

**Intervals** come from a bootstrap that resamples, per replicate, the items of every
window within that window (the within side) and the items of the whole corpus (the
chance side, shared by every window of the replicate): they include the chance side's
uncertainty. They are BCa intervals with the width correction of
:func:`iaa_frames.agreement` (:func:`iaa_frames.stats.intervals.bca_interval`,
:func:`~iaa_frames.stats.intervals.interval_scale`), their jackknife that of the window's
own items (groups leave whole) on the within side, the chance side whole: Student's
quantile on the degrees of freedom of the items a cell rests on, and the plug-in factor
of those items. The chance side's pair-level correction is left out (its pairs span the
corpus, not the window): the width errs on the long side there. A window's cell rests on
few items (a blind annotator's localization on its 4-8 lucky matches), and a plain
percentile interval, the earlier method, lay wholly below 0 for 10 of 158 such cells of
image-blind annotators (6.3 %, against 2.5 % at 95 %), 2 of 158 with the correction
(``tests/temporal/test_audit_blind_windows_kinds.py``). They are then widened as
:func:`iaa_frames.agreement` widens its cells where matches (detection, overall) or label
disagreements (classification) rest on fewer than 4 items, and carry its n/a for a
classification cell whose matched pairs would hold too few label disagreements by chance
(:meth:`iaa_frames.temporal.windows.SubsetCells.estimates`).

**Flags.** The latest window is compared with all earlier windows pooled
(``baseline``). ``drop`` (baseline minus latest) is flagged when it exceeds
``drop_margin``: when the 2.5 % quantile of its replicates is above 0 (95 % intervals;
about 2.5 % false alarms per cell on a stationary corpus). An annotator's cell holds
the pairs that involve the annotator, so one annotator who degrades lowers every
annotator's cell; an annotator is therefore flagged (``recalibrate``) only when its
own cell's drop is beyond its margin **and** exceeds the drop of the other
annotators' pairs among themselves by more than ``contrast_margin`` (with fewer than
three annotators there are no such pairs, and above :data:`MAX_CONTRASTED` they are not
computed: the cell's own drop decides). **When**:
``change_window`` is, per cell, the first window of the later run of the split of the
windows that lowers the cell most beyond its bootstrap error (for an annotator, of its
cell minus the other annotators' pairs; :func:`iaa_frames.temporal.drift.change_points`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.engine import CI_LEVEL, CellLayout
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.core.tables.pairs import iter_tables_from, pair_tables_from
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.thresholds import concat_thresholds
from iaa_frames.settings.validation import Integer, validate_params
from iaa_frames.stats.bootstrap import block_size
from iaa_frames.stats.intervals import interval_scale

from .frames import ColumnName
from .window_result import dataset, flags, window_values, with_others
from .windows import SubsetCells, replicate_blocks

__all__ = [
    "MAX_CONTRASTED",
    "MAX_WINDOWS",
    "ONE_GROUP_NOTE",
    "agreement_over_time",
    "item_windows",
    "window_starts",
]

#: Most annotators whose cells are contrasted with the other annotators' pairs among
#: themselves (one more set of cells per annotator and window); with more, an annotator
#: is flagged on its own cell's drop, as with two.
MAX_CONTRASTED = 12

#: The note of a window's cells whose items are all of one group (``group`` column).
ONE_GROUP_NOTE = (
    "interval not reported: the window's items are all of one group (groups are "
    "resampled whole; widen freq)"
)
#: Most windows kept: every window's cells are one pass over the corpus's pairs and its
#: intervals a set of replicates, so the work grows with windows x items (a numeric time
#: with ``freq`` below its spacing and ``min_items=1``: one window per item, the square
#: of the corpus).
MAX_WINDOWS = 1000


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
    >>> t = pd.Series(pd.to_datetime(["2026-01-01 07:00", "2026-01-02 23:00", "2026-01-03 10:00"]))
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
    if not pd.api.types.is_hashable(time):
        raise ParameterError(f"time must be the name of a column; got {time!r}")
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


def _agreement_over_time(
    df: pd.DataFrame,
    *,
    time: str = "time",
    freq="W",
    n_boot: int = DEFAULT_N_BOOT,
    min_items: int = 4,
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`agreement_over_time` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    windows = item_windows(df, time=time, freq=freq)
    counts = windows.value_counts().sort_index()
    kept = counts.index[counts.to_numpy() >= min_items]
    if len(kept) == 0:
        raise ParameterError(f"no window has {min_items} items or more; widen freq={freq!r}")
    if len(kept) > MAX_WINDOWS:
        raise ParameterError(
            f"{len(kept):,} windows of {min_items} items or more: at most {MAX_WINDOWS:,} "
            f"(each is a pass over the corpus); widen freq={freq!r} or raise min_items"
        )
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


@validate_params({"time": ColumnName(), "min_items": Integer(1)}, engine=False)
def agreement_over_time(
    df: pd.DataFrame,
    *,
    time: str = "time",
    freq="W",
    n_boot: int = DEFAULT_N_BOOT,
    min_items: int = 4,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
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
        corpus's chance); an integer >= 1. At most :data:`MAX_WINDOWS` windows are kept
        (more: a :class:`~iaa_frames.errors.ParameterError`).

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
        ``change_window``, ``change_z`` (see the module docstring), and ``flag_note``:
        why a cell's drop or its margin is NaN ("" where both are numbers).

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
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _agreement_over_time(
        df, time=time, freq=freq, n_boot=n_boot, min_items=min_items, settings=settings
    )


def _over_time(tables, windows: pd.Series, kept: pd.Index, n_boot: int, seed: int) -> xr.Dataset:
    """The result of one threshold's tables."""
    corpus = tables.corpus
    n, n_windows = len(corpus.items), len(kept)
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    stratum = kept.get_indexer(windows.reindex(pd.Index(corpus.items)).to_numpy())
    masks = {j: stratum == j for j in range(n_windows)}
    if n_windows > 1:
        masks["baseline"] = (stratum >= 0) & (stratum < n_windows - 1)
    # the other annotators' pairs among themselves, for every annotator (three or more;
    # a crowd's annotator weighs little in the others' cells: none)
    contrasted = 3 <= layout.n_annotators <= MAX_CONTRASTED
    without = [None] + (list(range(layout.n_annotators)) if contrasted else [])
    shared = {}  # the chance sides equal in every subset, summed once a replicate
    cells = {
        (j, a): SubsetCells.build(tables, layout, m, a, shared)
        for j, m in masks.items()
        for a in without
    }
    est = {key: c.estimates() for key, c in cells.items()}
    shape = (len(COMPONENTS), layout.n_cells)
    reps = {key: np.full((n_boot, *shape), np.nan) for key in cells}
    clusters = corpus.group_codes()
    if n_boot:
        at = 0
        step = block_size(n_boot, 2 * n)
        for k in replicate_blocks(stratum, n_boot, seed=seed, clusters=clusters, block_size=step):
            for key, c in cells.items():
                reps[key][at : at + len(k)] = c.replicates(k)
            at += len(k)
        for j, m in masks.items():  # the intervals' acceleration and width (module docstring)
            own = est[(j, None)]
            own["jackknife"], n_clusters = cells[(j, None)].jackknife(m, clusters)
            own["scale"] = interval_scale(
                own["jackknife"],
                0.0,
                n_items=max(n_clusters, 1),
                level=CI_LEVEL,
                cell_items=np.minimum(own["n_items"], n_clusters),
            )
            if n_clusters < 2:  # the bootstrap draws the window's one group every time
                shown = (own["note"] == "") & (own["interval_note"] == "")
                own["interval_note"] = np.where(shown, ONE_GROUP_NOTE, own["interval_note"])
    series = {j: with_others(est, reps, j, layout, without) for j in masks}
    values = window_values(series, n_windows, n_boot)
    values |= flags(series, n_windows, n_boot)
    return dataset(values, tables, layout, kept, n_boot, seed)
