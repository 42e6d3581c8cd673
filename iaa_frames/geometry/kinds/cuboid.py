"""The cuboid kind: 3D boxes of point clouds (LiDAR), with the exact volumetric IoU.

A cuboid is its centre ``cuboid_x, cuboid_y, cuboid_z``, its size ``cuboid_length``
(along its own x axis, the heading), ``cuboid_width`` (its y axis) and ``cuboid_height``
(its z axis), and its orientation ``cuboid_yaw, cuboid_pitch, cuboid_roll`` in radians:
the rotation ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (intrinsic z-y'-x'') takes the cuboid's
axes to the scene's. The scene's z axis is up, so ``x, y`` is the ground (bird's-eye)
plane; most exports give a yaw alone (pitch = roll = 0), the common case.

**Measures.** Its "area" (:meth:`CuboidKind.areas`) is its volume, and the IoU of two
cuboids is the exact volumetric one: for two cuboids with yaw alone, the area their
bird's-eye rectangles share (shapely) times the overlap of their height ranges; under
any other rotation, the volume of the convex polyhedron they share
(:mod:`iaa_frames.geometry.kinds.polytope`). GIoU uses the smallest enclosing upright
prism (:meth:`CuboidKind.giou_terms`). The bounding box of a cuboid (``x0, y0, x1, y1``
of the frame) is that of its bird's-eye footprint, which is what the chance index and the
sweep of overlapping pairs use; the IoU bounds of the matcher get the height overlap too
(:meth:`CuboidKind.shared_bound`), so that they bound volumes, not areas.

**Units.** Coordinates are metres in the sensor's (or ego vehicle's) frame, the same unit
in every scene, so chance pairs between scenes compare objects at the same place relative
to the sensor, as normalized image coordinates do in 2D. Nothing is normalized: a cuboid
row with an image ``width``/``height`` is refused (:meth:`CuboidKind.normalize`).

Cuboids are compared only with cuboids. :func:`bird_eye_view` turns them into their
footprint polygons, for the bird's-eye variant of every figure.

Examples
--------
>>> import numpy as np
>>> a = np.array([[0.0, 0, 0, 4, 2, 2, 0, 0, 0]])
>>> b = np.array([[1.0, 0, 0.5, 4, 2, 2, 0, 0, 0]])  # 1 m ahead, 0.5 m higher
>>> CUBOID.areas(a).tolist(), CUBOID.intersection(a, b).round(9).tolist()
([16.0], [9.0])
"""

from __future__ import annotations

import numpy as np
import shapely

from iaa_frames.errors import ParameterError

from .polytope import shared_volume
from .registry import Kind, register_kind

__all__ = [
    "CUBOID",
    "CUBOID_COLUMNS",
    "CuboidKind",
    "bird_eye_view",
    "corners",
    "cuboid_faces",
    "footprints",
    "rotations",
]

CUBOID_COLUMNS = (
    "cuboid_x",
    "cuboid_y",
    "cuboid_z",
    "cuboid_length",
    "cuboid_width",
    "cuboid_height",
    "cuboid_yaw",
    "cuboid_pitch",
    "cuboid_roll",
)
#: Corners of the unit cube [-1/2, 1/2]^3, bottom face first.
_UNIT = np.array(
    [
        [sx, sy, sz]
        for sz in (-0.5, 0.5)
        for sx, sy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))
    ]
)


def rotations(p: np.ndarray) -> np.ndarray:
    """``(m, 3, 3)`` rotations ``Rz(yaw) Ry(pitch) Rx(roll)``; their columns are the
    cuboids' length, width and height axes in the scene."""
    cy, sy = np.cos(p[:, 6]), np.sin(p[:, 6])
    cp, sp = np.cos(p[:, 7]), np.sin(p[:, 7])
    cr, sr = np.cos(p[:, 8]), np.sin(p[:, 8])
    r = np.empty((len(p), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 0, 2] = cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr
    r[:, 1, 0], r[:, 1, 1], r[:, 1, 2] = sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr
    r[:, 2, 0], r[:, 2, 1], r[:, 2, 2] = -sp, cp * sr, cp * cr
    return r


def corners(p: np.ndarray) -> np.ndarray:
    """``(m, 8, 3)`` corners of the cuboids (bottom face first, counter-clockwise seen
    from above when upright).

    Examples
    --------
    >>> corners(np.array([[0.0, 0, 1, 4, 2, 2, 0, 0, 0]]))[0, [0, 6]].tolist()
    [[-2.0, -1.0, 0.0], [2.0, 1.0, 2.0]]
    """
    local = _UNIT[None] * p[:, None, 3:6]  # (m, 8, 3)
    return np.einsum("mij,mkj->mki", rotations(p), local) + p[:, None, :3]


#: The corners of each face, in order, for the faces +x, +y, +z, -x, -y, -z.
_FACES = np.array(
    [[1, 2, 6, 5], [2, 3, 7, 6], [4, 5, 6, 7], [0, 3, 7, 4], [0, 1, 5, 4], [0, 1, 2, 3]]
)


def cuboid_faces(p: np.ndarray):
    """The faces of the cuboids as :func:`~iaa_frames.geometry.kinds.polytope.shared_volume`
    takes them: corners ``(m, 6, 4, 3)``, outward unit normals ``(m, 6, 3)`` and plane
    offsets ``(m, 6)``, for the faces +x, +y, +z, -x, -y, -z of the cuboids' own axes."""
    p = np.asarray(p, dtype=np.float64)
    r = rotations(p)
    axes = np.moveaxis(r, 2, 1)  # (m, 3, 3): row k is axis k
    normals = np.concatenate([axes, -axes], axis=1)
    centre = np.einsum("mka,ma->mk", axes, p[:, :3])
    half = p[:, 3:6] / 2
    offsets = np.concatenate([centre + half, -centre + half], axis=1)
    return corners(p)[:, _FACES], normals, offsets


def _z_range(p: np.ndarray) -> np.ndarray:
    """``(m, 2)`` lowest and highest z of the cuboids."""
    z = corners(p)[..., 2]
    return np.column_stack([z.min(axis=1), z.max(axis=1)])


def _upright(p: np.ndarray) -> np.ndarray:
    return (p[:, 7] == 0) & (p[:, 8] == 0)


def footprints(p: np.ndarray) -> np.ndarray:
    """``(m,)`` shapely polygons: the bird's-eye footprints (the convex hull of the
    corners seen from above; the rotated rectangle of an upright cuboid)."""
    c = corners(p)
    out = np.empty(len(p), dtype=object)
    up = _upright(p)
    if up.any():
        out[up] = shapely.polygons(c[up][:, :4, :2])
    if (~up).any():
        out[~up] = shapely.convex_hull(shapely.multipoints(c[~up][..., :2]))
    return out


class CuboidKind(Kind):
    """3D cuboids ``(x, y, z, length, width, height, yaw, pitch, roll)``, metres and
    radians; the data of ``m`` cuboids is an ``(m, 9)`` float64 array."""

    name = "cuboid"
    columns = CUBOID_COLUMNS
    description = "3D cuboids (centre, size, yaw/pitch/roll), exact volumetric IoU"

    def normalize(self, data, sx, sy):
        """Refused: cuboids are in metres, not in pixels of an image.

        Raises
        ------
        ParameterError
            Always (it is called only for rows with a known image width and height).
        """
        raise ParameterError(
            "cuboid rows are in metres in the scene and are not normalized by an image "
            "size: leave width and height empty (NaN) on cuboid rows"
        )

    def invalid(self, data):
        """Cuboids with a non-finite parameter or a size that is not positive."""
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(data).all(axis=1) | ~(data[:, 3:6] > 0).all(axis=1)

    def bounds(self, data):
        """The bird's-eye bounding box: the extent in x and y of the corners."""
        xy = corners(np.asarray(data, dtype=np.float64))[..., :2]
        return np.column_stack([xy.min(axis=1), xy.max(axis=1)])

    def areas(self, data):
        """Volumes, length times width times height."""
        return data[:, 3] * data[:, 4] * data[:, 5]

    def intersection(self, data_a, data_b):
        """Exact volume shared by each pair: bird's-eye area times height overlap for
        two upright cuboids, the shared convex polyhedron otherwise."""
        out = np.zeros(len(data_a))
        up = _upright(data_a) & _upright(data_b)
        if up.any():
            pa, pb = data_a[up], data_b[up]
            base = shapely.area(shapely.intersection(footprints(pa), footprints(pb)))
            out[up] = base * _z_overlap(_z_range(pa), _z_range(pb))
        rest = np.flatnonzero(~up)
        if rest.size:
            out[rest] = shared_volume(*cuboid_faces(data_a[rest]), *cuboid_faces(data_b[rest]))
        return out

    def shared_bound(self, data_a, data_b, planar):
        """``planar`` (a bound of the area the bird's-eye boxes share) times the overlap
        of the height ranges: a bound of the shared volume, since each cuboid lies in the
        upright prism of its box and height range."""
        return planar * _z_overlap(_z_range(data_a), _z_range(data_b))

    def giou_terms(self, data_a, data_b, union):
        """GIoU's enclosing volume ``C`` and union ``U'``, from upright prisms.

        ``C`` is the smallest upright prism enclosing both cuboids (its base the convex
        hull of both footprints, its height range from the lowest to the highest corner).
        ``U'`` is the union of the two cuboids' own upright prisms, so that a tilted
        cuboid has GIoU 1 with itself; for upright cuboids it is their union.
        """
        fa, fb = footprints(data_a), footprints(data_b)
        za, zb = _z_range(data_a), _z_range(data_b)
        span = np.maximum(za[:, 1], zb[:, 1]) - np.minimum(za[:, 0], zb[:, 0])
        hull = shapely.convex_hull(shapely.union(fa, fb))
        enclosing = shapely.area(hull) * span
        out = np.asarray(union, dtype=np.float64).copy()
        tilted = np.flatnonzero(~(_upright(data_a) & _upright(data_b)))
        if tilted.size:
            fa, fb, za, zb = fa[tilted], fb[tilted], za[tilted], zb[tilted]
            shared = shapely.area(shapely.intersection(fa, fb)) * _z_overlap(za, zb)
            out[tilted] = (
                shapely.area(fa) * (za[:, 1] - za[:, 0])
                + shapely.area(fb) * (zb[:, 1] - zb[:, 0])
                - shared
            )
        return enclosing, out

    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """The cuboids moved by ``(dx, dy)`` metres on the ground (their centres' x and
        y; height, size and orientation kept): their bird's-eye boxes move by as much.

        Examples
        --------
        >>> CUBOID.translate(np.array([[0.0, 0, 1, 4, 2, 2, 0.3, 0, 0]]), [2.0], [1.0])[0, :3].tolist()
        [2.0, 1.0, 1.0]
        """
        out = np.array(data, dtype=np.float64)
        out[:, 0] += np.asarray(dx, np.float64)
        out[:, 1] += np.asarray(dy, np.float64)
        return out

    def centroids(self, data):
        """Bird's-eye centres ``(x, y)`` (the ``centroid`` distance is then in metres on
        the ground)."""
        return np.asarray(data[:, :2], dtype=np.float64)


def _z_overlap(za: np.ndarray, zb: np.ndarray) -> np.ndarray:
    return np.maximum(np.minimum(za[:, 1], zb[:, 1]) - np.maximum(za[:, 0], zb[:, 0]), 0.0)


def bird_eye_view(df):
    """The frame with its cuboids replaced by their bird's-eye footprints (polygons).

    Every figure of the result (matching, localization, chance) is then the bird's-eye
    variant: IoU of footprints on the ground, in square metres. Other rows are kept as
    they are; the cuboid columns are dropped.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame with cuboid rows (:data:`CUBOID_COLUMNS`).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ParameterError
        If the frame has no cuboid columns.

    Examples
    --------
    >>> import pandas as pd
    >>> row = dict(zip(CUBOID_COLUMNS, [0.0, 0.0, 1.0, 4.0, 2.0, 2.0, 0.0, 0.0, 0.0]))
    >>> df = pd.DataFrame([{"item": "s", "annotator": "a", "label": "car", **row}])
    >>> bev = bird_eye_view(df)
    >>> bev["geometry"].iloc[0].area, bev[["x0", "y0", "x1", "y1"]].iloc[0].tolist()
    (8.0, [-2.0, -1.0, 2.0, 1.0])
    """
    missing = [c for c in CUBOID_COLUMNS if c not in df.columns]
    if missing:
        raise ParameterError(f"bird_eye_view needs the cuboid columns; missing {missing}")
    rows = CUBOID.rows(df)
    data = CUBOID.read(df)[rows]
    out = df.drop(columns=list(CUBOID_COLUMNS))
    geometry = (
        out["geometry"].to_numpy(dtype=object).copy()
        if "geometry" in out.columns
        else np.full(len(out), None, dtype=object)
    )
    geometry[rows] = footprints(data)
    box = CUBOID.bounds(data)
    for k, c in enumerate(("x0", "y0", "x1", "y1")):
        col = (
            out[c].to_numpy(dtype=np.float64, na_value=np.nan).copy()
            if c in out.columns
            else np.full(len(out), np.nan)
        )
        col[rows] = box[:, k]
        out[c] = col
    out["geometry"] = geometry
    return out


CUBOID = register_kind(CuboidKind())
