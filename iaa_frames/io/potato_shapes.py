"""Potato's image-annotation shapes as rows of the tidy frame, and its row-major masks.

Potato (the ``image_annotation`` scheme) stores what an annotator drew on an image as one
JSON list of shapes. A shape has a ``type``, a ``label``, optional ``attributes`` (a
dictionary), provenance (``source``: ``human`` / ``ai`` / ``import``, ``confidence``) and
its geometry under ``coordinates``, in fractions of the image (``x`` of the width, ``y`` of
the height):

================  =================================================  ========================
type              coordinates                                        row of the frame
================  =================================================  ========================
``bbox``          ``{x, y, width, height}``, top-left corner         box
``polygon``       ``[{x, y}, ...]``                                  polygon
``polyline``      ``[{x, y}, ...]`` (``closed: false``)              ``polyline`` kind
``ellipse``       ``{cx, cy, rx, ry, angle}``, degrees, clockwise    polygon of 64 vertices
``freeform``      a fabric.js path (``path``, ``left``, ``top``,     polygon of its points
                  ``scaleX``, ``scaleY``, ``pathOffset``,
                  ``angle``)
``cuboid_2d``     ``{front: 4 points, back: 4 points}``              ``cuboid_2d`` kind
``landmark``      ``{x, y}``                                         ``point`` kind
``keypoint_set``  ``[{x, y, v}, ...]`` in skeleton order, and        keypoints kind
                  ``skeleton`` (its name) beside ``coordinates``
``mask``          none: ``rle: {counts, size: [height, width]}``     the exact polygon of its
                                                                     pixels
================  =================================================  ========================

Coordinates a little outside the image (up to :data:`~iaa_frames.io.values.CANVAS_SLACK`,
one image size, past an edge: a box dragged over the border) are kept as written, not
clipped; a shape reaching farther out (``x: 10``, pixels written where fractions belong)
is a ReaderError naming the file, the entry and the coordinate (with ``on_invalid="drop"``
a counted drop).

A mask's ``counts`` are uncompressed run lengths, background first, in **row-major**
order (left to right, then top to bottom) and in pixels of ``size`` (COCO's uncompressed
RLE is column-major): :func:`decode_rle` decodes them, refusing a declared size above
``max_pixels`` before anything is allocated.

Examples
--------
>>> decode_rle("u.json", "img1", {"counts": [1, 2, 3], "size": [2, 3]}).astype(int).tolist()
[[0, 1, 1], [0, 0, 0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely.affinity

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.ellipse import ellipse_ring
from iaa_frames.geometry.kinds import CUBOID_2D, POINT, POLYLINE, cuboid_2d_params, polyline_params

from .builder import FrameBuilder
from .keypoints import keypoint_params, skeleton_kind
from .masks import MAX_MASK_PIXELS, mask_to_geometry
from .paths import reader_error
from .values import is_number, is_size, json_object, on_canvas

__all__ = ["SHAPE_TYPES", "Place", "add_shape", "decode_rle", "mask_size"]

SHAPE_TYPES = tuple(
    "bbox polygon polyline ellipse freeform cuboid_2d landmark keypoint_set mask".split()
)


@dataclass
class Place:
    """Where the shapes of one (item, annotator) go: the file and entry that hold them,
    the image size they are scaled to (pixels, or 1 x 1 when unknown: ``sized`` False),
    and what the reader was told."""

    path: object
    entry: str
    item: str
    annotator: str
    width: float
    height: float
    sized: bool
    file_idx: int
    skeletons: dict
    taken: frozenset
    max_mask_pixels: int = MAX_MASK_PIXELS


def mask_size(shape) -> tuple[int, int] | None:
    """``(width, height)`` of a mask shape's ``rle.size``, or None (not a mask, or no
    usable size): how Potato sizes an image its data file does not describe."""
    if not isinstance(shape, dict) or shape.get("type") != "mask":
        return None
    rle = shape.get("rle")
    size = rle.get("size") if isinstance(rle, dict) else None
    if is_size(size):
        return size[1], size[0]
    return None


def decode_rle(path, entry, rle, max_pixels: int = MAX_MASK_PIXELS) -> np.ndarray:
    """The boolean mask (height x width) of a Potato RLE ``{counts, size: [h, w]}``:
    run lengths alternating background / foreground, background first, row-major.

    Raises
    ------
    ReaderError
        When ``size`` is not two positive integers, declares more than ``max_pixels``
        pixels (checked before anything is allocated), or ``counts`` is not a list of
        non-negative integers adding up to height x width.
    """
    json_object(path, entry, rle, "rle")
    size = rle.get("size")
    if not is_size(size):
        raise reader_error(
            path, entry, f"rle.size must be [height, width] (positive integers), got {size!r}"
        )
    h, w = size
    if h * w > max_pixels:
        raise reader_error(
            path,
            entry,
            f"rle.size declares a {h} x {w} mask, {h * w:,} pixels, above "
            f"max_mask_pixels={max_pixels:,} (decoding takes about 5 bytes per pixel); "
            "pass a larger read_potato(max_mask_pixels=) to decode it",
        )
    counts = rle.get("counts")
    if not isinstance(counts, list) or not all(type(v) is int and v >= 0 for v in counts):
        raise reader_error(
            path, entry, "rle.counts must be a list of non-negative integers (run lengths)"
        )
    total = sum(counts)
    if total != h * w:
        why = f"rle.counts adds up to {total:,} pixels, not height x width = {h * w:,}"
        raise reader_error(path, entry, why)
    runs = np.asarray(counts, dtype=np.int64)
    values = (np.arange(len(runs)) % 2).astype(bool)  # background first
    return np.repeat(values, runs).reshape(h, w)


def _num(place: Place, entry, v, name) -> float:
    if not is_number(v) or not math.isfinite(v):
        raise reader_error(place.path, entry, f"{name} must be a finite number, got {v!r}")
    return float(v)


def _xy(place: Place, entry, pts, name, *, n=None, v=False) -> np.ndarray:
    """A list of ``{x, y}`` (``{x, y, v}`` with ``v``) fractions as an ``(n, 2)`` (or
    ``(n, 3)``) array scaled to the image."""
    if not isinstance(pts, list):
        raise reader_error(
            place.path, entry, f"{name} must be a list of {{x, y}} points, got {type(pts).__name__}"
        )
    if n is not None and len(pts) != n:
        raise reader_error(place.path, entry, f"{name} must hold {n} points, got {len(pts)}")
    out = np.empty((len(pts), 3 if v else 2))
    for i, p in enumerate(pts):
        if not isinstance(p, dict):
            raise reader_error(
                place.path, entry, f"{name}[{i}] must be a point {{x, y}}, got {p!r}"
            )
        out[i, 0] = _num(place, entry, p.get("x"), f"{name}[{i}].x")
        out[i, 1] = _num(place, entry, p.get("y"), f"{name}[{i}].y")
        if v:
            vis = p.get("v", 2)
            if vis not in (0, 1, 2) or isinstance(vis, bool):
                raise reader_error(
                    place.path, entry, f"{name}[{i}].v must be 0, 1 or 2, got {vis!r}"
                )
            out[i, 2] = vis
    on_canvas(place.path, entry, out[:, 0], out[:, 1])
    out[:, 0] *= place.width
    out[:, 1] *= place.height
    return out


def _extras(place: Place, entry, shape) -> dict:
    """Provenance and attributes as columns (an attribute named like a column of the frame
    or of the reader gets the prefix ``attr_``)."""
    extras = {}
    for key in ("source", "confidence"):
        value = shape.get(key)
        if value is not None:
            if not isinstance(value, (str, int, float)):
                raise reader_error(
                    place.path, entry, f"{key} must be a string or number, got {value!r}"
                )
            extras[key] = value
    attributes = shape.get("attributes")
    if attributes is not None:
        json_object(place.path, entry, attributes, "attributes")
        for name, value in attributes.items():
            extras[f"attr_{name}" if name in place.taken else name] = value
    return extras


def _ellipse(place: Place, entry, c) -> list:
    if not isinstance(c, dict):
        raise reader_error(place.path, entry, "ellipse coordinates must be {cx, cy, rx, ry, angle}")
    cx, cy, rx, ry = (_num(place, entry, c.get(k), k) for k in ("cx", "cy", "rx", "ry"))
    on_canvas(place.path, entry, (cx - abs(rx), cx + abs(rx)), (cy - abs(ry), cy + abs(ry)))
    cx, rx = cx * place.width, rx * place.width
    cy, ry = cy * place.height, ry * place.height
    angle = math.radians(_num(place, entry, c.get("angle", 0), "angle"))
    if rx <= 0 or ry <= 0:
        return []
    # clockwise degrees on a canvas whose y axis points down: the usual rotation matrix
    return ellipse_ring(cx, cy, rx, ry, math.degrees(angle)).ravel().tolist()


def _freeform(place: Place, entry, c) -> list:
    """The points of a fabric.js path: every command's end point, taken from the path's
    own space (centred on ``pathOffset``) by scale, rotation and the position ``left`` /
    ``top`` (fractions of the image), as fabric places it."""
    if not isinstance(c, dict) or not isinstance(c.get("path"), list):
        raise reader_error(place.path, entry, "freeform coordinates must hold a fabric 'path'")
    ends = []
    for cmd in c["path"]:
        if isinstance(cmd, list) and len(cmd) >= 3 and is_number(cmd[-2]) and is_number(cmd[-1]):
            ends.append((float(cmd[-2]), float(cmd[-1])))
    pts = np.asarray(ends, dtype=float).reshape(-1, 2)
    if not np.isfinite(pts).all():
        raise reader_error(place.path, entry, "the freeform path holds a non-finite number")
    left = _num(place, entry, c.get("left", 0), "left") * place.width
    top = _num(place, entry, c.get("top", 0), "top") * place.height
    sx = _num(place, entry, c.get("scaleX", 1), "scaleX") or 1.0
    sy = _num(place, entry, c.get("scaleY", 1), "scaleY") or 1.0
    offset = c.get("pathOffset")
    if isinstance(offset, dict) and len(pts):
        ox = _num(place, entry, offset.get("x", 0), "pathOffset.x")
        oy = _num(place, entry, offset.get("y", 0), "pathOffset.y")
    elif len(pts):  # older clients: the path's own top-left corner at (left, top)
        ox, oy = pts[:, 0].min(), pts[:, 1].min()
    else:
        return []
    a = math.radians(_num(place, entry, c.get("angle", 0), "angle"))
    lx, ly = (pts[:, 0] - ox) * sx, (pts[:, 1] - oy) * sy
    x = left + lx * math.cos(a) - ly * math.sin(a)
    y = top + lx * math.sin(a) + ly * math.cos(a)
    on_canvas(place.path, entry, x / place.width, y / place.height)
    return np.column_stack([x, y]).ravel().tolist()


def _mask(place: Place, entry, shape):
    mask = decode_rle(place.path, entry, shape.get("rle"), place.max_mask_pixels)
    geom = mask_to_geometry(mask)
    if geom is None:
        return None, None
    h, w = mask.shape
    if (w, h) != (place.width, place.height):  # a mask at another resolution than the image
        geom = shapely.affinity.scale(geom, place.width / w, place.height / h, origin=(0, 0))
    return geom, {"mask_width": w, "mask_height": h}


def add_shape(b: FrameBuilder, place: Place, k: int, shape) -> None:
    """Add the ``k``-th shape of ``place`` to ``b``: one row, or a counted drop.

    Raises
    ------
    ReaderError
        A shape that is not a JSON object, has no label, or whose coordinates have the
        wrong types, naming the file, the entry and the shape (``shapes[k]``).
    """
    entry = f"{place.entry}: shapes[{k}]"
    path = place.path
    json_object(path, entry, shape, "a shape")
    kind = shape.get("type")
    label = shape.get("label")
    if not isinstance(label, str) or not label:
        raise reader_error(path, entry, f"'label' must be a non-empty string, got {label!r}")
    entry += f" ({kind})" if isinstance(kind, str) else ""
    drop = {"item": place.item, "annotator": place.annotator, "record": shape}
    if kind not in SHAPE_TYPES:
        b.drop(path, entry, "unsupported_shape", f"a shape of type {kind!r}", **drop)
        return
    extras = _extras(place, entry, shape)
    iw, ih = (place.width, place.height) if place.sized else (1.0, 1.0)
    kw = {"width": iw, "height": ih, "file_idx": place.file_idx, "entry": entry, "extras": extras}
    who = (place.item, place.annotator, label)
    if kind == "mask":
        if "iscrowd" in shape:
            extras["iscrowd"] = shape["iscrowd"]
        geom, size = _mask(place, entry, shape)
        if geom is None:
            b.drop(path, entry, "empty_mask", "a mask with no pixel set", **drop)
            return
        extras.update(size)
        b.add_geometry(*who, geom, **kw)
        return
    c = shape.get("coordinates")
    if c is None:
        b.drop(path, entry, "unsupported_shape", f"a {kind} with no 'coordinates'", **drop)
        return
    if kind == "bbox":
        if not isinstance(c, dict):
            raise reader_error(path, entry, "bbox coordinates must be {x, y, width, height}")
        x, y, w, h = (_num(place, entry, c.get(k), k) for k in ("x", "y", "width", "height"))
        on_canvas(path, entry, (x, x + w), (y, y + h))
        x, w = x * place.width, w * place.width
        y, h = y * place.height, h * place.height
        b.add_box(*who, x, y, x + w, y + h, **kw)
    elif kind == "cuboid_2d":
        if not isinstance(c, dict):
            raise reader_error(path, entry, "cuboid_2d coordinates must be {front, back}")
        front = _xy(place, entry, c.get("front"), "front", n=4)
        back = _xy(place, entry, c.get("back"), "back", n=4)
        params = cuboid_2d_params(front, back)
        if CUBOID_2D.invalid(np.array([params]))[0]:
            b.drop(path, entry, "degenerate_cuboid",
                   "a cuboid_2d whose faces are not simple quadrilaterals of positive area",
                   **drop)  # fmt: skip
            return
        b.add_shape(*who, CUBOID_2D.name, params, **kw)
    elif kind in ("polygon", "ellipse", "freeform"):
        if kind == "polygon":
            ring = _xy(place, entry, c, "coordinates").ravel().tolist()
        elif kind == "ellipse":
            ring = _ellipse(place, entry, c)
        else:
            if not place.sized:  # the path is in canvas pixels: it needs the image size
                b.drop(path, entry, "freeform_without_size",
                       "a freeform path needs the image size (its points are canvas pixels)",
                       **drop)  # fmt: skip
                return
            ring = _freeform(place, entry, c)
        if len(ring) >= 4 and ring[:2] == ring[-2:]:
            ring = ring[:-2]
        if len(ring) < 6:
            b.drop(path, entry, "degenerate_polygon", f"a {kind} of fewer than 3 points", **drop)
            return
        b.add_polygon(*who, [[ring]], **kw)
    elif kind == "polyline":
        xy = _xy(place, entry, c, "coordinates")
        if len(xy) < 2:
            b.drop(path, entry, "degenerate_polyline", "a polyline of fewer than 2 points", **drop)
            return
        b.add_shape(*who, POLYLINE.name, polyline_params(POLYLINE, xy), **kw)
    elif kind == "landmark":
        xy = _xy(place, entry, [c], "coordinates")
        b.add_shape(*who, POINT.name, xy[0].tolist(), **kw)
    else:
        _keypoints(b, place, entry, shape, c, who, kw)


def _keypoints(b, place: Place, entry, shape, c, who, kw) -> None:
    pts = _xy(place, entry, c, "coordinates", v=True)
    skeleton = shape.get("skeleton") or ""
    if not isinstance(skeleton, str):
        raise reader_error(place.path, entry, f"skeleton must be a name, got {skeleton!r}")
    names = place.skeletons.get(skeleton)
    if names is None:
        names = [str(i) for i in range(len(pts))]
    if len(names) != len(pts):
        why = f"the skeleton {skeleton!r} has {len(names)} points, the keypoint set {len(pts)}"
        raise reader_error(place.path, entry, why)
    try:
        kind = skeleton_kind(names, skeleton or who[2])
    except ParameterError as exc:
        raise reader_error(place.path, entry, str(exc)) from None
    order = [list(names).index(j) for j in kind.keypoints]
    pts = pts[order]
    b.add_shape(*who, kind.name, keypoint_params(pts[:, 0], pts[:, 1], pts[:, 2]), **kw)
