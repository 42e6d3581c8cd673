"""Streaming JSON: the elements of a large export decoded one at a time.

COCO and Label Studio exports can be larger than memory as Python objects, and a broken
one must say where it breaks. :class:`JSONStream` decodes the top-level arrays it is told
to stream element by element (the rest of the document whole), with the standard
:class:`json.JSONDecoder`, so that it accepts exactly what :func:`json.loads` accepts;
every syntax error, truncation or non-UTF-8 byte is a
:class:`~iaa_frames.errors.ReaderError` naming the file, the entry (``annotations[17]``)
and the line and column. A file of at most :data:`WHOLE_BYTES` is decoded in one call
instead, with the same events (a file that fails to decode so is read element by
element, which names the entry). :func:`load_json` reads a small file whole with the same
errors.

A JSON object that writes one key twice with two values (``{"x": 10, "x": 60}``) is
refused: ``json`` keeps the last value silently, so the first would be lost unseen (and two top-level
``annotations`` arrays would be streamed both, where other readers keep the last).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .paths import reader_error

__all__ = ["JSONStream", "load_json"]

#: Files of at most this many bytes are decoded in one call (:meth:`JSONStream._whole`): the
#: same events, without a call of the decoder per element (the real LVIS subset, 2.7 MB:
#: 68 ms against 77 ms); larger ones element by element, their memory that of one element.
WHOLE_BYTES = 16 << 20

_WS = " \t\n\r"
_WS_MATCH = re.compile(r"[ \t\n\r]*").match


class _RepeatedKey(Exception):
    """A JSON object writes a key twice (raised by :func:`_unique_keys`; not a ValueError,
    which the decoder's callers read as a syntax error)."""


def _unique_keys(pairs):
    """The ``object_pairs_hook`` of the decoder: the object as a dict, or
    :class:`_RepeatedKey` naming the key written twice and its values."""
    out = dict(pairs)
    if len(out) < len(pairs):
        # a key written twice with one value loses nothing (a harmless export quirk)
        key = next((k for k, v in pairs if v != out[k]), None)
        if key is None:
            return out
        values = [v for k, v in pairs if k == key]
        shown = ", then ".join(f"{v!r:.40}" for v in values)
        raise _RepeatedKey(
            f"a JSON object writes the key {key!r} {_times(len(values))} ({shown}): JSON "
            "keeps only the last, silently; keep one in the file"
        )
    return out


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


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
        self._decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
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
            raise reader_error(
                self.path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start} of a chunk)"
            ) from None
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
            why = f"invalid JSON at {self._where(self.pos)}: expected {want}, found {c!r}"
            raise reader_error(self.path, entry, why)
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
                    why = f"truncated JSON: the file ends inside this entry ({exc.msg})"
                    raise reader_error(self.path, entry, why) from None
                raise reader_error(
                    self.path, entry, f"invalid JSON at {self._where(exc.pos)}: {exc.msg}"
                ) from None
            except RecursionError:
                raise reader_error(self.path, entry, "JSON nested too deeply") from None
            except _RepeatedKey as exc:
                raise reader_error(self.path, entry, str(exc)) from None
            except ValueError as exc:  # an integer of over 4,300 digits (int()'s limit)
                raise reader_error(
                    self.path, entry, f"a number too large to read ({str(exc)[:80]}...)"
                ) from None
            if not self.eof and end > len(self.buf) - 32:
                # a number may continue in the next chunk ("0" then ".5"): decode again with
                # more input until the value ends well inside the buffer
                self._read(grow)
                continue
            self.pos = end
            return value

    # --- iteration ---------------------------------------------------------------------
    def __iter__(self) -> Iterator[tuple[str, Any, Any, Any]]:
        whole = self._whole()
        if whole is not None:
            yield from whole
            return
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
                why = (
                    f"not a JSON object or array: starts with {first!r} at {self._where(self.pos)}"
                )
                raise reader_error(self.path, None, why)
            if self._peek() != "":
                why = f"invalid JSON: extra data after the end of the document at {self._where(self.pos)}"
                raise reader_error(self.path, None, why)
        finally:
            self._fh.close()

    def _whole(self):
        """The events of a file of at most :data:`WHOLE_BYTES` decoded in one call, the same
        as element by element; None for a larger file and wherever the decoding fails (the
        file is then read element by element, which says where it fails)."""
        try:
            if os.path.getsize(self.path) > WHOLE_BYTES:
                return None
            with open(self.path, encoding="utf-8-sig", newline="") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            return None
        last = [0, 0]  # the pairs and keys of the last object decoded: the top level's

        def unique_keys(pairs):
            out = _unique_keys(pairs)
            last[0], last[1] = len(pairs), len(out)
            return out

        try:
            doc = json.JSONDecoder(object_pairs_hook=unique_keys).decode(text)
        except (ValueError, RecursionError, _RepeatedKey):  # JSONDecodeError is a ValueError
            return None
        if isinstance(doc, list):
            self.top = "array"
            return (("item", None, i, v) for i, v in enumerate(doc))
        if not isinstance(doc, dict) or last[0] != last[1]:  # a top-level key twice
            return None
        self.top = "object"
        return self._events(doc)

    def _events(self, doc: dict):
        for key, value in doc.items():
            if key in self.stream_keys and isinstance(value, list):
                for i, v in enumerate(value):
                    yield ("item", key, i, v)
            else:
                yield ("value", key, None, value)

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
            except (ValueError, RecursionError, _RepeatedKey):  # decoded again below
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
        seen = set()
        while True:
            if self._peek() != '"':
                self._expect('"', "top level")
            key = self._value("a top-level key")
            if key in seen:
                why = (
                    f"the top-level key {key!r} is written twice: JSON keeps only the last, "
                    "silently; keep one in the file"
                )
                raise reader_error(self.path, str(key), why)
            seen.add(key)
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
    for _kind, key, _i, v in stream:
        if stream.top == "array":
            items.append(v)
        else:
            if value is None:
                value = {}
            value[key] = v
    if stream.top == "array":
        return items
    return value if value is not None else {}
