"""The distance the engine runs: a registered one as it is, a user's callable checked.

A callable passed as ``distance=`` is the user's code: a NaN, an infinity or a negative
value it returns reached the matcher's minima (numpy's "invalid value" warnings) and then
either stopped the KS test ("distances must be finite") or, negative, gave a localization
of n/a with the note "no variation: expected disagreement is 0" (the expected
disagreement was negative); text was a raw ``ValueError``; 1e308 overflowed.
:func:`engine_distance` checks every array such a callable returns, where the engine
first sees it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import Distance, get_distance

__all__ = ["MAX_DISTANCE", "engine_distance"]

#: The largest distance taken (the bound of the coordinates, ``frame.schema``): the means,
#: squares and products of the statistics stay within float64.
MAX_DISTANCE = 1e100


def engine_distance(spec) -> Distance:
    """``get_distance(spec)``; for a callable ``spec``, its values are checked on every
    call: numbers from 0 (identical shapes) to :data:`MAX_DISTANCE`, else a
    :class:`~iaa_frames.errors.ParameterError` naming the distance and the value.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.geometry.shapes import Shapes
    >>> s = Shapes.from_frame(iaf.validate(iaf.simulate(n_items=1, seed=0)).iloc[:2])
    >>> engine_distance("iou") is get_distance("iou")
    True
    >>> def shifted(a, b):
    ...     return get_distance("iou")(a, b) - 1
    >>> engine_distance(shifted)(s, s)
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: distance 'shifted' returned -1.0 for a pair of shapes: a distance is a number from 0 (identical shapes) to 1e100
    """
    distance = get_distance(spec)
    if isinstance(spec, str):  # a registered distance: trusted, as fast as it is
        return distance
    func = distance.func

    def checked(a, b, **kwargs):
        out = np.asarray(func(a, b, **kwargs))
        if out.size and out.dtype.kind not in "biuf":
            raise ParameterError(
                f"distance {distance.name!r} returned values of dtype {out.dtype}: a distance "
                "is a number per pair of shapes"
            )
        with np.errstate(invalid="ignore"):
            bad = ~((out >= 0) & (out <= MAX_DISTANCE))  # NaN and infinities included
        if bad.any():
            raise ParameterError(
                f"distance {distance.name!r} returned {float(out[bad].flat[0])!r} for a pair "
                "of shapes: a distance is a number from 0 (identical shapes) to 1e100"
            )
        return out

    return dataclasses.replace(distance, func=checked)
