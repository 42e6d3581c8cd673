"""Several match thresholds at once: validation, the ``threshold`` coordinate, stacking.

``match_threshold`` (τ) is the IoU gate of the matching: an assigned object pair counts as
a match when its IoU >= τ, within items and for the chance pairings alike. Every
component depends on it:

* **detection**: a higher τ turns loosely drawn objects into misses, so detection σ falls
  as τ rises once the annotators' drawings stop clearing the gate; at a low τ, loose
  drawings still count as found;
* **localization**: only pairs above the gate are compared, within items and by chance
  alike. A high τ leaves only well-aligned pairs on both sides, so the chance distance
  shrinks with the within distance and σ is compressed; a low τ lets near misses into
  both samples;
* **classification**: the labels of the clusters the matching forms: a higher τ compares
  fewer, surer pairs;
* **overall**: Braylan et al.'s set distance takes each object's best match whatever its
  IoU, so it moves with τ only through the chance sample.

:func:`iaa_frames.agreement` accepts a float (one result, with a scalar ``threshold``
coordinate) or a sequence of floats (a ``threshold`` dimension, sorted and unique); the
result at one τ of a sequence equals the result of that τ alone.

Examples
--------
>>> check_thresholds(0.5)
((0.5,), True)
>>> check_thresholds([0.7, 0.3, 0.7])
((0.3, 0.7), False)
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np
import xarray as xr

from iaa_frames.errors import ParameterError

__all__ = [
    "CARRIED_KEY",
    "DEFAULT_SWEEP",
    "SEQUENCE_HINT",
    "THRESHOLD_ATTRS",
    "check_thresholds",
    "concat_thresholds",
    "has_threshold_dim",
    "nearest_threshold",
    "with_threshold",
]

#: The key under which a result's ``encoding`` carries its pair tables
#: (:mod:`iaa_frames.core.engine.carry`).
CARRIED_KEY = "iaa_tables"

#: The thresholds of a sweep when none are given (e.g. ``df.iaa.plot.threshold_curve()``).
DEFAULT_SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

#: What a scalar-only function says when it is given several thresholds.
SEQUENCE_HINT = (
    "several thresholds are accepted by agreement(), sigma(), ks(), alpha(), "
    "pairwise() and report(), which add a 'threshold' dimension; "
    "pair_tables_by_threshold() gives the tables of each"
)

#: Attrs of the ``threshold`` coordinate.
THRESHOLD_ATTRS = {
    "long_name": "match threshold τ (IoU)",
    "description": (
        "The IoU gate of the matching: an assigned object pair is a match when its IoU "
        ">= τ, within items and for the chance pairings alike. A higher τ turns loose "
        "drawings into misses (detection falls), compares only well-aligned pairs within "
        "items and by chance (localization sigma is compressed) and leaves fewer, surer "
        "clusters to classification; overall (best matches whatever their IoU) moves only "
        "through the chance sample."
    ),
}


def _number(value, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterError(
            f"match_threshold must be a number in [0, 1] or a sequence of "
            f"them; got {value!r}{where}"
        )
    x = float(value)
    if not 0.0 <= x <= 1.0:  # NaN fails too
        raise ParameterError(f"match_threshold must be a number in [0, 1]; got {value!r}{where}")
    return x


def check_thresholds(value) -> tuple[tuple[float, ...], bool]:
    """The thresholds of ``match_threshold``, and whether it was a single number.

    Parameters
    ----------
    value : float or sequence of float
        A number in [0, 1], or a non-empty sequence (list, tuple, 1-d array, pandas
        Index or Series, range) of them.

    Returns
    -------
    thresholds : tuple of float
        Sorted, duplicates removed.
    scalar : bool
        True for a single number (the result then has a scalar ``threshold`` coordinate,
        not a dimension).

    Raises
    ------
    ParameterError
        For a value that is not a number, a number outside [0, 1] or NaN, a string, an
        empty sequence, or a nested one.

    Examples
    --------
    >>> check_thresholds(np.arange(3) / 4)
    ((0.0, 0.25, 0.5), False)
    >>> check_thresholds("0.5")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: match_threshold must be a number in [0, 1] or a sequence of them; got '0.5' (a string: give numbers, e.g. [0.3, 0.5])
    """
    if isinstance(value, (str, bytes)):
        raise ParameterError(
            f"match_threshold must be a number in [0, 1] or a sequence of "
            f"them; got {value!r} (a string: give numbers, e.g. [0.3, 0.5])"
        )
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (numbers.Number, np.bool_)):
        return (_number(value, ""),), True
    try:
        items = list(value)
    except TypeError:
        raise ParameterError(
            f"match_threshold must be a number in [0, 1] or a sequence of "
            f"them; got {type(value).__name__}"
        ) from None
    if not items:
        raise ParameterError(
            "match_threshold is an empty sequence; give at least one threshold in [0, 1]"
        )
    values = [_number(v, f" (position {i} of {value!r})") for i, v in enumerate(items)]
    return tuple(float(v) for v in np.unique(values)), False


def with_threshold(obj, tau: float):
    """``obj`` (a Dataset or DataArray) with the scalar coordinate ``threshold = tau``.

    Examples
    --------
    >>> da = with_threshold(xr.DataArray([1.0, 2.0], dims="x"), 0.5)
    >>> float(da["threshold"]), da["threshold"].dims
    (0.5, ())
    """
    # a 0-d numpy array on xarray's fast path: its slow path imports dask where installed
    value = xr.Variable((), np.array(float(tau)), dict(THRESHOLD_ATTRS), fastpath=True)
    return obj.assign_coords(threshold=value)


def has_threshold_dim(obj) -> bool:
    """True when ``obj`` (a Dataset or DataArray) has a ``threshold`` dimension."""
    return "threshold" in getattr(obj, "dims", ())


def concat_thresholds(parts):
    """Stack results of single thresholds (each with a scalar ``threshold`` coordinate,
    increasing) along a ``threshold`` dimension.

    Variables and coordinates that depend on τ gain the dimension; the others (the
    component, label and annotator coordinates, ``measure``) must be the same in every
    part. The attrs of the first part are kept, except ``match_threshold``, which becomes
    the list of thresholds, and ``tables_key``, which is dropped (it names the tables of
    one threshold).

    Parameters
    ----------
    parts : sequence of xarray.Dataset or xarray.DataArray

    Returns
    -------
    xarray.Dataset or xarray.DataArray

    Examples
    --------
    >>> parts = [with_threshold(xr.Dataset({"v": ("x", [t, t])}, attrs={"match_threshold": t}),
    ...                         t) for t in (0.3, 0.5)]
    >>> out = concat_thresholds(parts)
    >>> out["v"].dims, out.attrs["match_threshold"]
    (('threshold', 'x'), [0.3, 0.5])
    """
    parts = list(parts)
    taus = [float(p["threshold"]) for p in parts]
    if any(b <= a for a, b in itertools.pairwise(taus)):
        raise ParameterError(f"the parts must have increasing thresholds; got {taus}")
    dataset = isinstance(parts[0], xr.Dataset)
    out = xr.concat(
        parts,
        dim="threshold",
        data_vars="all",
        coords="minimal" if dataset else "all",
        compat="equals",
        join="exact",
        combine_attrs="override",
    )
    if not dataset:  # DataArray coords that vary by cell (n_units, note, ...) vary by τ too
        out = out.transpose("threshold", ...)
    out.attrs = {k: v for k, v in parts[0].attrs.items() if k != "tables_key"}
    # the pair tables each part carries (iaa_frames.core.engine.carry), one per threshold
    carried = [p.encoding.get(CARRIED_KEY) for p in parts]
    out.encoding.pop(CARRIED_KEY, None)
    if all(c is not None and len(c.tables) == 1 for c in carried):
        tables = [c.tables[0] for c in carried]
        out.encoding[CARRIED_KEY] = type(carried[0])(tables, [c.entries[0] for c in carried])
    if "match_threshold" in out.attrs:
        out.attrs["match_threshold"] = taus
    out["threshold"].attrs = dict(THRESHOLD_ATTRS)
    return out


def nearest_threshold(thresholds, target: float = 0.5) -> float:
    """The threshold nearest ``target`` (the lower one on a tie): the one a report shows
    its tables at.

    Examples
    --------
    >>> nearest_threshold([0.3, 0.5, 0.7]), nearest_threshold([0.4, 0.6]), nearest_threshold([0.8])
    (0.5, 0.4, 0.8)
    """
    values = np.sort(np.asarray(thresholds, dtype=float).ravel())
    return float(values[np.argmin(np.abs(values - target))])
