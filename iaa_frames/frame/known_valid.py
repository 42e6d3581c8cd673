"""Frames whose validation is known: not checked again while they are unchanged.

Every entry point validates the frame it is given, including a frame a reader or
:func:`~iaa_frames.frame.schema.validate` has just returned. A notebook calling ``df.iaa``
methods in turn on one frame would pay the validation at every call: at 1M boxes 0.37 s
of an 8 s run (59 ms known whole); the real LVIS subset 35 ms, most of it the check of
its polygons (``shapely.is_valid``, the repair of the invalid ones, their coordinates'
finiteness; 1.3 ms known whole).

So a frame a validation returns is remembered (:func:`remember`), twice over:

- **Whole** (:func:`known_valid`): where pandas copies on write (pandas 3: always), the
  frame's index, its columns and the memory of every column. The memo holds a shallow
  copy of the frame, which shares that memory: a value set in the frame (``loc``,
  ``iloc``, ``fillna(inplace=True)``, ...) then copies the column it writes before
  writing, a column set or dropped, a renaming, a reindexing replaces the columns or the
  index, and the frame no longer matches. A write into a column's own array
  (``df["x0"].array[0] = v``, which pandas lets through without a copy) is seen by the
  column's content: the CRC-32 of a numeric column's bytes, the identity of an object
  column's references. A column whose memory pandas does not expose (a nullable integer,
  a category, a date) is compared by value with a copy. A frame that matches holds what
  its validation returned, and validating it again returns that
  (:func:`~iaa_frames.frame.schema.check` skips every check). An object held in a cell
  and changed in place (a list appended to) is not seen; shapely's geometries and
  strings, which validation reads, cannot change.
- **By its polygons** (:func:`polygons_known_valid`): the geometry objects of its column,
  by position. Validating a frame whose column holds the very same objects (about 20 ns
  a row to compare) skips the check of its polygons, the costly part; a geometry object
  that validation kept stays valid as long as it exists. The frame a validation was
  *given* is remembered so too when its polygons passed as they are
  (:func:`remember_polygons`).

The memo holds the frame by a weak reference, and its copies are released with it. A
column written after the validation is copied once (its first write), and the memo keeps
the column as it was until the frame is validated again or released: at most one copy of
each column changed.

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

import operator
import threading
import weakref
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import shapely

__all__ = [
    "COPY_ON_WRITE",
    "known_valid",
    "polygons_known_valid",
    "remember",
    "remember_polygons",
    "same_objects",
]

#: Whether pandas copies a column on write while another frame shares it (always from
#: pandas 3; an option of pandas 2.2, off by default): frames are remembered whole only
#: then.
COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3


@dataclass(frozen=True)
class _Entry:
    """What the memo holds of a frame: a weak reference to it, the geometry objects of
    its column (None: no polygon) and, remembered whole, a shallow copy sharing its
    memory, its index, its columns and the witnesses of its columns (None: not
    whole)."""

    ref: weakref.ref
    polygons: np.ndarray | None
    whole: tuple | None = None


#: id of a remembered frame -> its entry
_KNOWN: dict[int, _Entry] = {}
_lock = threading.RLock()  # a frame released by the collector inside the lock: its _forget


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


def _memory(values) -> tuple | None:
    """Where the values of a column live: the address, shape, strides and dtype of a
    numpy array; every buffer's address, offset and length of an Arrow array; None for a
    column whose memory pandas does not expose (masked, categorical, dates)."""
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        data = values.to_numpy()  # the array itself, no copy
        return (data.__array_interface__["data"][0], data.shape, data.strides, data.dtype.str)
    if isinstance(values, pd.arrays.ArrowExtensionArray):
        data = values.__arrow_array__()  # the array itself: a ChunkedArray
        return tuple(
            (chunk.offset, len(chunk), *(0 if b is None else b.address for b in chunk.buffers()))
            for chunk in data.chunks
        )
    return None


def _content(values):
    """What a write into a numpy column's own memory changes (``series.array[i] = v``
    writes there without the copy on write): a copy of an object column's references
    (compared by identity; it keeps the objects alive), the CRC-32 of the bytes of
    another (1M boxes' six float columns: 11 ms). None for an Arrow column, which no
    write changes in place."""
    if not isinstance(values, pd.arrays.NumpyExtensionArray):
        return None
    data = values.to_numpy()
    if data.dtype == object:
        return np.array(data, dtype=object, copy=True)
    return zlib.crc32(np.ascontiguousarray(data))


def _witnesses(frame: pd.DataFrame) -> tuple | None:
    """What shows that each column of ``frame`` is unchanged: its memory and content
    (:func:`_memory`, :func:`_content`), or a copy of its values, compared by value (a
    masked, categorical or date column, whose memory pandas does not expose: a reader's
    ``iscrowd``); None where two columns share a name."""
    if not frame.columns.is_unique:
        return None
    out = []
    for name in frame.columns:
        values = frame[name].array
        where = _memory(values)
        out.append(values.copy() if where is None else (where, _content(values)))
    return tuple(out)


def _unchanged(frame: pd.DataFrame, witnesses: tuple) -> bool:
    """Whether every column of ``frame`` matches its witness (:func:`_witnesses`)."""
    if len(frame.columns) != len(witnesses):
        return False
    for name, witness in zip(frame.columns, witnesses):
        values = frame[name].array
        if not isinstance(witness, tuple):
            if type(values) is not type(witness) or not values.equals(witness):
                return False
            continue
        where, content = witness
        if _memory(values) != where:
            return False
        if isinstance(content, np.ndarray):
            if not same_objects(values.to_numpy(), content):
                return False
        elif content is not None and _content(values) != content:
            return False
    return True


def _store(frame: pd.DataFrame, entry: _Entry) -> None:
    key = id(frame)
    with _lock:
        old = _KNOWN.get(key)
        if old is None or old.ref() is not frame:
            weakref.finalize(frame, _forget, key)
        _KNOWN[key] = entry


def remember(frame: pd.DataFrame) -> bool:
    """Remember ``frame``, as a validation returned it, as valid: whole while it is
    unchanged (:func:`known_valid`; where pandas copies on write), by its polygons while
    its geometry column holds the same objects (:func:`polygons_known_valid`), until the
    frame is released. Whether it was remembered at all (False: a frame without a polygon
    on a pandas that does not copy on write, or whose columns share a name)."""
    polygons = _polygons(frame)
    witnesses = _witnesses(frame) if COPY_ON_WRITE else None
    if polygons is None and witnesses is None:
        return False
    whole = None
    if witnesses is not None:
        # the copy shares the frame's memory and makes pandas copy a column before a
        # write; the axes themselves are held, compared by identity
        whole = (frame.copy(deep=False), frame.index, frame.columns, witnesses)
    _store(frame, _Entry(weakref.ref(frame), polygons, whole))
    return True


def remember_polygons(frame: pd.DataFrame) -> bool:
    """Remember the geometry objects of ``frame``'s column as valid polygons (a frame
    whose polygons passed a validation as they are, though the validation changed other
    columns), until the frame is released; False without a polygon."""
    polygons = _polygons(frame)
    if polygons is None:
        return False
    _store(frame, _Entry(weakref.ref(frame), polygons))
    return True


def _forget(key: int) -> None:
    with _lock:
        entry = _KNOWN.get(key)
        if entry is not None and entry.ref() is None:
            del _KNOWN[key]


def _entry(frame: pd.DataFrame) -> _Entry | None:
    with _lock:
        entry = _KNOWN.get(id(frame))
    return entry if entry is not None and entry.ref() is frame else None


def known_valid(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is unchanged since a validation returned it (:func:`remember`):
    the same index and columns, and every column the same memory or values."""
    entry = _entry(frame)
    if entry is None or entry.whole is None:
        return False
    _, index, columns, witnesses = entry.whole
    return frame.index is index and frame.columns is columns and _unchanged(frame, witnesses)


def polygons_known_valid(frame: pd.DataFrame) -> bool:
    """Whether every position of ``frame``'s geometry column holds the very object it held
    when the frame was remembered (:func:`remember`, :func:`remember_polygons`): then the
    column needs no check."""
    entry = _entry(frame)
    if entry is None or entry.polygons is None:
        return False
    column = _column(frame)
    return column is not None and same_objects(column, entry.polygons)


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
