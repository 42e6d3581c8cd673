"""Whether a frame is unchanged since a moment: what validation and the tables' cache skip.

Two steps read a whole frame that users hand over again and again unchanged: its
validation (every entry point validates what it is given,
:mod:`iaa_frames.frame.known_valid`) and the digest of its content that keys the cache of
pair tables (:func:`iaa_frames.core.engine.memo.frame_digest`: 210 ms at 1M boxes, for
every ``df.iaa`` call). A :class:`Snapshot` taken of a frame tells later, for a fraction of
that, whether the frame still holds what it held then.

Where pandas copies on write (pandas 3: always), a snapshot holds a shallow copy of the
frame, which shares the memory of its columns, its index and its columns by identity,
and a witness of every column:

- a numpy column: the address, shape, strides and dtype of its array, and its content:
  the CRC-32 of its bytes, or for an object column a copy of its references (compared by
  identity; the copy keeps the objects alive, so that no other object takes an address
  that was theirs). A value set in the frame (``loc``, ``iloc``, ``update``,
  ``fillna(inplace=True)``, ...) copies the column before writing, since the snapshot
  shares it: other memory. A write into the column's own array (``df["x0"].array[0] =
  v``, which pandas lets through without a copy) changes the content;
- an Arrow column (pandas' strings): the address, offset and length of every buffer (an
  Arrow array never changes in place: a value set makes new buffers);
- any other column (a nullable integer, a category, a date, whose memory pandas does not
  expose): a copy of its values, compared by value.

A column set, added, deleted or renamed, a new index: other axes. An object held in a
cell and changed in place (a list appended to) is not seen; shapely's geometries and
strings cannot change. A frame written after a snapshot has each written column copied
once (its first write), and the snapshot keeps the column as it was until it is released:
at most one copy of each column changed. Snapshotting costs a CRC of the numeric columns
and a copy of the references of the object ones, comparing the same and a comparison of
the references (1M boxes, best of five in a fresh process: 14 ms and 36 ms).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"x": [0.0, 1.0], "name": ["a", "b"]})
>>> snap = Snapshot.of(df)
>>> snap.matches(df)
True
>>> df.loc[1, "x"] = 2.0  # a value set: the column is copied before it is written
>>> snap.matches(df)
False
>>> snap = Snapshot.of(df)
>>> df["x"].array[0] = 5.0  # into the column's own array, past the copy on write
>>> snap.matches(df)
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

__all__ = ["COPY_ON_WRITE", "FrameMemo", "Snapshot", "same_objects"]

#: Whether pandas copies a column on write while another frame shares it (always from
#: pandas 3; an option of pandas 2.2, off by default): snapshots are taken only then.
COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3


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
    """What a write into a numpy column's own array changes: a copy of an object column's
    references, the CRC-32 of another's bytes; None for an Arrow column."""
    if not isinstance(values, pd.arrays.NumpyExtensionArray):
        return None
    data = values.to_numpy()
    if data.dtype == object:
        return np.array(data, dtype=object, copy=True)
    return zlib.crc32(np.ascontiguousarray(data))


def _witness(values):
    """What shows later that a column holds the same values (module docstring)."""
    where = _memory(values)
    return values.copy() if where is None else (where, _content(values))


def _holds(values, witness) -> bool:
    """Whether a column's values match their witness (:func:`_witness`)."""
    if not isinstance(witness, tuple):
        try:
            return type(values) is type(witness) and bool(values.equals(witness))
        except (TypeError, ValueError, NotImplementedError):  # an array that cannot say
            return False
    where, content = witness
    if _memory(values) != where:
        return False
    if isinstance(content, np.ndarray):
        return same_objects(values.to_numpy(), content)
    return content is None or _content(values) == content


@dataclass(frozen=True, eq=False)
class Snapshot:
    """What a frame held at a moment (module docstring): :meth:`of` takes it,
    :meth:`matches` tells whether a frame is that frame, unchanged."""

    #: a shallow copy of the frame: it shares the memory of its columns, so that pandas
    #: copies a column before writing to it
    held: pd.DataFrame
    index: pd.Index
    columns: pd.Index
    witnesses: tuple

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Snapshot | None:
        """A snapshot of ``frame``; None where pandas does not copy on write, or two
        columns share a name."""
        if not COPY_ON_WRITE or not frame.columns.is_unique:
            return None
        try:
            witnesses = tuple(_witness(frame[name].array) for name in frame.columns)
        except (TypeError, ValueError, NotImplementedError):  # an array that cannot copy
            return None
        return cls(frame.copy(deep=False), frame.index, frame.columns, witnesses)

    def matches(self, frame: pd.DataFrame) -> bool:
        """Whether ``frame`` has the index and columns of the snapshot and every column
        its values then."""
        if frame.index is not self.index or frame.columns is not self.columns:
            return False
        return all(
            _holds(frame[name].array, witness)
            for name, witness in zip(frame.columns, self.witnesses, strict=True)
        )


class FrameMemo:
    """What was computed of frames, an entry per frame object, kept while the frame
    lives: the frame is held by a weak reference, and its entry dropped when it goes.

    Examples
    --------
    >>> memo = FrameMemo()
    >>> df = pd.DataFrame({"x": [1.0]})
    >>> memo.store(df, "seen")
    >>> memo.entry(df), memo.entry(df.copy())
    ('seen', None)
    >>> del df
    >>> len(memo)
    0
    """

    def __init__(self):
        self._entries: dict[int, tuple[weakref.ref, object]] = {}
        # a frame released by the collector inside the lock: its _forget takes it again
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._entries)

    def store(self, frame: pd.DataFrame, entry) -> None:
        """Keep ``entry`` for ``frame`` (replacing its former one)."""
        key = id(frame)
        with self._lock:
            old = self._entries.get(key)
            if old is None or old[0]() is not frame:
                weakref.finalize(frame, self._forget, key)
            self._entries[key] = (weakref.ref(frame), entry)

    def entry(self, frame: pd.DataFrame):
        """The entry kept for this very frame object, or None."""
        with self._lock:
            found = self._entries.get(id(frame))
        return found[1] if found is not None and found[0]() is frame else None

    def _forget(self, key: int) -> None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0]() is None:
                del self._entries[key]
