"""Reader of a tidy annotation frame saved as a table: a CSV file, or one Parquet file.

This is what ``iaa-frames report --format csv`` (or ``parquet``) reads: the columns of
the tidy frame as they are, polygons as WKT text (CSV) or WKB bytes (Parquet). For a
directory of Parquet files written by :func:`iaa_frames.to_parquet` use
:func:`iaa_frames.read_parquet`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import shapely

from ..errors import ParameterError, ReaderError
from ..frame import validate

__all__ = ["TABLE_FORMATS", "read_table"]

#: The table formats :func:`read_table` reads.
TABLE_FORMATS = ("csv", "parquet")


def read_table(path, *, fmt: str | None = None, on_invalid: str = "raise") -> pd.DataFrame:
    """Read a tidy annotation frame from a CSV or Parquet table.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    fmt : {"csv", "parquet"}, optional
        The format; by default ``"parquet"`` for a ``.parquet``/``.pq`` file, else ``"csv"``.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to :func:`iaa_frames.validate`.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. A ``geometry`` column is parsed as WKB when its first
        present value is bytes, else as WKT; empty cells are plain boxes or coverage rows.

    Raises
    ------
    ReaderError
        When the file is not a readable CSV, the geometry column is neither WKT nor WKB,
        or Parquet is asked for without the ``pyarrow`` package.

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
    """
    path = Path(path)
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
        df = pd.read_parquet(path)
    else:
        try:
            df = pd.read_csv(path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise ReaderError(
                f"{path}: not a readable CSV file ({' '.join(str(exc).split())})"
            ) from None
    if "geometry" in df.columns:
        g = df["geometry"]
        present = g.notna().to_numpy()
        geoms = [None] * len(df)
        try:
            values = g[present].to_list()
            if values and isinstance(values[0], (bytes, bytearray)):
                parsed = shapely.from_wkb(values)
            else:
                parsed = shapely.from_wkt([str(v) for v in values])
        except shapely.errors.GEOSException as exc:
            raise ReaderError(f"{path}: the geometry column is not WKT/WKB ({exc})") from None
        for i, geom in zip(present.nonzero()[0], parsed, strict=True):
            geoms[i] = geom
        df = df.assign(geometry=pd.Series(geoms, index=df.index, dtype=object))
    return validate(df, on_invalid=on_invalid)
