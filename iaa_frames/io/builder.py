# Over 400 lines: collecting, assembling and validating the frame are one step; 54 are documentation.
"""The column-wise builder of the tidy frame, and :func:`finish`, the last step of every reader.

Every reader goes through :class:`FrameBuilder`, which

* collects the rows column-wise (``array``/list per column, one ``DataFrame`` at the end),
* builds polygons in one vectorized :mod:`shapely` call from flat coordinate arrays,
* adds *coverage rows* for every (item, annotator) that was reviewed and has no object,
* keeps every skipped record (cancelled annotations, unsupported shapes, ...) with its
  file, entry and reason,
* renames a reader attribute named like a frame column to ``attr_<name>``
  (:func:`extra_name`), so that no attribute replaces a column,
* refuses one annotator's work on one item read from two files (one file given twice,
  two exports that take one annotator name): counted twice, it would agree with itself,

and then :func:`finish` validates the result with :func:`iaa_frames.frame.schema.check`, turns any
invalid row into a :class:`~iaa_frames.errors.ReaderError` that names the file and the
entry (or drops it), and reports what was skipped with a
:class:`~iaa_frames.errors.DroppedRowsWarning`.

Examples
--------
>>> b = FrameBuilder("example")
>>> f = b.add_file("ann.json")
>>> _ = b.add_box("a.jpg", "ana", "cat", 10, 20, 40, 60, file_idx=f, entry=0)
>>> b.cover("b.jpg", "ana", file_idx=f)
>>> finish(b)[["item", "annotator", "label", "x0", "x1"]]
    item annotator label    x0    x1
0  a.jpg       ana   cat  10.0  40.0
1  b.jpg       ana   NaN   NaN   NaN
"""

from __future__ import annotations

import json
import math
import warnings
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import (
    DroppedRowsWarning,
    ParameterError,
    ReaderError,
    RepairedGeometryWarning,
)
from iaa_frames.frame.known_valid import remember
from iaa_frames.frame.schema import INVALID_REASONS, check
from iaa_frames.geometry.kinds import get_kind
from iaa_frames.geometry.kinds.registry import FRAME_COLUMNS, parametric_kinds

from .paths import CoordinateError, entry_error, reader_error
from .values import is_number

__all__ = [
    "BOX",
    "COVERAGE",
    "MAX_EXTRA_COLUMNS",
    "POLYGON",
    "SHAPE",
    "FrameBuilder",
    "extra_name",
    "finish",
    "record_text",
    "reserved_columns",
    "unusable_message",
    "warn_dropped",
]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
#: The most extra columns (distinct annotation keys, attribute names) a reader makes:
#: beyond it the file is refused, so that memory stays proportional to the file.
MAX_EXTRA_COLUMNS = 1000
_MAX_RECORD_CHARS = 2000  # a dropped record is kept as JSON text up to this length


def unusable_message(head: str, lines: list, n: int) -> str:
    """The message of ``n`` unusable records: ``head``, the first five of ``lines``, how
    many more, and how to drop them instead."""
    more = f"\n... and {n - 5} more" if n > 5 else ""
    tail = "\nPass on_invalid='drop' to drop them with a warning."
    return f"{head}:\n" + "\n".join(lines[:5]) + more + tail


def warn_dropped(message: str, counts: dict, dropped: pd.DataFrame, stacklevel: int) -> None:
    """A :class:`~iaa_frames.errors.DroppedRowsWarning` holding the ``counts`` per reason
    and the ``dropped`` records; ``stacklevel`` as the caller would pass it."""
    warning = DroppedRowsWarning(message, counts=counts, dropped=dropped)
    warnings.warn(warning, stacklevel=stacklevel + 1)


def record_text(record) -> str:
    """A dropped record as (truncated) JSON text, so it stays retrievable and printable."""
    try:
        text = json.dumps(record, default=str)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(record)
        except RecursionError:
            text = "(a record nested too deeply to print)"
    if len(text) > _MAX_RECORD_CHARS:
        text = text[:_MAX_RECORD_CHARS] + f"... ({len(text)} chars)"
    return text


COVERAGE, BOX, POLYGON, SHAPE = 0, 1, 2, 3

#: The prefix a reader attribute (an annotation key, a per-region result, an
#: ``<attribute>``) takes when its name is a column of the frame.
ATTRIBUTE_PREFIX = "attr_"


def reserved_columns() -> frozenset:
    """The column names no reader attribute may take: the tidy frame's columns
    (:data:`~iaa_frames.geometry.kinds.registry.FRAME_COLUMNS`) and those of every
    registered parametric geometry kind (``kp_nose_x``, ``pt_x``, ...), which would turn
    a box into a shape of that kind."""
    names = set(FRAME_COLUMNS)
    for kind in parametric_kinds():
        names.update(kind.columns)
        if kind.payload is not None:
            names.add(kind.payload)
    return frozenset(names)


def extra_name(name, reserved: frozenset | None = None) -> str:
    """The column a reader attribute named ``name`` goes to: ``name``, or
    ``attr_<name>`` when ``name`` is a column of the frame (``label``, ``width``,
    ``annotator``, ...), so that an attribute never replaces a frame column.

    Examples
    --------
    >>> extra_name("color"), extra_name("label"), extra_name("width")
    ('color', 'attr_label', 'attr_width')
    """
    name = str(name)
    return ATTRIBUTE_PREFIX + name if name in (reserved or reserved_columns()) else name


class FrameBuilder:
    """Collects rows column-wise and assembles the tidy frame once.

    Rows are objects (``add_box``, ``add_polygon``, ``add_geometry``, and ``add_shape`` for
    the parametric geometry kinds of :mod:`iaa_frames.geometry.kinds`); coverage is declared
    with ``cover`` (an annotator reviewed an item) and turned into coverage rows at
    :meth:`build` for the (item, annotator) pairs that have no object row. Skipped input is
    recorded with :meth:`drop`.
    """

    def __init__(self, fmt: str, *, on_invalid: str = "raise"):
        if on_invalid not in ("raise", "drop"):
            raise ParameterError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
        self.fmt = fmt
        self.dropping = on_invalid == "drop"
        self.voided: set[int] = set()  # rows removed after they were added (see void())
        self.item: list = []
        self.annotator: list = []
        self.label: list = []
        self.object_id: list = []
        self.kind = array("b")
        self.box = array("d")  # 4 per row
        self.width = array("d")
        self.height = array("d")
        self.file_idx = array("l")
        self.entry = array("q")  # per row: an int the file's describer formats, or -1 ...
        self.entry_text: dict[int, str] = {}  # ... and the row's description here
        self.extras: dict[str, list] = {}
        #: the names no extra column may take (see :func:`extra_name`)
        self.reserved = reserved_columns()
        #: the extra columns that hold per-object attributes (an ordered set), listed in
        #: the frame's ``attrs["iaa_attributes"]`` by :func:`finish`
        self.attributes: dict[str, None] = {}
        # polygons: flat xy, points per ring, part of each ring, row of each part
        self.poly_xy = array("d")
        self.ring_len = array("q")
        self.ring_part = array("q")
        self.part_row = array("q")
        self.geoms: dict[int, Any] = {}  # row -> prebuilt geometry
        self.shapes: dict[str, array] = {}  # parametric geometry kind -> its rows
        self.files: list = []  # path per file index
        self.describers: list = []
        self.covered: dict = {}  # (item, annotator) -> (width, height, file_idx, entry)
        self.dropped: list[dict] = []
        self._order = None  # row order of the built frame (coverage rows moved), if changed

    # --- files ---------------------------------------------------------------------------
    def add_file(self, path, describe: Callable[[Any], str] | None = None) -> int:
        self.files.append(path)
        self.describers.append(describe)
        return len(self.files) - 1

    def describe(self, row: int) -> tuple[Any, str]:
        """(file, entry description) of a row, e.g. ``annotations[17] (id=123)``; ``row`` is
        a position in the built frame."""
        order = self._order
        return self.describe_row(int(order[row]) if order is not None else row)

    def describe_row(self, row: int) -> tuple[Any, str]:
        """(file, entry description) of a row by its position in the builder (before
        :meth:`build`)."""
        f = self.file_idx[row]
        e = self.entry[row]
        d = self.describers[f]
        if e < 0:
            text = self.entry_text.get(row, "(unknown entry)")
        else:
            text = d(e) if d is not None else f"entry {e}"
        oid = self.object_id[row] if row < len(self.object_id) else None
        if oid is not None and "(id=" not in text:
            text += f" (id={oid})"
        return self.files[f], text

    @property
    def n(self) -> int:
        return len(self.kind)

    # --- rows ----------------------------------------------------------------------------
    def _safe_extras(self, extras):
        """``extras`` with every key that names a frame column renamed ``attr_<key>``
        (the one place reader attributes enter the frame: none replaces a column)."""
        if not extras or self.reserved.isdisjoint(extras):
            return extras
        out = {}
        for k, v in extras.items():
            if k in self.reserved:
                name = ATTRIBUTE_PREFIX + str(k)
                while name in extras or name in out:
                    name = ATTRIBUTE_PREFIX + name
                out[name] = v
                if k in self.attributes:
                    self.attributes[name] = None
            else:
                out[k] = v
        return out

    def _encodable(self, name):
        """An extra column's ``name``, or where UTF-8 cannot encode it (a lone surrogate: a
        broken ``\\uXXXX`` escape in the export) its escaped text, prefixed while it
        names another column; an attribute keeps its place under the new name."""
        if not isinstance(name, str) or name.isascii():
            return name
        new = _escaped(name)
        if new == name:
            return name
        while new in self.extras or new in self.reserved:
            new = ATTRIBUTE_PREFIX + new
        if name in self.attributes:
            self.attributes = {(new if a == name else a): None for a in self.attributes}
        return new

    def _row(
        self,
        kind,
        item,
        annotator,
        label,
        object_id,
        width,
        height,
        file_idx,
        entry,
        extras,
        own=None,
    ):
        width, height = float(width), float(height)  # may raise: before any column grows
        if extras and not self.reserved.isdisjoint(extras):  # checked here: a call a row
            extras = self._safe_extras(extras)
        if own:  # the columns of the row's own geometry kind (add_shape)
            extras = {**(extras or {}), **own}
        if extras and len(self.extras) + len(extras) > MAX_EXTRA_COLUMNS:
            self._check_extra_columns(extras, file_idx, entry)
        n = len(self.kind)
        self.kind.append(kind)
        self.item.append(item)
        self.annotator.append(annotator)
        self.label.append(label)
        self.object_id.append(object_id)
        self.width.append(width)
        self.height.append(height)
        self.file_idx.append(file_idx)
        if isinstance(entry, int) and entry >= 0:
            self.entry.append(entry)
        else:
            self.entry.append(-1)
            self.entry_text[n] = "" if entry is None else str(entry)
        if extras:
            for k, v in extras.items():
                col = self.extras.get(k)
                if col is None:
                    col = self.extras[k] = [None] * n
                elif len(col) < n:
                    col.extend([None] * (n - len(col)))
                col.append(v)
        return n

    def _check_extra_columns(self, extras, file_idx, entry) -> None:
        new = [k for k in extras if k not in self.extras]
        if len(self.extras) + len(new) <= MAX_EXTRA_COLUMNS:
            return
        d = self.describers[file_idx] if file_idx < len(self.describers) else None
        text = (d(entry) if d else f"entry {entry}") if isinstance(entry, int) else entry
        exc = reader_error(
            self.files[file_idx] if file_idx < len(self.files) else "(unknown file)",
            text,
            f"the key {new[0]!r} would make more than {MAX_EXTRA_COLUMNS:,} extra columns "
            "(every distinct annotation key or attribute name is one): not an annotation "
            "export a frame can hold; remove the keys from the export",
        )
        exc.fatal = True  # the file, not an entry, is the problem
        raise exc

    def add_box(
        self,
        item,
        annotator,
        label,
        x0,
        y0,
        x1,
        y1,
        *,
        object_id=None,
        width=math.nan,
        height=math.nan,
        file_idx=0,
        entry=None,
        extras=None,
    ) -> int:
        box = array("d", (x0, y0, x1, y1))  # may raise OverflowError: before the row is added
        row = self._row(
            BOX, item, annotator, label, object_id, width, height, file_idx, entry, extras
        )
        self.box.extend(box)
        return row

    def add_polygon(
        self,
        item,
        annotator,
        label,
        parts,
        *,
        object_id=None,
        width=math.nan,
        height=math.nan,
        file_idx=0,
        entry=None,
        extras=None,
    ) -> int:
        """``parts``: a list of parts, each a list of rings (shell first, then holes), each
        ring a flat [x1, y1, x2, y2, ...] list of at least 3 points."""
        # converted and checked first (OverflowError for an integer beyond float64,
        # CoordinateError for NaN or infinity): a row that fails leaves no trace
        parts = [[array("d", ring) for ring in rings] for rings in parts]
        for rings in parts:
            for ring in rings:  # a finite sum: all finite (else, or on overflow, each looked at)
                if not math.isfinite(sum(ring)) and not all(map(math.isfinite, ring)):
                    bad = next(v for v in ring if not math.isfinite(v))
                    raise CoordinateError(f"a polygon coordinate is {bad!r}, not a finite number")
        row = self._row(
            POLYGON, item, annotator, label, object_id, width, height, file_idx, entry, extras
        )
        self.box.extend((math.nan, math.nan, math.nan, math.nan))
        for rings in parts:
            part = len(self.part_row)
            self.part_row.append(row)
            for ring in rings:
                self.poly_xy.extend(ring)
                self.ring_len.append(len(ring) // 2)
                self.ring_part.append(part)
        return row

    def add_geometry(
        self,
        item,
        annotator,
        label,
        geometry,
        *,
        object_id=None,
        width=math.nan,
        height=math.nan,
        file_idx=0,
        entry=None,
        extras=None,
    ) -> int:
        row = self._row(
            POLYGON, item, annotator, label, object_id, width, height, file_idx, entry, extras
        )
        self.box.extend((math.nan, math.nan, math.nan, math.nan))
        self.geoms[row] = geometry
        return row

    def add_shape(
        self,
        item,
        annotator,
        label,
        kind,
        params,
        *,
        object_id=None,
        width=math.nan,
        height=math.nan,
        file_idx=0,
        entry=None,
        extras=None,
        payload=None,
    ) -> int:
        """A shape of the parametric geometry kind ``kind`` (a registered name,
        :func:`iaa_frames.geometry.kinds.get_kind`): ``params`` (pixels) fill the kind's
        columns, and validation gives the row its bounds as ``x0, y0, x1, y1``. A kind
        with a :attr:`~iaa_frames.geometry.kinds.Kind.payload` takes it as ``payload``
        (an integer array: a volume's voxel runs).

        Examples
        --------
        >>> from iaa_frames.geometry.kinds import Kind, register_kind, unregister_kind
        >>> class Squares(Kind):
        ...     name, columns = "square_example", ("sq_x", "sq_y", "sq_side")
        ...     def bounds(self, p):
        ...         return np.column_stack([p[:, 0], p[:, 1], p[:, 0] + p[:, 2],
        ...                                 p[:, 1] + p[:, 2]])
        ...     def areas(self, p):
        ...         return p[:, 2] ** 2
        >>> _ = register_kind(Squares())
        >>> b = FrameBuilder("example")
        >>> b.add_shape("img", "ann", "cat", "square_example", [1, 2, 3])
        0
        >>> b.build()[["x0", "y0", "x1", "y1", "sq_side"]].to_numpy().tolist()
        [[1.0, 2.0, 4.0, 5.0, 3.0]]
        >>> unregister_kind("square_example")
        """
        shape_kind = get_kind(kind)
        if shape_kind.native:
            raise ParameterError(
                f"add_shape takes a parametric geometry kind; {kind!r} rows are added with "
                "add_box, add_polygon or add_geometry"
            )
        values = [float(v) for v in params]  # may raise: before the row is added
        if len(values) != len(shape_kind.columns):
            raise ParameterError(
                f"geometry kind {kind!r} takes {len(shape_kind.columns)} parameters "
                f"({', '.join(shape_kind.columns)}); got {len(values)}"
            )
        own = dict(zip(shape_kind.columns, values))
        if shape_kind.payload is not None:  # its variable-length data (a volume's runs)
            if payload is None:
                raise ParameterError(
                    f"geometry kind {kind!r} needs its payload ({shape_kind.payload})"
                )
            own[shape_kind.payload] = np.asarray(payload, dtype=np.int64).reshape(-1)
        row = self._row(
            SHAPE, item, annotator, label, object_id, width, height, file_idx, entry, extras, own
        )
        self.box.extend((math.nan, math.nan, math.nan, math.nan))
        self.shapes.setdefault(shape_kind.name, array("q")).append(row)
        return row

    def reshape_row(self, row: int, kind, params) -> None:
        """Turn the row ``row``, added as a box, into a shape of the parametric geometry
        kind ``kind``, for formats that name the kind only after the row (a COCO category,
        listed after the annotations, names its keypoints): as :meth:`add_shape` would
        have added it.

        Examples
        --------
        >>> b = FrameBuilder("example")
        >>> row = b.add_box("img", "ann", "cat", 0, 0, 1, 1)
        >>> params = [5.0, 5.0, 2.0] + [0.0, 0.0, 0.0] * 16 + [40.0]
        >>> b.reshape_row(row, "keypoints", params)
        >>> b.build()[["x0", "x1", "kp_nose_x", "kp_area"]].to_numpy().tolist()
        [[5.0, 5.0, 5.0, 40.0]]
        """
        shape_kind = get_kind(kind)
        values = [float(v) for v in params]
        if shape_kind.native or len(values) != len(shape_kind.columns):
            raise ParameterError(
                f"reshape_row takes the {len(shape_kind.columns)} parameters of a parametric "
                f"geometry kind; got {len(values)} for {kind!r}"
            )
        n = self.n
        for c, v in zip(shape_kind.columns, values, strict=True):
            col = self.extras.setdefault(c, [])
            if len(col) < n:
                col.extend([None] * (n - len(col)))
            col[row] = v
        self.kind[row] = SHAPE
        self.shapes.setdefault(shape_kind.name, array("q")).append(row)

    def _shape_bounds(self, box: np.ndarray) -> None:
        """Fill ``box`` with the bounds of the rows of parametric kinds, one call per kind."""
        for name, rows in self.shapes.items():
            kind = get_kind(name)
            rows = np.frombuffer(rows, dtype=np.int64)
            columns = [np.array(self.extras[c], dtype=object) for c in kind.columns]
            params = np.column_stack([col[rows] for col in columns]).astype(np.float64)
            box[rows] = kind.bounds(params)

    def cover(self, item, annotator, *, width=math.nan, height=math.nan, file_idx=0, entry=None):
        """Declare that ``annotator`` reviewed ``item`` (a coverage row if nothing is drawn)."""
        key = (item, annotator)
        prev = self.covered.get(key)
        if prev is None or (math.isnan(prev[0]) and not math.isnan(width)):
            self.covered[key] = (width, height, file_idx, entry)

    def drop(self, path, entry, reason, detail=None, *, item=None, annotator=None, record=None):
        """Record a skipped input record; it is reported, counted (per ``reason``, a short
        code) and retrievable (``detail`` explains, ``record`` holds the input as JSON)."""
        self.dropped.append(
            {
                "file": str(path),
                "entry": entry,
                "item": item,
                "annotator": annotator,
                "reason": reason,
                "detail": detail if detail is not None else reason,
                "record": None if record is None else record_text(record),
            }
        )

    def entry_failed(
        self, exc: Exception, path, entry, *, item=None, annotator=None, record=None
    ) -> None:
        """An entry could not be read: re-raise ``exc`` (``on_invalid="raise"``) or record
        the entry as dropped with the error's message (``on_invalid="drop"``); ``exc``, one
        of :data:`~iaa_frames.io.paths.ENTRY_ERRORS`, as the ReaderError of
        :func:`~iaa_frames.io.paths.entry_error`."""
        exc = entry_error(exc, path, entry)
        if not self.dropping or getattr(exc, "fatal", False):
            raise exc
        self.drop(
            path, entry, "unreadable_entry", str(exc), item=item, annotator=annotator, record=record
        )

    def void(
        self, row: int, exc: ReaderError, path, entry, record=None, *, cover: bool = True
    ) -> None:
        """Remove a row already added whose entry turned out unusable (a category id not
        defined, ...): re-raise ``exc``, or drop the row, keeping its annotator's coverage
        of the item."""
        if not self.dropping:
            raise exc
        self.voided.add(row)
        item, annotator = self.item[row], self.annotator[row]
        if cover:
            w, h, f = self.width[row], self.height[row], self.file_idx[row]
            self.cover(item, annotator, width=w, height=h, file_idx=f, entry=entry)
        self.drop(
            path, entry, "unreadable_entry", str(exc), item=item, annotator=annotator, record=record
        )

    # --- assembly ------------------------------------------------------------------------
    def geometry_column(self, n: int, batch: int = 20_000) -> np.ndarray:
        """Polygons from the flat coordinates, built with shapely in batches of parts (so
        that the temporary rings never hold more than a batch of coordinates)."""
        geometry = np.full(n, None, dtype=object)
        n_parts = len(self.part_row)
        if n_parts:
            coords = np.frombuffer(self.poly_xy, dtype="float64").reshape(-1, 2)
            ring_len = np.frombuffer(self.ring_len, dtype="int64")
            ring_start = np.concatenate([[0], np.cumsum(ring_len)])
            ring_part = np.frombuffer(self.ring_part, dtype="int64")
            part_first_ring = np.searchsorted(ring_part, np.arange(n_parts + 1))
            polys = np.empty(n_parts, dtype=object)
            for p0 in range(0, n_parts, batch):
                p1 = min(p0 + batch, n_parts)
                r0, r1 = part_first_ring[p0], part_first_ring[p1]
                lens = ring_len[r0:r1]
                rings = shapely.linearrings(
                    coords[ring_start[r0] : ring_start[r1]],
                    indices=np.repeat(np.arange(r1 - r0), lens),
                )
                polys[p0:p1] = shapely.polygons(rings, indices=ring_part[r0:r1] - p0)
                del rings
            del coords
            part_row = np.frombuffer(self.part_row, dtype="int64")
            rows, first, counts = np.unique(part_row, return_index=True, return_counts=True)
            single = counts == 1
            geometry[rows[single]] = polys[first[single]]
            if (~single).any():
                multi_rows = rows[~single]
                sel = np.isin(part_row, multi_rows)
                compact = np.searchsorted(multi_rows, part_row[sel])
                out = np.empty(len(multi_rows), dtype=object)
                shapely.multipolygons(polys[sel], indices=compact, out=out)
                geometry[multi_rows] = out
        for row, g in self.geoms.items():
            geometry[row] = g
        return geometry

    def _coverage_rows(self):
        if not self.covered:
            return
        pairs = zip(self.item, self.annotator, strict=True)
        voided = self.voided
        have = {p for r, p in enumerate(pairs) if r not in voided} if voided else set(pairs)
        for (item, ann), (w, h, f, e) in self.covered.items():
            if (item, ann) not in have:
                self._row(COVERAGE, item, ann, None, None, w, h, f, e, None)
                self.box.extend((math.nan, math.nan, math.nan, math.nan))

    def _check_text(self) -> None:
        """Rows whose item, annotator or label is not valid Unicode (a lone surrogate such
        as JSON's ``"\\ud800"``): a ReaderError naming the entry, or dropped. One encoding
        of all the names at once; the rows are looked for only when it fails."""
        for name in ("item", "annotator", "label"):
            values = getattr(self, name)
            texts = [v for v in values if isinstance(v, str)]
            try:
                "".join(texts).encode("utf-8")
                continue
            except UnicodeEncodeError:
                pass
            for row, v in enumerate(values):
                if not isinstance(v, str) or row in self.voided:
                    continue
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    path, entry = self.describe_row(row)
                    exc = reader_error(
                        path,
                        entry,
                        f"the {name} {v!r} holds a lone surrogate, which is not valid "
                        "Unicode (a broken \\uXXXX escape): fix the text in the export",
                    )
                    # the voided row leaves the frame; its record keeps the text escaped
                    values[row] = _escaped(v)
                    self.void(row, exc, path, entry, cover=False)

    def _check_blank(self) -> None:
        """Rows whose item or annotator is a blank name (``""`` or only whitespace: an
        ActivityNet video id ``""``, a Label Studio ``completed_by`` of spaces), which no
        other export can name: a ReaderError naming the entry, or dropped. The distinct
        names are looked at once; the rows only when one is blank."""
        for name in ("item", "annotator"):
            values = getattr(self, name)
            blank = {v for v in set(values) if isinstance(v, str) and not v.strip()}
            if not blank:
                continue
            for row, v in enumerate(values):
                if row in self.voided or not isinstance(v, str) or v not in blank:
                    continue
                path, entry = self.describe_row(row)
                what = "empty" if not v else "only whitespace"
                why = f"the {name} {v!r} is {what}: it names no {name}; fix the export"
                self.void(row, reader_error(path, entry, why), path, entry, cover=False)

    def _check_read_twice(self) -> None:
        """One annotator's work on one item read from two files (one file given twice,
        two exports of one job, two files naming one image, two exports without an
        assignee that take one annotator name): counted twice, it would be agreement of the
        annotator with itself. A :class:`~iaa_frames.errors.ReaderError` naming the two
        files and the (item, annotator); one vectorized pass over the rows."""
        if len(self.files) < 2 or not self.n:
            return
        rows = np.arange(self.n)
        if self.voided:
            rows = np.setdiff1d(rows, np.fromiter(self.voided, dtype=np.int64))
        item_code, _ = pd.factorize(np.array(self.item + [None], dtype=object)[:-1][rows])
        ann_code, _ = pd.factorize(np.array(self.annotator + [None], dtype=object)[:-1][rows])
        files = np.asarray(self.file_idx, dtype=np.int64)[rows]
        key = item_code.astype(np.int64) * (int(ann_code.max()) + 1) + ann_code
        pairs = pd.DataFrame({"key": key, "file": files, "row": rows}).drop_duplicates(
            ["key", "file"]
        )
        twice = pairs[pairs["key"].duplicated(keep=False)]
        if twice.empty:
            return
        first = twice[twice["key"] == twice["key"].iat[0]]
        r0, r1 = int(first["row"].iat[0]), int(first["row"].iat[1])
        f0, f1 = self.files[self.file_idx[r0]], self.files[self.file_idx[r1]]
        n_pairs = twice["key"].nunique()
        more = f" (and {n_pairs - 1:,} more item/annotator pairs)" if n_pairs > 1 else ""
        same = " (the same file given twice?)" if str(f0) == str(f1) else ""
        raise ReaderError(
            f"{f1}: the annotator {self.annotator[r1]!r} on the item {self.item[r1]!r} is "
            f"read from this file and from {f0}{same}{more}: the same work read twice "
            "would count as agreement with itself. Give each file once; exports that "
            "name no annotator (CVAT's annotations.xml without an assignee) need "
            "annotator= or a mapping {annotator: file}"
        )

    def _check_tracks(self) -> None:
        """Two objects of one track on one item of one annotator (two ``<track>``
        elements of one id in a CVAT export, two tracker lines of one id in a YOLO label
        file): a track has one object per frame, so the track agreement would refuse the
        frame with no file named. A :class:`~iaa_frames.errors.ReaderError` naming both
        entries."""
        tracks = self.extras.get("track_id")
        if not tracks:
            return
        n = len(tracks)
        rows = np.array([r for r, t in enumerate(tracks) if t is not None], dtype=np.int64)
        if self.voided:
            rows = np.setdiff1d(rows, np.fromiter(self.voided, dtype=np.int64))
        if len(rows) < 2:
            return
        key = pd.DataFrame(
            {
                "item": pd.Series(self.item[:n], dtype=object).iloc[rows].to_numpy(),
                "annotator": pd.Series(self.annotator[:n], dtype=object).iloc[rows].to_numpy(),
                "track": [str(tracks[r]) for r in rows],
            }
        )
        twice = key.duplicated().to_numpy()
        if not twice.any():
            return
        k = int(np.flatnonzero(twice)[0])
        first = int(np.flatnonzero((key == key.iloc[k]).all(axis=1).to_numpy())[0])
        r0, r1 = int(rows[first]), int(rows[k])
        (f0, e0), (f1, e1) = self.describe_row(r0), self.describe_row(r1)
        where = "" if str(f0) == str(f1) else f" of {f0}"
        raise reader_error(
            f1,
            e1,
            f"the track {tracks[r1]!r} has an object on the item {self.item[r1]!r} already, "
            f"in {e0}{where}: a track has one object per frame (two tracks of one id?)",
        )

    def build(self) -> pd.DataFrame:
        self._coverage_rows()
        self._check_read_twice()
        self._check_tracks()
        self._check_text()
        self._check_blank()
        n = self.n
        box = (
            np.frombuffer(self.box, dtype="float64").reshape(-1, 4).copy()
            if n
            else np.empty((0, 4))
        )
        geometry = self.geometry_column(n)
        has_geom = ~np.equal(geometry, None)
        if has_geom.any():
            box[has_geom] = shapely.bounds(geometry[has_geom])
        self._shape_bounds(box)
        kind = np.frombuffer(self.kind, dtype="int8") if n else np.empty(0, "int8")
        object_id = _object_ids(self, kind)
        cols = {
            "item": self.item,
            "annotator": pd.array(self.annotator, dtype="str"),
            "label": pd.array(self.label, dtype="str"),
            "object_id": object_id,
            "x0": box[:, 0],
            "y0": box[:, 1],
            "x1": box[:, 2],
            "y1": box[:, 3],
            "geometry": geometry,
            "width": np.frombuffer(self.width, dtype="float64") if n else np.empty(0),
            "height": np.frombuffer(self.height, dtype="float64") if n else np.empty(0),
        }
        df = pd.DataFrame(cols)
        del cols
        if self.extras:  # all at once: a column at a time copies the frame per column
            for col in self.extras.values():
                if len(col) < n:
                    col.extend([None] * (n - len(col)))
            # no extra column names a frame column (_safe_extras renamed them)
            new = {self._encodable(k): _tidy_extra(c) for k, c in self.extras.items()}
            if new:
                df = pd.concat([df, pd.DataFrame(new)], axis=1)
        # the frame holds the data now; keep only what describe() needs
        self.item = self.annotator = self.label = None
        self.box = self.width = self.height = self.poly_xy = None
        self.extras = {}
        self.geoms = {}
        # coverage rows were appended last: move each next to the rows of its file; rows
        # voided after they were added leave the frame
        file_idx = np.array(self.file_idx, dtype=np.int64)
        keep = None
        if self.voided:
            keep = np.setdiff1d(np.arange(n), np.fromiter(self.voided, dtype=np.int64))
            file_idx = file_idx[keep]
        if n and (np.diff(file_idx) < 0).any():
            order = np.argsort(file_idx, kind="stable")
            if keep is not None:
                order = keep[order]
            df = df.take(order)
            self._order = order
        elif keep is not None:
            df = df.take(keep)
            self._order = keep
        else:
            self._order = None
        return df.reset_index(drop=True)


def _object_ids(builder: FrameBuilder, kind: np.ndarray):
    """The object_id column: the format's ids, or ``annotator/item/k`` where it has none;
    missing (NA) on coverage rows. All-integer ids become a nullable ``Int64`` column;
    integers among text become their decimal text, so that the ids ``7`` and ``"7"`` of
    one file are one id (refused twice as ``duplicate_object_id``), as they are once
    written to CSV or when several files prefix them with their annotator."""
    ids = builder.object_id
    n = len(ids)
    out = np.array(ids + [None], dtype=object)[:-1] if n else np.empty(0, object)
    missing = [r for r in range(n) if ids[r] is None and kind[r] != COVERAGE]
    if missing:
        counter: dict = {}
        for r in missing:
            key = (builder.annotator[r], builder.item[r])
            k = counter.get(key, 0)
            counter[key] = k + 1
            out[r] = f"{key[0]}/{key[1]}/{k}"
    present = [v for v in out if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        if all(_INT64_MIN <= v <= _INT64_MAX for v in present):
            return pd.array(out, dtype="Int64")
        return np.array([None if v is None else str(v) for v in out] + [None], dtype=object)[:-1]
    if any(type(v) is int for v in present) and any(isinstance(v, str) for v in present):
        at = [r for r, v in enumerate(out) if type(v) is int]
        out[at] = [str(out[r]) for r in at]
    return out


def _tidy_extra(values: list):
    """An extra column: numeric when every present value is a number, text when every one
    is a string (a lone surrogate, which no text column can hold, kept as its
    ``\\udXXX`` escape), else object."""
    present = [v for v in values if v is not None]
    if any(isinstance(v, np.ndarray) for v in present):  # arrays (a kind's payload)
        out = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):
            out[i] = v
        return out
    if present and all(isinstance(v, bool) for v in present):
        return (
            pd.array(values, dtype="boolean")
            if len(present) < len(values)
            else np.array(values, dtype=bool)
        )
    if present and all(is_number(v) for v in present):
        if all(isinstance(v, int) for v in present):
            if not all(_INT64_MIN <= v <= _INT64_MAX for v in present):
                return np.array(values + [None], dtype=object)[:-1]  # beyond int64: as given
            return (
                pd.array(values, dtype="Int64")
                if len(present) < len(values)
                else np.array(values, dtype="int64")
            )
        return np.array([math.nan if v is None else v for v in values], dtype="float64")
    if present and all(isinstance(v, str) for v in present):
        try:
            return pd.array(values, dtype="str")
        except UnicodeEncodeError:  # a broken \uXXXX escape in the export
            return pd.array([_escaped(v) for v in values], dtype="str")
    return np.array(values + [None], dtype=object)[:-1]


def _escaped(v):
    """``v`` with what UTF-8 cannot encode (lone surrogates) as backslash escapes.

    Examples
    --------
    >>> _escaped("q\\ud800a"), _escaped(None)
    ('q\\\\ud800a', None)
    """
    return v if v is None else v.encode("utf-8", "backslashreplace").decode("utf-8")


def finish(
    builder: FrameBuilder,
    *,
    on_invalid: str = "raise",
    return_dropped: bool = False,
    stacklevel: int = 3,
):
    """Assemble, validate and report: the last step of every reader."""
    if on_invalid not in ("raise", "drop"):
        raise ParameterError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
    on_invalid = "drop" if builder.dropping else on_invalid
    df = builder.build()
    res = check(df)
    if res.counts:
        bad = np.flatnonzero(~df.index.isin(res.frame.index))
        if on_invalid == "raise":
            reasons = res.dropped["reason"].to_numpy()
            lines = []
            for pos, reason in list(zip(bad, reasons, strict=True))[:5]:
                path, entry = builder.describe(int(pos))
                lines.append(f"{path}: {entry}: {INVALID_REASONS.get(reason, reason)}")
            summary = ", ".join(f"{k}: {v}" for k, v in res.counts.items())
            head = f"{len(bad)} unusable annotation(s) ({summary})"
            raise ReaderError(unusable_message(head, lines, len(bad)))
        for pos, reason in zip(bad, res.dropped["reason"].to_numpy(), strict=True):
            path, entry = builder.describe(int(pos))
            who = {"item": df["item"].iat[pos], "annotator": df["annotator"].iat[pos]}
            builder.drop(path, entry, reason, INVALID_REASONS.get(reason, reason), **who)
    frame = res.frame.reset_index(drop=True)
    remember(frame)  # validated: not checked again while unchanged (frame.known_valid)
    dropped = pd.DataFrame(
        builder.dropped,
        columns=["file", "entry", "item", "annotator", "reason", "detail", "record"],
    )
    counts = {str(k): int(v) for k, v in dropped["reason"].value_counts(sort=False).items()}
    frame.attrs = {**frame.attrs, "iaa_reader": builder.fmt, "iaa_reader_dropped": counts}
    attributes = [c for c in builder.attributes if c in frame.columns and c not in builder.reserved]
    if attributes:
        frame.attrs["iaa_attributes"] = attributes
    if res.repaired:
        warnings.warn(
            RepairedGeometryWarning(
                f"{builder.fmt}: repaired {res.repaired} invalid polygon(s) with shapely.make_valid"
            ),
            stacklevel=stacklevel,
        )
    if return_dropped:
        return frame, dropped
    if len(dropped):
        summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
        message = (
            f"{builder.fmt}: skipped or changed {len(dropped)} record(s) ({summary}); the warning's "
            ".dropped attribute holds them (file, entry, reason, record), or pass "
            "return_dropped=True"
        )
        warn_dropped(message, counts, dropped, stacklevel)
    return frame
