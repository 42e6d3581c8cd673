"""Frames whose validation is known: not checked again while they are unchanged.

Every entry point validates the frame it is given, including a frame a reader or
:func:`~iaa_frames.frame.schema.validate` has just returned. A notebook calling ``df.iaa``
methods in turn on one frame would pay the validation at every call: at 1M boxes 0.37 s
of an 8 s run (59 ms known whole); the real LVIS subset 35 ms, most of it the check of
its polygons (``shapely.is_valid``, the repair of the invalid ones, their coordinates'
finiteness; 1.3 ms known whole).

So a frame a validation returns is remembered (:func:`remember`), twice over:

- **Whole** (:func:`known_valid`): a :class:`~iaa_frames.frame.unchanged.Snapshot` of the
  frame (where pandas copies on write: pandas 3), which tells whether it still holds
  what it held then: the same index and columns, the memory and content of every column
  (:mod:`iaa_frames.frame.unchanged`). A frame that matches holds what its validation
  returned, and validating it again returns that (:func:`~iaa_frames.frame.schema.check`
  skips every check).
- **By its polygons** (:func:`polygons_known_valid`): the geometry objects of its column,
  by position. Validating a frame whose column holds the very same objects (about 20 ns
  a row to compare) skips the check of its polygons, the costly part; a geometry object
  that validation kept stays valid as long as it exists. The frame a validation was
  *given* is remembered so too when its polygons passed as they are
  (:func:`remember_polygons`).

The memo holds the frame by a weak reference, and its copies are released with it.

Examples
--------
>>> import pandas as pd, shapely
>>> df = pd.DataFrame({"geometry": [shapely.box(0, 0, 1, 1), None], "x0": [0.0, 1.0]})
>>> polygons_known_valid(df), known_valid(df)
(False, False)
>>> remember(df)  # it holds a polygon
True
>>> polygons_known_valid(df), known_valid(df)
(True, True)
>>> df.loc[1, "x0"] = 2.0  # a value set: the column is copied before it is written
>>> polygons_known_valid(df), known_valid(df)
(True, False)
>>> df.loc[1, "geometry"] = shapely.box(0, 0, 2, 2)  # another object at a position
>>> polygons_known_valid(df)
False
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import shapely

from .unchanged import FrameMemo, Snapshot, same_objects

__all__ = [
    "known_valid",
    "polygons_known_valid",
    "remember",
    "remember_polygons",
]


@dataclass(frozen=True)
class _Entry:
    """What the memo holds of a frame: the geometry objects of its column (None: no
    polygon) and, remembered whole, its snapshot (None: not whole)."""

    polygons: np.ndarray | None
    whole: Snapshot | None = None


_MEMO = FrameMemo()


def _column(frame: pd.DataFrame) -> np.ndarray | None:
    if "geometry" not in frame.columns:
        return None
    return frame["geometry"].to_numpy(dtype=object)


def _polygons(frame: pd.DataFrame) -> np.ndarray | None:
    """A copy of the geometry objects of ``frame``'s column, None without a polygon."""
    column = _column(frame)
    if column is None or not shapely.is_geometry(column).any():
        return None  # no polygon: nothing costly to spare (a column of boxes' None)
    return np.array(column, dtype=object, copy=True)  # not a view: the frame may change


def remember(frame: pd.DataFrame) -> bool:
    """Remember ``frame``, as a validation returned it, as valid: whole while it is
    unchanged (:func:`known_valid`; where pandas copies on write), by its polygons while
    its geometry column holds the same objects (:func:`polygons_known_valid`), until the
    frame is released. Whether it was remembered at all (False: a frame without a polygon
    on a pandas that does not copy on write, or whose columns share a name)."""
    polygons, whole = _polygons(frame), Snapshot.of(frame)
    if polygons is None and whole is None:
        return False
    _MEMO.store(frame, _Entry(polygons, whole))
    return True


def remember_polygons(frame: pd.DataFrame) -> bool:
    """Remember the geometry objects of ``frame``'s column as valid polygons (a frame
    whose polygons passed a validation as they are, though the validation changed other
    columns), until the frame is released; False without a polygon."""
    polygons = _polygons(frame)
    if polygons is None:
        return False
    _MEMO.store(frame, _Entry(polygons))
    return True


def known_valid(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is unchanged since a validation returned it (:func:`remember`)."""
    entry = _MEMO.entry(frame)
    return entry is not None and entry.whole is not None and entry.whole.matches(frame)


def polygons_known_valid(frame: pd.DataFrame) -> bool:
    """Whether every position of ``frame``'s geometry column holds the very object it held
    when the frame was remembered (:func:`remember`, :func:`remember_polygons`): then the
    column needs no check."""
    entry = _MEMO.entry(frame)
    if entry is None or entry.polygons is None:
        return False
    column = _column(frame)
    return column is not None and same_objects(column, entry.polygons)
