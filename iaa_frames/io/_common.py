"""Machinery shared by the readers: safe file access, streaming JSON, safe XML, and a
column-wise builder of the tidy frame.

Nothing here is public API. Every reader goes through :class:`FrameBuilder`, which

* collects the rows column-wise (``array``/list per column, one ``DataFrame`` at the end),
* builds polygons in one vectorized :mod:`shapely` call from flat coordinate arrays,
* adds *coverage rows* for every (item, annotator) that was reviewed and has no object,
* keeps every skipped record (cancelled annotations, unsupported shapes, ...) with its
  file, entry and reason, and reports them with a
  :class:`~iaa_frames.errors.DroppedRowsWarning`,
* validates the result with :func:`iaa_frames.frame.check` and turns any invalid row into a
  :class:`~iaa_frames.errors.ReaderError` that names the file and the entry.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from array import array
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import shapely

from ..errors import DroppedRowsWarning, ParameterError, ReaderError

__all__ = [
    "FrameBuilder",
    "JSONStream",
    "check_file",
    "files_and_annotators",
    "load_json",
    "parse_xml",
    "iterparse_xml",
    "reader_error",
    "annotator_dirs",
    "finish",
]

_MAX_RECORD_CHARS = 2000  # a dropped record is kept as JSON text up to this length


def reader_error(path, entry: str | None, reason: str) -> ReaderError:
    """A :class:`ReaderError` whose message names the file, the entry and the reason."""
    where = f"{path}" if entry is None else f"{path}: {entry}"
    return ReaderError(f"{where}: {reason}")


def check_file(path) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path`, or raise ReaderError if it cannot be read."""
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"expected a file path, got {type(path).__name__}: {path!r}")
    p = Path(path)
    if not p.exists():
        raise reader_error(p, None, "no such file")
    if p.is_dir():
        raise reader_error(p, None, "is a directory, expected a file")
    if p.stat().st_size == 0:
        raise reader_error(p, None, "the file is empty")
    return p


def check_dir(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"expected a directory path, got {type(path).__name__}: {path!r}")
    p = Path(path)
    if not p.exists():
        raise reader_error(p, None, "no such directory")
    if not p.is_dir():
        raise reader_error(p, None, "is not a directory")
    return p


def annotator_dirs(dir_per_annotator, fmt: str) -> list[tuple[str, Path]]:
    """Resolve ``{annotator: directory}`` or a parent directory whose subdirectories are the
    annotators, into a sorted list of (annotator, directory)."""
    if isinstance(dir_per_annotator, Mapping):
        if not dir_per_annotator:
            raise ParameterError(f"{fmt}: the mapping of annotators to directories is empty")
        out = []
        for ann, d in dir_per_annotator.items():
            if not isinstance(ann, str) or not ann:
                raise ParameterError(f"{fmt}: annotator names must be non-empty strings, got {ann!r}")
            out.append((ann, check_dir(d)))
        return out
    parent = check_dir(dir_per_annotator)
    subdirs = sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [(p.name, p) for p in subdirs]


def record_text(record) -> str:
    """A dropped record as (truncated) JSON text, so it stays retrievable and printable."""
    try:
        text = json.dumps(record, default=str)
    except (TypeError, ValueError):
        text = repr(record)
    if len(text) > _MAX_RECORD_CHARS:
        text = text[:_MAX_RECORD_CHARS] + f"... ({len(text)} chars)"
    return text


# --------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------

_WS = " \t\n\r"
_WS_MATCH = re.compile(r"[ \t\n\r]*").match


class JSONStream:
    """Incremental reader of a JSON document whose top level is an object or an array.

    The elements of the top-level arrays named in ``stream_keys`` (or of a top-level array)
    are decoded one at a time, so that a large export is never held in memory as one
    Python object tree. Other top-level values are decoded whole.

    Iterating yields ``("value", key, None, value)`` for a whole top-level value and
    ``("item", key, index, value)`` for one element of a streamed array (``key`` is
    ``None`` for a top-level array). ``top`` is ``"object"`` or ``"array"`` once iteration
    has started. Every syntax error is a :class:`ReaderError` naming the file, the entry
    being read (``annotations[17]``) and the line and column.
    """

    def __init__(self, path: Path, stream_keys=(), chunk_size: int = 1 << 20, top_name: str = ""):
        self.path = path
        self.top_name = top_name  # how to name the elements of a top-level array ("tasks")
        self.stream_keys = set(stream_keys)
        self.chunk = chunk_size
        self.buf = ""
        self.pos = 0
        self.base = 0  # characters consumed before buf
        self.lines = 0  # newlines consumed before buf
        self.line_start = 0  # absolute char offset of the current line start (before buf)
        self.eof = False
        self.top = None
        self._decoder = json.JSONDecoder()
        self._fh = None

    # --- low level -------------------------------------------------------------------
    def _read(self, n: int) -> None:
        # drop what was consumed, then append n more characters
        if self.pos:
            consumed = self.buf[: self.pos]
            nl = consumed.count("\n")
            if nl:
                self.lines += nl
                self.line_start = self.base + consumed.rfind("\n") + 1
            self.base += self.pos
            self.buf = self.buf[self.pos :]
            self.pos = 0
        try:
            data = self._fh.read(n)
        except UnicodeDecodeError as exc:
            raise reader_error(self.path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start} of a chunk)") from None
        if not data:
            self.eof = True
        self.buf += data

    def _where(self, pos: int) -> str:
        before = self.buf[:pos]
        nl = before.count("\n")
        line = self.lines + nl + 1
        if nl:
            col = pos - before.rfind("\n")
        else:
            col = self.base + pos - self.line_start + 1
        return f"line {line}, column {col}"

    def _peek(self) -> str:
        """Next non-whitespace character ('' at end of file), without consuming it."""
        while True:
            buf, pos = self.buf, self.pos
            n = len(buf)
            while pos < n and buf[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return buf[pos]
            if self.eof:
                return ""
            self._read(self.chunk)

    def _expect(self, chars: str, entry: str) -> str:
        c = self._peek()
        if c == "":
            raise reader_error(self.path, entry, "truncated JSON: the file ends early")
        if c not in chars:
            want = " or ".join(repr(x) for x in chars)
            raise reader_error(self.path, entry, f"invalid JSON at {self._where(self.pos)}: expected {want}, found {c!r}")
        self.pos += 1
        return c

    def _value(self, entry: str):
        """Decode one JSON value at the current position, reading more input as needed."""
        self._peek()
        grow = self.chunk
        while True:
            try:
                value, end = self._decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                near_end = exc.pos >= len(self.buf) - 8 or exc.msg.startswith("Unterminated")
                if not self.eof and near_end:
                    self._read(grow)
                    grow *= 2
                    continue
                if self.eof and near_end:
                    raise reader_error(self.path, entry, f"truncated JSON: the file ends inside this entry ({exc.msg})") from None
                raise reader_error(self.path, entry, f"invalid JSON at {self._where(exc.pos)}: {exc.msg}") from None
            except RecursionError:
                raise reader_error(self.path, entry, "JSON nested too deeply") from None
            if not self.eof and end > len(self.buf) - 32:
                # a number may continue in the next chunk ("0" then ".5"): decode again with
                # more input until the value ends well inside the buffer
                self._read(grow)
                continue
            self.pos = end
            return value

    # --- iteration ---------------------------------------------------------------------
    def __iter__(self) -> Iterator[tuple[str, Any, Any, Any]]:
        try:
            self._fh = open(self.path, encoding="utf-8-sig", newline="")
        except OSError as exc:
            raise reader_error(self.path, None, f"cannot open: {exc.strerror}") from None
        try:
            first = self._peek()
            if first == "":
                raise reader_error(self.path, None, "the file is empty (only whitespace)")
            if first == "[":
                self.top = "array"
                yield from self._array(None)
            elif first == "{":
                self.top = "object"
                yield from self._object()
            else:
                raise reader_error(self.path, None, f"not a JSON object or array: starts with {first!r} at {self._where(self.pos)}")
            if self._peek() != "":
                raise reader_error(self.path, None, f"invalid JSON: extra data after the end of the document at {self._where(self.pos)}")
        finally:
            self._fh.close()

    def _array(self, key):
        name = self.top_name if key is None else str(key)
        self._expect("[", f"{name}" or "top level")
        i = 0
        if self._peek() == "]":
            self.pos += 1
            return
        decode = self._decoder.raw_decode
        ws = _WS_MATCH
        while True:
            # fast path: the element and its delimiter lie inside the buffer
            buf = self.buf
            n = len(buf)
            pos = ws(buf, self.pos).end()
            try:
                value, end = decode(buf, pos)
            except (json.JSONDecodeError, RecursionError):
                end = n
            after = ws(buf, end).end() if end < n else n
            if after < n:
                c = buf[after]
                if c == "," or c == "]":
                    self.pos = after + 1
                    yield ("item", key, i, value)
                    i += 1
                    if c == "]":
                        return
                    continue
            # slow path: read more, or report the error precisely
            self.pos = pos
            entry = f"{name}[{i}]"
            value = self._value(entry)
            yield ("item", key, i, value)
            i += 1
            c = self._expect(",]", f"{name}[{i - 1}]")
            if c == "]":
                return

    def _object(self):
        self._expect("{", "top level")
        if self._peek() == "}":
            self.pos += 1
            return
        while True:
            if self._peek() != '"':
                self._expect('"', "top level")
            key = self._value("a top-level key")
            self._expect(":", f"key {key!r}")
            if key in self.stream_keys and self._peek() == "[":
                yield from self._array(key)
            else:
                yield ("value", key, None, self._value(f"{key}"))
            c = self._expect(",}", f"after key {key!r}")
            if c == "}":
                return


def load_json(path: Path):
    """Load a (small) JSON file whole, with ReaderErrors for every failure."""
    items = []
    value = None
    stream = JSONStream(path)
    for kind, key, i, v in stream:
        if stream.top == "array":
            items.append(v)
        else:
            if value is None:
                value = {}
            value[key] = v
    if stream.top == "array":
        return items
    return value if value is not None else {}


# --------------------------------------------------------------------------------------
# XML
# --------------------------------------------------------------------------------------


def _xml_error(path, exc) -> ReaderError:
    from defusedxml import DefusedXmlException

    if isinstance(exc, DefusedXmlException):
        return reader_error(path, None, f"unsafe XML refused ({type(exc).__name__}: {exc}); "
                            "entity declarations and external references are not allowed")
    pos = getattr(exc, "position", None)
    where = f" at line {pos[0]}, column {pos[1] + 1}" if pos else ""
    msg = str(exc)
    if "no element found" in msg:
        return reader_error(path, None, f"truncated or empty XML{where}")
    return reader_error(path, None, f"invalid XML{where}: {msg}")


def parse_xml(path: Path):
    """Parse an XML file safely with :mod:`defusedxml` and return the root element."""
    import xml.etree.ElementTree as ET

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import parse

    try:
        return parse(str(path), forbid_dtd=False, forbid_entities=True, forbid_external=True).getroot()
    except (ET.ParseError, DefusedXmlException, ValueError) as exc:
        raise _xml_error(path, exc) from None
    except OSError as exc:
        raise reader_error(path, None, f"cannot read: {exc}") from None


def iterparse_xml(path: Path, events=("start", "end")):
    """Safe incremental XML parsing (:func:`defusedxml.ElementTree.iterparse`)."""
    import xml.etree.ElementTree as ET

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    try:
        yield from iterparse(str(path), events=events, forbid_dtd=False,
                             forbid_entities=True, forbid_external=True)
    except (ET.ParseError, DefusedXmlException, ValueError) as exc:
        raise _xml_error(path, exc) from None


def xml_float(path, entry, el, name, *, attr=True, required=True):
    """A number from an XML attribute (``attr=True``) or a child element's text."""
    raw = el.get(name) if attr else el.findtext(name)
    if raw is None or (not attr and raw.strip() == ""):
        if required:
            what = f"attribute {name!r}" if attr else f"element <{name}>"
            raise reader_error(path, entry, f"missing {what}")
        return math.nan
    try:
        v = float(raw)
    except ValueError:
        what = f"attribute {name}" if attr else f"<{name}>"
        raise reader_error(path, entry, f"{what}={raw!r} is not a number") from None
    if not math.isfinite(v):
        raise reader_error(path, entry, f"{name}={raw!r} is not a finite number")
    return v


# --------------------------------------------------------------------------------------
# numbers
# --------------------------------------------------------------------------------------


_NUMBER_TYPES = {int, float}


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def number(path, entry, v, name) -> float:
    if not is_number(v):
        raise reader_error(path, entry, f"{name} must be a number, got {type(v).__name__} {v!r}")
    v = float(v)
    if not math.isfinite(v):
        raise reader_error(path, entry, f"{name} must be finite, got {v!r}")
    return v


def size_value(path, entry, v, name) -> float:
    """An image size: a positive number, or NaN when absent (None/0 counts as unknown)."""
    if v is None or v == 0:
        return math.nan
    v = number(path, entry, v, name)
    if v < 0:
        raise reader_error(path, entry, f"{name} must be positive, got {v!r}")
    return v


def flat_ring(path, entry, values, name) -> list:
    """Validate a flat [x1, y1, x2, y2, ...] list and drop an explicit closing point."""
    if not isinstance(values, list):
        raise reader_error(path, entry, f"{name} must be a list of numbers, got {type(values).__name__}")
    if len(values) % 2:
        raise reader_error(path, entry, f"{name} has an odd number of coordinates ({len(values)})")
    if not set(map(type, values)) <= _NUMBER_TYPES:
        bad = next(v for v in values if type(v) not in _NUMBER_TYPES)
        raise reader_error(path, entry, f"{name} holds a non-number {bad!r}")
    if len(values) >= 4 and values[0] == values[-2] and values[1] == values[-1]:
        values = values[:-2]
    return values


# --------------------------------------------------------------------------------------
# the frame builder
# --------------------------------------------------------------------------------------

COVERAGE, BOX, POLYGON = 0, 1, 2


class FrameBuilder:
    """Collects rows column-wise and assembles the tidy frame once.

    Rows are objects (``add_box``, ``add_polygon``, ``add_geometry``); coverage is declared
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
        # polygons: flat xy, points per ring, part of each ring, row of each part
        self.poly_xy = array("d")
        self.ring_len = array("q")
        self.ring_part = array("q")
        self.part_row = array("q")
        self.geoms: dict[int, Any] = {}  # row -> prebuilt geometry
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
    def _row(self, kind, item, annotator, label, object_id, width, height, file_idx, entry, extras):
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

    def add_box(self, item, annotator, label, x0, y0, x1, y1, *, object_id=None, width=math.nan,
                height=math.nan, file_idx=0, entry=None, extras=None) -> int:
        row = self._row(BOX, item, annotator, label, object_id, width, height, file_idx, entry, extras)
        self.box.extend((x0, y0, x1, y1))
        return row

    def add_polygon(self, item, annotator, label, parts, *, object_id=None, width=math.nan,
                    height=math.nan, file_idx=0, entry=None, extras=None) -> int:
        """``parts``: a list of parts, each a list of rings (shell first, then holes), each
        ring a flat [x1, y1, x2, y2, ...] list of at least 3 points."""
        row = self._row(POLYGON, item, annotator, label, object_id, width, height, file_idx, entry, extras)
        self.box.extend((math.nan, math.nan, math.nan, math.nan))
        for rings in parts:
            part = len(self.part_row)
            self.part_row.append(row)
            for ring in rings:
                self.poly_xy.extend(ring)
                self.ring_len.append(len(ring) // 2)
                self.ring_part.append(part)
        return row

    def add_geometry(self, item, annotator, label, geometry, *, object_id=None, width=math.nan,
                     height=math.nan, file_idx=0, entry=None, extras=None) -> int:
        row = self._row(POLYGON, item, annotator, label, object_id, width, height, file_idx, entry, extras)
        self.box.extend((math.nan, math.nan, math.nan, math.nan))
        self.geoms[row] = geometry
        return row

    def cover(self, item, annotator, *, width=math.nan, height=math.nan, file_idx=0, entry=None):
        """Declare that ``annotator`` reviewed ``item`` (a coverage row if nothing is drawn)."""
        key = (item, annotator)
        prev = self.covered.get(key)
        if prev is None or (math.isnan(prev[0]) and not math.isnan(width)):
            self.covered[key] = (width, height, file_idx, entry)

    def drop(self, path, entry, reason, detail=None, *, item=None, annotator=None, record=None):
        """Record a skipped input record; it is reported, counted (per ``reason``, a short
        code) and retrievable (``detail`` explains, ``record`` holds the input as JSON)."""
        self.dropped.append({"file": str(path), "entry": entry, "item": item,
                             "annotator": annotator, "reason": reason,
                             "detail": detail if detail is not None else reason,
                             "record": None if record is None else record_text(record)})

    def entry_failed(self, exc: ReaderError, path, entry, *, item=None, annotator=None,
                     record=None) -> None:
        """An entry could not be read: re-raise ``exc`` (``on_invalid="raise"``) or record
        the entry as dropped with the error's message (``on_invalid="drop"``)."""
        if not self.dropping or getattr(exc, "fatal", False):
            raise exc
        self.drop(path, entry, "unreadable_entry", str(exc), item=item, annotator=annotator,
                  record=record)

    def void(self, row: int, exc: ReaderError, path, entry, record=None, *, cover: bool = True) -> None:
        """Remove a row already added whose entry turned out unusable (a category id not
        defined, ...): re-raise ``exc``, or drop the row, keeping its annotator's coverage
        of the item."""
        if not self.dropping:
            raise exc
        self.voided.add(row)
        item, annotator = self.item[row], self.annotator[row]
        if cover:
            self.cover(item, annotator, width=self.width[row], height=self.height[row],
                       file_idx=self.file_idx[row], entry=entry)
        self.drop(path, entry, "unreadable_entry", str(exc), item=item, annotator=annotator,
                  record=record)

    # --- assembly ------------------------------------------------------------------------
    def _geometry_column(self, n: int, batch: int = 20_000) -> np.ndarray:
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
                rings = shapely.linearrings(coords[ring_start[r0]:ring_start[r1]],
                                            indices=np.repeat(np.arange(r1 - r0), lens))
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
        if self.n:
            have = {(i, a) for r, (i, a) in enumerate(zip(self.item, self.annotator))
                    if r not in self.voided} if self.voided else set(zip(self.item, self.annotator))
        else:
            have = set()
        for (item, ann), (w, h, f, e) in self.covered.items():
            if (item, ann) not in have:
                self._row(COVERAGE, item, ann, None, None, w, h, f, e, None)
                self.box.extend((math.nan, math.nan, math.nan, math.nan))

    def build(self) -> pd.DataFrame:
        self._coverage_rows()
        n = self.n
        box = np.frombuffer(self.box, dtype="float64").reshape(-1, 4).copy() if n else np.empty((0, 4))
        geometry = self._geometry_column(n)
        has_geom = ~np.equal(geometry, None)
        if has_geom.any():
            box[has_geom] = shapely.bounds(geometry[has_geom])
        kind = np.frombuffer(self.kind, dtype="int8") if n else np.empty(0, "int8")
        object_id = _object_ids(self, kind)
        cols = {
            "item": self.item,
            "annotator": pd.array(self.annotator, dtype="str"),
            "label": pd.array(self.label, dtype="str"),
            "object_id": object_id,
            "x0": box[:, 0], "y0": box[:, 1], "x1": box[:, 2], "y1": box[:, 3],
            "geometry": geometry,
            "width": np.frombuffer(self.width, dtype="float64") if n else np.empty(0),
            "height": np.frombuffer(self.height, dtype="float64") if n else np.empty(0),
        }
        df = pd.DataFrame(cols)
        del cols
        for k, col in self.extras.items():
            if len(col) < n:
                col.extend([None] * (n - len(col)))
            df[k] = _tidy_extra(col)
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
    missing (NA) on coverage rows. All-integer ids become a nullable ``Int64`` column."""
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
        return pd.array(out, dtype="Int64")
    return out


def _tidy_extra(values: list):
    """An extra column: numeric when every present value is a number, else object."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pd.array(values, dtype="boolean") if len(present) < len(values) else np.array(values, dtype=bool)
    if present and all(is_number(v) for v in present):
        if all(isinstance(v, int) for v in present):
            return pd.array(values, dtype="Int64") if len(present) < len(values) else np.array(values, dtype="int64")
        return np.array([math.nan if v is None else v for v in values], dtype="float64")
    if present and all(isinstance(v, str) for v in present):
        return pd.array(values, dtype="str")
    return np.array(values + [None], dtype=object)[:-1]


def finish(builder: FrameBuilder, *, on_invalid: str = "raise", return_dropped: bool = False,
           stacklevel: int = 3):
    """Assemble, validate and report: the last step of every reader."""
    from ..frame import INVALID_REASONS, check

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
            for pos, reason in list(zip(bad, reasons))[:5]:
                path, entry = builder.describe(int(pos))
                lines.append(f"{path}: {entry}: {INVALID_REASONS.get(reason, reason)}")
            more = f"\n... and {len(bad) - 5} more" if len(bad) > 5 else ""
            summary = ", ".join(f"{k}: {v}" for k, v in res.counts.items())
            raise ReaderError(
                f"{len(bad)} unusable annotation(s) ({summary}):\n" + "\n".join(lines) + more
                + "\nPass on_invalid='drop' to drop them with a warning."
            )
        for pos, reason in zip(bad, res.dropped["reason"].to_numpy()):
            path, entry = builder.describe(int(pos))
            builder.drop(path, entry, reason, INVALID_REASONS.get(reason, reason),
                         item=df["item"].iat[pos], annotator=df["annotator"].iat[pos])
    frame = res.frame.reset_index(drop=True)
    dropped = pd.DataFrame(builder.dropped, columns=["file", "entry", "item", "annotator", "reason", "detail", "record"])
    counts = {str(k): int(v) for k, v in dropped["reason"].value_counts(sort=False).items()}
    frame.attrs = {**frame.attrs, "iaa_reader": builder.fmt, "iaa_reader_dropped": counts}
    if res.repaired:
        from ..errors import RepairedGeometryWarning

        warnings.warn(RepairedGeometryWarning(
            f"{builder.fmt}: repaired {res.repaired} invalid polygon(s) with shapely.make_valid"),
            stacklevel=stacklevel)
    if return_dropped:
        return frame, dropped
    if len(dropped):
        summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
        warnings.warn(DroppedRowsWarning(
            f"{builder.fmt}: skipped or changed {len(dropped)} record(s) ({summary}); the warning's "
            ".dropped attribute holds them (file, entry, reason, record), or pass "
            "return_dropped=True",
            counts=counts, dropped=dropped), stacklevel=stacklevel)
    return frame


def files_and_annotators(path_or_paths, annotator, *, reader: str):
    """[(path, annotator or None)] from a reader's flexible first argument.

    ``path_or_paths`` is one path, a list of paths (``annotator`` then a list of one name
    per file, one name for every file, or None) or a mapping {annotator: path}.
    """
    if isinstance(path_or_paths, Mapping):
        if annotator is not None:
            raise ParameterError("pass annotator names either as mapping keys or as annotator=, not both")
        if not path_or_paths:
            raise ParameterError(f"{reader}: the mapping of annotators to files is empty")
        for ann in path_or_paths:
            if not isinstance(ann, str) or not ann:
                raise ParameterError(f"{reader}: annotator names must be non-empty strings, got {ann!r}")
        return [(check_file(p), ann) for ann, p in path_or_paths.items()]
    if isinstance(path_or_paths, (str, os.PathLike)):
        if annotator is not None and not isinstance(annotator, str):
            raise ParameterError(f"annotator must be a string for one file, got {annotator!r}")
        return [(check_file(path_or_paths), annotator)]
    paths = list(path_or_paths)
    if not paths:
        raise ParameterError(f"{reader}: no files given")
    if annotator is None:
        names = [None] * len(paths)
    elif isinstance(annotator, str):
        names = [annotator] * len(paths)  # one annotator for every file (several jobs of one person)
    else:
        names = list(annotator)
        if len(names) != len(paths):
            raise ParameterError(f"{len(paths)} files but {len(names)} annotator names")
    return [(check_file(p), a) for p, a in zip(paths, names)]
