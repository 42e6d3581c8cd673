# Over 400 lines: one idea, the Parquet layout: its writer (staged, then moved in) and its reader.
"""The tidy annotation frame on disk: Parquet files partitioned by item, polygons as WKB.

:func:`to_parquet` writes a validated tidy frame into a directory of Parquet files
(``part-00000.parquet``, ``part-00001.parquet``, ...) such that **every item lies in
exactly one file**: a file holds whole items, about ``rows_per_file`` rows, items in
order of first appearance. Polygons are stored as WKB (exact: the coordinates are the
same doubles), plain boxes and coverage rows hold a null geometry. The files carry
GeoParquet 1.0 metadata (``geo``: WKB encoding, no coordinate reference system, since
coordinates are pixels), so GIS tools read the geometry column too, and an
``iaa_frames`` entry that records the layout.

:func:`read_parquet` reads such a directory (or any Parquet file of a tidy frame whose
``geometry`` column holds WKB) back into the validated tidy frame. One file per partition
is what :func:`iaa_frames.dask.read_parquet` gives a dask DataFrame, the input of the
larger-than-memory :func:`iaa_frames.agreement`.

Needs the ``pyarrow`` package (``pip install iaa-frames[parquet]``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import ParameterError, ReaderError, SchemaError
from iaa_frames.frame.schema import identifier_column, validate

from .paths import output_error

__all__ = [
    "FILE_PATTERN",
    "METADATA_KEY",
    "decode_geometry",
    "item_partitions",
    "parquet_files",
    "read_parquet",
    "read_parquet_file",
    "to_parquet",
]

#: Names of the files :func:`to_parquet` writes (``str.format`` with the file number).
FILE_PATTERN = "part-{:05d}.parquet"
#: Key of the Parquet schema metadata entry that records the layout.
METADATA_KEY = b"iaa_frames"
#: Default number of rows per file (whole items only, so a file may hold more).
ROWS_PER_FILE = 1_000_000
_GEO_TYPES = ["Polygon", "MultiPolygon"]


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is in the test extra
        raise ImportError(
            "reading and writing Parquet needs the pyarrow package: "
            "pip install 'iaa-frames[parquet]'"
        ) from exc
    return pa, pq


def _encode_geometry(values: np.ndarray) -> np.ndarray:
    """WKB bytes of every shapely geometry, None elsewhere."""
    out = np.full(len(values), None, dtype=object)
    is_geom = shapely.is_geometry(values)
    if is_geom.any():
        out[is_geom] = shapely.to_wkb(values[is_geom], hex=False, include_srid=False)
    return out


def decode_geometry(frame: pd.DataFrame, *, source="") -> pd.DataFrame:
    """``frame`` with its WKB ``geometry`` column decoded into shapely geometries.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame read from Parquet; without a ``geometry`` column it is returned as is.
    source : str, optional
        The file it came from, named in errors.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ReaderError
        When a geometry value is neither null nor valid WKB.

    Examples
    --------
    >>> import shapely
    >>> f = pd.DataFrame({"geometry": [shapely.to_wkb(shapely.box(0, 0, 1, 1)), None]})
    >>> [None if g is None else g.area for g in decode_geometry(f)["geometry"]]
    [1.0, None]
    """
    if "geometry" not in frame.columns:
        return frame
    raw = frame["geometry"].to_numpy(dtype=object)
    out = np.full(len(raw), None, dtype=object)
    present = ~pd.isna(raw)
    other = np.zeros(0, dtype=np.int64)
    if present.any() and pd.api.types.infer_dtype(raw[present], skipna=False) != "bytes":
        # not all bytes: which rows are (bytearray and memoryview are WKB too, as bytes
        # for shapely), which not
        binary = np.array([isinstance(v, (bytes, bytearray, memoryview)) for v in raw], bool)
        other = np.flatnonzero(~binary & present)
        raw = np.array([bytes(v) if b else v for v, b in zip(raw, binary, strict=True)], object)
    if len(other):
        raise ReaderError(
            f"{source or 'parquet'}: row {other[0]}: the geometry column must "
            f"hold WKB bytes (or null); found {type(raw[other[0]]).__name__}"
        )
    if present.any():
        try:
            out[present] = shapely.from_wkb(raw[present])
        except shapely.errors.GEOSException as exc:
            bad = next(i for i in np.flatnonzero(present) if _bad_wkb(raw[i]))
            raise ReaderError(
                f"{source or 'parquet'}: row {bad}: invalid WKB geometry ({exc})"
            ) from exc
    return frame.assign(geometry=out)


def _bad_wkb(value) -> bool:
    try:
        shapely.from_wkb(value)
    except shapely.errors.GEOSException:
        return True
    return False


def _geo_metadata(geometry: np.ndarray) -> bytes:
    kinds = sorted(set(shapely.get_type_id(geometry[shapely.is_geometry(geometry)]).tolist()))
    names = {3: "Polygon", 6: "MultiPolygon"}
    types = [names.get(k, "Unknown") for k in kinds] if kinds else _GEO_TYPES
    column = {"encoding": "WKB", "geometry_types": types, "crs": None}  # pixels: no CRS
    meta = {"version": "1.0.0", "primary_column": "geometry", "columns": {"geometry": column}}
    return json.dumps(meta).encode()


def item_partitions(item: pd.Series, rows_per_part: int) -> np.ndarray:
    """Part number of every row: whole items, in order of first appearance, about
    ``rows_per_part`` rows per part.

    Examples
    --------
    >>> item_partitions(pd.Series(["a", "b", "a", "c", "d"]), 2).tolist()
    [0, 1, 0, 1, 2]
    """
    codes, uniques = pd.factorize(item, use_na_sentinel=False)
    rows = np.bincount(codes, minlength=len(uniques))
    before = np.cumsum(rows) - rows  # rows of the items that come first
    return (before // rows_per_part)[codes]


def to_parquet(
    df: pd.DataFrame, path, *, rows_per_file: int = ROWS_PER_FILE, overwrite: bool = False
) -> Path:
    """Write a tidy annotation frame into a directory of Parquet files, by item.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame; it is validated first (invalid rows raise, as in
        :func:`iaa_frames.validate`).
    path : str or os.PathLike
        The directory to write (created if missing).
    rows_per_file : int, default 1_000_000
        Rows per file, roughly: a file holds whole items, so an item never spans two
        files, and a file may hold more rows when an item is large. One file is one
        partition of :func:`iaa_frames.dask.read_parquet`.
    overwrite : bool, default False
        Replace the Parquet files of a directory already written; otherwise a directory
        that holds ``part-*.parquet`` files is an error. Only files ``to_parquet`` wrote
        (named ``part-NNNNN.parquet``, holding its layout metadata) are ever removed: a
        directory holding another Parquet file (an input, say) is an error either way.

    Returns
    -------
    pathlib.Path
        The directory.

    Raises
    ------
    FileExistsError
        When ``path`` holds Parquet files and ``overwrite`` is False, or Parquet files
        ``to_parquet`` did not write.
    ParameterError
        When ``path`` is a file, or cannot be created or written (a part of it is a file,
        it is read-only), naming the path and the reason. The files are written into a
        temporary folder inside ``path`` and moved in once all are written: a failure
        leaves the files of an earlier call whole.
    SchemaError
        When a column cannot be stored in Parquet (mixed types in ``item``, say).

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> df = iaf.simulate(n_items=4, kind="polygon", seed=0)
    >>> out = to_parquet(df, tempfile.mkdtemp(), rows_per_file=20)
    >>> back = read_parquet(out)
    >>> len(back) == len(df), bool(back["geometry"].dropna().iloc[0].equals(
    ...     df["geometry"].dropna().iloc[0]))
    (True, True)
    """
    pa, pq = _pyarrow()
    if (
        isinstance(rows_per_file, bool)
        or not isinstance(rows_per_file, (int, np.integer))
        or rows_per_file < 1
    ):
        raise ParameterError(f"rows_per_file must be a positive integer; got {rows_per_file!r}")
    frame = validate(df)
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"{out} exists and is not a directory: choose a folder")
    old = parquet_files(out) if out.is_dir() else []
    if old and not overwrite:
        raise FileExistsError(
            f"{out} already holds {len(old)} Parquet file(s); pass overwrite=True to replace them"
        )
    foreign = [f for f in old if not _ours(f, pq)]
    if foreign:  # never removed, and read_parquet(out) would mix them in
        raise FileExistsError(
            f"{out} holds Parquet file(s) to_parquet did not write ({', '.join(f.name for f in foreign[:5])}"
            f"{' ...' if len(foreign) > 5 else ''}): they are not removed; write into another "
            "directory"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".iaa-frames-staging-", dir=out))
    except OSError as exc:
        raise output_error(out, exc) from None
    try:  # written aside, then moved in: a failure leaves the earlier files whole
        _write_parts(frame, tmp, int(rows_per_file), pa, pq)
        written = sorted(tmp.iterdir())
        for f in written:
            os.replace(f, out / f.name)
        names = {f.name for f in written}
        for f in old:  # every one written by to_parquet (checked above)
            if f.name not in names:
                f.unlink()
    except OSError as exc:
        raise output_error(out, exc) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _write_parts(frame: pd.DataFrame, out: Path, rows_per_file: int, pa, pq) -> None:
    """The validated ``frame`` as :func:`to_parquet`'s files in ``out``."""
    file_of = item_partitions(frame["item"], int(rows_per_file))
    order = np.argsort(file_of, kind="stable")
    frame = frame.iloc[order]
    file_of = file_of[order]
    geometry = frame["geometry"].to_numpy(dtype=object)
    frame = frame.assign(geometry=_encode_geometry(geometry))
    frame.attrs = {}  # validate's counts are not data
    bounds = np.searchsorted(file_of, np.arange(int(file_of.max()) + 2 if len(file_of) else 1))
    n_files = max(len(bounds) - 1, 1)
    layout = {
        "format_version": 1,
        "partitioned_by": "item",
        "geometry_encoding": "WKB",
        "n_files": n_files,
        "rows": len(frame),
        "items": int(frame["item"].nunique()),
    }
    geo = _geo_metadata(geometry)
    for k in range(n_files):
        part = frame.iloc[bounds[k] : bounds[k + 1]] if len(frame) else frame
        try:
            table = pa.Table.from_pandas(part, preserve_index=True)
        except UnicodeEncodeError:
            raise SchemaError(_bad_text(part)) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise SchemaError(
                f"the frame cannot be stored in Parquet: {exc} (a column "
                "mixes types? convert it, e.g. df['item'].astype(str))"
            ) from exc
        meta = dict(table.schema.metadata or {})
        meta[b"geo"] = geo
        meta[METADATA_KEY] = json.dumps({**layout, "file": k}).encode()
        pq.write_table(table.replace_schema_metadata(meta), out / FILE_PATTERN.format(k))


def _bad_text(frame: pd.DataFrame) -> str:
    """Where a frame holds text that is not valid Unicode (looked for after Arrow refused
    it), as the message of the error."""
    for col in frame.columns:
        values = frame[col].to_numpy(dtype=object)
        for pos, v in enumerate(values):
            if isinstance(v, str):
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return (
                        f"column {col!r}, row {pos} (index {frame.index[pos]!r}): {v!r} holds a "
                        "lone surrogate, which is not valid Unicode and cannot be stored in "
                        "Parquet; fix the text (e.g. s.encode('utf-8', 'replace').decode())"
                    )
    return "a value is not valid Unicode and cannot be stored in Parquet"


def _ours(path: Path, pq) -> bool:
    """Whether ``path`` is a file :func:`to_parquet` wrote: named ``part-NNNNN.parquet``
    and holding the layout metadata under :data:`METADATA_KEY`."""
    if not re.fullmatch(r"part-\d{5,}\.parquet", path.name) or path.is_symlink():
        return False
    try:
        meta = pq.read_schema(path).metadata or {}
    except Exception:  # noqa: BLE001  (not a Parquet file at all: not ours)
        return False
    return METADATA_KEY in meta


def parquet_files(path) -> list[Path]:
    """The Parquet files of a directory (sorted by name), or ``[path]`` for a file.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist, or is a directory without Parquet files.
    """
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise FileNotFoundError(f"{p}: no such file or directory")
    try:
        return sorted(
            f
            for f in p.iterdir()
            if f.suffix in (".parquet", ".pq") and f.is_file() and not f.name.startswith(("_", "."))
        )
    except OSError as exc:
        raise ReaderError(f"{p}: cannot list the directory ({exc.strerror or exc})") from None


def read_parquet_file(path, *, columns=None) -> pd.DataFrame:
    """One Parquet file of a tidy frame, geometry decoded (not validated).

    Parameters
    ----------
    path : str or os.PathLike
    columns : list of str, optional
        Columns to read (all by default).

    Returns
    -------
    pandas.DataFrame
    """
    _, pq = _pyarrow()
    try:
        table = pq.read_table(os.fspath(path), columns=columns)
    except (OSError, ValueError) as exc:
        raise ReaderError(f"{path}: not a readable Parquet file ({exc})") from exc
    return decode_geometry(table.to_pandas(), source=str(path))


def read_parquet(path, *, on_invalid: str = "raise") -> pd.DataFrame:
    """Read a tidy annotation frame written by :func:`to_parquet` (or any Parquet file or
    directory of them holding the tidy columns, with WKB polygons in ``geometry``).

    Parameters
    ----------
    path : str or os.PathLike
        A directory of Parquet files (read in name order) or one file.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to :func:`iaa_frames.validate`.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame, index as written. Rows come back grouped by file; a
        frame whose rows were grouped by item comes back in its original order. Items are
        text, as every reader gives them (an integer item ``7`` comes back ``"7"``).

    Raises
    ------
    FileNotFoundError
        When ``path`` holds no Parquet file.
    ReaderError
        When a file cannot be read or holds invalid WKB.

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> df = iaf.simulate(n_items=3, seed=1)
    >>> back = read_parquet(to_parquet(df, tempfile.mkdtemp()))
    >>> back[["item", "annotator", "x0"]].equals(iaf.validate(df)[["item", "annotator", "x0"]])
    True
    """
    files = parquet_files(path)
    if not files:
        raise FileNotFoundError(f"{path}: no Parquet file (*.parquet) in this directory")
    frames = [read_parquet_file(f) for f in files]
    frame = frames[0] if len(frames) == 1 else pd.concat(frames)
    if "item" in frame.columns:  # a reader gives identifiers as text, as every reader does
        frame["item"] = identifier_column(frame["item"], "item", keep_numbers=False)
    return validate(frame, on_invalid=on_invalid)
