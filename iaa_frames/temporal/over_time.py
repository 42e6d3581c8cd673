"""Agreement per time window, and the re-calibration signal: :func:`agreement_over_time`.

An item enters the window in which its last annotation was made (the latest ``time`` of
its rows): its agreement is only known once every annotator is done with it. Each window
is an agreement of its own (:func:`iaa_frames.agreement` on its items: the same
components, the chance from the same window, cluster-bootstrap intervals), so a window
can be read like any result. The latest window is flagged (``recalibrate``) where it
falls below the agreement of all earlier windows pooled (``baseline``) by more than the
intervals allow: by more than the upper half-width of its interval and the lower
half-width of the baseline's, combined as independent errors (``drop_margin``, the
margin of a one-sided comparison at the intervals' level: about 2.5 % false alarms for
95 % intervals on a stationary corpus). The annotators of the latest window then agree
less than they did, beyond what resampling the items explains.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.api.backend import agreement
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.settings.keywords import engine_keywords
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings
from iaa_frames.settings.validation import validate_params

__all__ = ["agreement_over_time", "item_windows"]

_KEEP = ("agreement", "observed", "expected", "ci_low", "ci_high", "note")


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


def item_windows(df: pd.DataFrame, *, time: str, freq) -> pd.Series:
    """The window (its start) of every item: the window of its last annotation.

    ``freq`` is a pandas period alias (``"D"``, ``"W"``, ``"M"``, ``"h"``...) for a
    datetime ``time`` column, or a positive number, the window width, for a numeric one.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a", "a", "b"], "time": pd.to_datetime(
    ...     ["2026-01-01", "2026-01-09", "2026-01-02"])})
    >>> item_windows(df, time="time", freq="W").astype(str).to_dict()
    {'a': '2026-01-05', 'b': '2025-12-29'}
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
    if isinstance(freq, (int, float)):
        raise ParameterError(f"freq must be a period alias ('D', 'W', ...) for datetimes {time!r}")
    if getattr(last.dt, "tz", None) is not None:
        last = last.dt.tz_localize(None)
    try:
        return last.dt.to_period(freq).dt.start_time
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"freq {freq!r} is not a pandas period alias ({exc})") from None


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
    """Every component of the agreement per time window, with intervals, and a flag when
    the latest window falls below the earlier ones.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame with a ``time`` column (datetimes, e.g. Label Studio's
        ``updated_at``, or numbers).
    time : str, default "time"
        The column of the time of every row; an item's time is its latest.
    freq : str or number, default "W"
        The windows: a pandas period alias for datetimes, a width for numbers.
    n_boot, distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`, for each window.
    min_items : int, default 4
        Windows with fewer items are left out (their intervals would be meaningless).

    Returns
    -------
    xarray.Dataset
        ``agreement``, ``observed``, ``expected``, ``ci_low``, ``ci_high`` and ``note``
        by ``window`` (its start) x ``component`` x ``label`` x ``annotator``;
        ``n_items`` by window; by component x label x annotator: ``baseline`` (the
        agreement of all windows before the latest, pooled) with ``baseline_ci_low``
        and ``baseline_ci_high``, ``drop`` (baseline minus the latest window),
        ``drop_margin`` and ``recalibrate`` (``drop > drop_margin``).

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
    """
    windows = item_windows(df, time=time, freq=freq)
    counts = windows.value_counts().sort_index()
    kept = counts.index[counts.to_numpy() >= min_items]
    if len(kept) == 0:
        raise ParameterError(f"no window has {min_items} items or more; widen freq={freq!r}")
    item_window = df["item"].map(windows)
    params = settings.as_kwargs()
    parts = [
        agreement(df.loc[(item_window == w).to_numpy()], n_boot=n_boot, **params)[list(_KEEP)]
        for w in kept  # one agreement per window (a few), not per item
    ]
    res = xr.concat(parts, dim=pd.Index(kept, name="window"), join="outer", fill_value=np.nan)
    res["note"] = res["note"].fillna("")
    res["n_items"] = ("window", counts.reindex(kept).to_numpy())
    earlier = (item_window < kept[-1]).to_numpy() & item_window.isin(kept).to_numpy()
    last = res.isel(window=-1).drop_vars("window")
    if len(kept) > 1:
        base = agreement(df.loc[earlier], n_boot=n_boot, **params)
        base = base[["agreement", "ci_low", "ci_high"]].reindex_like(last)
    else:
        base = xr.full_like(last[["agreement", "ci_low", "ci_high"]], np.nan)
    res["baseline"] = base["agreement"]
    res["baseline_ci_low"], res["baseline_ci_high"] = base["ci_low"], base["ci_high"]
    # the drop of the latest window below the baseline, against the half-widths of both
    # intervals on the sides that face each other (combined as independent errors)
    res["drop"] = base["agreement"] - last["agreement"]
    res["drop_margin"] = np.hypot(
        last["ci_high"] - last["agreement"], base["agreement"] - base["ci_low"]
    )
    res["recalibrate"] = (res["drop"] > res["drop_margin"]).fillna(False).astype(bool)
    res.attrs = {
        "title": "iaa_frames agreement over time",
        "time": time,
        "freq": str(freq),
        "n_boot": int(n_boot),
        "seed": int(settings.seed),
        "latest_window": str(kept[-1]),
    }
    return res
