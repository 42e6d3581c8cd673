"""Frames whose polygons were validated: their geometry column is not checked again.

Checking the polygons (``shapely.is_valid``, the repair of the invalid ones, their
coordinates' finiteness) is the costly part of :func:`~iaa_frames.frame.schema.validate`,
and every entry point validates the frame it is given, including a frame a reader or
:func:`~iaa_frames.frame.schema.validate` has just returned (the real LVIS subset: a
validation of 30-35 ms, 11 ms with its polygons known; a notebook calling ``df.iaa`` methods in turn on one frame
pays it at every call). shapely's geometries cannot change: a geometry object that
validation kept stays valid as long as it exists.

So after a validation the frame it returns (and the frame it was given, where the two
hold the same geometry objects) is remembered with the geometry objects of its column,
by position (:func:`remember`). Validating that frame again compares the objects of its
column with those by identity (about 20 ns a row) and, where every one is the same
object, skips the checks of the polygons (:func:`polygons_known_valid`); any change of
the column (a geometry set, rows added, dropped or reordered, a copy of the frame) puts
another object, or another frame, in their place, and the column is checked in full.
The memory is a reference a row, released with the frame (the frame itself is held by a
weak reference).

Examples
--------
>>> import pandas as pd, shapely
>>> df = pd.DataFrame({"geometry": [shapely.box(0, 0, 1, 1), None]})
>>> polygons_known_valid(df)
False
>>> remember(df)  # it holds a polygon
True
>>> polygons_known_valid(df)
True
>>> df.loc[1, "geometry"] = shapely.box(0, 0, 2, 2)  # another object at a position
>>> polygons_known_valid(df)
False
"""

from __future__ import annotations

import operator
import threading
import weakref

import numpy as np
import pandas as pd
import shapely

__all__ = ["polygons_known_valid", "remember", "same_objects"]

#: id of a remembered frame -> (a weak reference to it, the geometry objects of its column)
_KNOWN: dict[int, tuple[weakref.ref, np.ndarray]] = {}
_lock = threading.RLock()  # a frame released by the collector inside the lock: its _forget


def _column(frame: pd.DataFrame) -> np.ndarray | None:
    if "geometry" not in frame.columns:
        return None
    return frame["geometry"].to_numpy(dtype=object)


def remember(frame: pd.DataFrame) -> bool:
    """Remember the geometry objects of ``frame``'s column as valid: every one a valid,
    finite polygon or multipolygon, or None (the column of a validated frame), until the
    frame is released. A frame without a polygon (no ``geometry`` column, or only None
    in it) is not remembered (False): its column costs nothing to check."""
    column = _column(frame)
    if column is None or not shapely.is_geometry(column).any():
        return False  # no polygon: nothing costly to spare (a column of boxes' None)
    key = id(frame)
    held = np.array(column, dtype=object, copy=True)  # not a view: the frame may change
    with _lock:
        entry = _KNOWN.get(key)
        if entry is None or entry[0]() is not frame:
            weakref.finalize(frame, _forget, key)
        _KNOWN[key] = (weakref.ref(frame), held)
    return True


def _forget(key: int) -> None:
    with _lock:
        entry = _KNOWN.get(key)
        if entry is not None and entry[0]() is None:
            del _KNOWN[key]


def polygons_known_valid(frame: pd.DataFrame) -> bool:
    """Whether every position of ``frame``'s geometry column holds the very object it held
    when the frame was remembered (:func:`remember`): then the column needs no check."""
    with _lock:
        entry = _KNOWN.get(id(frame))
    if entry is None or entry[0]() is not frame:
        return False
    column = _column(frame)
    return column is not None and same_objects(column, entry[1])


def same_objects(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two object arrays hold the same objects, position by position.

    Examples
    --------
    >>> x = object()
    >>> same_objects(np.array([x, None]), np.array([x, None])), same_objects(
    ...     np.array([x]), np.array([object()]))
    (True, False)
    """
    return len(a) == len(b) and all(map(operator.is_, a, b))
