"""The tidy annotation frame: its schema and its validation.

One row per drawn object, plus *coverage rows* (an annotator reviewed an item and drew
nothing). :func:`validate` lists the exact columns and dtypes it returns;
:func:`iaa_frames.frame.records.from_records` builds a frame from a list of dicts.

(Over 400 lines: every rule of the tidy frame, schema, dtypes, geometry checks and repairs,
the reason of each invalid row, sits in this one module, so that the rules read together.)

Validation is vectorized: every check is a whole-column numpy/pandas/shapely operation, so a
million box rows validate in well under a second per check.
"""

from __future__ import annotations

import os
import unicodedata
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import shapely

from iaa_frames.arrays import sorted_unique
from iaa_frames.errors import (
    DroppedRowsWarning,
    IAAWarning,
    InvalidAnnotationError,
    ParameterError,
    RepairedGeometryWarning,
    SchemaError,
)
from iaa_frames.geometry.kinds import geometries_as_kinds, parametric_kinds

from .known_valid import known_valid, polygons_known_valid, remember, remember_polygons
from .tangles import MAX_CROSSINGS, crossings
from .unchanged import same_objects

__all__ = [
    "ALL",
    "BOX_COLUMNS",
    "GROUP",
    "MAX_ITEM_CHARS",
    "MAX_NAME_CHARS",
    "ValidationResult",
    "check",
    "identifier_column",
    "validate",
    "is_object",
    "INVALID_REASONS",
    "register_path_hint",
    "require_unique_columns",
]

#: The optional column naming the group of an item (video, sequence, scene, patient,
#: source image of an augmentation): chance pairings never join two items of one group.
GROUP = "group"

#: The reserved label / annotator coordinate meaning "every class" or "every annotator".
ALL = "(all)"

BOX_COLUMNS = ("x0", "y0", "x1", "y1")
_FRONT = ("item", "annotator", "label", "object_id", *BOX_COLUMNS, "geometry", "width", "height")

#: Why a row can be invalid, in the order the checks are applied (a row gets the first
#: reason that applies to it), with the human-readable explanation used in messages.
INVALID_REASONS = {
    "missing_item": "the item is missing",
    "missing_annotator": "the annotator is missing",
    "non_string_annotator": "the annotator is neither a string nor an integer id",
    "reserved_annotator": f"the annotator {ALL!r} is reserved (it names every annotator; so "
    "are names that read as it: spaces around it, invisible marks, full-width letters)",
    "blank_name": "the item or the annotator is blank (empty or only whitespace): it names "
    "no item or annotator",
    "non_numeric_coordinates": "a box coordinate is not a number",
    "not_a_geometry": "geometry is not a shapely geometry",
    "not_polygonal": "geometry is not a Polygon or MultiPolygon, nor a LineString of 2 or "
    "more points, a Point or a MultiPoint of at most 32 (the kinds polyline, point and "
    "point_set)",
    "tangled_polygon": f"the polygon's outline crosses itself {MAX_CROSSINGS} times or more (its "
    "vertices out of order, not a drawn shape); repairing it would take minutes",
    "nonfinite_coordinates": "a box coordinate is NaN or infinite (or a parameter of its "
    "geometry kind: an unlabelled keypoint has v = 0 and x = y = 0, as in COCO)",
    "inverted_box": "the box is inverted (x1 < x0 or y1 < y0)",
    "extreme_coordinates": "a coordinate is beyond 1e100 in size or the shape is below 1e-200 "
    "in area, so that areas overflow or underflow float64: rescale the coordinates",
    "zero_area": "the shape has zero area (x1 == x0, y1 == y0, or an empty polygon), or "
    "its kind's parameters make no shape (keypoints: a visibility not 0, 1 or 2, no "
    "labelled joint, a negative area)",
    "missing_geometry": "a label is given but no box or geometry",
    "missing_label": "an object has no label",
    "reserved_label": f"the label {ALL!r} is reserved (it names every class; so are names "
    "that read as it: spaces around it, invisible marks, full-width letters)",
    "name_too_long": "the label or the annotator is longer than 1,000 characters, or the "
    "item longer than 4,096 (a path's length on Linux)",
    "invalid_image_size": "width/height is not a number from 1e-6 to 1e9 (pixels): sizes "
    "beyond it make normalized coordinates overflow or underflow",
    "missing_object_id": "an object has no object_id",
    "duplicate_object_id": "the object_id is not unique",
}
_REASONS = list(INVALID_REASONS)
#: The column of :attr:`ValidationResult.dropped` naming why each row was dropped; a
#: column of that name in the user's frame is kept there as :data:`USER_REASON`.
REASON = "reason"
USER_REASON = "user_reason"
_POLYGONAL = np.array([3, 6])  # shapely type ids of Polygon and MultiPolygon
_MAX_LISTED = 5
#: The longest label or annotator name a frame may hold (longer ones are invalid rows).
MAX_NAME_CHARS = 1000
#: The longest item name (a file path on Linux is at most 4,096 bytes); longer ones are
#: invalid rows, so that no name can make a figure or a report take minutes.
MAX_ITEM_CHARS = 4096
#: Coordinates beyond this magnitude, or shapes of an area below :data:`MIN_AREA`, are
#: invalid (``extreme_coordinates``): their areas would overflow or underflow float64.
MAX_COORDINATE = 1e100
MIN_AREA = 1e-200
#: The image sizes (``width``, ``height``) a frame may hold: coordinates are divided by
#: them, so a size of 1e200 would turn every shape into a speck of area 0.
MIN_IMAGE_SIZE, MAX_IMAGE_SIZE = 1e-6, 1e9


@dataclass(frozen=True)
class ValidationResult:
    """What :func:`check` found.

    Attributes
    ----------
    frame : pandas.DataFrame
        The valid rows, normalized (see :func:`validate`).
    dropped : pandas.DataFrame
        The invalid rows as they came in, with their original index and a ``reason`` column
        (one of :data:`INVALID_REASONS`); a column of the frame named ``reason`` is kept
        as ``user_reason`` (``user_reason_2``, ... when that name is taken too).
    repaired : int
        How many invalid polygons were repaired with :func:`shapely.make_valid` (and kept).
    """

    frame: pd.DataFrame
    dropped: pd.DataFrame
    repaired: int = 0
    counts: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        reasons = ", ".join(f"{k}: {v:,}" for k, v in self.counts.items()) or "none"
        return (
            f"<ValidationResult: {len(self.frame):,} valid rows, {len(self.dropped):,} "
            f"dropped ({reasons}), {self.repaired:,} repaired polygons; "
            ".frame, .dropped, .counts>"
        )


def is_object(df: pd.DataFrame) -> pd.Series:
    """Boolean mask of object rows (as opposed to coverage rows) of a validated frame.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([
    ...     {"item": "a", "annotator": "ann", "label": "cat", "x0": 0, "y0": 0, "x1": 2, "y1": 2},
    ...     {"item": "b", "annotator": "ann"},
    ... ])
    >>> is_object(df).tolist()
    [True, False]
    """
    return df["x0"].notna()


#: What to do with a path passed where a frame is expected: ``hint(path) -> str``, set by
#: :mod:`iaa_frames.io` (which names the reader of the file's format) when it is imported.
_PATH_HINT: list = []


def register_path_hint(hint) -> None:
    """Set the function that says what to do with a path passed where a frame is
    expected (:func:`iaa_frames.io.formats.read_hint`: the reader call that reads it).

    Parameters
    ----------
    hint : callable
        ``hint(path) -> str``, the remedy the :class:`SchemaError` ends with.
    """
    _PATH_HINT[:] = [hint]


def require_unique_columns(df: pd.DataFrame) -> None:
    """Raise :class:`~iaa_frames.errors.SchemaError` when a column name appears twice, or
    the columns have several levels (a ``MultiIndex``).

    ``df["item"]`` of a frame with two ``item`` columns (or with ``item`` as the top
    level of a ``MultiIndex``) is a frame, not a column: every
    step below would fail on it with a pandas error that names neither the frame nor the
    column. The entry points that read columns before :func:`validate` (the cache digest,
    :func:`iaa_frames.core.tables.comparability.require_comparable`) call this first.

    Parameters
    ----------
    df : pandas.DataFrame
        A frame (validated or not).

    Raises
    ------
    SchemaError
        Naming the duplicated column(s), or the levels and how to flatten them.

    Examples
    --------
    >>> import pandas as pd
    >>> require_unique_columns(pd.DataFrame([[1, 2]], columns=["item", "item"]))
    Traceback (most recent call last):
    ...
    iaa_frames.errors.SchemaError: duplicate column name(s): ['item']; keep one of each (df.loc[:, ~df.columns.duplicated()])
    """
    if isinstance(df.columns, pd.MultiIndex):  # df["item"] would be a frame of its levels
        raise SchemaError(
            f"the columns have {df.columns.nlevels} levels (a MultiIndex, e.g. "
            f"{df.columns[0]!r}); a tidy frame has one name per column: flatten them "
            "(df.columns = df.columns.get_level_values(0), or ['_'.join(map(str, c)) for c "
            "in df.columns])"
        )
    if not df.columns.is_unique:
        dup = sorted(set(map(str, df.columns[df.columns.duplicated()])))
        raise SchemaError(
            f"duplicate column name(s): {dup}; keep one of each "
            "(df.loc[:, ~df.columns.duplicated()])"
        )


def _schema(df) -> None:
    if isinstance(df, (str, os.PathLike)):
        hint = (
            _PATH_HINT[0](df)
            if _PATH_HINT
            else "read it first with the reader of its format (iaa_frames.io)"
        )
        raise SchemaError(
            f"expected a pandas DataFrame, got a path ({type(df).__name__}) "
            f"{os.fspath(df)!r}; {hint}"
        )
    if not isinstance(df, pd.DataFrame):
        raise SchemaError(f"expected a pandas DataFrame, got {type(df).__name__}")
    require_unique_columns(df)
    missing = [c for c in ("item", "annotator") if c not in df.columns]
    has_box = [c for c in BOX_COLUMNS if c in df.columns]
    if 0 < len(has_box) < 4:
        missing += [c for c in BOX_COLUMNS if c not in df.columns]
    if not has_box and "geometry" not in df.columns and not parametric_kinds(df.columns):
        missing.append("x0, y0, x1, y1 or geometry (or the columns of a geometry kind)")
    if "label" not in df.columns:
        missing.append("label")
    if missing:
        raise SchemaError(
            f"missing required column(s): {', '.join(missing)}; "
            f"the frame has columns {list(map(str, df.columns))}"
        )


def _string_mask(values: pd.Series) -> np.ndarray:
    """True where the value is a Python/numpy string (NA counts as not a string)."""
    if pd.api.types.is_string_dtype(values.dtype) and not values.dtype == object:
        return values.notna().to_numpy()
    arr = values.to_numpy(dtype=object)
    return np.frompyfunc(lambda v: isinstance(v, str), 1, 1)(arr).astype(bool)


def _integral_to_str(v):
    """An integer annotator id (int, numpy integer, or a float holding an integer, as
    ``pd.read_csv`` gives when a column has gaps) as its decimal string; other values as
    they are."""
    if isinstance(v, (bool, np.bool_)):
        return v
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    return v


def _annotator_column(ann: pd.Series) -> pd.Series:
    """Integer annotator ids (normal after ``pd.read_csv``) converted to strings, vectorized
    per dtype; strings and missing values untouched; anything else is left for the
    ``non_string_annotator`` check."""
    dtype = ann.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return ann
    if pd.api.types.is_integer_dtype(dtype):
        return ann.astype("str")
    if pd.api.types.is_float_dtype(dtype):
        vals = ann.to_numpy(dtype="float64", na_value=np.nan)
        present = ~np.isnan(vals)
        with np.errstate(invalid="ignore"):
            integral = present & np.isfinite(vals) & (np.floor(vals) == vals)
        if not integral[present].all():
            return ann
        out = np.full(len(vals), None, dtype=object)
        out[present] = vals[present].astype(np.int64).astype(str)
        return pd.Series(pd.array(out, dtype="str"), index=ann.index)
    if dtype == object:  # noqa: E721  (numpy and pandas dtypes compare equal to object)
        arr = ann.to_numpy(dtype=object)
        numeric = np.frompyfunc(
            lambda v: (
                isinstance(v, (int, float, np.integer, np.floating))
                and not isinstance(v, (bool, np.bool_))
            ),
            1,
            1,
        )(arr).astype(bool)
        if numeric.any():
            arr = arr.copy()
            arr[numeric] = [_integral_to_str(v) for v in arr[numeric]]
            return pd.Series(arr, index=ann.index, dtype=object)
    return ann


#: Values no identifier (item, annotator, label, group) may be: containers and bytes.
_NOT_IDENTIFIERS = (list, dict, tuple, set, frozenset, np.ndarray, bytes, bytearray)


def _identifier_text(v):
    """One identifier as text: strings as they are, integers (Python, numpy, or a float
    holding an integer, as ``pd.read_csv`` gives for a column with gaps) as their decimal
    string, other numbers as ``str``; missing values stay missing."""
    if isinstance(v, str):
        return v
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return None
        return str(int(v)) if np.isfinite(v) and float(v).is_integer() else str(float(v))
    return str(v)


def _refuse_containers(values: pd.Series, name: str) -> None:
    """A :class:`SchemaError` naming the first rows whose ``name`` is a list, dict, tuple,
    set, array or bytes: an identifier is text (or an integer id)."""
    if values.dtype != object:  # noqa: E721  (numpy and pandas dtypes compare equal)
        return
    arr = values.to_numpy(dtype=object)
    bad = np.frompyfunc(lambda v: isinstance(v, _NOT_IDENTIFIERS), 1, 1)(arr).astype(bool)
    if bad.any():
        pos = np.flatnonzero(bad)[:_MAX_LISTED]
        article = "an" if name[0] in "aeiou" else "a"
        raise SchemaError(
            f"{int(bad.sum())} row(s) have {article} {name} that is a "
            f"{type(arr[pos[0]]).__name__}, not text: "
            + ", ".join(f"row {p} ({name} {_short(arr[p])})" for p in pos)
            + f"; {article} {name} is a string or an integer id"
        )


def identifier_column(
    values: pd.Series, name: str = "item", *, keep_numbers: bool | None = None
) -> pd.Series:
    """The identifier policy of the tidy frame, for ``item`` and ``label``: identifiers
    are text. Strings stay as they are; integers (``7``, numpy integers, ``7.0`` from a
    float column) become their decimal string ``"7"``, other numbers ``str(v)``;
    missing values stay missing. A list, dict, tuple, set, array or bytes is a
    :class:`SchemaError` naming the rows. Values of different types that become one text
    (the item ``0`` and ``"0"``, the labels ``1`` and ``1.0``) are one identifier, with
    an :class:`~iaa_frames.errors.IAAWarning` naming them. One exception: an ``item``
    column of numbers only (frame ids, image ids) is kept as it is, so that items sort
    in numeric order (``2`` before ``10``; ``keep_numbers=False`` makes them text, as
    the readers give them).

    Examples
    --------
    >>> out = identifier_column(pd.Series([1, 2.0, "b", None]), "label")
    >>> out[:3].tolist(), bool(pd.isna(out.iloc[3]))
    (['1', '2', 'b'], True)
    >>> identifier_column(pd.Series([10, 2]), "item").tolist()
    [10, 2]
    """
    dtype = values.dtype
    if keep_numbers is None:
        keep_numbers = name == "item"
    if keep_numbers and _numbers_only(values):
        return values
    if pd.api.types.is_string_dtype(dtype) and dtype != object:  # noqa: E721
        return values
    if pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return values.astype("str").where(values.notna())
    if pd.api.types.is_float_dtype(dtype):
        vals = values.to_numpy(dtype="float64", na_value=np.nan)
        out = np.full(len(vals), None, dtype=object)
        present = ~np.isnan(vals)
        with np.errstate(invalid="ignore"):
            integral = present & np.isfinite(vals) & (np.floor(vals) == vals)
            integral &= np.abs(vals) < 2.0**63
        out[integral] = vals[integral].astype(np.int64).astype(str)
        rest = present & ~integral
        out[rest] = [str(float(v)) for v in vals[rest]]
        return pd.Series(pd.array(out, dtype="str"), index=values.index)
    if dtype != object:  # noqa: E721  (categorical, bool, datetime...: their text)
        return values.astype("str").where(values.notna())
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind in ("string", "empty"):
        return values
    _refuse_containers(values, name)
    arr = values.to_numpy(dtype=object)
    text = np.array([_identifier_text(v) for v in arr] + [None], dtype=object)[:-1]
    if kind not in ("integer", "floating", "mixed-integer-float", "decimal", "boolean"):
        _warn_merged(arr, text, name)
    return pd.Series(text, index=values.index, dtype=object)


def _numbers_only(values: pd.Series) -> bool:
    """Whether a column holds numbers only (not booleans), missing values aside."""
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    if pd.api.types.is_numeric_dtype(dtype):
        return True
    if dtype != object:  # noqa: E721
        return False
    return pd.api.types.infer_dtype(values, skipna=True) in (
        "integer",
        "floating",
        "mixed-integer-float",
    )


def _warn_merged(arr: np.ndarray, text: np.ndarray, name: str) -> None:
    """An :class:`IAAWarning` when values of different types became one text (``0`` and
    ``"0"``): they now name one identifier."""
    present = ~pd.isna(text)
    pairs = pd.DataFrame(
        {"text": text[present], "type": [type(v).__name__ for v in arr[present]]}
    ).drop_duplicates()
    merged = pairs["text"][pairs["text"].duplicated(keep=False)].unique()
    if len(merged):
        shown = ", ".join(map(repr, merged[:_MAX_LISTED]))
        warnings.warn(
            IAAWarning(
                f"the {name} column mixes text and numbers that read the same: {shown} "
                f"{'is' if len(merged) == 1 else 'are'} given both as text and as a number, "
                f"and name{'s' if len(merged) == 1 else ''} one {name} (identifiers are text)"
            ),
            stacklevel=5,
        )


def _float_or_infinite(v):
    """``float(v)``, an integer too large for float64 as a signed infinity (which then
    fails the finiteness check), anything else as it is."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")
    except (TypeError, ValueError):
        return v


def _numeric(values: pd.Series, *, kinds: str = "cmM") -> tuple[np.ndarray, np.ndarray]:
    """Coordinates as float64 and a mask of values that were present but not numeric.

    A column whose dtype kind is in ``kinds`` (complex numbers, dates, durations; the box
    corners add booleans) holds no coordinate: casting it dropped the imaginary part with
    numpy's ``ComplexWarning``, read dates as nanoseconds and ``True`` as 1.
    """
    if values.dtype.kind in kinds:
        return np.full(len(values), np.nan), values.notna().to_numpy()
    try:
        coerced = pd.to_numeric(values, errors="coerce")
    except OverflowError:  # integers beyond float64 (a 400-digit CSV cell): infinite
        coerced = pd.to_numeric(values.map(_float_or_infinite), errors="coerce")
    if coerced.dtype.kind in kinds:  # an object column of complex numbers or booleans
        return np.full(len(values), np.nan), values.notna().to_numpy()
    out = coerced.to_numpy(dtype="float64", na_value=np.nan)
    return out, (coerced.isna() & values.notna()).to_numpy()


def _polygonal_parts(geoms: np.ndarray) -> np.ndarray:
    """Keep only the polygonal parts of (repaired) geometries, as Polygon/MultiPolygon.

    Vectorized over the array: collections are exploded with :func:`shapely.get_parts`,
    non-polygon parts dropped, and the rest regrouped per input row. A row with no
    polygonal part becomes an empty Polygon (and is then dropped as zero-area).
    """
    out = geoms.copy()
    other = ~np.isin(shapely.get_type_id(geoms), _POLYGONAL)
    if other.any():
        parts, owner = shapely.get_parts(geoms[other], return_index=True)
        keep = np.isin(shapely.get_type_id(parts), _POLYGONAL)
        polygons, sub = shapely.get_parts(parts[keep], return_index=True)
        rebuilt = np.full(other.sum(), None, dtype=object)
        if len(polygons):
            shapely.multipolygons(polygons, indices=owner[keep][sub], out=rebuilt)
        rebuilt[np.equal(rebuilt, None)] = shapely.Polygon()
        out[other] = rebuilt
    # a MultiPolygon of one part reads better as that Polygon
    single = (shapely.get_type_id(out) == 6) & (shapely.get_num_geometries(out) == 1)
    if single.any():
        out[single] = shapely.get_geometry(out[single], 0)
    return out


def _geometry(df: pd.DataFrame, n: int, known: bool = False):
    """Geometry column as an object array plus per-row masks and the repaired count;
    ``known``: the column is a validated one, none of its polygons to check again
    (:mod:`iaa_frames.frame.known_valid`)."""
    geoms = np.full(n, None, dtype=object)
    not_geom = np.zeros(n, bool)
    not_poly = np.zeros(n, bool)
    repaired = np.zeros(n, bool)
    if "geometry" not in df.columns:
        return geoms, not_geom, not_poly, repaired, np.zeros(n, bool), np.zeros(n, bool)
    raw = df["geometry"].to_numpy(dtype=object)
    if known:  # valid polygons and None, every one
        geoms[:] = raw
        return geoms, not_geom, not_poly, repaired, np.zeros(n, bool), np.zeros(n, bool)
    is_geom = shapely.is_geometry(raw)
    present = pd.notna(raw) & ~np.equal(raw, None)
    not_geom = present & ~is_geom
    geoms[is_geom] = raw[is_geom]
    g = geoms[is_geom]
    not_poly_g = ~np.isin(shapely.get_type_id(g), _POLYGONAL)
    nonfinite_g = _nonfinite_geometries(g)
    invalid_g = ~not_poly_g & ~nonfinite_g & ~shapely.is_valid(g)
    tangled_g = np.zeros(len(g), bool)
    if invalid_g.any():
        tangled_g[invalid_g] = crossings(g[invalid_g], limit=MAX_CROSSINGS) >= MAX_CROSSINGS
        invalid_g &= ~tangled_g
    if invalid_g.any():
        fixed = _polygonal_parts(_repair(g[invalid_g]))
        g = g.copy()
        g[invalid_g] = fixed
    geoms[is_geom] = g
    idx = np.flatnonzero(is_geom)
    not_poly[idx[not_poly_g]] = True
    repaired[idx[invalid_g]] = True
    nonfinite = np.zeros(n, bool)
    nonfinite[idx[nonfinite_g & ~not_poly_g]] = True
    tangled = np.zeros(n, bool)
    tangled[idx[tangled_g]] = True
    geoms[not_poly | tangled] = None
    return geoms, not_geom, not_poly, repaired, nonfinite, tangled


def _repair(bad: np.ndarray) -> np.ndarray:
    """Invalid geometries made valid: :func:`shapely.make_valid`, except that the parts
    of a MultiPolygon are repaired one by one and united, as pycocotools rasterizes the
    parts of a COCO segmentation (``make_valid`` of overlapping parts keeps their
    symmetric difference: the overlap would become a hole)."""
    fixed = np.empty(len(bad), dtype=object)
    multi = shapely.get_type_id(bad) == 6
    if (~multi).any():
        fixed[~multi] = shapely.make_valid(bad[~multi])
    if multi.any():
        parts, owner = shapely.get_parts(bad[multi], return_index=True)
        parts = _polygonal_parts(shapely.make_valid(parts))
        starts = np.searchsorted(owner, np.arange(int(multi.sum())))
        fixed[multi] = [shapely.union_all(group) for group in np.split(parts, starts[1:])]
    return fixed


def _nonfinite_geometries(g: np.ndarray) -> np.ndarray:
    """True where a geometry has a NaN or infinite coordinate (GEOS cannot repair or
    compare them); one vectorized pass over every coordinate."""
    out = np.zeros(len(g), bool)
    if len(g):
        xy, owner = shapely.get_coordinates(g, return_index=True)
        bad = ~np.isfinite(xy).all(axis=1)
        out[owner[bad]] = True
    return out


def _extreme_coordinates(box: np.ndarray, has_geom: np.ndarray) -> np.ndarray:
    """True where a finite shape is so large or so small that its area overflows or
    underflows float64 (``box`` holds the bounds of polygons)."""
    with np.errstate(invalid="ignore", over="ignore"):
        big = (np.abs(box) > MAX_COORDINATE).any(axis=1)
        w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
        tiny = (w > 0) & (h > 0) & (w * h < MIN_AREA)
    return np.isfinite(box).all(axis=1) & (big | tiny)


def _kind_boxes(df: pd.DataFrame, box: np.ndarray, has_geom: np.ndarray, non_numeric):
    """Fill ``box`` with the bounds (pixels) of the rows of parametric geometry kinds
    (:mod:`iaa_frames.geometry.kinds`: rows holding every column of a kind, and no
    polygon), and mark their non-numeric parameters in ``non_numeric``.

    Returns
    -------
    bad : ndarray of bool
        Rows whose parameters are no shape of the kind (:meth:`Kind.invalid`, zero area).
    partial : ndarray of bool
        Rows holding some of a kind's parameters but not all of them finite.
    own : ndarray of bool
        Rows of kinds with their own similarity (keypoints), whose box may be flat (one
        labelled joint): their kind alone says whether they are a shape.
    """
    n = len(df)
    bad, partial, own = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    for kind in parametric_kinds(df.columns):
        values, not_num = zip(*(_numeric(df[c]) for c in kind.columns))
        data = np.column_stack(values).reshape(n, len(kind.columns))
        non_numeric |= np.logical_or.reduce(not_num)
        complete = np.isfinite(data).all(axis=1) & ~has_geom
        partial |= ~has_geom & ~np.isnan(data).all(axis=1) & ~complete
        rows = np.flatnonzero(complete)
        if rows.size:
            box[rows] = kind.bounds(data[rows])
            bad[rows] = kind.invalid(data[rows])
            own[rows] = kind.own_similarity
    return bad, partial, own


def _too_long(values: pd.Series, limit: int = MAX_NAME_CHARS) -> np.ndarray:
    """True where a string value is longer than ``limit`` (:data:`MAX_NAME_CHARS`)."""
    if pd.api.types.is_string_dtype(values.dtype) and not values.dtype == object:
        return (values.str.len() > limit).fillna(False).to_numpy(dtype=bool)
    arr = values.to_numpy(dtype=object)
    long = np.frompyfunc(lambda v: isinstance(v, str) and len(v) > limit, 1, 1)
    return long(arr).astype(bool)


def reads_as_all(values: pd.Series) -> np.ndarray:
    r"""True where a name reads as the reserved :data:`ALL`: the same text once Unicode's
    compatibility forms are folded (NFKC: full-width letters and brackets), its invisible
    format characters (zero-width spaces, direction marks) removed and the spaces around
    it stripped. A report would show such a name as a second "(all)" row beside the real
    one. The distinct names are looked at, not the rows.

    Examples
    --------
    >>> reads_as_all(pd.Series(["(all)", " (all)\u200f", "\uff08all\uff09", "(ALL)", "( all )", None]))
    array([ True,  True,  True, False, False, False])
    """
    text = values if values.dtype == "str" else values.astype("str")
    hits = [n for n in pd.unique(text) if isinstance(n, str) and _folded(n) == ALL]
    if not hits:
        return np.zeros(len(values), dtype=bool)
    return (text.isin(hits) & values.notna()).to_numpy(dtype=bool)


def is_blank(values: pd.Series) -> np.ndarray:
    """True where a name is blank: ``""`` or only whitespace (``str.strip`` leaves nothing),
    as the readers' builder refuses it (:class:`iaa_frames.io.builder.FrameBuilder`). The
    distinct names are looked at, not the rows; missing values are not blank.

    Examples
    --------
    >>> is_blank(pd.Series(["a", "", "  ", "\t\u3000", None, " a "]))
    array([False,  True,  True,  True, False, False])
    """
    names = pd.Series(pd.unique(values))
    if pd.api.types.is_string_dtype(names) and len(names) > _LOOK_AT_ONCE:
        # a name holding an ASCII letter or digit is not blank: only the others, in
        # Python (at 1M boxes, 50,000 items: 14 ms against 44 ms, best of five)
        plain = names.str.contains(_ALNUM, regex=True, na=False).to_numpy(dtype=bool)
        names = names[~plain]
    hits = [n for n in names if isinstance(n, str) and not n.strip()]
    if not hits:
        return np.zeros(len(values), dtype=bool)
    return (values.isin(hits) & values.notna()).to_numpy(dtype=bool)


#: Distinct names from which :func:`is_blank` sets aside those with an ASCII letter or
#: digit (:data:`_ALNUM`) before looking at the rest one by one.
_LOOK_AT_ONCE = 1000
_ALNUM = r"[0-9A-Za-z]"


def _folded(name: str) -> str:
    """``name`` as :func:`reads_as_all` compares it."""
    if name == ALL or len(name) > 4 * MAX_NAME_CHARS:
        return name
    text = unicodedata.normalize("NFKC", name)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").strip()


def _reasons(df: pd.DataFrame, known: bool = False):
    """Compute the normalized columns and, per row, the code of the first failed check
    (``known``: the polygons need no check, :func:`_geometry`)."""
    n = len(df)
    masks: dict[str, np.ndarray] = {}
    item = identifier_column(df["item"], "item")
    masks["missing_item"] = item.isna().to_numpy()
    ann = _annotator_column(df["annotator"])
    ann_missing = ann.isna().to_numpy()
    masks["missing_annotator"] = ann_missing
    masks["non_string_annotator"] = ~ann_missing & ~_string_mask(ann)
    masks["reserved_annotator"] = reads_as_all(ann) & ~ann_missing
    masks["blank_name"] = is_blank(item) | is_blank(ann)

    if "x0" in df.columns:
        coords, non_numeric = zip(*(_numeric(df[c], kinds="bcmM") for c in BOX_COLUMNS))
        box = np.column_stack(coords)
        masks["non_numeric_coordinates"] = np.logical_or.reduce(non_numeric)
    else:
        box = np.full((n, 4), np.nan)
        masks["non_numeric_coordinates"] = np.zeros(n, bool)

    geoms, not_geom, not_poly, repaired, nonfinite_geom, tangled = _geometry(df, n, known)
    masks["not_a_geometry"] = not_geom
    masks["not_polygonal"] = not_poly
    masks["tangled_polygon"] = tangled
    has_geom = ~np.equal(geoms, None)
    if has_geom.any():
        box[has_geom] = shapely.bounds(geoms[has_geom])
        empty = np.zeros(n, bool)
        with np.errstate(over="ignore", invalid="ignore"):  # extreme_coordinates says so
            empty[has_geom] = shapely.area(geoms[has_geom]) <= 0
    else:
        empty = np.zeros(n, bool)

    kind_bad, kind_partial, flat_ok = _kind_boxes(
        df, box, has_geom, masks["non_numeric_coordinates"]
    )
    empty |= kind_bad
    finite = np.isfinite(box)
    all_nan = np.isnan(box).all(axis=1)
    no_box = ~has_geom & all_nan
    masks["nonfinite_coordinates"] = (
        (~has_geom & ~all_nan & ~finite.all(axis=1)) | nonfinite_geom | kind_partial
    )
    masks["extreme_coordinates"] = _extreme_coordinates(box, has_geom)
    with np.errstate(invalid="ignore"):
        masks["inverted_box"] = ~has_geom & ((box[:, 2] < box[:, 0]) | (box[:, 3] < box[:, 1]))
        masks["zero_area"] = empty | (
            ~has_geom & ~flat_ok & ((box[:, 2] == box[:, 0]) | (box[:, 3] == box[:, 1]))
        )

    label = identifier_column(df["label"], "label")
    label_missing = label.isna().to_numpy()
    masks["missing_geometry"] = no_box & ~label_missing
    masks["missing_label"] = ~no_box & label_missing
    label_str = label.astype("str")
    masks["reserved_label"] = reads_as_all(label_str) & ~label_missing
    masks["name_too_long"] = _too_long(label) | _too_long(ann) | _too_long(item, MAX_ITEM_CHARS)

    size = {}
    bad_size = np.zeros(n, bool)
    for c in ("width", "height"):
        if c in df.columns:
            vals, non_num = _numeric(df[c])
            with np.errstate(invalid="ignore"):
                bad_size |= non_num | (
                    ~np.isnan(vals) & ~((vals >= MIN_IMAGE_SIZE) & (vals <= MAX_IMAGE_SIZE))
                )
            size[c] = vals
        else:
            size[c] = np.full(n, np.nan)
    masks["invalid_image_size"] = bad_size

    obj = ~no_box
    if "object_id" in df.columns:
        oid = df["object_id"]
        oid_missing = oid.isna().to_numpy()
        masks["missing_object_id"] = obj & oid_missing
        masks["duplicate_object_id"] = ~oid_missing & oid.duplicated(keep=False).to_numpy()
    else:
        # generated ids number the objects; coverage rows have none (so that frames
        # concatenated from separately validated parts only clash on real objects)
        oid = pd.Series(pd.array(np.arange(n), dtype="Int64"), index=df.index).where(~no_box)
        masks["missing_object_id"] = np.zeros(n, bool)
        masks["duplicate_object_id"] = np.zeros(n, bool)

    code = np.zeros(n, dtype=np.int8)  # 0 = valid, k = _REASONS[k - 1]
    for k, reason in reversed(list(enumerate(_REASONS, start=1))):
        code[masks[reason]] = k
    columns = {
        "item": item,
        "annotator": ann,
        "label": label_str.where(~label_missing),
        "object_id": oid,
        **{c: box[:, j] for j, c in enumerate(BOX_COLUMNS)},
        "geometry": geoms,
        **size,
    }
    return columns, code, repaired


def group_column(frame: pd.DataFrame) -> pd.Series:
    """The ``group`` column as strings (integer ids as their decimal strings, like
    annotators), missing values kept; raises where an item is given two groups.

    An item's group is the one group its rows name (rows that name none, such as a
    coverage row without the column filled in, take it); an item none of whose rows
    names a group is a group of its own.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a", "a", "b"], "group": [1, None, 2]})
    >>> group_column(df).tolist()
    ['1', nan, '2']
    >>> group_column(pd.DataFrame({"item": ["a", "a"], "group": ["v1", "v2"]}))
    Traceback (most recent call last):
    ...
    iaa_frames.errors.InvalidAnnotationError: 1 item(s) in two or more groups: item 'a' (groups 'v1', 'v2'); an item belongs to one group (one video, scene or source image)
    """
    raw = _annotator_column(frame[GROUP])
    missing = raw.isna().to_numpy()
    not_str = ~missing & ~_string_mask(raw)
    if not_str.any():
        pos = np.flatnonzero(not_str)[:_MAX_LISTED]
        raise InvalidAnnotationError(
            f"{int(not_str.sum())} row(s) have a group that is neither a string nor an "
            "integer id: "
            + ", ".join(
                f"row {p} (item {frame['item'].iloc[p]!r}, group {raw.iloc[p]!r})" for p in pos
            )
        )
    group = raw.astype("str").where(~missing)
    named = ~missing
    item_code, items = pd.factorize(frame["item"].to_numpy(dtype=object)[named])
    group_code, groups = pd.factorize(group.to_numpy(dtype=object)[named])
    key = sorted_unique(item_code.astype(np.int64) * max(len(groups), 1) + group_code)
    owner = key // max(len(groups), 1)
    twice = np.flatnonzero(np.bincount(owner, minlength=len(items)) > 1)
    if len(twice):
        shown = []
        for i in twice[:_MAX_LISTED]:  # a few items, for the message
            names = sorted(map(str, groups[key[owner == i] % max(len(groups), 1)]))
            shown.append(f"item {items[i]!r} (groups {', '.join(map(repr, names))})")
        more = f" and {len(twice) - _MAX_LISTED} more" if len(twice) > _MAX_LISTED else ""
        raise InvalidAnnotationError(
            f"{len(twice)} item(s) in two or more groups: {'; '.join(shown)}{more}; an item "
            "belongs to one group (one video, scene or source image)"
        )
    return group


def _short(value, n: int = 60) -> str:
    """``repr(value)``, cut to about ``n`` characters (names may be huge)."""
    text = repr(value)
    size = len(value) if isinstance(value, str) else len(text)
    return text if len(text) <= n else f"{text[:n]}... ({size:,} chars)"


def _describe(df: pd.DataFrame, positions: np.ndarray, reasons: np.ndarray) -> str:
    lines = []
    for pos, reason in zip(positions[:_MAX_LISTED], reasons[:_MAX_LISTED]):
        row = df.iloc[pos]
        lines.append(
            f"  row {pos} (index {_short(df.index[pos])}, item {_short(row['item'])}, "
            f"annotator {_short(row['annotator'])}): {INVALID_REASONS[reason]}"
        )
    if len(positions) > _MAX_LISTED:
        lines.append(f"  ... and {len(positions) - _MAX_LISTED} more")
    return "\n".join(lines)


def check(df: pd.DataFrame) -> ValidationResult:
    """Split a frame into its valid, normalized rows and its invalid rows, without raising.

    Use this to inspect what :func:`validate` would drop. Only a frame-level problem (a
    missing required column) raises.

    Parameters
    ----------
    df : pandas.DataFrame
        Annotations, one row per object plus coverage rows (see :func:`validate`).

    Returns
    -------
    ValidationResult
        ``frame`` (valid rows, normalized), ``dropped`` (invalid rows with a ``reason``
        column; the frame's own ``reason`` column, if any, is kept there as
        ``user_reason``), ``repaired`` (number of polygons repaired) and ``counts`` (rows
        per reason).

    Raises
    ------
    SchemaError
        If ``df`` is not a DataFrame or lacks a required column.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": ["a", "a"], "annotator": ["x", "y"], "label": ["cat", "cat"],
    ...                    "x0": [0, 5], "y0": [0, 0], "x1": [2, 1], "y1": [2, 2]})
    >>> res = check(df)
    >>> len(res.frame), res.counts
    (1, {'inverted_box': 1})
    """
    return _check(df)[0]


def _with_extras(out: pd.DataFrame, df: pd.DataFrame, extras: list) -> pd.DataFrame:
    """``out`` with the extra columns of ``df`` appended, all at once (one column at a
    time costs a copy of the frame per column)."""
    if not extras:
        return out
    rest = df[extras].reset_index(drop=True)  # one selection of blocks, not per column
    joined = pd.concat([out.reset_index(drop=True), rest], axis=1)
    joined.index = df.index
    return joined


def _fill_item_sizes(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows without width/height beside rows with them (one annotator's export carried no
    image size) would compare pixel with normalized coordinates. Within an item whose rows
    agree on one size, the rows without it get that size (it is the same image), with an
    :class:`~iaa_frames.errors.IAAWarning`; items whose objects have no size at all beside
    sized items are left as they are, with a warning saying how to fix them."""
    w = frame["width"].to_numpy(dtype="float64", na_value=np.nan)
    h = frame["height"].to_numpy(dtype="float64", na_value=np.nan)
    known = ~np.isnan(w) & ~np.isnan(h)
    objects = frame["x0"].notna().to_numpy()
    if known[objects].all() or not known.any():
        return frame
    codes, names = pd.factorize(frame["item"], use_na_sentinel=False)
    n_items = len(names)
    first_w = np.full(n_items, np.nan)
    first_h = np.full(n_items, np.nan)
    first_w[codes[known][::-1]] = w[known][::-1]  # the first known size of each item
    first_h[codes[known][::-1]] = h[known][::-1]
    differs = known & ((w != first_w[codes]) | (h != first_h[codes]))
    consistent = np.bincount(codes[differs], minlength=n_items) == 0
    fill = objects & ~known & consistent[codes] & ~np.isnan(first_w[codes])
    if fill.any():
        w, h = w.copy(), h.copy()
        w[fill], h[fill] = first_w[codes[fill]], first_h[codes[fill]]
        frame = frame.assign(width=w, height=h)
        who = sorted(map(str, pd.unique(frame["annotator"].to_numpy()[fill])))
        warnings.warn(
            IAAWarning(
                f"{int(fill.sum()):,} row(s) had no width/height (annotator(s) "
                f"{', '.join(who[:_MAX_LISTED])}{' ...' if len(who) > _MAX_LISTED else ''}); "
                "they were given the image size of the other rows of the same item"
            ),
            stacklevel=4,
        )
        known = known | fill
    sized = np.bincount(codes[known & objects], minlength=n_items) > 0
    has_objects = np.bincount(codes[objects], minlength=n_items) > 0
    unsized = has_objects & ~sized
    if unsized.any() and sized.any():
        examples = ", ".join(_short(v) for v in names[unsized][:_MAX_LISTED])
        warnings.warn(
            IAAWarning(
                f"{int(unsized.sum()):,} item(s) have no width/height ({examples}) while "
                f"{int(sized.sum()):,} have: their coordinates are compared in pixels, the "
                "others' normalized by the image size, so chance pairs across them mix "
                "scales; give every item its size (width and height columns, or "
                "--image-sizes for YOLO), or drop the width and height columns"
            ),
            stacklevel=4,
        )
    return frame


def _has_bad_text(df: pd.DataFrame) -> bool:
    """Whether an identifier column holds text that is not valid Unicode, or a NUL
    character (netCDF, C strings and file names end a name there): one UTF-8 encoding of
    the column's distinct values joined, not one per row."""
    for col in ("item", "annotator", "label"):
        if col not in df.columns:
            continue
        dtype = df[col].dtype
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
            # Arrow strings are valid UTF-8 by construction; a NUL is a zero byte of their
            # data, looked for in the buffers at once (bytes past a slice's end may hold
            # one: the strings are then looked at)
            chunks = df[col].array.__arrow_array__().chunks
            if any(_may_hold_nul(c) for c in chunks) and (
                df[col].str.contains("\0", regex=False).fillna(False).any()
            ):
                return True
            continue
        text = "\n".join(map(str, pd.unique(df[col].to_numpy(dtype=object))))
        if "\0" in text:
            return True
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
    return False


def _may_hold_nul(chunk) -> bool:
    """Whether an Arrow string array's data buffer holds a zero byte (True for a layout
    other than validity, offsets and data: its strings are then looked at)."""
    buffers = chunk.buffers()
    if len(buffers) != 3:
        return True
    return buffers[2] is not None and memoryview(buffers[2]).tobytes().find(0) >= 0


def _bad_text(df: pd.DataFrame) -> str:
    """Where the identifiers hold text that is not valid Unicode (a lone surrogate, which
    pandas' string columns refuse), as an error message; looked for only after it failed."""
    for col in ("item", "annotator", "label"):
        for pos, v in enumerate(df[col].to_numpy(dtype=object)):
            if isinstance(v, str) and "\0" in v:
                return (
                    f"row {pos} (index {_short(df.index[pos])}): the {col} {_short(v)} holds "
                    "a NUL character, which ends a name in netCDF files and C strings (two "
                    "names would read as one); remove it"
                )
            if isinstance(v, str):
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return (
                        f"row {pos} (index {_short(df.index[pos])}): the {col} {_short(v)} holds "
                        "a lone surrogate, which is not valid Unicode; fix the text "
                        "(e.g. s.encode('utf-8', 'replace').decode())"
                    )
    return "a value of the frame is not valid Unicode (a lone surrogate)"


def _with_reason(rows: pd.DataFrame, reason: np.ndarray) -> pd.DataFrame:
    """``rows`` with the ``reason`` column of :attr:`ValidationResult.dropped`; a column of
    the user's named ``reason`` is not overwritten but kept, renamed ``user_reason``
    (``user_reason_2``, ... when that name is taken too), beside it.

    Examples
    --------
    >>> rows = pd.DataFrame({"item": ["a"], "reason": ["occluded"]})
    >>> _with_reason(rows, np.array(["inverted_box"], dtype=object))
      item user_reason        reason
    0    a    occluded  inverted_box
    """
    if REASON in rows.columns:
        taken = {str(c) for c in rows.columns}
        name, k = USER_REASON, 1
        while name in taken:
            k += 1
            name = f"{USER_REASON}_{k}"
        rows = rows.rename(columns={REASON: name})
    return rows.assign(**{REASON: reason})


def _check(df: pd.DataFrame) -> tuple[ValidationResult, np.ndarray]:
    """:func:`check`, plus the positions of the invalid rows."""
    if isinstance(df, pd.DataFrame) and known_valid(df):  # unchanged since validated
        return _validated_again(df), np.zeros(0, dtype=np.intp)
    _schema(df)
    for col in ("item", "annotator", "label"):  # before anything hashes a list (a group
        _refuse_containers(df[col], col)  # that is no name is an invalid annotation)
    if _has_bad_text(df):  # pandas without pyarrow stores lone surrogates without a word
        raise InvalidAnnotationError(_bad_text(df))
    given = df
    known = polygons_known_valid(df)  # a validated frame's polygons, not checked again
    df = geometries_as_kinds(df)  # LineString, Point, MultiPoint: the kinds that hold them
    try:
        columns, code, repaired = _reasons(df, known)
    except UnicodeEncodeError:
        raise InvalidAnnotationError(_bad_text(df)) from None
    extras = [c for c in df.columns if c not in _FRONT]
    out = _with_extras(pd.DataFrame(columns, index=df.index), df, extras)
    bad = code > 0
    reason = np.array(_REASONS, dtype=object)[code[bad] - 1] if bad.any() else np.array([], object)
    dropped = _with_reason(df.loc[bad] if bad.any() else df.iloc[:0], reason)
    frame = out.loc[~bad] if bad.any() else out
    # two columns converted: frame.astype({...}) walks every column of a wide frame
    frame = frame.assign(
        annotator=frame["annotator"].astype("str"), label=frame["label"].astype("str")
    )
    if GROUP in frame.columns:
        frame[GROUP] = group_column(frame)
    frame = _fill_item_sizes(frame)
    counts = pd.Series(reason).value_counts().to_dict() if bad.any() else {}
    n_repaired = int(repaired[~bad].sum())
    frame.attrs = _attrs(df, frame, counts, n_repaired)
    if remember(frame) and not known and not bad.any() and "geometry" in given.columns:
        passed = frame["geometry"].to_numpy(dtype=object)
        if same_objects(given["geometry"].to_numpy(dtype=object), passed):
            remember_polygons(given)  # its polygons passed as they are
    result = ValidationResult(
        frame=frame,
        dropped=dropped,
        repaired=n_repaired,
        counts={str(k): int(v) for k, v in counts.items()},
    )
    return result, np.flatnonzero(bad)


def _attrs(given: pd.DataFrame, frame: pd.DataFrame, counts: dict, n_repaired: int) -> dict:
    """The ``attrs`` of a validated frame: the rows dropped per reason, the polygons
    repaired and the attribute columns a reader or the simulator declared (those kept)."""
    attrs = {"iaa_dropped": {str(k): int(v) for k, v in counts.items()}, "iaa_repaired": n_repaired}
    kept = [c for c in given.attrs.get("iaa_attributes") or () if c in frame.columns]
    if kept:
        attrs["iaa_attributes"] = kept
    return attrs


def _validated_again(df: pd.DataFrame) -> ValidationResult:
    """What validating a frame that a validation returned, unchanged since
    (:func:`~iaa_frames.frame.known_valid.known_valid`), gives: the frame as it is (a
    shallow copy), nothing dropped, nothing repaired, every check skipped (1M boxes:
    54-59 ms instead of 0.37 s)."""
    frame = df.copy(deep=False)
    frame.attrs = _attrs(df, frame, {}, 0)
    remember(frame)
    dropped = _with_reason(df.iloc[:0], np.array([], dtype=object))
    return ValidationResult(frame=frame, dropped=dropped, repaired=0, counts={})


def validate(df: pd.DataFrame, *, on_invalid: str = "raise") -> pd.DataFrame:
    """Check a tidy annotation frame and return a normalized copy.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per drawn object, with columns ``item``, ``annotator``, ``label`` and either
        the box corners ``x0, y0, x1, y1`` (pixels, x0 < x1, y0 < y1) or a shapely
        ``geometry`` (Polygon or MultiPolygon), or both (mixed frames). Optional: ``width``
        and ``height`` (image size, used to normalize distances) and ``object_id``. A row
        with no label and no shape is a *coverage row*: the annotator reviewed the item and
        drew nothing. A ``geometry`` that is a ``LineString``, a ``Point`` or a
        ``MultiPoint`` is read as a shape of the kind ``polyline``, ``point`` or
        ``point_set`` (its columns filled, its ``geometry`` None;
        :mod:`iaa_frames.geometry.kinds.polyline`, :mod:`~iaa_frames.geometry.kinds.point`).
        Optional ``group``: the group of the item (video, sequence, scene,
        patient, source image of an augmentation; see :func:`group_column`): chance
        pairings never join two items of one group. Other columns are carried through
        untouched.
    on_invalid : {"raise", "drop"}, default "raise"
        What to do with rows that cannot be used. ``"raise"`` raises
        :class:`~iaa_frames.errors.InvalidAnnotationError` naming the rows and reasons;
        ``"drop"`` drops them and issues a :class:`~iaa_frames.errors.DroppedRowsWarning`
        whose ``counts`` and ``dropped`` attributes hold the counts per reason and the
        dropped rows. :func:`check` returns the same split without warning.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, annotator, label, object_id, x0, y0, x1, y1, geometry, width,
        height`` first, then the extra columns. Box columns are float64 and hold the bounds
        of polygons; ``geometry`` holds polygons and ``None`` for plain boxes and coverage
        rows; ``width``/``height`` are NaN when unknown; ``object_id`` is generated
        (``0..n-1``) when absent; ``annotator`` and ``label`` are strings (non-string labels
        are converted; integer annotator ids, such as ``pd.read_csv`` gives for a column of
        user ids, become their decimal strings, ``7`` and ``7.0`` both ``"7"``; other
        non-string annotators are invalid). Invalid polygons are repaired with :func:`shapely.make_valid`
        (a :class:`~iaa_frames.errors.RepairedGeometryWarning` counts them). The original
        index is kept. ``attrs["iaa_dropped"]`` and ``attrs["iaa_repaired"]`` record the
        counts; ``attrs["iaa_attributes"]`` (the attribute columns, see
        :func:`iaa_frames.attribute_agreement`) is kept. Validating a validated frame
        returns an equal frame: without any check while the frame is unchanged since its
        validation, without the check of its polygons while its geometry column holds the
        same objects (:mod:`iaa_frames.frame.known_valid`).

    Raises
    ------
    SchemaError
        If a required column is missing.
    InvalidAnnotationError
        If ``on_invalid="raise"`` and some row is invalid (see :data:`INVALID_REASONS`);
        whatever ``on_invalid``, if an item is given two groups.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": ["a", "a", "b"], "annotator": ["x", "y", "x"],
    ...                    "label": ["cat", "cat", None],
    ...                    "x0": [0, 1, None], "y0": [0, 1, None],
    ...                    "x1": [10, 11, None], "y1": [10, 11, None]})
    >>> out = validate(df)
    >>> out[["item", "annotator", "label", "x0", "object_id"]]
      item annotator label   x0  object_id
    0    a         x   cat  0.0          0
    1    a         y   cat  1.0          1
    2    b         x   NaN  NaN       <NA>
    """
    if on_invalid not in ("raise", "drop"):
        raise ParameterError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
    res, bad_positions = _check(df)
    if res.counts:
        summary = ", ".join(f"{k}: {v}" for k, v in res.counts.items())
        if on_invalid == "raise":
            raise InvalidAnnotationError(
                f"{len(res.dropped)} invalid row(s) ({summary}):\n"
                + _describe(df, bad_positions, res.dropped["reason"].to_numpy())
                + "\nDrop them first with df = iaa_frames.validate(df, on_invalid='drop') (a warning "
                "counts them), or inspect them with iaa_frames.check(df)."
            )
        warnings.warn(
            DroppedRowsWarning(
                f"dropped {len(res.dropped)} invalid row(s) ({summary}); "
                "the warning's .dropped attribute (or iaa_frames.check(df).dropped) holds them",
                counts=res.counts,
                dropped=res.dropped,
            ),
            stacklevel=2,
        )
    if res.repaired:
        warnings.warn(
            RepairedGeometryWarning(
                f"repaired {res.repaired} invalid polygon(s) with shapely.make_valid"
            ),
            stacklevel=2,
        )
    return res.frame
