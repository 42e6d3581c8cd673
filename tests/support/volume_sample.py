"""The packaged volume sample (``load_sample("volumes")``): NIfTI-1 label volumes written
byte by byte from the format's specification (nifti1.h), not by nibabel.

Six scans (``case01`` … ``case06``) of 32 × 32 × 16 voxels of 1 × 1 × 2.5 mm, three
annotators. Each scan holds two or three lesions (label 1, balls of radius 2.5 to 3.5 mm,
apart) and one cyst (label 2, radius 4 to 5): ``ana`` draws them as they are, ``ben`` one
voxel wider (a dilation), ``cy`` misses the last lesion of every scan and draws the cyst
one voxel off along x.

Run ``python tests/support/volume_sample.py`` to write ``iaa_frames/samples/volumes``
again; the test suite checks that the packaged files are what this writes.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
from scipy import ndimage

SHAPE = (32, 32, 16)
ZOOMS = (1.0, 1.0, 2.5)
ANNOTATORS = ("ana", "ben", "cy")


def nifti1_bytes(vol: np.ndarray, zooms) -> bytes:
    """A single-file NIfTI-1 (``.nii``): the 348-byte header, 4 bytes of extension flag,
    then the uint8 data from byte 352, the first index varying fastest."""
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)  # sizeof_hdr
    struct.pack_into("<8h", hdr, 40, 3, *vol.shape, 1, 1, 1, 1)  # dim
    struct.pack_into("<hh", hdr, 70, 2, 8)  # datatype DT_UNSIGNED_CHAR, bitpix
    struct.pack_into("<8f", hdr, 76, 1.0, *zooms, 1.0, 1.0, 1.0, 1.0)  # pixdim
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<ff", hdr, 112, 1.0, 0.0)  # scl_slope, scl_inter
    hdr[123] = 2  # xyzt_units: NIFTI_UNITS_MM
    hdr[344:348] = b"n+1\0"
    return bytes(hdr) + b"\0\0\0\0" + np.asarray(vol, np.uint8).tobytes(order="F")


def _ball(centre, radius_mm):
    g = np.indices(SHAPE, dtype=np.float64) * np.asarray(ZOOMS)[:, None, None, None]
    c = np.asarray(centre, dtype=np.float64) * np.asarray(ZOOMS)
    return ((g - c[:, None, None, None]) ** 2).sum(0) <= radius_mm**2


def volumes(seed: int = 45) -> dict:
    """``{scan: {annotator: uint8 array}}`` of the sample."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in range(1, 7):
        n_lesions = int(rng.integers(2, 4))
        xs = np.linspace(5, 26, n_lesions + 1)
        lesions = [  # apart, even one voxel wider: y alternates between two bands
            ([x, rng.uniform(4, 7) + 10 * (i % 2), rng.uniform(4, 11)], rng.uniform(2.5, 3.5))
            for i, x in enumerate(xs[:-1])
        ]
        cyst = ([xs[-1], rng.uniform(20, 26), rng.uniform(5, 10)], rng.uniform(4.0, 5.0))
        truth = np.zeros(SHAPE, np.uint8)
        for c, r in lesions:
            truth[_ball(c, r)] = 1
        truth[_ball(*cyst)] = 2
        wide = np.zeros_like(truth)
        for label in (1, 2):
            comp, n = ndimage.label(truth == label)
            for k in range(1, n + 1):
                wide[ndimage.binary_dilation(comp == k) & (wide == 0)] = label
        cy = np.zeros_like(truth)
        for c, r in lesions[:-1]:
            cy[_ball(c, r)] = 1
        cy[_ball([cyst[0][0] + 1, *cyst[0][1:]], cyst[1])] = 2
        out[f"case{s:02d}"] = {"ana": truth, "ben": wide, "cy": cy}
    return out


def files(seed: int = 45) -> dict:
    """``{relative path: bytes}`` of the sample: ``<annotator>/<scan>.nii.gz``."""
    return {
        f"{who}/{scan}.nii.gz": gzip.compress(nifti1_bytes(vol, ZOOMS), mtime=0)
        for scan, by in volumes(seed).items()
        for who, vol in by.items()
    }


def write(root: Path) -> None:
    for rel, data in files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


if __name__ == "__main__":
    write(Path(__file__).resolve().parents[2] / "iaa_frames" / "samples" / "volumes")
