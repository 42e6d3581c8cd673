"""List-of-boxes cells: one table row per (item, annotator), all its boxes in one cell.

Crowdsourcing exports (Mechanical Turk's bounding-box template, Toloka, Prolific surveys,
in-house forms) write one row per assignment with a column holding the boxes as JSON:
``[{"left": 10, "top": 5, "width": 30, "height": 20, "label": "car"}, ...]`` or
``[[x0, y0, x1, y1], ...]``. :func:`explode_boxes` turns that column into one row per box
(an empty list ``[]`` into a coverage row: the worker saw the image and drew nothing),
decoding the cells with :func:`json.loads` only, and says which row of which file is
malformed and why. A JSON object of a cell that repeats a key (``{"x": 1, "x": 500}``,
where :func:`json.loads` would keep the last value) is malformed too. :func:`iaa_frames.io.table.read_table` calls it for ``boxes=``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

from .paths import reader_error

__all__ = ["BOX_FORMATS", "BOX_KEYS", "explode_boxes"]

#: How a box written as a list of 4 numbers is read.
BOX_FORMATS = ("xyxy", "xywh")
#: The key sets of a box written as an object, tried in this order, and their meaning.
BOX_KEYS = (
    (("x0", "y0", "x1", "y1"), "xyxy"),
    (("xmin", "ymin", "xmax", "ymax"), "xyxy"),
    (("left", "top", "width", "height"), "xywh"),
    (("x", "y", "width", "height"), "xywh"),
    (("x", "y", "w", "h"), "xywh"),
)
_KEY_TEXT = ", ".join("/".join(keys) for keys, _ in BOX_KEYS)
_MAX_CELL_CHARS = 300


def _number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_)
    )


class _RepeatedKey(ValueError):
    """A JSON object of a cell repeats a key (raised by :func:`_unique_keys`)."""


def _unique_keys(pairs):
    """The ``object_pairs_hook`` of a cell: its object as a dict, or :class:`_RepeatedKey`
    for a key written twice (plain :func:`json.loads` keeps the last value silently)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(
                f"a JSON object of the cell repeats the key {key!r} ({out[key]!r}, then "
                f"{value!r}): which value is meant is unknown; write each key once"
            )
        out[key] = value
    return out


def _plain(v):
    """Nested numpy arrays (Parquet list cells) as lists."""
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v] if v.dtype == object else v.tolist()
    return v


def _box(el, k: int, box_format: str, label_key: str):
    """(x0, y0, x1, y1, label) of one element of a cell, or the reason it is unusable."""
    label = None
    if isinstance(el, dict):
        found = next(((ks, kd) for ks, kd in BOX_KEYS if all(key in el for key in ks)), None)
        if found is None:
            keys_seen = sorted(map(str, el))[:8]
            return f"box {k} has none of the key sets {_KEY_TEXT} (its keys: {keys_seen})"
        keys, kind = found
        vals = [el[key] for key in keys]
        if el.get("rotation") not in (None, 0, 0.0):
            return f"box {k} is rotated (rotation={el['rotation']!r}): rotated boxes are not read"
        label = el.get(label_key)
        names = keys
    elif isinstance(el, list) and len(el) == 4:
        vals, kind, names = el, box_format, ("x0", "y0", "x1", "y1")
    else:
        return f"box {k} is neither an object with coordinates nor a list of 4 numbers: {el!r}"
    for name, v in zip(names, vals, strict=True):
        if not _number(v):
            return f"box {k}: {name} is {v!r}, not a number"
    try:
        a, b, c, d = (float(v) for v in vals)
    except OverflowError:
        return f"box {k}: a number is beyond float64 (1.8e308)"
    bad = next((n for n, v in zip(names, (a, b, c, d), strict=True) if not math.isfinite(v)), None)
    if bad is not None:  # NaN coordinates and no label would read as "drew nothing"
        return f"box {k}: {bad} is {vals[list(names).index(bad)]!r}, not a finite number"
    if kind == "xywh":
        c, d = a + c, b + d
    if label is not None and not isinstance(label, (str, int)):
        return f"box {k}: {label_key} is {label!r}, not a name"
    return a, b, c, d, None if label is None else str(label)


def _cell(cell, box_format: str, label_key: str):
    """The boxes of one cell (a list, possibly empty) or (reason code, detail)."""
    if isinstance(cell, np.ndarray):  # Parquet lists
        cell = _plain(cell)
    if cell is None or (isinstance(cell, float) and math.isnan(cell)) or cell == "":
        return "empty_cell", "the cell is empty (write [] for a worker who drew nothing)"
    if isinstance(cell, (str, bytes)):
        try:
            cell = json.loads(cell, object_pairs_hook=_unique_keys)
        except _RepeatedKey as exc:
            return "repeated_key", str(exc)
        except (ValueError, RecursionError) as exc:
            return "not_json", f"the cell is not JSON ({' '.join(str(exc).split())[:200]})"
    if not isinstance(cell, list):
        return "not_a_list", f"the cell holds a {type(cell).__name__}, not a list of boxes"
    boxes = []
    for k, el in enumerate(cell):
        box = _box(el, k, box_format, label_key)
        if isinstance(box, str):
            return "bad_box", box
        boxes.append(box)
    return boxes


def explode_boxes(
    df: pd.DataFrame,
    column: str,
    *,
    path="table",
    box_format: str = "xyxy",
    label_key: str = "label",
    dropping: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per box of the list-of-boxes ``column``, the other columns repeated.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per (item, annotator); ``column`` holds a JSON list of boxes (text, or a
        list as Parquet stores it). A box is an object with one of the key sets of
        :data:`BOX_KEYS` (``x0/y0/x1/y1``, ``xmin/ymin/xmax/ymax``,
        ``left/top/width/height``, ``x/y/width/height``, ``x/y/w/h``) and optionally a
        label under ``label_key``, or a list of 4 numbers read as ``box_format``.
    column : str
        The list-of-boxes column.
    path : str or os.PathLike
        The file, named in errors.
    box_format : {"xyxy", "xywh"}, default "xyxy"
        How a list of 4 numbers is read: corners ``[x0, y0, x1, y1]``, or top-left corner
        and size ``[x, y, width, height]``.
    label_key : str, default "label"
        The key of a box object holding its label; a box without one takes the row's
        ``label`` column, if any.
    dropping : bool, default False
        Whether a malformed cell drops its row (recorded in the second frame returned)
        instead of raising.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The exploded rows (``x0, y0, x1, y1`` and ``label`` set; an empty list gives one
        row with no box and no label: a coverage row), indexed by the 1-based data row of
        the input; and the dropped rows: ``file, row, item, annotator, reason, detail,
        cell``, reasons ``empty_cell``, ``not_json``, ``repeated_key`` (a JSON object of
        the cell writes one key twice), ``not_a_list``, ``bad_box``, and
        ``read_twice``: a second row of one (item, annotator), when ``df`` has both
        columns (the first is kept).

    Raises
    ------
    ReaderError
        For the first malformed cell (unless ``dropping``): the file, the row (1-based
        data row: line ``row + 1`` of a CSV without multi-line cells), the column and why.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a.jpg", "a.jpg"], "annotator": ["w1", "w2"],
    ...     "boxes": ['[{"left": 1, "top": 2, "width": 3, "height": 4, "label": "car"}]', "[]"]})
    >>> rows, dropped = explode_boxes(df, "boxes")
    >>> rows
        item annotator label   x0   y0   x1   y1
    1  a.jpg        w1   car  1.0  2.0  4.0  6.0
    2  a.jpg        w2   NaN  NaN  NaN  NaN  NaN
    >>> explode_boxes(df.assign(boxes=["[[1, 2, 3]]", "[]"]), "boxes")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: table: row 1, column 'boxes': box 0 is neither an object with coordinates nor a list of 4 numbers: [1, 2, 3]
    """
    if box_format not in BOX_FORMATS:
        raise ParameterError(f"box_format must be 'xyxy' or 'xywh', got {box_format!r}")
    if column not in df.columns:
        why = f"no column {column!r} of boxes; the columns are {list(map(str, df.columns))}"
        raise reader_error(path, None, why)
    parsed = [_cell(c, box_format, label_key) for c in df[column].to_numpy(dtype=object)]
    if "item" in df.columns and "annotator" in df.columns:  # one row per (item, annotator)
        first: dict = {}
        for pos, key in enumerate(zip(df["item"], df["annotator"], strict=True)):
            if isinstance(parsed[pos], tuple):
                continue
            k = first.setdefault(key, pos)
            if k != pos:
                why = (
                    f"the annotator {key[1]!r} has a row of the item {key[0]!r} already "
                    f"(row {k + 1}): one annotator's boxes read twice would agree with "
                    "themselves; keep one row per item and annotator"
                )
                parsed[pos] = ("read_twice", why)
    bad = np.array([isinstance(p, tuple) for p in parsed], dtype=bool)
    cells = df[column].to_numpy(dtype=object)
    drops = []
    for pos in np.flatnonzero(bad):
        code, detail = parsed[pos]
        if not dropping:
            raise reader_error(path, f"row {pos + 1}, column {column!r}", detail)
        text = str(cells[pos])
        drops.append({
            "file": str(path),
            "row": int(pos + 1),
            "item": df["item"].iat[pos] if "item" in df.columns else None,
            "annotator": df["annotator"].iat[pos] if "annotator" in df.columns else None,
            "reason": code,
            "detail": detail,
            "cell": text if len(text) <= _MAX_CELL_CHARS else text[:_MAX_CELL_CHARS] + "...",
        })  # fmt: skip
    counts = np.array([0 if b else max(len(p), 1) for p, b in zip(parsed, bad, strict=True)])
    src = np.repeat(np.arange(len(df)), counts)
    flat = [box for p, b in zip(parsed, bad, strict=True) if not b for box in (p or [None])]
    coords = np.array([(math.nan,) * 4 if b is None else b[:4] for b in flat], dtype="float64")
    coords = coords.reshape(-1, 4)
    labels = np.array([None if b is None else b[4] for b in flat], dtype=object)
    out = df.drop(columns=column).iloc[src]
    if "label" in out.columns:  # a box without its own label takes the row's
        row_label = out["label"].to_numpy(dtype=object)
        boxed = np.array([b is not None for b in flat], dtype=bool)
        fill = boxed & pd.isna(labels)
        labels[fill] = row_label[fill]
        labels[~boxed] = None
    out = out.assign(
        label=labels, **{c: coords[:, j] for j, c in enumerate(("x0", "y0", "x1", "y1"))}
    )
    out.index = pd.Index(src + 1, name=None)
    columns = ["file", "row", "item", "annotator", "reason", "detail", "cell"]
    return out, pd.DataFrame(drops, columns=columns)
