"""The paths a reader is given, checked, and the error that names a file and an entry.

Every reader takes one file, a list of files or a mapping ``{annotator: path}``
(:func:`files_and_annotators`), or a directory per annotator (:func:`annotator_dirs`);
a path that cannot be read is a :class:`~iaa_frames.errors.ReaderError` before any
parsing starts. :func:`reader_error` builds every ReaderError of the readers, so that
each message reads ``file: entry: reason``. :func:`output_error` turns the OSError of
an output path (a report folder, a Parquet directory) into a ParameterError naming the
path and the reason.

Examples
--------
>>> str(reader_error("ann.json", "annotations[17] (id=123)", "missing key 'bbox'"))
"ann.json: annotations[17] (id=123): missing key 'bbox'"
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from iaa_frames.errors import ParameterError, ReaderError

from .formats import FILE_READERS, files_call, read_call, reader_for

__all__ = [
    "ENTRY_ERRORS",
    "CoordinateError",
    "annotator_dirs",
    "check_dir",
    "check_file",
    "entry_error",
    "files_and_annotators",
    "output_error",
    "reader_error",
]


class CoordinateError(ValueError):
    """A coordinate of an entry that no shape can have (not a finite number), raised where
    the shape is built (:class:`~iaa_frames.io.builder.FrameBuilder`); the reader that
    catches it names the file and the entry (:func:`entry_error`)."""


#: What reading one entry of an export may raise: a ReaderError, an OverflowError when a
#: JSON integer does not fit a float (``1e400`` written out in digits), or a
#: CoordinateError (a NaN or infinite coordinate, which JSON parsers accept).
ENTRY_ERRORS = (ReaderError, OverflowError, CoordinateError)
_MAX_ENTRY_CHARS = 300
_MAX_REASON_CHARS = 2000


def reader_error(path, entry: str | None, reason: str) -> ReaderError:
    """A :class:`ReaderError` whose message names the file, the entry and the reason."""
    entry = entry if entry is None or len(entry) <= _MAX_ENTRY_CHARS else _cut(entry)
    reason = reason if len(reason) <= _MAX_REASON_CHARS else _cut(reason, _MAX_REASON_CHARS)
    where = f"{path}" if entry is None else f"{path}: {entry}"
    return ReaderError(f"{where}: {reason}")


def output_error(path, exc: OSError, what: str = "write") -> ParameterError:
    """The :class:`~iaa_frames.errors.ParameterError` of an output path that cannot be
    created or written: the path (the one the system names, else ``path``) and the
    reason, with what to do.

    Examples
    --------
    >>> print(output_error("out", PermissionError(13, "Permission denied")))
    out: cannot write the output there (Permission denied: no permission to write there); choose another folder
    """
    where = exc.filename if exc.filename is not None else path
    reason = exc.strerror or str(exc) or type(exc).__name__
    if isinstance(exc, NotADirectoryError):
        reason += ": a part of the path is a file, not a folder"
    elif isinstance(exc, PermissionError):
        reason += ": no permission to write there"
    return ParameterError(
        f"{where}: cannot {what} the output there ({reason}); choose another folder"
    )


def _cut(text: str, n: int = _MAX_ENTRY_CHARS) -> str:
    return f"{text[:n]}... ({len(text):,} chars)"


def entry_error(exc: Exception, path, entry) -> ReaderError:
    """``exc`` (one of :data:`ENTRY_ERRORS`) as the ReaderError naming ``path`` and
    ``entry``."""
    if isinstance(exc, ReaderError):
        return exc
    if isinstance(exc, CoordinateError):
        return reader_error(path, entry, str(exc))
    return reader_error(
        path,
        entry,
        "a number is too large for a float64 (beyond 1.8e308): it cannot be a coordinate",
    )


def as_path(path, what: str = "a file path") -> Path:
    """``path`` as a :class:`~pathlib.Path`; anything but a string or an ``os.PathLike``
    (a number, None, bytes) is a :class:`~iaa_frames.errors.ParameterError`.

    Examples
    --------
    >>> as_path(42)
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: expected a file path, got int: 42
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"expected {what}, got {type(path).__name__}: {path!r}")
    return Path(path)


def _directory_remedy(p: Path, reader: str | None) -> str:
    """What to pass instead of the directory ``p`` to ``reader``: its files that the
    reader reads (the call that reads them), or the reader its files look like."""
    found = files_call(reader, p) if reader else None
    suffix = FILE_READERS.get(reader or "")
    if found is not None:
        call, files = found
        names = ", ".join(f.name for f in files[:4]) + (" ..." if len(files) > 4 else "")
        return (
            f"; {reader} reads files (one per annotator or job), and the directory holds "
            f"{len(files)} {suffix} file(s) ({names}): {call}"
        )
    held = f"; it holds no {suffix} file of {reader}'s format" if suffix else ""
    other = reader_for(p)
    if other is not None and other[0] != reader:
        return f", expected a file{held} and looks like {other[1]}: {read_call(other[0], p)}"
    return f", expected a file{held} (pass a file, a list of files or {{annotator: file}})"


def check_file(path, reader: str | None = None) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path`, or raise ReaderError if it cannot be
    read; a directory is answered with what to pass instead (``reader``: the reader's
    name, to list the directory's files it reads: :func:`~iaa_frames.io.formats.files_call`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ana.json").write_text('{"images": []}')
    >>> check_file(d, "read_coco")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: ...: is a directory; read_coco reads files (one per annotator or job), and the directory holds 1 .json file(s) (ana.json): iaf.read_coco([...ana.json'])
    """
    p = as_path(path)
    if not p.exists():
        raise reader_error(p, None, "no such file")
    if p.is_dir():
        raise reader_error(p, None, f"is a directory{_directory_remedy(p, reader)}")
    if p.stat().st_size == 0:
        raise reader_error(p, None, "the file is empty")
    return p


def check_dir(path) -> Path:
    p = as_path(path, "a directory path")
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
                raise ParameterError(
                    f"{fmt}: annotator names must be non-empty strings, got {ann!r}"
                )
            out.append((ann, check_dir(d)))
        return out
    parent = check_dir(dir_per_annotator)
    subdirs = sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [(p.name, p) for p in subdirs]


def files_and_annotators(path_or_paths, annotator, *, reader: str):
    """[(path, annotator or None)] from a reader's flexible first argument.

    ``path_or_paths`` is one path, a list of paths (``annotator`` then a list of one name
    per file, one name for every file, or None) or a mapping {annotator: path}.
    """
    if isinstance(path_or_paths, Mapping):
        if annotator is not None:
            raise ParameterError(
                "pass annotator names either as mapping keys or as annotator=, not both"
            )
        if not path_or_paths:
            raise ParameterError(f"{reader}: the mapping of annotators to files is empty")
        for ann in path_or_paths:
            if not isinstance(ann, str) or not ann:
                raise ParameterError(
                    f"{reader}: annotator names must be non-empty strings, got {ann!r}"
                )
        return [(check_file(p, reader), ann) for ann, p in path_or_paths.items()]
    if isinstance(path_or_paths, (str, os.PathLike)):
        if annotator is not None and not isinstance(annotator, str):
            raise ParameterError(f"annotator must be a string for one file, got {annotator!r}")
        return [(check_file(path_or_paths, reader), annotator)]
    if not isinstance(path_or_paths, Iterable) or isinstance(path_or_paths, (bytes, bytearray)):
        raise ParameterError(
            f"{reader}: expected a path, a list of paths or a mapping {{annotator: path}}, got "
            f"{type(path_or_paths).__name__}: {path_or_paths!r}"
        )
    paths = list(path_or_paths)
    if not paths:
        raise ParameterError(f"{reader}: no files given")
    if annotator is None:
        names = [None] * len(paths)
    elif isinstance(annotator, str):
        names = [annotator] * len(paths)  # one for every file (several jobs of one person)
    else:
        names = list(annotator)
        if len(names) != len(paths):
            raise ParameterError(f"{len(paths)} files but {len(names)} annotator names")
    return [(check_file(p, reader), a) for p, a in zip(paths, names, strict=True)]
