"""Ragged rows of integers: the variable-length data a parametric geometry kind keeps per
shape besides its floats (:attr:`~iaa_frames.geometry.kinds.Kind.payload`: the voxel
runs of a volume).

A :class:`Ragged` is one flat array of values and, per row, where its values start and
how many there are. Taking rows (:meth:`Ragged.take`) copies only those two small arrays
and shares the values, so the containers the matcher and the chance index take from a
corpus (one per candidate pair) do not copy the voxels; the measures read the values of
many rows at once by their offsets, without a Python loop per row.

Examples
--------
>>> r = Ragged.from_arrays([[1, 2, 3], None, [7]])
>>> len(r), r.count.tolist(), r.take([2, 0, 0]).to_arrays()[0].tolist()
(3, [3, 0, 1], [7])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.errors import ParameterError

__all__ = ["Ragged", "positions"]


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows of integers of different lengths over one flat array.

    Parameters
    ----------
    values : ndarray of int64, shape (N,)
        Every row's values; a row's are ``values[start[i] : start[i] + count[i]]``.
    start, count : ndarray of int64, shape (n,)

    Examples
    --------
    >>> r = Ragged(np.arange(5), np.array([0, 3]), np.array([3, 2]))
    >>> [a.tolist() for a in r.to_arrays()]
    [[0, 1, 2], [3, 4]]
    """

    values: np.ndarray
    start: np.ndarray
    count: np.ndarray

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.int64).reshape(-1)
        start = np.asarray(self.start, dtype=np.int64).reshape(-1)
        count = np.asarray(self.count, dtype=np.int64).reshape(-1)
        if start.shape != count.shape:
            raise ParameterError(
                f"Ragged: start and count must have one shape; got {start.shape} and {count.shape}"
            )
        if count.size and (
            (count < 0).any() or (start < 0).any() or (start + count > values.size).any()
        ):
            raise ParameterError("Ragged: every row must lie within the values")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "count", count)

    @classmethod
    def from_arrays(cls, arrays) -> Ragged:
        """Rows from a sequence of integer arrays (a frame's object column); ``None``,
        NaN or any non-sequence gives an empty row.

        Raises
        ------
        ParameterError
            For a row whose values are not integers.

        Examples
        --------
        >>> Ragged.from_arrays([np.array([4, 5]), float("nan")]).count.tolist()
        [2, 0]
        """
        rows = [_as_row(a) for a in arrays]
        count = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        start = np.cumsum(count) - count
        values = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        return cls(values, start, count)

    @classmethod
    def empty(cls, n: int) -> Ragged:
        """``n`` empty rows.

        Examples
        --------
        >>> Ragged.empty(2).count.tolist()
        [0, 0]
        """
        return cls(np.zeros(0, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64))

    @classmethod
    def concat(cls, parts) -> Ragged:
        """The rows of ``parts`` one after the other.

        Examples
        --------
        >>> a, b = Ragged.from_arrays([[1]]), Ragged.from_arrays([[2, 3], []])
        >>> [r.tolist() for r in Ragged.concat([a, b]).to_arrays()]
        [[1], [2, 3], []]
        """
        parts = list(parts)
        if not parts:
            return cls.empty(0)
        shift = np.cumsum([0] + [p.values.size for p in parts[:-1]])
        return cls(
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.start + s for p, s in zip(parts, shift, strict=True)]),
            np.concatenate([p.count for p in parts]),
        )

    def __len__(self) -> int:
        return self.start.shape[0]

    def take(self, indices) -> Ragged:
        """The rows at ``indices`` (integers or a boolean mask), sharing the values.

        Examples
        --------
        >>> r = Ragged.from_arrays([[1], [2, 3]])
        >>> t = r.take([1, 1])
        >>> t.values is r.values, t.count.tolist()
        (True, [2, 2])
        """
        out = object.__new__(Ragged)
        object.__setattr__(out, "values", self.values)
        object.__setattr__(out, "start", self.start[indices])
        object.__setattr__(out, "count", self.count[indices])
        return out

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """Every row's values one after the other (a copy) and the row of each.

        Examples
        --------
        >>> Ragged.from_arrays([[5, 6], [7]]).take([1, 0]).flat()[0].tolist()
        [7, 5, 6]
        """
        pos, row = positions(self.start, self.count)
        return self.values[pos], row

    def replaced(self, rows, new: Ragged) -> Ragged:
        """These rows with the rows ``rows`` replaced by those of ``new`` (in order).

        Examples
        --------
        >>> r = Ragged.from_arrays([[1], [2, 3]]).replaced([0], Ragged.from_arrays([[9, 9]]))
        >>> [a.tolist() for a in r.to_arrays()]
        [[9, 9], [2, 3]]
        """
        rows = np.asarray(rows, dtype=np.int64)
        start, count = self.start.copy(), self.count.copy()
        start[rows] = new.start + self.values.size
        count[rows] = new.count
        return Ragged(np.concatenate([self.values, new.values]), start, count)

    def to_arrays(self) -> list:
        """One int64 array per row (copies), for a frame's object column.

        Examples
        --------
        >>> [a.tolist() for a in Ragged.from_arrays([[4], []]).to_arrays()]
        [[4], []]
        """
        values, _ = self.flat()
        return np.split(values, np.cumsum(self.count)[:-1]) if len(self) else []


def positions(start, count) -> tuple[np.ndarray, np.ndarray]:
    """The flat positions ``start[i], ..., start[i] + count[i] - 1`` of every row, one
    after the other, and the row of each (no loop per row).

    Examples
    --------
    >>> [p.tolist() for p in positions(np.array([10, 3]), np.array([2, 3]))]
    [[10, 11, 3, 4, 5], [0, 0, 1, 1, 1]]
    """
    start = np.asarray(start, dtype=np.int64)
    count = np.asarray(count, dtype=np.int64)
    row = np.repeat(np.arange(len(count)), count)
    first = np.cumsum(count) - count
    return start[row] + (np.arange(row.size) - first[row]), row


def _as_row(a) -> np.ndarray:
    if a is None or np.ndim(a) == 0:
        return np.zeros(0, np.int64)
    arr = np.asarray(a)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.issubdtype(arr.dtype, np.floating) or not np.array_equal(arr, np.rint(arr)):
            raise ParameterError(f"ragged rows hold integers; got {arr.dtype}")
    return arr.astype(np.int64).reshape(-1)
