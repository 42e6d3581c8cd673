"""The volume kind: 3D masks (a radiologist's segmentation of a scan), exact voxel IoU.

Frame representation
--------------------
A volume is a set of voxels of a scan's grid, held by its row of the frame (no store
elsewhere: a frame measures the same in any process, after a Parquet round trip and on
dask workers). Its floats:

``vol_x0, vol_y0, vol_z0, vol_x1, vol_y1, vol_z1``
    The voxel-index box: the first and one past the last index along each axis of the
    array (x the first axis ``i`` of a NIfTI array, y ``j``, z ``k``). The frame's
    ``x0, y0, x1, y1`` are its ``x, y`` part: the matcher, the chance index and the sweep
    of overlapping pairs use them as they use the boxes of 2D shapes.
``vol_voxels``
    The number of voxels.
``vol_voxel_mm3``
    The volume of one voxel, the product of the header's zooms (mm³ for NIfTI's usual
    ``xyzt_units``); 1 for arrays without a header.

and its voxels, the kind's payload column ``vol_runs``: an int64 array
``[s0, e0, s1, e1, ...]`` of the half-open runs of consecutive voxel keys, sorted, where
the key of voxel ``(i, j, k)`` is ``(i' << 42) | (j' << 21) | k'`` with ``v' = v + 2**20``
(indices in ``[-2**20, 2**20)``, so that moved voxel sets may leave the grid): a run is a
stretch of voxels along the third axis. Parquet stores it as a list of integers.

:func:`iaa_frames.read_nifti` fills these columns from label volumes; :func:`volume_params`
from a boolean array.

Measures
--------
The "area" of a volume is its volume, ``vol_voxels · vol_voxel_mm3`` (spacing honoured),
and the volume two volumes share is the number of voxels they share times the smaller
voxel volume. The shared voxels of many pairs are counted at once
(:func:`shared_voxels`): every run of the volume with fewer runs is measured against the
other's runs by a vectorised binary search and prefix sums of run lengths, over the runs
of all pairs concatenated (no Python loop per pair). Two volumes of one scan have one
voxel volume, and their IoU is the exact voxel IoU ``|A ∩ B| / |A ∪ B|``; Dice is
``2 IoU / (1 + IoU)`` (:func:`dice_from_iou`). The IoU bounds of the matcher bound the
shared volume by the area the ``x, y`` boxes share times the overlap of the ``z`` ranges
(:meth:`VolumeKind.shared_bound`), as for 3D cuboids.

Chance pairs across scans
-------------------------
Volume rows carry no image ``width``/``height`` (they are refused: a voxel set is not
rescaled), so the chance pairs of unrelated scans compare voxel sets *at the same voxel
indices*: the choice of the cuboid kind (metres in the sensor's frame), not the
normalized coordinates of 2D images. Scans of one study usually share a grid (one
protocol, one resampling); for scans of different grids, resample them to one grid
before reading, or the chance baseline compares voxels of different anatomy sizes.
Volumes compare only with volumes (no polygons: figures that draw outlines do not apply).

Examples
--------
>>> a = np.zeros((4, 4, 4), bool); a[1:3, 1:3, 1:3] = True          # 8 voxels
>>> b = np.zeros((4, 4, 4), bool); b[1:3, 1:3, 2:4] = True          # 8, 4 shared
>>> ra, rb = volume_params(a, zooms=(2, 1, 1)), volume_params(b, zooms=(2, 1, 1))
>>> pa, pb = np.array([ra[c] for c in VOLUME_COLUMNS]), np.array([rb[c] for c in VOLUME_COLUMNS])
>>> VOLUME.areas(pa[None]).tolist()                                 # mm³
[16.0]
>>> ya, yb = Ragged.from_arrays([ra["vol_runs"]]), Ragged.from_arrays([rb["vol_runs"]])
>>> VOLUME.intersection(pa[None], pb[None], ya, yb).tolist()        # 4 voxels of 2 mm³
[8.0]
>>> round(dice_from_iou(1 / 3), 4)                                  # 2·4 / 16
0.5
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError, SchemaError

from .ragged import Ragged
from .registry import Kind, register_kind
from .voxel_runs import runs_voxels, shared_voxels, shifted_runs, voxel_runs

__all__ = [
    "RUNS",
    "VOLUME",
    "VOLUME_COLUMNS",
    "VolumeKind",
    "dice_from_iou",
    "runs_voxels",
    "shared_voxels",
    "volume_params",
    "voxel_params",
    "voxel_runs",
]

VOLUME_COLUMNS = (
    "vol_x0",
    "vol_y0",
    "vol_z0",
    "vol_x1",
    "vol_y1",
    "vol_z1",
    "vol_voxels",
    "vol_voxel_mm3",
)
#: The payload column: each volume's voxel runs (module docstring).
RUNS = "vol_runs"


def volume_params(mask, *, zooms=(1.0, 1.0, 1.0)) -> dict:
    """The columns of a volume row (:data:`VOLUME_COLUMNS` and ``vol_runs``) of a 3D
    boolean array (its True voxels).

    Parameters
    ----------
    mask : array_like of bool, 3 dimensions
    zooms : three floats, default (1, 1, 1)
        The voxel size along each axis (mm); their product is ``vol_voxel_mm3``.

    Examples
    --------
    >>> m = np.zeros((3, 3, 3), bool); m[0, 1:3, 2] = True
    >>> row = volume_params(m)
    >>> [row[c] for c in VOLUME_COLUMNS], len(row["vol_runs"])      # 2 runs of 1 voxel
    ([0.0, 1.0, 2.0, 1.0, 3.0, 3.0, 2.0, 1.0], 4)
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 3:
        raise ParameterError(f"a volume is a 3D array; got {mask.ndim} dimensions")
    return voxel_params(np.argwhere(mask), zooms=zooms)


def voxel_params(ijk, *, zooms=(1.0, 1.0, 1.0)) -> dict:
    """The columns of a volume row of a voxel set given as ``(n, 3)`` indices ``i, j, k``;
    as :func:`volume_params`.

    Examples
    --------
    >>> row = voxel_params([[0, 0, 0], [2, 0, 0]], zooms=(1, 1, 3))
    >>> row["vol_x1"], row["vol_voxels"], row["vol_voxel_mm3"]
    (3.0, 2.0, 3.0)
    """
    ijk = np.asarray(ijk, dtype=np.int64).reshape(-1, 3)
    if not len(ijk):
        raise ParameterError("an empty mask is no volume")
    z = [float(v) for v in zooms][:3]
    if len(z) != 3 or not all(np.isfinite(z)) or min(z) <= 0:
        raise ParameterError(f"zooms must be three positive numbers; got {zooms!r}")
    runs = voxel_runs(ijk)
    lo, hi = ijk.min(axis=0), ijk.max(axis=0) + 1
    n = float((runs[1::2] - runs[0::2]).sum())
    floats = [*(float(v) for v in lo), *(float(v) for v in hi), n, z[0] * z[1] * z[2]]
    return {**dict(zip(VOLUME_COLUMNS, floats, strict=True)), RUNS: runs}


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


def _check_runs(frame, rows: np.ndarray, runs: Ragged) -> None:
    """SchemaError unless the runs of the volume rows ``rows`` are even, sorted, disjoint
    and count ``vol_voxels``."""
    count = runs.count[rows]
    bad = (count == 0) | (count % 2 == 1)
    vals, row = runs.take(rows[~bad]).flat()
    if vals.size:
        s, e = vals[0::2], vals[1::2]
        r = row[0::2]
        n = np.bincount(r, weights=e - s, minlength=int((~bad).sum()))
        step = np.ones(len(s), bool)
        step[1:] = (r[1:] != r[:-1]) | (s[1:] > e[:-1])
        ok = (e > s) & step
        wrong = np.bincount(r, weights=~ok, minlength=len(n)) > 0
        voxels = frame["vol_voxels"].to_numpy(np.float64, na_value=np.nan)[rows[~bad]]
        bad[np.flatnonzero(~bad)[wrong | (n != voxels)]] = True
    if bad.any():
        where = frame.index[rows[bad]][:5].tolist()
        raise SchemaError(
            f"{int(bad.sum())} volume row(s) (index {where}...) have no valid {RUNS!r}: each "
            "needs its voxel runs [s0, e0, s1, e1, ...], sorted, disjoint and counting "
            "vol_voxels (read volumes with iaa_frames.read_nifti or volume_params, and keep "
            f"the {RUNS!r} column)"
        )


class VolumeKind(Kind):
    """3D voxel sets (module docstring); the data of ``m`` volumes is an ``(m, 8)``
    float64 array of :data:`VOLUME_COLUMNS`, their voxels a
    :class:`~iaa_frames.geometry.kinds.ragged.Ragged` of runs (the payload ``vol_runs``)."""

    name = "volume"
    columns = VOLUME_COLUMNS
    payload = RUNS
    description = "3D masks (voxel sets of a scan), exact voxel IoU, spacing honoured"
    #: Aligned chance units move a volume in x and y by whole voxels (:meth:`translate`);
    #: its z range stays, as a cuboid's height does.
    chance_alignment = "translate"

    def read_payload(self, frame):
        """The voxel runs of every row (:class:`Ragged`), checked on the volume rows.

        Raises
        ------
        SchemaError
            Where a volume row has no runs or runs that do not hold ``vol_voxels`` voxels.
        """
        runs = super().read_payload(frame)
        rows = np.flatnonzero(self.rows(frame))
        if rows.size:
            _check_runs(frame, rows, runs)
        return runs

    def translate(self, data, dx, dy):
        """The volumes' boxes moved by ``(dx, dy)`` rounded to whole voxels (a voxel set
        moves on its grid; :meth:`translate_payload` moves the voxels by as much).

        The aligned units (:mod:`iaa_frames.core.chance.aligned`) screen candidates by the IoU
        bound of boxes moved by the unrounded offset, so a candidate within half a voxel
        of the gate may be screened by a bound half a voxel off; the units kept are
        measured exactly, on the moved voxels."""
        data = np.array(data, dtype=np.float64, copy=True)
        sx, sy = np.rint(np.asarray(dx, np.float64)), np.rint(np.asarray(dy, np.float64))
        data[:, [0, 3]] += sx[:, None]
        data[:, [1, 4]] += sy[:, None]
        return data

    def translate_payload(self, payload, dx, dy):
        """The voxel runs moved by ``(dx, dy)`` rounded to whole voxels (one shift of the
        keys per volume: runs stay runs).

        Raises
        ------
        ParameterError
            Where a moved voxel would leave the index range of the keys."""
        sx = np.rint(np.asarray(dx, np.float64)).astype(np.int64)
        sy = np.rint(np.asarray(dy, np.float64)).astype(np.int64)
        return shifted_runs(payload, sx, sy)

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
        positive."""
        data = np.asarray(data, np.float64)
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(data).all(axis=1) | ~(data[:, 6] > 0) | ~(data[:, 7] > 0)

    def bounds(self, data):
        """The ``x, y`` voxel-index box: ``vol_x0, vol_y0, vol_x1, vol_y1``."""
        return np.asarray(data, np.float64)[:, [0, 1, 3, 4]]

    def areas(self, data):
        """Volumes: the number of voxels times the voxel volume (mm³)."""
        data = np.asarray(data, np.float64)
        return data[:, 6] * data[:, 7]

    def intersection(self, data_a, data_b, payload_a=None, payload_b=None):
        """The shared voxels, counted exactly (:func:`shared_voxels` on the payloads),
        times the smaller voxel volume.

        Raises
        ------
        ParameterError
            Without the payloads (the voxels are not in the floats)."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        if not len(a):
            return np.zeros(0)
        if payload_a is None or payload_b is None:
            raise ParameterError(
                f"volume intersections need the voxel runs ({RUNS!r}) of both sides"
            )
        shared = shared_voxels(payload_a, payload_b, (a[:, :6], b[:, :6]))
        return shared * np.minimum(a[:, 7], b[:, 7])

    def shared_bound(self, data_a, data_b, planar):
        """``planar`` (voxels² the ``x, y`` boxes share) times the overlap of the ``z``
        ranges and the smaller voxel volume: a bound of the shared volume."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        dz = np.maximum(np.minimum(a[:, 5], b[:, 5]) - np.maximum(a[:, 2], b[:, 2]), 0.0)
        return np.asarray(planar, np.float64) * dz * np.minimum(a[:, 7], b[:, 7])

    def giou_terms(self, data_a, data_b, union):
        """GIoU's enclosing measure ``C``, the voxel-index box holding both volumes, and the
        union ``U'`` of its penalty ``(C - U') / C``, the union of the two volumes' own
        boxes (both times the smaller voxel volume).

        As the convex hulls of polygons do (:func:`iaa_frames.geometry.giou.hull_terms`),
        the penalty measures the empty space *between* the volumes, not their own shape: a
        ball has GIoU 1 with itself (with the volumes' voxel union as ``U'``, a ball's
        corners would cost it about half its similarity with itself).

        Examples
        --------
        >>> row = [0, 0, 0, 4, 4, 4, 30, 1.0]  # a blob of 30 voxels in a 4 x 4 x 4 box
        >>> c, u = VOLUME.giou_terms([row], [row], [30.0])
        >>> c.tolist(), u.tolist()
        ([64.0], [64.0])
        """
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        lo, hi = np.minimum(a[:, 0:3], b[:, 0:3]), np.maximum(a[:, 3:6], b[:, 3:6])
        voxel = np.minimum(a[:, 7], b[:, 7])
        box_a = (a[:, 3:6] - a[:, 0:3]).prod(axis=1)
        box_b = (b[:, 3:6] - b[:, 0:3]).prod(axis=1)
        shared = np.clip(
            np.minimum(a[:, 3:6], b[:, 3:6]) - np.maximum(a[:, 0:3], b[:, 0:3]), 0.0, None
        ).prod(axis=1)
        return (hi - lo).prod(axis=1) * voxel, (box_a + box_b - shared) * voxel

    def centroids(self, data):
        """The centres of the ``x, y`` boxes."""
        b = self.bounds(data)
        return np.column_stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2])


#: 3D masks, columns :data:`VOLUME_COLUMNS`, voxels in ``vol_runs``.
VOLUME = register_kind(VolumeKind())
