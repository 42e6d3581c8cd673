"""The volume kind: 3D masks (a radiologist's segmentation of a scan), exact voxel IoU.

Frame representation
--------------------
A volume is a set of voxels of a scan's grid. A parametric kind holds a fixed number of
floats per row, so the voxels themselves live in a store of this module, keyed by a
content hash (:func:`store_voxels`), and the row holds that key and the volume's extent:

``vol_ref``
    The key of the voxel set (an integer below 2**53, exact as a float): a hash of the
    voxels, so that equal voxel sets share a key and a key names one voxel set in every
    process that stored it.
``vol_x0, vol_y0, vol_z0, vol_x1, vol_y1, vol_z1``
    The voxel-index box: the first and one past the last index along each axis of the
    array (x the first axis ``i`` of a NIfTI array, y ``j``, z ``k``). The frame's
    ``x0, y0, x1, y1`` are its first four: the matcher, the chance index and the sweep of
    overlapping pairs use them as they use the boxes of 2D shapes.
``vol_voxels``
    The number of voxels.
``vol_voxel_mm3``
    The volume of one voxel, the product of the header's zooms (mm³ for NIfTI's usual
    ``xyzt_units``); 1 for arrays without a header.

:func:`iaa_frames.read_nifti` fills them from label volumes; :func:`volume_params` from a
boolean array.

Measures
--------
The "area" of a volume is its volume, ``vol_voxels · vol_voxel_mm3`` (spacing honoured),
and the volume two volumes share is the number of voxels they share (sorted voxel keys
and :func:`numpy.intersect1d`, exact) times the smaller voxel volume. Two volumes of one
scan have one voxel volume, and their IoU is the exact voxel IoU
``|A ∩ B| / |A ∪ B|``; Dice is ``2 IoU / (1 + IoU)`` (:func:`dice_from_iou`), and
:func:`iaa_frames.volume_overlap` gives both per label and annotator pair. The IoU bounds of the
matcher bound the shared volume by the area the ``x, y`` boxes share times the overlap
of the ``z`` ranges (:meth:`VolumeKind.shared_bound`), as for 3D cuboids.

Chance pairs across scans
-------------------------
Volume rows carry no image ``width``/``height`` (they are refused: a voxel set is not
rescaled), so the chance pairs of unrelated scans compare voxel sets *at the same voxel
indices*: the choice of the cuboid kind (metres in the sensor's frame), not the
normalized coordinates of 2D images. Scans of one study usually share a grid (one
protocol, one resampling); for scans of different grids, resample them to one grid
before reading, or the chance baseline compares voxels of different anatomy sizes.

Limits
------
The store lives in the process that read the volumes: dask with worker *threads* sees
it, worker processes do not (read the volumes on the workers too). The store keeps every
voxel set read until :func:`clear_voxels`. Volumes compare only with volumes (no
polygons: figures that draw outlines do not apply).

Examples
--------
>>> import numpy as np
>>> a = np.zeros((4, 4, 4), bool); a[1:3, 1:3, 1:3] = True          # 8 voxels
>>> b = np.zeros((4, 4, 4), bool); b[1:3, 1:3, 2:4] = True          # 8, 4 shared
>>> pa, pb = volume_params(a, zooms=(2, 1, 1)), volume_params(b, zooms=(2, 1, 1))
>>> VOLUME.areas(np.array([pa])).tolist()                          # mm³
[16.0]
>>> float(VOLUME.similarity(np.array([pa]), np.array([pb]))[0])   # 4 / 12
0.3333333333333333
>>> round(dice_from_iou(1 / 3), 4)                                  # 2·4 / 16
0.5
"""

from __future__ import annotations

import hashlib

import numpy as np

from iaa_frames.errors import ParameterError

from .registry import Kind, register_kind

__all__ = [
    "VOLUME",
    "VOLUME_COLUMNS",
    "VolumeKind",
    "clear_voxels",
    "dice_from_iou",
    "store_voxels",
    "volume_params",
    "voxel_keys",
    "voxel_params",
    "voxels",
]

VOLUME_COLUMNS = (
    "vol_ref",
    "vol_x0",
    "vol_y0",
    "vol_z0",
    "vol_x1",
    "vol_y1",
    "vol_z1",
    "vol_voxels",
    "vol_voxel_mm3",
)

#: Bits per axis of a voxel key: ``(x' << 42) | (y' << 21) | z'``, each index ``v`` kept
#: as ``v' = v + 2**20`` so that moved voxel sets (aligned chance units) may leave the grid.
_BITS = 21
_OFF = 1 << (_BITS - 1)
_MASK = (1 << _BITS) - 1
_STORE: dict[int, np.ndarray] = {}


def _keys(ijk: np.ndarray) -> np.ndarray:
    ijk = np.asarray(ijk, dtype=np.int64).reshape(-1, 3)
    if ijk.size and (ijk.min() < -_OFF or ijk.max() >= _OFF):
        raise ParameterError(
            f"voxel indices must lie in [{-_OFF}, {_OFF}); got {ijk.min()}..{ijk.max()}"
        )
    ijk = ijk + _OFF
    return (ijk[:, 0] << (2 * _BITS)) | (ijk[:, 1] << _BITS) | ijk[:, 2]


def _store_keys(keys: np.ndarray) -> int:
    """Store sorted unique keys under their hash; the hash."""
    digest = hashlib.blake2b(keys.tobytes(), digest_size=8).digest()
    ref = int.from_bytes(digest, "little") >> 11  # 53 bits: exact as a float64
    _STORE.setdefault(ref, keys)
    return ref


def store_voxels(ijk) -> int:
    """Store a voxel set (an ``(n, 3)`` array of integer indices ``i, j, k``) and return
    its key (an integer below 2**53: a hash of the set, equal for equal sets).

    Examples
    --------
    >>> ref = store_voxels([[0, 0, 0], [1, 0, 0]])
    >>> ref == store_voxels([[1, 0, 0], [0, 0, 0]]), voxels(ref).tolist()
    (True, [[0, 0, 0], [1, 0, 0]])
    """
    return _store_keys(np.unique(_keys(ijk)))


def voxels(ref) -> np.ndarray:
    """The ``(n, 3)`` voxel indices ``i, j, k`` of a stored voxel set.

    Raises
    ------
    ParameterError
        For a key this process has not stored.
    """
    keys = _lookup(ref)
    ijk = np.column_stack([keys >> (2 * _BITS), (keys >> _BITS) & _MASK, keys & _MASK])
    return ijk - _OFF


def voxel_keys(ref) -> np.ndarray:
    """The sorted int64 keys of a stored voxel set (one per voxel; equal voxels of any
    two sets have equal keys, so sets compare with :func:`numpy.intersect1d` and
    :func:`numpy.union1d`). Do not change the array: it is the store's.

    Examples
    --------
    >>> keys = voxel_keys(store_voxels([[0, 0, 1], [0, 0, 0]]))
    >>> len(keys), bool(keys[0] < keys[1])
    (2, True)
    """
    return _lookup(ref)


def _lookup(ref) -> np.ndarray:
    try:
        return _STORE[int(ref)]
    except KeyError:
        raise ParameterError(
            f"no voxel set {int(ref)} in this process: volume rows refer to voxels stored "
            "by iaa_frames.read_nifti or volume_params in the same process (dask worker "
            "processes do not share them; use threads)"
        ) from None


def clear_voxels() -> None:
    """Empty the voxel store (the frames read before then can no longer be measured)."""
    _STORE.clear()


def volume_params(mask, *, zooms=(1.0, 1.0, 1.0)) -> list[float]:
    """The :data:`VOLUME_COLUMNS` of a 3D boolean array (its True voxels stored).

    Parameters
    ----------
    mask : array_like of bool, 3 dimensions
    zooms : three floats, default (1, 1, 1)
        The voxel size along each axis (mm); their product is ``vol_voxel_mm3``.

    Examples
    --------
    >>> m = np.zeros((3, 3, 3), bool); m[0, 1:3, 2] = True
    >>> volume_params(m)[1:]
    [0.0, 1.0, 2.0, 1.0, 3.0, 3.0, 2.0, 1.0]
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 3:
        raise ParameterError(f"a volume is a 3D array; got {mask.ndim} dimensions")
    return voxel_params(np.argwhere(mask), zooms=zooms)


def voxel_params(ijk, *, zooms=(1.0, 1.0, 1.0)) -> list[float]:
    """The :data:`VOLUME_COLUMNS` of a voxel set given as ``(n, 3)`` indices ``i, j, k``
    (stored, :func:`store_voxels`); as :func:`volume_params`.

    Examples
    --------
    >>> voxel_params([[0, 0, 0], [2, 0, 0]], zooms=(1, 1, 3))[1:]
    [0.0, 0.0, 0.0, 3.0, 1.0, 1.0, 2.0, 3.0]
    """
    ijk = np.asarray(ijk, dtype=np.int64).reshape(-1, 3)
    if not len(ijk):
        raise ParameterError("an empty mask is no volume")
    lo, hi = ijk.min(axis=0), ijk.max(axis=0) + 1
    z = [float(v) for v in zooms][:3]
    if len(z) != 3 or not all(np.isfinite(z)) or min(z) <= 0:
        raise ParameterError(f"zooms must be three positive numbers; got {zooms!r}")
    ref = store_voxels(ijk)
    return [
        float(ref),
        *(float(v) for v in lo),
        *(float(v) for v in hi),
        float(len(_STORE[ref])),
        float(z[0] * z[1] * z[2]),
    ]


def dice_from_iou(iou):
    """Dice (the F1 of voxels, ``2 |A ∩ B| / (|A| + |B|)``) from the IoU of the same two
    sets: ``2 IoU / (1 + IoU)``.

    Examples
    --------
    >>> dice_from_iou(np.array([0.0, 1 / 3, 1.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    iou = np.asarray(iou, dtype=np.float64)
    out = 2 * iou / (1 + iou)
    return out if out.ndim else float(out)


def _shared_voxels(ref_a, ref_b) -> np.ndarray:
    out = np.zeros(len(ref_a))
    done: dict = {}
    for i, (a, b) in enumerate(zip(ref_a.tolist(), ref_b.tolist(), strict=True)):
        key = (a, b) if a <= b else (b, a)
        n = done.get(key)
        if n is None:
            ka, kb = _lookup(a), _lookup(b)
            n = len(ka) if a == b else len(np.intersect1d(ka, kb, assume_unique=True))
            done[key] = n
        out[i] = n
    return out


class VolumeKind(Kind):
    """3D voxel sets (module docstring); the data of ``m`` volumes is an ``(m, 9)``
    float64 array of :data:`VOLUME_COLUMNS`."""

    name = "volume"
    columns = VOLUME_COLUMNS
    description = "3D masks (voxel sets of a scan), exact voxel IoU, spacing honoured"
    #: Aligned chance units move a volume in x and y by whole voxels (:meth:`translate`);
    #: its z range stays, as a cuboid's height does.
    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """The volumes moved by ``(dx, dy)`` rounded to whole voxels (a voxel set moves
        on its grid): their voxels stored moved, their boxes moved by as much.

        The aligned units (:mod:`iaa_frames.chance.aligned`) screen candidates by the IoU
        bound of boxes moved by the unrounded offset, so a candidate within half a voxel
        of the gate may be screened by a bound half a voxel off; the units kept are
        measured exactly, on the moved voxels."""
        data = np.array(data, dtype=np.float64, copy=True)
        sx = np.rint(np.asarray(dx, np.float64)).astype(np.int64)
        sy = np.rint(np.asarray(dy, np.float64)).astype(np.int64)
        for r in range(len(data)):
            if sx[r] == 0 and sy[r] == 0:
                continue
            keys = _lookup(data[r, 0]) + ((int(sx[r]) << (2 * _BITS)) + (int(sy[r]) << _BITS))
            data[r, 0] = float(_store_keys(keys))
        data[:, [1, 4]] += sx[:, None]
        data[:, [2, 5]] += sy[:, None]
        return data

    def normalize(self, data, sx, sy):
        """Refused: voxel sets are compared at their voxel indices (module docstring).

        Raises
        ------
        ParameterError
            Always (it is called only for rows with an image width and height).
        """
        raise ParameterError(
            "volume rows are voxel sets compared at their voxel indices and are not "
            "normalized by an image size: leave width and height empty (NaN) on volume rows"
        )

    def invalid(self, data):
        """Volumes with a non-finite parameter, no voxel or a voxel volume that is not
        positive. (A key this process has not stored is no invalid shape: measuring it
        raises, saying where the voxels went.)"""
        data = np.asarray(data, np.float64)
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(data).all(axis=1) | ~(data[:, 7] > 0) | ~(data[:, 8] > 0)

    def bounds(self, data):
        """The ``x, y`` voxel-index box: ``vol_x0, vol_y0, vol_x1, vol_y1``."""
        return np.asarray(data, np.float64)[:, [1, 2, 4, 5]]

    def areas(self, data):
        """Volumes: the number of voxels times the voxel volume (mm³)."""
        data = np.asarray(data, np.float64)
        return data[:, 7] * data[:, 8]

    def intersection(self, data_a, data_b):
        """The shared voxels, counted exactly, times the smaller voxel volume."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        if not len(a):
            return np.zeros(0)
        return _shared_voxels(a[:, 0], b[:, 0]) * np.minimum(a[:, 8], b[:, 8])

    def shared_bound(self, data_a, data_b, planar):
        """``planar`` (voxels² the ``x, y`` boxes share) times the overlap of the ``z``
        ranges and the smaller voxel volume: a bound of the shared volume."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        dz = np.maximum(np.minimum(a[:, 6], b[:, 6]) - np.maximum(a[:, 3], b[:, 3]), 0.0)
        return np.asarray(planar, np.float64) * dz * np.minimum(a[:, 8], b[:, 8])

    def giou_terms(self, data_a, data_b, union):
        """GIoU's enclosing measure: the voxel-index box holding both volumes (times the
        smaller voxel volume); the union the volumes' own."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        size = np.maximum(a[:, 4:7], b[:, 4:7]) - np.minimum(a[:, 1:4], b[:, 1:4])
        enclosing = size.prod(axis=1) * np.minimum(a[:, 8], b[:, 8])
        return enclosing, np.asarray(union, dtype=np.float64)

    def centroids(self, data):
        """The centres of the ``x, y`` boxes."""
        b = self.bounds(data)
        return np.column_stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2])


#: 3D masks, columns :data:`VOLUME_COLUMNS`.
VOLUME = register_kind(VolumeKind())
