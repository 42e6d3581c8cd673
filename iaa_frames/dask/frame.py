"""Dask DataFrames of tidy annotation frames, with every item in one partition.

dask converts object columns to strings by default (its ``dataframe.convert-string``
option), which would turn shapely polygons into text; the constructors here keep the
``geometry`` column as shapely objects. Every item's rows lie in one partition, so that
:func:`iaa_frames.agreement` needs no shuffle.
"""

from __future__ import annotations

import functools
import math
import os

import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.io.parquet import item_partitions, parquet_files, read_parquet_file
from iaa_frames.settings.validation import Integer

__all__ = ["from_pandas", "read_parquet"]


def _keep_objects():
    import dask

    return dask.config.set({"dataframe.convert-string": False})


def read_parquet(path, *, columns=None):
    """Read a tidy annotation frame stored as Parquet into a dask DataFrame.

    Parameters
    ----------
    path : str or os.PathLike
        A directory written by :func:`iaa_frames.to_parquet` (files read in name order,
        one partition each, polygons decoded from WKB), or one Parquet file.
    columns : list of str, optional
        Columns to read (all by default).

    Returns
    -------
    dask.dataframe.DataFrame
        Not validated yet: :func:`iaa_frames.agreement` validates every partition.

    Raises
    ------
    FileNotFoundError
        When ``path`` holds no Parquet file.
    ParameterError
        When ``path`` is not a path, or ``columns`` not None or a list of the column
        names of the files.

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> from iaa_frames.dask import read_parquet
    >>> path = iaf.to_parquet(iaf.simulate(n_items=6, seed=0), tempfile.mkdtemp(),
    ...                       rows_per_file=30)
    >>> ddf = read_parquet(path)
    >>> ddf.npartitions, len(ddf.compute()) == len(iaf.read_parquet(path))
    (3, True)
    """
    import dask.dataframe as dd

    if not isinstance(path, str | os.PathLike):
        raise ParameterError(f"path must be a str or os.PathLike; got {path!r}")
    if columns is not None:
        if isinstance(columns, str | bytes) or not hasattr(columns, "__iter__"):
            raise ParameterError(
                "columns must be None or a list of column names (e.g. ['item', "
                f"'annotator']); got {columns!r}"
            )
        columns = list(columns)
        if not all(isinstance(c, str) for c in columns):
            raise ParameterError(f"columns must be column names (strings); got {columns!r}")
    files = parquet_files(path)
    if not files:
        raise FileNotFoundError(f"{path}: no Parquet file (*.parquet) in this directory")
    _check_columns(files[0], columns)
    meta = read_parquet_file(files[0], columns=columns).iloc[:0]
    with _keep_objects():
        return dd.from_map(
            functools.partial(read_parquet_file, columns=columns),
            [str(f) for f in files],
            meta=meta,
            label="iaa-read-parquet",
            enforce_metadata=False,
        )


def _check_columns(file, columns) -> None:
    """A :class:`ParameterError` naming the ``columns`` the first file has not (else the
    reader's error said the file was unreadable)."""
    if columns is None:
        return
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(file).names
    except (OSError, ValueError):  # the reader says what is wrong with the file
        return
    missing = [c for c in columns if c not in names]
    if missing:
        raise ParameterError(
            f"columns names {missing}, not columns of {file} (its columns: "
            f"{', '.join(n for n in names if not n.startswith('__'))})"
        )


def from_pandas(df: pd.DataFrame, *, npartitions: int):
    """A dask DataFrame of a tidy frame, whole items per partition, polygons kept.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    npartitions : int
        Number of partitions (fewer when there are fewer items); items are kept whole, in
        order of first appearance, about ``len(df) / npartitions`` rows per partition.

    Returns
    -------
    dask.dataframe.DataFrame

    Raises
    ------
    ParameterError
        When ``df`` is not a DataFrame or ``npartitions`` not an integer >= 1 (a numpy
        integer is one, a bool is not).
    SchemaError
        When ``df`` has no ``item`` column.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.dask import from_pandas
    >>> df = iaf.simulate(n_items=10, kind="polygon", seed=0)
    >>> ddf = from_pandas(df, npartitions=3)
    >>> ddf.npartitions, type(ddf.compute()["geometry"].dropna().iloc[0]).__name__
    (3, 'Polygon')
    """
    import dask.dataframe as dd

    if not isinstance(df, pd.DataFrame):
        raise ParameterError(f"df must be a pandas DataFrame; got {type(df).__name__}")
    if not Integer(1).accepts(npartitions):  # numpy integers too, bools not
        raise ParameterError(f"npartitions must be a positive integer; got {npartitions!r}")
    npartitions = int(npartitions)
    if "item" not in df.columns:
        from iaa_frames.errors import SchemaError

        raise SchemaError(f"the frame has no 'item' column; found {list(df.columns)}")
    part = item_partitions(df["item"], max(math.ceil(len(df) / npartitions), 1))
    pieces = [df.iloc[part == k] for k in range(int(part.max()) + 1)] if len(df) else [df]
    with _keep_objects():
        return dd.from_map(
            _identity, pieces, meta=df.iloc[:0], label="iaa-from-pandas", enforce_metadata=False
        )


def _identity(frame):
    return frame
