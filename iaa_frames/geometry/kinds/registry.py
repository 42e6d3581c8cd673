# Over 400 lines: the Kind base class is the contract every geometry kind implements (IoU
# terms, bounds, the optional own similarity and reach, the volume bounds of 3D kinds), kept
# in one place with the registry functions so that a new kind reads one file.
"""The registry of geometry kinds: :class:`Kind`, :func:`register_kind`, :func:`get_kind`.

A *kind* is one way of drawing an object (a box, a polygon, a pixel mask, a circle, ...).
It says, in one place, how its rows of a tidy frame are read and normalized, how it is
bounded, how much area it covers and shares with another shape of its kind, and how it is
turned into polygons (for pairs with other kinds, convex hulls and rasterization). Every
method takes the data of *many* shapes at once, as arrays (shapely-2 style), never one
shape per call: they run on the hot paths of the matcher and the chance index.

Two kinds are *native*: boxes and polygons, which
:class:`~iaa_frames.geometry.shapes.Shapes` stores in its own fields (``boxes``,
``polygons``) and measures with the numpy and shapely code of :mod:`iaa_frames.geometry`.
Every other kind is *parametric*: a fixed number of floats per shape, read from frame
columns the kind names (:attr:`Kind.columns`), carried by ``Shapes.params`` and measured by
the kind's own methods. Whatever the kind, a shape has a bounding box (the ``x0, y0, x1,
y1`` of the frame and ``Shapes.boxes``): the chance index, the sweep of overlapping
pairs and the IoU upper bounds of the matcher use only boxes and areas, so a new kind gets
them for free.

Examples
--------
>>> available_kinds()[:3]
['box', 'polygon', 'mask']
>>> get_kind("box").native
True
>>> get_kind("ellipse")
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: unknown geometry kind 'ellipse'; the registered kinds are box, polygon, mask, keypoints, cuboid, cuboid_2d, point, point_set, polyline, segment, volume (register one with iaa_frames.geometry.kinds.register_kind)
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

__all__ = [
    "FRAME_COLUMNS",
    "Kind",
    "available_kinds",
    "geometries_as_kinds",
    "get_kind",
    "kind_of_rows",
    "parametric_kinds",
    "register_kind",
    "similarity_settings",
    "unregister_kind",
]


class Kind:
    """A kind of annotated shape: how it is read, bounded, measured and rasterized.

    Subclass it, set :attr:`name` and :attr:`columns`, implement :meth:`bounds`,
    :meth:`areas` and :meth:`intersection` (and :meth:`to_polygons` if the kind can be
    drawn as polygons), and register an instance (:func:`register_kind`). Every method
    takes the data of ``m`` shapes at once: for a parametric kind an ``(m, k)`` float64
    array, one row of :attr:`columns` per shape, in the frame's units (pixels) before
    :meth:`normalize` and in normalized image units after.

    Attributes
    ----------
    name : str
        The registry name.
    columns : tuple of str
        The frame columns holding the kind's parameters, one float each. A row of a frame
        is of this kind when all of them are present (not NaN).
    native : bool
        True for the kinds :class:`~iaa_frames.geometry.shapes.Shapes` stores in its own
        fields (``box``, ``polygon``); False for parametric kinds.
    description : str
        One line for listings.

    Examples
    --------
    The toy kind of the tests, circles ``(cx, cy, r)``, in a few lines:

    >>> import numpy as np, shapely
    >>> class Circles(Kind):
    ...     name, columns = "circle_example", ("cx", "cy", "r")
    ...     def bounds(self, p):
    ...         return np.column_stack([p[:, 0] - p[:, 2], p[:, 1] - p[:, 2],
    ...                                 p[:, 0] + p[:, 2], p[:, 1] + p[:, 2]])
    ...     def areas(self, p):
    ...         return np.pi * p[:, 2] ** 2
    ...     def intersection(self, pa, pb):  # discs as polygons, for the example
    ...         return shapely.area(shapely.intersection(self.to_polygons(pa),
    ...                                                  self.to_polygons(pb)))
    ...     def to_polygons(self, p):
    ...         return shapely.buffer(shapely.points(p[:, :2]), p[:, 2], quad_segs=64)
    >>> kind = Circles()
    >>> kind.bounds(np.array([[2.0, 3.0, 1.0]])).tolist()
    [[1.0, 2.0, 3.0, 4.0]]
    >>> kind.normalize(np.array([[10.0, 10.0, 5.0]]), np.array([10.0]), np.array([10.0])).tolist()
    [[1.0, 1.0, 0.5]]
    """

    name: str = ""
    columns: tuple[str, ...] = ()
    native: bool = False
    description: str = ""
    #: Shapely geometry types (``"LineString"``, ``"Point"``, ...) that
    #: :func:`iaa_frames.validate` reads from the ``geometry`` column as shapes of this
    #: kind (:meth:`from_geometries`); none by default.
    geometry_types: tuple[str, ...] = ()
    #: The frame column holding each shape's variable-length integer data besides its
    #: floats (an array per row: a volume's voxel runs), or None (the default). Read into
    #: a :class:`~iaa_frames.geometry.kinds.ragged.Ragged` that travels with the shapes
    #: (``Shapes.payloads``); a kind with a payload is handed it by the measures that
    #: need it: ``intersection(data_a, data_b, payload_a, payload_b)`` and
    #: :meth:`translate_payload`.
    payload: str | None = None

    # -- reading ----------------------------------------------------------------------

    def rows(self, frame) -> np.ndarray:
        """Which rows of a frame are of this kind: those with every column of
        :attr:`columns` present (a bool array; all False when a column is missing)."""
        if not self.columns or any(c not in frame.columns for c in self.columns):
            return np.zeros(len(frame), dtype=bool)
        return np.isfinite(self.read(frame)).all(axis=1)

    def read(self, frame) -> np.ndarray:
        """The parameters of every row of ``frame``, ``(len(frame), k)`` float64 (NaN on
        rows of other kinds)."""
        return np.column_stack(
            [frame[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in self.columns]
        ).reshape(len(frame), len(self.columns))

    def read_payload(self, frame):
        """The :attr:`payload` of every row of ``frame``, a
        :class:`~iaa_frames.geometry.kinds.ragged.Ragged` (empty rows where the column is
        missing or null)."""
        from .ragged import Ragged

        if self.payload is None or self.payload not in frame.columns:
            return Ragged.empty(len(frame))
        return Ragged.from_arrays(frame[self.payload].to_numpy(dtype=object))

    def normalize(self, data: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
        """The shapes with x divided by ``sx`` and y by ``sy`` (one scale per shape).

        The default suits parameters that are all lengths of a shape that scales
        uniformly: it requires ``sx == sy`` on every shape and divides every parameter by
        it. Override it for parameters that are x or y coordinates of anisotropic shapes.

        Raises
        ------
        ParameterError
            Where ``sx != sy``: the shape would change kind (a circle an ellipse).
        """
        sx, sy = np.asarray(sx, dtype=np.float64), np.asarray(sy, dtype=np.float64)
        if np.any(sx != sy):
            raise ParameterError(
                f"geometry kind {self.name!r} cannot be normalized by an image of unequal "
                "width and height (its shapes would change kind); give square images, "
                "no width/height, or override Kind.normalize"
            )
        return data / sx[:, None]

    def invalid(self, data: np.ndarray) -> np.ndarray:
        """Rows whose parameters cannot be a shape (bool array): by default those with a
        non-finite parameter or whose area is not positive. :func:`iaa_frames.validate`
        drops or reports them."""
        bad = ~np.isfinite(data).all(axis=1)
        with np.errstate(invalid="ignore"):
            bad[~bad] = ~(self.areas(data[~bad]) > 0)
        return bad

    def from_geometries(self, geometries) -> np.ndarray:
        """``(m, k)`` parameters (the frame's units) of shapely geometries of one of
        :attr:`geometry_types`; NaN rows for those that are no shape of the kind."""
        raise NotImplementedError(f"geometry kind {self.name!r} reads no geometries")

    # -- measuring ----------------------------------------------------------------------

    def bounds(self, data) -> np.ndarray:
        """``(m, 4)`` bounding boxes ``x0, y0, x1, y1`` of the shapes.

        The matcher, the chance index and the sweep of overlapping pairs rely on a
        contract: every shape lies in its box, two shapes whose boxes are disjoint share
        nothing (IoU 0), and the area two shapes share is at most the area of their
        boxes' intersection and either shape's :meth:`areas`."""
        raise NotImplementedError(f"geometry kind {self.name!r} defines no bounds")

    def areas(self, data) -> np.ndarray:
        """``(m,)`` exact areas."""
        raise NotImplementedError(f"geometry kind {self.name!r} defines no areas")

    def intersection(self, data_a, data_b) -> np.ndarray:
        """``(m,)`` exact area shared by each pair of two shapes of this kind."""
        raise NotImplementedError(f"geometry kind {self.name!r} defines no intersection")

    def shared_bound(self, data_a, data_b, planar) -> np.ndarray:
        """``(m,)`` upper bound of the :meth:`intersection` of each pair, given ``planar``,
        an upper bound of the area their bounding boxes share (what the matcher and the
        chance index compute from boxes alone). ``planar`` itself by default; a kind whose
        "area" is not an area of the plane (the volume of a cuboid) converts it."""
        return planar

    def giou_terms(self, data_a, data_b, union):
        """GIoU's enclosing measure ``C`` and the union ``U'`` of its penalty ``(C - U') /
        C`` for pairs of two shapes of this kind, or None (the default) for the convex
        hulls of :meth:`to_polygons` (:func:`iaa_frames.geometry.giou.hull_terms`)."""
        return None

    def to_polygons(self, data) -> np.ndarray:
        """``(m,)`` object array of shapely polygons drawing the shapes.

        Used for the pairs of this kind with another kind (their overlay), the convex
        hulls of GIoU, centroids, Hausdorff distances and rasterization. A kind that
        cannot be drawn as polygons leaves it unimplemented: those then raise."""
        raise ParameterError(
            f"geometry kind {self.name!r} cannot be drawn as polygons: its shapes can only "
            "be compared with shapes of the same kind, with IoU-based distances"
        )

    # -- a similarity of its own (keypoints: OKS) -------------------------------------
    def similarity(self, data_a, data_b) -> np.ndarray:
        """``(m,)`` similarity in [0, 1] of pairs (1: equal) that the matcher gates by and
        IoU-based distances use; default the IoU (computed by the engine's IoU path). An
        override (:attr:`own_similarity`) is cheap for every pair :meth:`reach` lets
        through, and is 0 with shapes of other kinds."""
        inter = np.asarray(self.intersection(data_a, data_b), dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return inter / (self.areas(data_a) + self.areas(data_b) - inter)

    @property
    def own_similarity(self) -> bool:
        """True when the kind overrides :meth:`similarity` (scored by it, not IoU)."""
        return type(self).similarity is not Kind.similarity

    def reach(self, data, tau: float) -> np.ndarray:
        """``(m,)`` margins: shapes reach :meth:`similarity` ``>= tau > 0`` only if their
        boxes grown by them meet (sweeps, chance index). Default 0 (IoU: boxes overlap)."""
        return np.zeros(len(data))

    # -- aligned chance units (iaa_frames.core.chance.aligned) ------------------------------

    #: How an unrelated shape of this kind is placed in another's frame to form an
    #: *aligned* chance unit (:mod:`iaa_frames.core.chance.aligned`): ``"translate"`` (moved by
    #: :meth:`translate` to a random offset near the other shape), ``"box"`` (mapped into
    #: the other shape's bounding box by :meth:`fit_to_boxes`), or None (the default for
    #: a kind that implements neither: it gets no aligned units).
    chance_alignment: str | None = None

    def translate(self, data, dx, dy):
        """The shapes moved by ``(dx[i], dy[i])`` in the plane of their bounding boxes
        (so that their :meth:`bounds` move by as much, and their :meth:`areas` and shape
        do not change), or None when the kind cannot be translated (the default).

        Parameters
        ----------
        data : ndarray, shape (m, k)
            Parameters, normalized units.
        dx, dy : ndarray of float64, shape (m,)

        Returns
        -------
        ndarray of shape (m, k), or None
        """
        return None

    def translate_payload(self, payload, dx, dy):
        """The :attr:`payload` of shapes moved by ``(dx[i], dy[i])`` as :meth:`translate`
        moves their floats (a :class:`~iaa_frames.geometry.kinds.ragged.Ragged` of as
        many rows); by default unchanged."""
        return payload

    def fit_to_boxes(self, data, boxes):
        """The shapes scaled (x and y apart) and moved so that their :meth:`bounds`
        become ``boxes`` (``(m, 4)``), their scale (:meth:`areas`) scaled likewise; None
        when the kind cannot (the default)."""
        return None

    def centroids(self, data) -> np.ndarray:
        """``(m, 2)`` centroids; by default those of :meth:`to_polygons`."""
        import shapely

        c = shapely.centroid(self.to_polygons(data))
        return np.column_stack([shapely.get_x(c), shapely.get_y(c)])

    def __repr__(self) -> str:
        return f"<geometry kind {self.name!r}>"


_KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind, *, overwrite: bool = False) -> Kind:
    """Register a geometry kind under ``kind.name``.

    Parameters
    ----------
    kind : Kind
        An instance of a subclass of :class:`Kind`, with a name and, unless native, its
        columns.
    overwrite : bool, default False
        Replace a kind of that name instead of raising (the native kinds cannot be
        replaced).

    Returns
    -------
    Kind

    Raises
    ------
    ParameterError
        If ``kind`` is not a :class:`Kind`, has no name or no columns, its columns are
        those of the tidy frame, another kind uses one of them, or the name is taken.

    Examples
    --------
    >>> class Dots(Kind):
    ...     name, columns = "dot_example", ("dot_x", "dot_y", "dot_r")
    >>> register_kind(Dots(), overwrite=True)
    <geometry kind 'dot_example'>
    >>> register_kind(Dots())
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: geometry kind 'dot_example' is already registered; pass overwrite=True to replace it
    >>> unregister_kind("dot_example")
    """
    if not isinstance(kind, Kind):
        raise ParameterError(f"register_kind needs a Kind; got {type(kind).__name__}")
    name = kind.name
    if not isinstance(name, str) or not name:
        raise ParameterError(f"a geometry kind needs a non-empty name; got {name!r}")
    old = _KINDS.get(name)
    if old is not None and (not overwrite or old.native):
        raise ParameterError(
            f"geometry kind {name!r} is already registered"
            + ("; the native kinds cannot be replaced" if old.native else "")
            + ("" if old.native else "; pass overwrite=True to replace it")
        )
    if not kind.native:
        columns = tuple(kind.columns)
        if not columns or not all(isinstance(c, str) and c for c in columns):
            raise ParameterError(
                f"geometry kind {name!r} needs its frame columns (Kind.columns, a tuple of "
                f"names); got {kind.columns!r}"
            )
        if kind.payload is not None:
            columns = (*columns, kind.payload)
        reserved = set(columns) & FRAME_COLUMNS
        if reserved:
            raise ParameterError(
                f"geometry kind {name!r}: the columns {sorted(reserved)} belong to the tidy frame"
            )
        for other in _KINDS.values():
            shared = set(columns) & {*other.columns, other.payload}
            if other.name != name and shared:
                raise ParameterError(
                    f"geometry kind {name!r}: the columns {sorted(shared)} are those of the "
                    f"kind {other.name!r}"
                )
    _KINDS[name] = kind
    return kind


def unregister_kind(name: str) -> None:
    """Remove a parametric kind from the registry (the native kinds stay).

    Raises
    ------
    ParameterError
        For an unknown name or a native kind.
    """
    kind = get_kind(name)
    if kind.native:
        raise ParameterError(f"the built-in geometry kind {name!r} cannot be removed")
    del _KINDS[name]


def get_kind(name: str) -> Kind:
    """The registered kind called ``name``.

    Raises
    ------
    ParameterError
        For an unknown name; the message lists the registered kinds.

    Examples
    --------
    >>> get_kind("polygon").columns
    ('geometry',)
    """
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"unknown geometry kind {name!r}; the registered kinds are "
            f"{', '.join(available_kinds())} (register one with "
            "iaa_frames.geometry.kinds.register_kind)"
        ) from None


def available_kinds() -> list[str]:
    """Names of the registered kinds, in registration order (the built-ins first).

    Examples
    --------
    >>> "polygon" in available_kinds()
    True
    """
    return list(_KINDS)


def parametric_kinds(columns=None) -> list[Kind]:
    """The registered parametric kinds; with ``columns``, those whose every column is
    among them (the kinds a frame with those columns can hold).

    Examples
    --------
    >>> parametric_kinds(["x0", "y0", "x1", "y1"])
    []
    """
    kinds = [k for k in _KINDS.values() if not k.native and k.columns]
    if columns is None:
        return kinds
    have = set(columns)
    return [k for k in kinds if set(k.columns) <= have]


def similarity_settings() -> list:
    """The settings the registered kinds' own similarities depend on besides the data
    (a keypoints kind's constants, flip pairs and ``mirror_aware``: its
    ``similarity_settings()``), for the keys of cached results: a result computed under
    other settings is not reused.

    Examples
    --------
    >>> [name for name, _ in similarity_settings()][:1]
    ['keypoints']
    """
    return [
        (k.name, k.similarity_settings())
        for k in parametric_kinds()
        if hasattr(k, "similarity_settings")
    ]


def kind_of_rows(frame) -> np.ndarray:
    """The kind of every row of a tidy frame, by name (``""`` on coverage rows).

    A row is a ``polygon`` when its ``geometry`` is a shapely geometry; otherwise of a
    parametric kind when it holds all the kind's columns; otherwise a ``box`` when it has
    box coordinates (the order :func:`iaa_frames.validate` and
    :meth:`~iaa_frames.geometry.shapes.Shapes.from_frame` follow). (Masks are read as the exact polygons of their pixels, so they are
    ``polygon`` rows here; :mod:`iaa_frames.geometry.kinds.mask` says how they are read
    and measured.)

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    numpy.ndarray of object, shape (len(frame),)

    Examples
    --------
    >>> import pandas as pd, shapely
    >>> df = pd.DataFrame({"x0": [0.0, 1.0, None], "y0": [0.0, 1.0, None],
    ...                    "x1": [1.0, 2.0, None], "y1": [1.0, 2.0, None],
    ...                    "geometry": [None, shapely.box(1, 1, 2, 2), None]})
    >>> kind_of_rows(df).tolist()
    ['box', 'polygon', '']
    """
    import shapely

    n = len(frame)
    out = np.full(n, "", dtype=object)
    if "x0" in frame.columns:
        out[frame["x0"].notna().to_numpy()] = "box"
    for kind in parametric_kinds(frame.columns):
        out[kind.rows(frame)] = kind.name
    if "geometry" in frame.columns:
        out[shapely.is_geometry(frame["geometry"].to_numpy(dtype=object))] = "polygon"
    return out


def geometries_as_kinds(frame):
    """``frame`` with the shapely geometries of the ``geometry`` column that a kind claims
    (:attr:`Kind.geometry_types`: a ``LineString`` is a ``polyline``, a ``Point`` a
    ``point``, a ``MultiPoint`` a ``point_set``) moved into that kind's columns, their
    ``geometry`` None; the frame itself when there is none. Geometries the kind cannot
    hold (a line of one point) stay, for :func:`iaa_frames.validate` to report.

    Examples
    --------
    >>> import pandas as pd, shapely
    >>> df = pd.DataFrame({"geometry": [shapely.Point(3, 4), shapely.box(0, 0, 1, 1)]})
    >>> out = geometries_as_kinds(df)
    >>> out[["pt_x", "pt_y"]].to_numpy().tolist(), out["geometry"].iloc[0] is None
    ([[3.0, 4.0], [nan, nan]], True)
    """
    import pandas as pd
    import shapely

    claims = {}
    for kind in _KINDS.values():
        for t in kind.geometry_types:
            claims.setdefault(t, kind)
    if not claims or "geometry" not in frame.columns:
        return frame
    geoms = frame["geometry"].to_numpy(dtype=object)
    is_geom = shapely.is_geometry(geoms)
    if not is_geom.any():
        return frame
    types = shapely.get_type_id(np.where(is_geom, geoms, None))  # -1: no geometry
    names = {shapely.GeometryType[t.upper()].value: t for t in claims}
    out, columns = None, {}
    for type_id, t in names.items():
        rows = np.flatnonzero(types == type_id)
        if not rows.size:
            continue
        kind = claims[t]
        params = np.asarray(kind.from_geometries(geoms[rows]), dtype=np.float64)
        ok = np.isfinite(params).all(axis=1)
        if not ok.any():
            continue
        if out is None:
            out = frame.copy()
            geoms = geoms.copy()
        rows, params = rows[ok], params[ok]
        for j, c in enumerate(kind.columns):
            col = columns.get(c)
            if col is None:
                col = columns[c] = (
                    frame[c].to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
                    if c in frame.columns
                    else np.full(len(frame), np.nan)
                )
            col[rows] = params[:, j]
        geoms[rows] = None
    if out is None:
        return frame
    out["geometry"] = pd.Series(geoms, index=frame.index, dtype=object)
    added = pd.DataFrame(columns, index=frame.index)
    return pd.concat([out.drop(columns=[c for c in columns if c in out.columns]), added], axis=1)


#: The columns of the tidy frame, which no parametric kind may claim (nor a per-object
#: attribute of a reader or of the simulator: those take another name).
FRAME_COLUMNS = frozenset(
    {
        "item",
        "annotator",
        "label",
        "object_id",
        "x0",
        "y0",
        "x1",
        "y1",
        "geometry",
        "width",
        "height",
        "group",
    }
)
