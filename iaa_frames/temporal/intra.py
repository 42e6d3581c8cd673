"""Intra-annotator agreement: an annotator against their own earlier passes,
:func:`intra_agreement`.

An annotator who annotated items more than once (a ``round`` or ``session`` column tells
the passes apart) is compared with themselves by the same components and the same chance
baseline as annotators are compared with each other: the passes play the annotators
(:func:`iaa_frames.agreement` on the annotator's rows with the pass as the annotator), so
the within pairs are the passes of one item and the chance pairs join passes of unrelated
items. Beside it stand the inter-annotator figures of the first passes, so that an
annotator who disagrees with others as much as with themselves is told from one who
disagrees with others only.

The ``(all)`` row pools every annotator's passes: items are keyed by (item, annotator)
and grouped by item (or by their ``group``; the ``group`` column: two annotators' passes of one image are never
a chance pair), the passes being the annotators.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.api.backend import agreement
from iaa_frames.errors import NotComparableError, ParameterError
from iaa_frames.frame.schema import ALL, GROUP
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params

from .frames import ColumnName, required_column

__all__ = ["intra_agreement"]

_KEEP = ("agreement", "ci_low", "ci_high", "note")
#: The note of every inter cell when no item was annotated by two annotators.
NO_INTER = "no inter-annotator figure: no item was annotated by two annotators"
#: The note of an inter cell the first passes' result does not hold (a class of redos only).
NO_INTER_CELL = "no inter-annotator figure: the first passes hold no such cell"


def _passes(df: pd.DataFrame, repeat: str) -> pd.Series:
    need = (
        "intra-annotator agreement needs the pass (round, session) of every row, e.g. 1 "
        "for the first annotation of an item, 2 for the redo"
    )
    return required_column(df, repeat, need=need, rows="rows").astype(str)


def _cells(res: xr.Dataset, annotator: str) -> xr.Dataset:
    return res[list(_KEEP)].sel(annotator=ALL, drop=True).expand_dims(annotator=[annotator])


def _intra_agreement(
    df: pd.DataFrame,
    *,
    repeat: str = "round",
    n_boot: int = DEFAULT_N_BOOT,
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`intra_agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    passes = _passes(df, repeat)
    params = settings.as_kwargs()
    names = pd.unique(df["annotator"].astype(str))
    n_pass = (
        pd.Series(passes.to_numpy())
        .groupby([df["item"].astype(str).to_numpy(), df["annotator"].astype(str).to_numpy()])
        .nunique()
    )
    repeated = (n_pass > 1).groupby(level=1).sum().reindex(names, fill_value=0)
    if not repeated.any():
        raise ParameterError(
            f"no item was annotated twice by one annotator (column {repeat!r} has one value "
            "per item and annotator): there is no intra-annotator agreement to measure"
        )
    intra = []
    who = df["annotator"].astype(str)
    rep = who.isin(repeated.index[repeated.to_numpy() > 0]).to_numpy()
    item = df["item"].astype(str)
    group = df[GROUP].astype(str).where(df[GROUP].notna(), item) if GROUP in df else item
    pooled = df.loc[rep].assign(
        item=(item + " @ " + who)[rep], annotator=passes[rep], **{GROUP: group[rep]}
    )
    intra.append(_cells(agreement(pooled, n_boot=n_boot, **params), ALL))
    for name in names[repeated.to_numpy() > 0]:  # one agreement per repeating annotator
        own = (df["annotator"].astype(str) == name).to_numpy()
        part = df.loc[own].assign(annotator=passes[own])
        intra.append(_cells(agreement(part, n_boot=n_boot, **params), name))
    intra = xr.concat(intra, dim="annotator", join="outer", fill_value=np.nan)
    first = passes == passes.groupby([df["item"], df["annotator"]]).transform("min")
    out = xr.Dataset(
        {f"intra_{k}" if k != "agreement" else "intra": intra[k] for k in _KEEP}
    ).reindex(annotator=[ALL, *names])
    try:
        inter = agreement(df.loc[first.to_numpy()], n_boot=n_boot, **params)[list(_KEEP)]
    except NotComparableError:  # one annotator redoing its work: intra needs no other
        inter = xr.full_like(out[["intra", "intra_ci_low", "intra_ci_high"]], np.nan)
        inter = inter.rename(intra="agreement", intra_ci_low="ci_low", intra_ci_high="ci_high")
        inter["note"] = xr.full_like(out["intra_note"], NO_INTER, dtype=object)
    inter = inter.reindex(annotator=[ALL, *names], label=out["label"].values)
    for k in _KEEP:
        out["inter" if k == "agreement" else f"inter_{k}"] = inter[k]
    once = np.r_[False, repeated.to_numpy() == 0]  # the annotators with one pass
    out["intra_note"] = (
        out["intra_note"]
        .fillna("")
        .where(
            ~xr.DataArray(once, dims="annotator"), f"no item annotated twice (column {repeat!r})"
        )
    )
    out["inter_note"] = out["inter_note"].fillna(NO_INTER_CELL)
    total = int((n_pass > 1).sum())
    out["repeated_items"] = ("annotator", np.r_[total, repeated.to_numpy()])
    out.attrs = {
        "title": "iaa_frames intra-annotator agreement",
        "repeat": repeat,
        "n_boot": int(n_boot),
        "seed": int(settings.seed),
    }
    return out


@validate_params({"repeat": ColumnName()}, engine=False)
def intra_agreement(
    df: pd.DataFrame,
    *,
    repeat: str = "round",
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.Dataset:
    """Every component between each annotator's own passes, beside the inter-annotator
    figures of the first passes.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame whose ``repeat`` column numbers the passes: rows of one
        (item, annotator) with two values are two annotations of the item by the
        annotator.
    repeat : str, default "round"
        The column of the pass (``"session"``...).
    n_boot, distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`.

    Returns
    -------
    xarray.Dataset
        By ``annotator`` (``"(all)"`` first: every annotator's passes pooled) x
        ``component`` x ``label``: ``intra``, ``intra_ci_low``, ``intra_ci_high``,
        ``intra_note`` (why ``intra`` is NaN, e.g. an annotator with one pass), ``inter``,
        ``inter_ci_low``, ``inter_ci_high``, ``inter_note`` (the annotator's cell of the
        agreement of the first passes; NaN with a note when a single annotator redid its
        work), and ``repeated_items`` by annotator (items annotated twice or more).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=30, seed=0, annotators={"A": "good", "A again": "good",
    ...                                                   "B": "good"})
    >>> df["round"] = df["annotator"].map({"A": 1, "A again": 2, "B": 1})
    >>> df["annotator"] = df["annotator"].replace({"A again": "A"})
    >>> res = iaf.intra_agreement(df, n_chance=300, n_boot=50)
    >>> res["repeated_items"].values.tolist()
    [30, 30, 0]
    >>> loc = res.sel(component="localization", label="(all)", annotator="A")
    >>> bool(loc["inter_ci_low"] < loc["intra"] < loc["inter_ci_high"])
    True
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _intra_agreement(df, repeat=repeat, n_boot=n_boot, settings=settings)
