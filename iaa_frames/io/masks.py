"""Pixel masks as exact polygons: the union of their pixel squares.

A COCO RLE segmentation is decoded here, without pycocotools, by :func:`rle_geometry` (or
:func:`rle_crop`, the decoded mask cropped to its bounding box, which fills only the
columns the mask spans: :func:`runs_crop`), and every binary mask becomes its exact
(Multi)Polygon in pixel coordinates with
:func:`mask_to_geometry` (many at once with
:func:`~iaa_frames.geometry.kinds.mask.masks_to_geometries`), so that masks are compared
like any other polygon and their vector IoU is their pixel IoU.
"""

from __future__ import annotations

import numpy as np

from iaa_frames.geometry.kinds.mask import mask_to_geometry, masks_to_geometries

from .paths import reader_error
from .values import is_size

__all__ = [
    "MAX_MASK_PIXELS",
    "mask_to_geometry",
    "masks_to_geometries",
    "compressed_counts",
    "rle_crop",
    "rle_geometry",
    "runs_crop",
]

#: The largest RLE mask decoded by default (``read_coco(max_mask_pixels=)``): 10,000 x
#: 10,000 pixels. Decoding and tracing a mask takes about 5 bytes per pixel, and a few
#: bytes of RLE can declare any size: larger masks are refused before anything is
#: allocated.
MAX_MASK_PIXELS = 100_000_000


def compressed_counts(counts: str) -> list[int] | None:
    """The run lengths of a compressed COCO RLE string (pycocotools' ``rleFrString``:
    6-bit groups from ``"0"``, 5 bits of value and a continuation bit, runs after the
    second stored as the difference to the run two before), or None when the string is
    not such an encoding (a character out of range, a number cut short, a negative run).

    Examples
    --------
    >>> from pycocotools import mask as mask_utils
    >>> import numpy as np
    >>> m = np.zeros((4, 3), np.uint8, order="F"); m[1:3, 1] = 1
    >>> compressed_counts(mask_utils.encode(m)["counts"].decode())
    [5, 2, 5]
    """
    runs = _compressed_runs(counts)
    return None if runs is None else runs.tolist()


def _compressed_runs(counts: str) -> np.ndarray | None:
    """:func:`compressed_counts` as an int64 array."""
    if not counts:
        return np.zeros(0, np.int64)
    try:
        c = np.frombuffer(counts.encode("ascii"), np.uint8).astype(np.int64) - 48
    except UnicodeEncodeError:
        return None
    if ((c < 0) | (c >= 64)).any() or c[-1] & 0x20:  # out of range, or a number cut short
        return None
    # one number per group of characters ending in one without the continuation bit
    end = np.flatnonzero(~c & 0x20)
    first = np.r_[0, end[:-1] + 1]
    k = np.arange(len(c)) - np.repeat(first, end - first + 1)  # place in its number
    if (end - first).max() >= 12:  # more than 60 bits: no run of any real mask
        return None
    x = np.add.reduceat((c & 0x1F) << (5 * k), first)
    x -= np.where(c[end] & 0x10, 1 << (5 * (end - first + 1)), 0)  # sign of the last group
    # runs after the third are differences to the run two before: sums per parity
    if len(x) > 3:
        x[1::2] = np.cumsum(x[1::2])
        x[2::2] = np.cumsum(x[2::2])
    if (x < 0).any():
        return None
    return x


def _rle_size(path, entry, seg):
    size = seg.get("size")
    if not is_size(size):
        why = f"segmentation.size must be [height, width] (positive integers), got {size!r}"
        raise reader_error(path, entry, why)
    return size


def rle_geometry(path, entry, seg, max_pixels: int = MAX_MASK_PIXELS):
    """Decode an RLE segmentation (compressed: ``counts`` a string; uncompressed: a list of
    run lengths, column-major, starting with background) into its exact pixel polygon. A
    mask of more than ``max_pixels``
    pixels is a ReaderError, raised before anything is decoded.

    Readers of many masks decode them with :func:`rle_crop` and trace them together
    (:func:`~iaa_frames.geometry.kinds.mask.masks_to_geometries`), much faster.

    Examples
    --------
    >>> rle_geometry("x.json", "a", {"size": [3, 4], "counts": [3, 3, 1, 2, 3]}).area
    5.0
    """
    mask, origin = rle_crop(path, entry, seg, max_pixels)
    return masks_to_geometries([mask], [origin])[0]


def rle_crop(path, entry, seg, max_pixels: int = MAX_MASK_PIXELS):
    """Decode an RLE segmentation as :func:`rle_geometry` does, checks and errors
    included, into the mask cropped to its bounding box.

    The runs are read here (:func:`compressed_counts` for a compressed string, the list
    itself otherwise) and only the columns the mask spans are filled
    (:func:`runs_crop`): the cost follows the object, not the image, and pycocotools is
    not needed (the tests check every step against it).

    Returns
    -------
    (mask, (row, column))
        The boolean crop and the pixel of its top-left corner in the image.

    Examples
    --------
    >>> mask, origin = rle_crop("x.json", "a", {"size": [3, 4], "counts": [3, 3, 1, 2, 3]})
    >>> mask.astype(int).tolist(), origin
    ([[1, 0], [1, 1], [1, 1]], (0, 1))
    """
    h, w = _rle_size(path, entry, seg)
    if h * w > max_pixels:
        raise reader_error(
            path,
            entry,
            f"segmentation.size declares a {h} x {w} mask, {h * w:,} pixels, above "
            f"max_mask_pixels={max_pixels:,} (decoding takes up to 5 bytes per pixel of the "
            "columns it spans); pass a larger read_coco(max_mask_pixels=) to decode it",
        )
    counts = seg["counts"]
    if isinstance(counts, list):
        if not all(type(v) is int and 0 <= v < 1 << 62 for v in counts):
            raise reader_error(path, entry, "segmentation.counts must hold non-negative integers")
        runs = np.array(counts, dtype=np.int64)
        what = "segmentation.counts"
    elif isinstance(counts, str):
        runs = _compressed_runs(counts)
        if runs is None:
            raise reader_error(
                path, entry, "segmentation.counts is not a compressed COCO RLE string"
            )
        what = "segmentation.counts (compressed)"
    else:
        raise reader_error(
            path,
            entry,
            f"segmentation.counts must be a string (compressed RLE) or "
            f"a list of run lengths, got {type(counts).__name__}",
        )
    big = len(runs) and int(runs.max()) * len(runs) >= 1 << 62  # int64 would overflow
    total = sum(runs.tolist()) if big else int(runs.sum())
    if total != h * w:
        raise reader_error(
            path, entry, f"{what} adds up to {total} pixels, not height x width = {h * w}"
        )
    crop = runs_crop(runs, h)
    if crop is None:
        raise reader_error(path, entry, "the RLE mask is empty (no pixel set)")
    return crop


def runs_crop(runs, height: int):
    """The mask of COCO run lengths (column-major, background first) cropped to its
    bounding box, filling only the columns it spans; None when no pixel is set.

    Returns
    -------
    (mask, (row, column)) or None
        The boolean crop and the pixel of its top-left corner.

    Examples
    --------
    >>> mask, origin = runs_crop([4, 2, 3, 1, 2], height=3)  # a 3 x 4 mask
    >>> mask.astype(int).tolist(), origin
    ([[0, 0, 1], [1, 0, 0], [1, 0, 0]], (0, 1))
    """
    runs = np.asarray(runs, dtype=np.int64)
    ends = np.cumsum(runs)
    start, stop = (ends - runs)[1::2], ends[1::2]  # the set runs: [start, stop)
    keep = stop > start
    start, stop = start[keep], stop[keep]
    if not len(start):
        return None
    # each run cut at the columns it crosses: one piece (column, first row, end row) each
    first_col, last_col = start // height, (stop - 1) // height
    k = last_col - first_col + 1
    run = np.repeat(np.arange(len(start)), k)
    col = first_col[run] + np.arange(len(run)) - np.repeat(np.cumsum(k) - k, k)
    top = np.where(col == first_col[run], start[run] - col * height, 0)
    end = np.where(col == last_col[run], stop[run] - col * height, height)
    r0, c0 = int(top.min()), int(first_col[0])
    rows, cols = int(end.max()) - r0, int(last_col[-1]) - c0 + 1
    # +1 where a piece starts, -1 where it ends, in the crop's column-major order: the
    # running sum is 1 inside (starts are distinct, ends too; a start on an end cancels)
    edge = np.zeros(rows * cols + 1, np.int8)
    at = (col - c0) * rows - r0
    edge[at + top] = 1
    edge[at + end] -= 1
    crop = np.cumsum(edge[:-1], dtype=np.int8).reshape(cols, rows).T != 0
    return crop, (r0, c0)
