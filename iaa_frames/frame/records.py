"""Building a validated tidy frame from plain records (a list of dicts)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import InvalidAnnotationError, ParameterError

from .schema import BOX_COLUMNS, validate

__all__ = ["from_records"]


def from_records(records, *, on_invalid: str = "raise") -> pd.DataFrame:
    """Build a validated tidy frame from a list of dicts, one per object or coverage row.

    Each record holds column values (see :func:`validate`). For convenience a record may
    give a polygon as ``points``: a sequence of (x, y) vertices, or a sequence of such
    sequences for a multi-part polygon; it becomes the ``geometry``.

    Parameters
    ----------
    records : iterable of dict
        One dict per row.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to :func:`validate`.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame.

    Raises
    ------
    SchemaError
        When the records lack a required key (``item``, ``annotator``, ``label``, and a
        shape: ``x0, y0, x1, y1``, ``geometry`` or ``points``), as :func:`validate` does
        for a frame. Records of coverage rows alone need only ``item`` and ``annotator``.

    Examples
    --------
    >>> df = from_records([
    ...     {"item": "img1", "annotator": "ana", "label": "cat", "x0": 10, "y0": 10, "x1": 50, "y1": 40},
    ...     {"item": "img1", "annotator": "ben", "label": "cat",
    ...      "points": [(12, 10), (50, 10), (50, 42), (12, 42)]},
    ...     {"item": "img2", "annotator": "ana"},
    ... ])
    >>> df[["item", "annotator", "label", "x0", "x1"]]
       item annotator label    x0    x1
    0  img1       ana   cat  10.0  50.0
    1  img1       ben   cat  12.0  50.0
    2  img2       ana   NaN   NaN   NaN
    """
    if isinstance(records, pd.DataFrame) or isinstance(records, (str, bytes, dict)):
        raise ParameterError(
            "records must be an iterable of dicts (use validate() for a DataFrame)"
        )
    records = list(records)
    bad = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    if bad:
        raise InvalidAnnotationError(
            f"record {bad[0]} is a {type(records[bad[0]]).__name__}, not a dict"
        )
    df = pd.DataFrame.from_records(records)
    if len(df) == 0:
        df = pd.DataFrame({c: [] for c in ("item", "annotator", "label", *BOX_COLUMNS)})
    shape_keys = {*BOX_COLUMNS, "geometry", "points"} & set(df.columns)
    if not shape_keys and "label" not in df.columns and {"item", "annotator"} <= set(df.columns):
        # only coverage rows: no shape and no label in any record
        df = df.assign(label=None, **{c: np.nan for c in BOX_COLUMNS})
    if "points" in df.columns:
        df = df.assign(geometry=_points_to_geometry(df["points"], df.get("geometry"))).drop(
            columns="points"
        )
    # wrong or missing keys give the SchemaError of validate(), which lists the keys found
    return validate(df, on_invalid=on_invalid)


def _points_to_geometry(points: pd.Series, geometry: pd.Series | None) -> np.ndarray:
    """Convert ``points`` records into polygons (construction from user records)."""
    out = (
        np.full(len(points), None, dtype=object)
        if geometry is None
        else geometry.to_numpy(dtype=object).copy()
    )
    for pos, pts in enumerate(points.to_numpy(dtype=object)):
        if pts is None or (isinstance(pts, float) and np.isnan(pts)):
            continue
        given = out[pos]
        if given is not None and not (isinstance(given, float) and np.isnan(given)):
            raise InvalidAnnotationError(
                f"record {pos} gives both points and a geometry ({given!r:.60}): give one "
                "shape per record (points would replace the geometry)"
            )
        try:
            arr = [np.asarray(p, dtype=float) for p in pts]
            if arr and arr[0].ndim == 2:  # several rings/parts
                out[pos] = shapely.MultiPolygon([shapely.Polygon(p) for p in arr])
            else:
                out[pos] = shapely.Polygon(np.asarray(pts, dtype=float))
        except (TypeError, ValueError, shapely.errors.GEOSException) as exc:
            raise InvalidAnnotationError(
                f"record {pos}: cannot build a polygon from points: {exc}"
            ) from exc
    return out
