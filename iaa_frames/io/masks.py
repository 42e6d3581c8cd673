"""Pixel masks as exact polygons: the union of their pixel squares.

A COCO RLE segmentation is decoded with ``pycocotools`` (the ``coco`` extra) by
:func:`rle_geometry` (or :func:`rle_crop`, the decoded mask cropped to its bounding box),
and every binary mask becomes its exact (Multi)Polygon in pixel coordinates with
:func:`mask_to_geometry` (many at once with
:func:`~iaa_frames.geometry.kinds.mask.masks_to_geometries`), so that masks are compared
like any other polygon and their vector IoU is their pixel IoU.
"""

from __future__ import annotations

import warnings

import numpy as np

from iaa_frames.geometry.kinds.mask import mask_to_geometry, masks_to_geometries

from .paths import reader_error

__all__ = [
    "MAX_MASK_PIXELS",
    "mask_to_geometry",
    "masks_to_geometries",
    "rle_crop",
    "rle_geometry",
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
    if not counts:
        return []
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
    return x.tolist()


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
    pixels is a ReaderError, raised before anything is decoded.

    Readers of many masks decode them with :func:`rle_crop` and trace them together
    (:func:`~iaa_frames.geometry.kinds.mask.masks_to_geometries`), much faster.

    Examples
    --------
    >>> rle_geometry("x.json", "a", {"size": [3, 4], "counts": [3, 3, 1, 2, 3]}).area
    5.0
    """
    crop = rle_crop(path, entry, seg, max_pixels)
    if crop is None:
        return None
    mask, origin = crop
    return masks_to_geometries([mask], [origin])[0]


def rle_crop(path, entry, seg, max_pixels: int = MAX_MASK_PIXELS):
    """Decode an RLE segmentation as :func:`rle_geometry` does, checks and errors
    included, into the mask cropped to its bounding box.

    Returns
    -------
    (mask, (row, column)) or None
        The boolean crop and the pixel of its top-left corner in the image; None when
        pycocotools is missing.

    Examples
    --------
    >>> mask, origin = rle_crop("x.json", "a", {"size": [3, 4], "counts": [3, 3, 1, 2, 3]})
    >>> mask.astype(int).tolist(), origin
    ([[1, 0], [1, 1], [1, 1]], (0, 1))
    """
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
        # pycocotools decodes whatever the runs add up to: fewer pixels than the mask
        # leave the rest of it uninitialised memory (random masks), more write past it
        runs = compressed_counts(counts)
        if runs is None:
            raise reader_error(
                path, entry, "segmentation.counts is not a compressed COCO RLE string"
            )
        if sum(runs) != h * w:
            raise reader_error(
                path,
                entry,
                f"segmentation.counts (compressed) adds up to {sum(runs)} pixels, "
                f"not height x width = {h * w}",
            )
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
    cols = np.flatnonzero(decoded.any(axis=0))
    if not len(cols):
        raise reader_error(path, entry, "the RLE mask is empty (no pixel set)")
    rows = np.flatnonzero(decoded.any(axis=1))
    r0, c0 = int(rows[0]), int(cols[0])
    return decoded[r0 : rows[-1] + 1, c0 : cols[-1] + 1] != 0, (r0, c0)
