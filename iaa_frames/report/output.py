"""The files the report writes: CSV tables safe to open in a spreadsheet, and an output
folder whose other files are never overwritten.

* :func:`write_csv` writes every CSV table of the package (the report's tables, the
  command line's ``dropped.csv``, the writers' ``image_sizes.csv``) with text cells that a
  spreadsheet would run as a formula (beginning with ``=``, ``+``, ``-``, ``@``, a tab or
  a carriage return: a label ``=HYPERLINK(...)``) prefixed with a single quote, as the
  OWASP "CSV Injection" page recommends; numbers, negative ones included, stay numbers.
* :func:`claim` refuses an output folder holding a file of a name the report writes that
  an earlier report did not write (``items.csv`` of the user's own, say), before anything
  is written; :func:`record` lists what a report wrote in the folder's
  ``.iaa-frames-report`` file, so that the next report there replaces them.

Examples
--------
>>> import pandas as pd
>>> neutralise(pd.DataFrame({"label": ["=1+2", "cat", "-x"], "n": [-1, 2, 3]}))
   label  n
0  '=1+2 -1
1    cat  2
2    '-x  3
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

__all__ = ["MANIFEST", "claim", "neutralise", "record", "write_csv"]

#: The file, in an output folder, that lists the files the reports wrote there.
MANIFEST = ".iaa-frames-report"
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _safe_text(v):
    return "'" + v if isinstance(v, str) and v.startswith(_TRIGGERS) else v


_SAFE = np.frompyfunc(_safe_text, 1, 1)


def _safe_values(values) -> tuple[np.ndarray, bool]:
    arr = np.asarray(values, dtype=object)
    out = _SAFE(arr) if len(arr) else arr
    return out, bool(len(arr)) and not all(a is b for a, b in zip(out, arr, strict=True))


def _safe_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        levels = [_safe_index(level) for level in index.levels]
        return index.set_levels(levels)
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        out, changed = _safe_values(index)
        if changed:
            return pd.Index(out, name=_safe_text(index.name), dtype=object)
    return index.rename(_safe_text(index.name)) if isinstance(index.name, str) else index


def neutralise(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell, index label and column name that a spreadsheet
    would read as a formula prefixed with ``'``; other values (numbers) as they are."""
    changed = {}
    for k in range(frame.shape[1]):
        values = frame.iloc[:, k]
        if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
            out, hit = _safe_values(values.to_numpy(dtype=object))
            if hit:
                changed[k] = out
    if changed:
        frame = frame.copy()
        for k, out in changed.items():
            frame.isetitem(k, pd.Series(out, index=frame.index, dtype=object))
    columns = _safe_index(pd.Index(frame.columns))
    index = _safe_index(frame.index)
    if columns is not frame.columns or index is not frame.index:
        frame = frame.set_axis(columns, axis=1).set_axis(index, axis=0)
    return frame


def write_csv(frame: pd.DataFrame, path, **kwargs) -> None:
    """``frame.to_csv(path, **kwargs)``, its text neutralised (:func:`neutralise`)."""
    neutralise(frame).to_csv(path, **kwargs)


def _written(out_dir: Path) -> set:
    manifest = out_dir / MANIFEST
    if not manifest.is_file():
        return set()
    return {line for line in manifest.read_text(encoding="utf-8").splitlines() if line}


def claim(out_dir, names) -> None:
    """Refuse to write ``names`` into ``out_dir`` when one of them exists there and was not
    written by an earlier report (:func:`record`).

    Raises
    ------
    ParameterError
        Naming the file, which is left untouched.
    """
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        return
    mine = _written(out_dir)
    clash = [n for n in names if n not in mine and (out_dir / n).exists()]
    if clash:
        more = f" (and {len(clash) - 1} more: {', '.join(clash[1:4])})" if len(clash) > 1 else ""
        raise ParameterError(
            f"{out_dir / clash[0]} exists and was not written by an iaa-frames report{more}: "
            "it is not overwritten; write the report into a new or empty directory "
            "(--out), or move the file away"
        )


def record(out_dir, names) -> None:
    """Add ``names`` to the files the reports wrote in ``out_dir``."""
    out_dir = Path(out_dir)
    listed = sorted(_written(out_dir) | set(names))
    (out_dir / MANIFEST).write_text("".join(n + "\n" for n in listed), encoding="utf-8")
