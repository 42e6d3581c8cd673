"""Geometry kinds: one module per kind, and the registry every layer asks.

* ``registry``: :class:`Kind` (what a kind says about itself), :func:`register_kind`,
  :func:`get_kind`, :func:`available_kinds`, :func:`kind_of_rows` (the kind of every row
  of a frame);
* ``box``: axis-aligned boxes, in numpy; every kind's bounding box;
* ``polygon``: shapely polygons in the ``geometry`` column (exact overlay);
* ``mask``: pixel masks, read as the exact polygons of their pixels; the COCO mask IoU of
  detailed shapes;
* ``keypoints``: skeletons of named joints with visibility, scored by COCO's OKS (a kind
  with its own similarity, :meth:`Kind.similarity`, :meth:`Kind.reach`).
* ``cuboid``: 3D cuboids of point clouds (metres), the exact volumetric IoU, and
  ``polytope``, the volume two convex polyhedra share.
* ``segment``: time segments ``[start, end]`` of videos and audio, temporal IoU.
* ``volume``: 3D masks (voxel sets of a scan, radiologists' segmentations), exact voxel
  IoU, spacing honoured; each row holds its voxels (``vol_runs``, the kind's payload,
  :attr:`Kind.payload`), counted for many pairs at once (``voxel_runs``).
* ``cuboid2d``: 2D cuboids drawn on images (front and back faces), compared face by face.
* ``polyline`` and ``point``: open lines, single points and point sets, scored by a
  distance in units of the image diagonal (``distance_kind``: ``exp(-D² / (2 δ²))``).

A new kind (keypoints, 3D boxes, circles) is a subclass of :class:`Kind` registered with
:func:`register_kind`: its rows are the frame rows holding its columns, and matching, the
chance baseline, the pair tables, dask and validation then handle it through
:class:`~iaa_frames.geometry.shapes.Shapes` without a change elsewhere (see "Adding a
geometry kind" in the architecture notes).

Examples
--------
>>> from iaa_frames.geometry import kinds
>>> kinds.available_kinds()[:3]
['box', 'polygon', 'mask']
"""

from .box import BOX, BoxKind
from .mask import MASK, MaskKind, mask_to_geometry
from .polygon import POLYGON, PolygonKind
from .registry import (
    Kind,
    available_kinds,
    geometries_as_kinds,
    get_kind,
    kind_of_rows,
    parametric_kinds,
    register_kind,
    unregister_kind,
)

# isort: split
# registered after the built-in IoU kinds (the registry lists them first)
from .keypoints import KEYPOINTS, KeypointsKind, keypoint_kinds

__all__ = [
    "BOX",
    "CUBOID",
    "CUBOID_2D",
    "KEYPOINTS",
    "MASK",
    "POINT",
    "POINT_SET",
    "POLYGON",
    "POLYLINE",
    "SEGMENT",
    "VOLUME",
    "BoxKind",
    "Cuboid2DKind",
    "CuboidKind",
    "DistanceKind",
    "Kind",
    "KeypointsKind",
    "MaskKind",
    "PointKind",
    "PointSetKind",
    "PolygonKind",
    "PolylineKind",
    "SegmentKind",
    "VolumeKind",
    "available_kinds",
    "bird_eye_view",
    "cuboid_2d_params",
    "geometries_as_kinds",
    "get_kind",
    "keypoint_kinds",
    "kind_of_rows",
    "mask_to_geometry",
    "parametric_kinds",
    "point_set_params",
    "polyline_params",
    "polyline_vertices",
    "register_kind",
    "temporal_iou",
    "unregister_kind",
    "volume_params",
]

# registered after the built-ins, so that they come first in the registry
from .cuboid import CUBOID, CuboidKind, bird_eye_view  # noqa: E402
from .cuboid2d import CUBOID_2D, Cuboid2DKind, cuboid_2d_params  # noqa: E402
from .distance_kind import DistanceKind  # noqa: E402
from .point import POINT, POINT_SET, PointKind, PointSetKind, point_set_params  # noqa: E402
from .polyline import POLYLINE, PolylineKind, polyline_params, polyline_vertices  # noqa: E402
from .segment import SEGMENT, SegmentKind, temporal_iou  # noqa: E402
from .volume import VOLUME, VolumeKind, volume_params  # noqa: E402
