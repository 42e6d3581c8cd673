"""The one CSV writer of the package: every CSV table it writes (the report's tables, the
command line's ``dropped.csv``, the writers' ``image_sizes.csv``) goes through
:func:`csv_text` / :func:`write_csv`, whose text cells cannot run as a spreadsheet formula.

* A text cell, index label or column name beginning with ``=``, ``+``, ``-``, ``@``, a tab,
  a carriage return or a line feed is prefixed with a single quote, as the OWASP "CSV
  Injection" page recommends; numbers, negative ones included, stay numbers.
* A text holding a carriage return anywhere (``"cat\\r=cmd"``) is written quoted, so that
  no spreadsheet reads the rest as a new row beginning with a formula: pandas quotes a
  field holding the line terminator only, so such a table is written with ``\\r\\n``.

Examples
--------
>>> import pandas as pd
>>> neutralise(pd.DataFrame({"label": ["=1+2", "cat", "-x"], "n": [-1, 2, 3]}))
   label  n
0  '=1+2 -1
1    cat  2
2    '-x  3
>>> csv_text(pd.DataFrame({"label": ["cat\\r=cmd"]}), index=False)
'label\\r\\n"cat\\r=cmd"\\r\\n'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["TRIGGERS", "csv_text", "neutralise", "write_csv"]

#: The first characters that make a spreadsheet read a cell as a formula.
TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")


def _safe_text(v):
    return "'" + v if isinstance(v, str) and v.startswith(TRIGGERS) else v


_SAFE = np.frompyfunc(_safe_text, 1, 1)
_HAS_CR = np.frompyfunc(lambda v: isinstance(v, str) and "\r" in v, 1, 1)


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


def _text_columns(frame: pd.DataFrame):
    for k in range(frame.shape[1]):
        values = frame.iloc[:, k]
        if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
            yield k, values.to_numpy(dtype=object)


def neutralise(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell, index label and column name that a spreadsheet
    would read as a formula prefixed with ``'``; other values (numbers) as they are."""
    changed = {}
    for k, values in _text_columns(frame):
        out, hit = _safe_values(values)
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


def _holds_cr(frame: pd.DataFrame) -> bool:
    """Whether a text cell, index label or column name holds a carriage return."""
    labels = [*map(str, frame.columns)]
    for level in frame.index.levels if isinstance(frame.index, pd.MultiIndex) else [frame.index]:
        labels += [v for v in level if isinstance(v, str)]
    if any("\r" in v for v in labels):
        return True
    return any(len(v) and _HAS_CR(v).any() for _, v in _text_columns(frame))


def csv_text(frame: pd.DataFrame, **kwargs) -> str:
    """``frame.to_csv(**kwargs)`` as text, neutralised (:func:`neutralise`), with
    ``\\r\\n`` line ends when a text holds a carriage return (so that it is quoted)."""
    safe = neutralise(frame)
    if "lineterminator" not in kwargs and _holds_cr(safe):
        kwargs["lineterminator"] = "\r\n"
    return safe.to_csv(None, **kwargs)


def write_csv(frame: pd.DataFrame, path, **kwargs) -> None:
    """Write ``frame`` as CSV to ``path`` (:func:`csv_text`), in UTF-8; a text that is not
    valid Unicode (a lone surrogate) is written with a backslash escape."""
    text = csv_text(frame, **kwargs)
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as fh:
        fh.write(text)
