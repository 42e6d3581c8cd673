"""The one place that picks the back end: a pandas frame goes to :mod:`iaa_frames.engine`,
a dask DataFrame to :mod:`iaa_frames.dask`, with the same parameters and the same result.

A pandas frame's result is checked for item keys that do not line up
(:func:`iaa_frames.api.keys.item_keys_warning`): an
:class:`~iaa_frames.errors.ItemKeysWarning` says so and how to check."""

from __future__ import annotations

import functools
import warnings

from iaa_frames import engine
from iaa_frames.settings.parameters import DEFAULTS, settings_of
from iaa_frames.settings.thresholds import check_thresholds, concat_thresholds
from iaa_frames.settings.validation import validate_params

__all__ = ["agreement", "is_dask"]


def is_dask(df) -> bool:
    """True for a dask DataFrame (checked by module name: dask is imported only if in use).

    >>> import pandas as pd
    >>> is_dask(pd.DataFrame())
    False
    """
    return type(df).__module__.startswith("dask")


@functools.wraps(engine.agreement)
@validate_params()
def agreement(df, **params):
    if not is_dask(df):
        ds = engine.agreement(df, **params)
        if params.get("n_boot", 1):  # the check reads the intervals
            from .keys import item_keys_warning

            found = item_keys_warning(df, ds, settings_of(params))
            if found is not None:
                warnings.warn(found, stacklevel=3)
        return ds
    from iaa_frames import dask

    taus, scalar = check_thresholds(params.pop("match_threshold", DEFAULTS.match_threshold))
    parts = [dask.agreement(df, match_threshold=tau, **params) for tau in taus]
    return parts[0] if scalar else concat_thresholds(parts)
