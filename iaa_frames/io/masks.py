"""Pixel masks as exact polygons: the union of their pixel squares.

A COCO RLE segmentation is decoded with ``pycocotools`` (the ``coco`` extra) by
:func:`rle_geometry`, and every binary mask becomes its exact (Multi)Polygon in pixel
coordinates with :func:`mask_to_geometry`, so that masks are compared like any other
polygon and their vector IoU is their pixel IoU.
"""

from __future__ import annotations

import warnings

import numpy as np
import shapely

from .paths import reader_error

__all__ = ["MAX_MASK_PIXELS", "mask_to_geometry", "rle_geometry"]

#: The largest RLE mask decoded by default (``read_coco(max_mask_pixels=)``): 10,000 x
#: 10,000 pixels. Decoding and tracing a mask takes about 5 bytes per pixel, and a few
#: bytes of RLE can declare any size: larger masks are refused before anything is
#: allocated.
MAX_MASK_PIXELS = 100_000_000


def mask_to_geometry(mask: np.ndarray):
    """Turn a binary mask (height x width) into its exact (Multi)Polygon in pixel coordinates.

    Pixel (row r, column c) is the unit square [c, c+1] x [r, r+1], so the polygon is the
    union of the mask's pixel squares: its area is the number of pixels, and the area of
    the intersection (union) of two such polygons is the number of pixels the masks share
    (cover): vector IoU equals pixel IoU exactly. The mask is cut into vertical runs, runs
    of neighbouring columns with the same rows are merged into rectangles (vectorized),
    and the rectangles are merged with :func:`shapely.union_all`, so holes and several
    parts come out exactly. An empty mask gives None.

    Examples
    --------
    >>> import numpy as np
    >>> m = np.zeros((4, 5), dtype=np.uint8); m[1:3, 1:4] = 1
    >>> g = mask_to_geometry(m)
    >>> g.bounds, g.area
    ((1.0, 1.0, 4.0, 3.0), 6.0)
    """
    m = np.asarray(mask).astype(bool)
    if m.ndim != 2 or not m.any():
        return None
    t = np.pad(m.T, ((0, 0), (1, 1))).astype(np.int8)  # rows of t are the image columns
    d = np.diff(t, axis=1)
    sc, sr = np.nonzero(d == 1)  # run starts, column-major: (column, first row)
    _, er = np.nonzero(d == -1)  # run ends (one past the last row), in the same order
    # merge runs of consecutive columns that cover the same rows into one rectangle
    order = np.lexsort((sc, er, sr))
    sc, sr, er = sc[order], sr[order], er[order]
    new = np.ones(len(sc), bool)
    new[1:] = (sr[1:] != sr[:-1]) | (er[1:] != er[:-1]) | (sc[1:] != sc[:-1] + 1)
    group = np.cumsum(new) - 1
    x0 = sc[new]
    x1 = np.zeros(group[-1] + 1, dtype=sc.dtype)
    np.maximum.at(x1, group, sc + 1)
    boxes = shapely.box(x0, sr[new], x1, er[new])
    # rectangles of neighbouring columns share edges without sharing vertices, which rules
    # out the faster coverage union
    return shapely.union_all(boxes)


def _rle_size(path, entry, seg):
    size = seg.get("size")
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(type(v) is int and v > 0 for v in size)
    ):
        raise reader_error(
            path,
            entry,
            f"segmentation.size must be [height, width] (positive integers), got {size!r}",
        )
    return size


def rle_geometry(path, entry, seg, max_pixels: int = MAX_MASK_PIXELS):
    """Decode an RLE segmentation (compressed: ``counts`` a string; uncompressed: a list of
    run lengths, column-major, starting with background) with pycocotools into its exact
    pixel polygon; None when pycocotools is missing. A mask of more than ``max_pixels``
    pixels is a ReaderError, raised before anything is decoded."""
    try:
        from pycocotools import mask as mask_utils
    except ImportError:
        return None
    h, w = _rle_size(path, entry, seg)
    if h * w > max_pixels:
        raise reader_error(
            path,
            entry,
            f"segmentation.size declares a {h} x {w} mask, {h * w:,} pixels, above "
            f"max_mask_pixels={max_pixels:,} (decoding takes about 5 bytes per pixel); "
            "pass a larger read_coco(max_mask_pixels=) to decode it",
        )
    counts = seg["counts"]
    if isinstance(counts, list):
        if not all(type(v) is int and v >= 0 for v in counts):
            raise reader_error(path, entry, "segmentation.counts must hold non-negative integers")
        if sum(counts) != h * w:
            raise reader_error(
                path,
                entry,
                f"segmentation.counts adds up to {sum(counts)} pixels, "
                f"not height x width = {h * w}",
            )
        rle = mask_utils.frPyObjects(seg, h, w)
    elif isinstance(counts, str):
        rle = {"size": [h, w], "counts": counts}
    else:
        raise reader_error(
            path,
            entry,
            f"segmentation.counts must be a string (compressed RLE) or "
            f"a list of run lengths, got {type(counts).__name__}",
        )
    try:
        with warnings.catch_warnings():
            # pycocotools' Cython code trips numpy 2's __array__(copy=) deprecation
            warnings.simplefilter("ignore", DeprecationWarning)
            decoded = mask_utils.decode(rle)
    except (ValueError, TypeError, UnicodeError) as exc:
        raise reader_error(path, entry, f"segmentation is not a valid RLE: {exc}") from None
    geom = mask_to_geometry(decoded)
    if geom is None:
        raise reader_error(path, entry, "the RLE mask is empty (no pixel set)")
    return geom
