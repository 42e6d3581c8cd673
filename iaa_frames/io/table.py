"""Reader of a tidy annotation frame saved as a table: a CSV file, or one Parquet file.

This is what ``iaa-frames report --format csv`` (or ``parquet``) reads: the columns of
the tidy frame as they are, polygons as WKT text (CSV) or WKB bytes (Parquet). For a
directory of Parquet files written by :func:`iaa_frames.to_parquet` use
:func:`iaa_frames.read_parquet`.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import ParameterError, ReaderError
from iaa_frames.frame.schema import INVALID_REASONS, check, validate

from .box_lists import explode_boxes
from .builder import unusable_message, warn_dropped
from .paths import as_path, check_file

__all__ = ["IDENTIFIERS", "TABLE_FORMATS", "read_csv_text_ids", "read_table"]

#: The table formats :func:`read_table` reads.
TABLE_FORMATS = ("csv", "parquet")
#: Columns read from CSV as text, never guessed to numbers (``01`` and ``1`` are two items).
IDENTIFIERS = ("item", "annotator", "label", "object_id")
#: What pandas reads as missing by default (``pandas.read_csv``, ``na_values``): kept for
#: the other columns; an identifier is missing only when its cell is empty.
_NA_TEXT = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


def read_csv_text_ids(path, identifiers) -> pd.DataFrame:
    """``pandas.read_csv`` with the ``identifiers`` columns read as text, exactly as written
    (an empty cell is missing; ``NA`` or ``None`` is a name); other columns as pandas reads
    them. Unreadable files are a :class:`~iaa_frames.errors.ReaderError` naming the file.

    Examples
    --------
    >>> import io
    >>> read_csv_text_ids(io.StringIO("item,x\\n01,1\\n1,\\n"), ["item"]).to_dict("list")
    {'item': ['01', '1'], 'x': [1.0, nan]}
    """

    def read(**kw):
        if hasattr(path, "seek"):
            path.seek(0)
        try:
            return pd.read_csv(path, **kw)
        except (
            pd.errors.ParserError,
            pd.errors.EmptyDataError,
            UnicodeDecodeError,
            OverflowError,
        ) as exc:
            raise ReaderError(
                f"{path}: not a readable CSV file ({' '.join(str(exc).split())})"
            ) from None
        except OSError as exc:
            raise ReaderError(f"{path}: cannot read ({exc.strerror or exc})") from None

    header = read(nrows=1, header=None, dtype="str", keep_default_na=False).iloc[0]
    twice = header[header.duplicated()]
    if len(twice):
        raise ReaderError(
            f"{path}: line 1: the header names the column {twice.iat[0]!r} twice: pandas "
            f"would read the second as {twice.iat[0]}.1, silently; rename one"
        )
    columns = read(nrows=0).columns
    ids = [c for c in columns if c in identifiers]
    df = read(
        dtype=dict.fromkeys(ids, "str"),
        keep_default_na=False,
        na_values={c: ([""] if c in ids else list(_NA_TEXT)) for c in columns},
    )
    if not isinstance(df.index, pd.RangeIndex):  # pandas took the extra values as an index
        raise ReaderError(
            f"{path}: line 2: the rows hold {df.index.nlevels} value(s) more than the "
            f"header names ({len(columns)} columns): every value would be read one column "
            "off (the first as the index); fix the header or the rows"
        )
    return df


def _read_parquet(path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise ReaderError(
            f"{path}: not a readable Parquet file ({' '.join(str(exc).split())[:300]})"
        ) from None


def _check_boxes(path, df: pd.DataFrame) -> None:
    """Invalid boxes of a list-of-boxes table as a ReaderError naming the data rows (the
    exploded frame's index)."""
    res = check(df)
    if not res.counts:
        return
    bad = res.dropped
    lines = [
        f"{path}: row {row}: {INVALID_REASONS.get(r, r)}"
        for row, r in zip(bad.index[:5], bad["reason"][:5], strict=True)
    ]
    summary = ", ".join(f"{k}: {v}" for k, v in res.counts.items())
    raise ReaderError(unusable_message(f"{len(bad)} unusable box(es) ({summary})", lines, len(bad)))


def read_table(
    path,
    *,
    fmt: str | None = None,
    on_invalid: str = "raise",
    columns: dict | None = None,
    boxes: str | None = None,
    box_format: str = "xyxy",
) -> pd.DataFrame:
    """Read a tidy annotation frame from a CSV or Parquet table.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    fmt : {"csv", "parquet"}, optional
        The format; by default ``"parquet"`` for a ``.parquet``/``.pq`` file, else ``"csv"``.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to :func:`iaa_frames.validate`; with ``boxes``, ``"drop"`` also drops the
        rows whose cell of boxes is malformed (a
        :class:`~iaa_frames.errors.DroppedRowsWarning` counts them per reason, its
        ``dropped`` attribute lists file, row, reason and cell).
    columns : dict, optional
        Columns of the file renamed to the frame's, e.g. ``{"Input.image_url": "item",
        "WorkerId": "annotator", "Answer.boxes": "boxes"}`` (the renamed identifiers are
        read as text, like ``item`` and ``annotator``).
    boxes : str, optional
        A list-of-boxes column (after renaming): each row is one (item, annotator) and
        the cell holds its boxes as JSON, ``[{"x": .., "y": .., "width": .., "height":
        .., "label": ..}, ...]`` or ``[[x0, y0, x1, y1], ...]``; ``[]`` is a coverage
        row (the annotator drew nothing). See
        :func:`iaa_frames.io.box_lists.explode_boxes` for the box objects read. A box
        without a label takes the row's ``label`` column; the other columns (``width``,
        ``height``, ``group``, ...) are repeated on every box of the row.
    box_format : {"xyxy", "xywh"}, default "xyxy"
        With ``boxes``: how a box written as a list of 4 numbers is read.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. A ``geometry`` column is parsed as WKB when its first
        present value is bytes, else as WKT; empty cells are plain boxes or coverage rows.

    Raises
    ------
    ReaderError
        When the file is not a readable CSV, the geometry column is neither WKT nor WKB,
        Parquet is asked for without the ``pyarrow`` package, or (``boxes``, with
        ``on_invalid="raise"``) a cell of boxes is malformed (not JSON, not a list of
        boxes, a JSON object that repeats a key): the message names the file, the row
        (1-based data row), the column and why.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "frame.csv"
    >>> _ = p.write_text("item,annotator,label,x0,y0,x1,y1,geometry\\n"
    ...                  "a.jpg,ana,cat,0,0,4,2,\\n"
    ...                  "a.jpg,ben,cat,,,,,\\"POLYGON ((0 0, 4 0, 4 3, 0 0))\\"\\n")
    >>> df = read_table(p)
    >>> df[["annotator", "x0", "y0", "x1", "y1"]]
      annotator   x0   y0   x1   y1
    0       ana  0.0  0.0  4.0  2.0
    1       ben  0.0  0.0  4.0  3.0
    >>> df["geometry"].iloc[1].area
    6.0

    A crowdsourcing export, one row per worker and image, the boxes as JSON:

    >>> _ = p.write_text("image,worker,answer\\n"
    ...     'a.jpg,w1,"[{""left"": 0, ""top"": 0, ""width"": 4, ""height"": 2, ""label"": ""cat""}]"\\n'
    ...     "a.jpg,w2,[]\\n")
    >>> df = read_table(p, columns={"image": "item", "worker": "annotator"}, boxes="answer")
    >>> df[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
        item annotator label   x0   y0   x1   y1
    1  a.jpg        w1   cat  0.0  0.0  4.0  2.0
    2  a.jpg        w2   NaN  NaN  NaN  NaN  NaN
    """
    path = as_path(path)
    if fmt is None:
        fmt = "parquet" if path.suffix.lower() in (".parquet", ".pq") else "csv"
    if fmt not in TABLE_FORMATS:
        raise ParameterError(f"fmt must be 'csv' or 'parquet', got {fmt!r}")
    if fmt == "parquet":
        if importlib.util.find_spec("pyarrow") is None:
            raise ReaderError(
                "reading parquet needs the pyarrow package, which is not "
                "installed (pip install pyarrow); or read the table as CSV "
                "(fmt='csv', --format csv)"
            )
        df = _read_parquet(check_file(path))
    else:
        renamed = [k for k, v in (columns or {}).items() if v in IDENTIFIERS]
        df = read_csv_text_ids(check_file(path), (*IDENTIFIERS, *renamed))
    if columns:
        df = df.rename(columns=dict(columns))
    dropped = None
    if boxes is not None:
        if on_invalid not in ("raise", "drop"):
            raise ParameterError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
        df, dropped = explode_boxes(
            df, boxes, path=path, box_format=box_format, dropping=on_invalid == "drop"
        )
    if "geometry" in df.columns:
        g = df["geometry"]
        present = g.notna().to_numpy()
        geoms = [None] * len(df)
        try:
            values = g[present].to_list()
            with np.errstate(invalid="ignore"):  # NaN coordinates: nonfinite_coordinates
                if values and isinstance(values[0], (bytes, bytearray)):
                    parsed = shapely.from_wkb(values)
                else:
                    parsed = shapely.from_wkt([str(v) for v in values])
        except shapely.errors.GEOSException as exc:
            raise ReaderError(f"{path}: the geometry column is not WKT/WKB ({exc})") from None
        for i, geom in zip(present.nonzero()[0], parsed, strict=True):
            geoms[i] = geom
        df = df.assign(geometry=pd.Series(geoms, index=df.index, dtype=object))
    if boxes is not None and on_invalid == "raise":
        _check_boxes(path, df)
    frame = validate(df, on_invalid=on_invalid)
    if dropped is not None and len(dropped):
        counts = {str(k): int(v) for k, v in dropped["reason"].value_counts(sort=False).items()}
        frame.attrs["iaa_reader_dropped"] = counts
        summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
        message = (
            f"{path}: dropped {len(dropped)} row(s) whose {boxes!r} cell is malformed ({summary}); "
            "the warning's .dropped attribute lists them (file, row, reason, cell)"
        )
        warn_dropped(message, counts, dropped, 2)
    return frame
