"""The one place that picks the back end: a pandas frame goes to :mod:`iaa_frames.core.engine`,
a dask DataFrame to :mod:`iaa_frames.dask`, with the same parameters and the same result.

A pandas frame's result is checked for item keys that do not line up
(:func:`iaa_frames.api.keys.item_keys_warning`): an
:class:`~iaa_frames.errors.ItemKeysWarning` says so and how to check."""

from __future__ import annotations

import warnings

from iaa_frames.core import engine
from iaa_frames.core.engine.assemble import agreement_with_settings
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    checked_settings,
    settings_of,
)
from iaa_frames.settings.thresholds import concat_thresholds
from iaa_frames.settings.validation import validate_params

from .keys import item_keys_warning

__all__ = ["agreement", "is_dask"]


def is_dask(df) -> bool:
    """True for a dask DataFrame (checked by module name: dask is imported only if in use).

    >>> import pandas as pd
    >>> is_dask(pd.DataFrame())
    False
    """
    return type(df).__module__.startswith("dask")


@validate_params(engine=False)
def agreement(
    df,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    # the docstring is the engine's (set below): one text for both
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    if not is_dask(df):
        ds = agreement_with_settings(df, n_boot=n_boot, settings=settings)
        if n_boot:  # the check reads the intervals
            found = item_keys_warning(df, ds, settings)
            if found is not None:
                warnings.warn(found, stacklevel=3)
        return ds
    from iaa_frames import dask

    parts = [
        dask.agreement_with_settings(
            df, n_boot=n_boot, settings=settings_of({**settings.as_kwargs(), "match_threshold": t})
        )
        for t in settings.thresholds
    ]
    return concat_thresholds(parts) if settings.several else parts[0]


agreement.__doc__ = engine.agreement.__doc__
