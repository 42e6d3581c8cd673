"""A data-driven match threshold: where same-item pairs and chance pairs separate best.

The conventional τ = 0.5 (COCO) is a convention, not a property of a corpus. This module
offers a **data-driven** alternative, clearly a heuristic: match every pair of
annotations with no gate (τ = 0, so every assigned object pair is kept), then compare the
IoU of the assigned pairs *within items* (mostly the same object drawn twice) with the IoU
of the assigned pairs of *chance pairings* (annotations of different items by different
annotators: objects that are not the same, by construction). A gate τ keeps a within pair
when its IoU >= τ and wrongly keeps a chance pair when its IoU >= τ; Youden's J,

    J(τ) = P(IoU_within >= τ) - P(IoU_chance >= τ),

is the share of within pairs kept minus the share of chance pairs kept. The suggested τ
is the middle of the run of thresholds around the best one whose J is within
``tolerance`` of the largest (on a grid of 0.01): the centre of the range where the gate
best tells a redrawn object from an unrelated one.

Caveats: J treats every within pair as "the same object", but misses and false positives
make within pairs of different objects too, so J is low when they are common; the choice
depends on the corpus, so two corpora compared at their own suggested τ are not compared
at the same gate. Report the τ used, and show the sweep (:func:`iaa_frames.agreement`
with several thresholds, :func:`iaa_frames.plot.threshold_curve`) beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.tables.pairs import PairTables, pair_tables_from
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings, settings_of
from iaa_frames.settings.validation import validate_params

__all__ = ["GRID", "suggest_threshold", "threshold_separation"]

#: The thresholds at which J is evaluated: 0.01, 0.02, ..., 1.
GRID = np.round(np.arange(1, 101) / 100, 2)


def _ungated(data, settings: MatchSettings) -> PairTables:
    """The tables at τ = 0 of a frame (fresh, with ``settings`` at τ = 0), or the tables
    given, which must be at τ = 0."""
    if isinstance(data, PairTables):
        if data.params.get("match_threshold") != 0.0:
            raise ParameterError(
                "the separation needs the tables at match_threshold=0 (every assigned pair "
                f"kept); these are at {data.params.get('match_threshold')!r}"
            )
        return data
    return pair_tables_from(data, settings_of({**settings.as_kwargs(), "match_threshold": 0.0}))


#: The engine keywords of a threshold choice (the tables are built ungated).
KEYWORDS = ("distance", "n_chance", "seed", "progress")


def _threshold_separation(data, *, settings: MatchSettings = DEFAULTS) -> pd.DataFrame:
    """:func:`threshold_separation` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    tables = _ungated(data, settings)
    within = np.sort(tables.localization_within["iou"].to_numpy(dtype=float))
    b = tables.localization_between
    chance = np.sort(b.loc[b["in_uniform"].to_numpy(), "iou"].to_numpy(dtype=float))
    if not len(within) or not len(chance):
        raise ParameterError(
            "no assigned object pair within items or by chance: the "
            "corpus has too few objects to choose a threshold from"
        )

    def share_at_least(sample):
        return 1.0 - np.searchsorted(sample, GRID, side="left") / len(sample)

    w, c = share_at_least(within), share_at_least(chance)
    out = pd.DataFrame({"threshold": GRID, "within": w, "chance": c, "youden_j": w - c})
    out.attrs = {"n_within": len(within), "n_chance": len(chance)}
    return out


@validate_params(engine=False)
def threshold_separation(
    data,
    *,
    distance="giou",
    n_chance: int = 2000,
    seed: int = 0,
    progress: bool | None = None,
) -> pd.DataFrame:
    """How well each threshold τ tells same-item pairs from chance pairs (Youden's J).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame, or its pair tables at ``match_threshold=0``.
    n_chance, seed, distance, progress
        As in :func:`iaa_frames.core.tables.pairs.pair_tables` (used for a frame).

    Returns
    -------
    pandas.DataFrame
        One row per threshold of :data:`GRID`: ``threshold``, ``within`` (share of the
        within-item assigned pairs with IoU >= τ), ``chance`` (the same for the uniform
        chance sample), ``youden_j`` (``within - chance``). ``attrs`` hold
        ``n_within`` and ``n_chance`` (pairs behind the shares).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> sep = threshold_separation(iaf.simulate(n_items=20, seed=0), n_chance=300)
    >>> list(sep.columns)
    ['threshold', 'within', 'chance', 'youden_j']
    >>> bool(sep["youden_j"].max() > 0.5)
    True
    """
    settings = checked_settings(distance=distance, n_chance=n_chance, seed=seed, progress=progress)
    return _threshold_separation(data, settings=settings)


def _suggest_threshold(
    data, *, tolerance: float = 0.01, settings: MatchSettings = DEFAULTS
) -> float:
    """:func:`suggest_threshold` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, (int, float))
        or not 0 <= tolerance < 1
    ):
        raise ParameterError(f"tolerance must be a number in [0, 1); got {tolerance!r}")
    sep = threshold_separation(data, **{n: getattr(settings, n) for n in KEYWORDS})
    j = sep["youden_j"].to_numpy()
    good = j >= j.max() - tolerance
    best = int(np.argmax(j))  # the run of good thresholds around the best one
    low = best - int(np.argmin(good[best::-1])) + 1 if not good[: best + 1].all() else 0
    high = best + int(np.argmin(good[best:])) - 1 if not good[best:].all() else len(j) - 1
    return float(np.round((GRID[low] + GRID[high]) / 2, 2))


@validate_params(engine=False)
def suggest_threshold(
    data,
    *,
    tolerance: float = 0.01,
    distance="giou",
    n_chance: int = 2000,
    seed: int = 0,
    progress: bool | None = None,
) -> float:
    """A data-driven match threshold: the middle of the thresholds that best separate
    same-item pairs from chance pairs (a heuristic; see the module docstring).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame, or its pair tables at ``match_threshold=0``.
    tolerance : float, default 0.01
        Thresholds whose Youden's J is within this of the largest count as equally good;
        the suggestion is the middle of the run of such thresholds around the best one.
    n_chance, seed, distance, progress
        As in :func:`threshold_separation`.

    Returns
    -------
    float
        A threshold on the grid 0.01, 0.02, ..., 1.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> careful = iaf.simulate(n_items=30, seed=0, annotators={"a": "good", "b": "good"})
    >>> sloppy = iaf.simulate(n_items=30, seed=0, annotators={"a": "sloppy", "b": "sloppy"})
    >>> suggest_threshold(careful, n_chance=300) > suggest_threshold(sloppy, n_chance=300)
    True
    """
    settings = checked_settings(distance=distance, n_chance=n_chance, seed=seed, progress=progress)
    return _suggest_threshold(data, tolerance=tolerance, settings=settings)
