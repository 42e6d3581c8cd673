"""Agreement on label volumes: CPU time of ``agreement`` in a fresh process.

50 scans of 64³ voxels, 3 annotators, 5 lesions a scan (balls of radius 4 to 7 voxels,
each annotator's drawn about the same centre, moved by up to a voxel, radius by up to
one), read with ``read_nifti(instances=True)``; ``agreement(distance="iou",
match_threshold=0.2, n_chance=300, n_boot=0)`` after a small run that imports the
engine. Reading is timed apart.

Run ``python benchmarks/bench_volumes.py`` (one process per call; run it again for the
spread). ``--scans N``, ``--size S``, ``--radius LO HI`` and ``--n-chance K`` change the corpus
and the chance sample; ``--pairs`` times the shared voxels alone (:func:`pairs_timing`).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def corpus(
    n_scans: int = 50, size: int = 64, n_objects: int = 5, seed: int = 0, radius=(4.0, 7.0)
) -> dict:
    rng = np.random.default_rng(seed)
    g = np.indices((size, size, size), dtype=np.float32)
    out = {}
    for s in range(n_scans):
        margin = radius[1] + 3
        centres = rng.uniform(margin, size - margin, (n_objects, 3))
        centres[:, 0] = (np.arange(n_objects) + 0.5) * size / n_objects  # apart along x
        radii = rng.uniform(*radius, n_objects)
        scans = {}
        for who in ("ana", "ben", "cy"):
            vol = np.zeros((size,) * 3, np.uint8)
            for c, r in zip(centres, radii):
                cj = c + rng.uniform(-1, 1, 3)
                rj = r + rng.uniform(-1, 1)
                d = ((g - cj[:, None, None, None].astype(np.float32)) ** 2).sum(0)
                vol[d <= rj**2] = 1
            scans[who] = vol
        out[f"s{s:02d}"] = scans
    return out


def pairs_timing(df, n_random: int = 100_000, seed: int = 0) -> dict:
    """CPU time of the shared voxels of the pairs whose boxes meet among every pair of
    objects of one scan and ``n_random`` pairs of objects of two scans (what the matcher
    and the chance index hand over): :func:`shared_voxels` (all pairs at once,
    with the boxes) against :func:`numpy.intersect1d` of sorted voxel keys one pair at a
    time (what the volume kind did before its voxels moved into the frame; the keys are
    expanded beforehand, untimed)."""
    from iaa_frames.geometry.kinds.ragged import Ragged, positions
    from iaa_frames.geometry.kinds.volume import RUNS, VOLUME_COLUMNS, shared_voxels

    obj = df[df["vol_voxels"].notna()].reset_index(drop=True)
    runs = Ragged.from_arrays(obj[RUNS].to_numpy(dtype=object))
    boxes = obj[list(VOLUME_COLUMNS[:6])].to_numpy(np.float64)
    codes = obj["item"].astype("category").cat.codes.to_numpy()
    ia, ib = np.triu_indices(len(obj), 1)
    same = codes[ia] == codes[ib]
    rng = np.random.default_rng(seed)
    ra, rb = rng.integers(0, len(obj), (2, n_random))
    a = np.concatenate([ia[same], ra])
    b = np.concatenate([ib[same], rb])
    # only pairs whose boxes meet, as the matcher and the chance index hand over
    lo, hi = np.maximum(boxes[a, :3], boxes[b, :3]), np.minimum(boxes[a, 3:], boxes[b, 3:])
    meet = (hi > lo).all(axis=1)
    a, b = a[meet], b[meet]
    t0 = time.process_time()
    new = shared_voxels(runs.take(a), runs.take(b), (boxes[a], boxes[b]))
    t_new = time.process_time() - t0
    keys = []
    for r in obj[RUNS]:
        r = np.asarray(r).reshape(-1, 2)
        keys.append(positions(r[:, 0], r[:, 1] - r[:, 0])[0])
    t0 = time.process_time()
    old = np.array(
        [len(np.intersect1d(keys[x], keys[y], assume_unique=True)) for x, y in zip(a, b)]
    )
    t_old = time.process_time() - t0
    assert np.array_equal(old, new)
    return {
        "pairs": int(len(a)),
        "mean_voxels": round(float(obj["vol_voxels"].mean())),
        "mean_runs": round(float(runs.count.mean() / 2)),
        "intersect1d_per_pair_cpu_s": round(t_old, 3),
        "shared_voxels_cpu_s": round(t_new, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scans", type=int, default=50)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--n-chance", type=int, default=300)
    ap.add_argument("--radius", type=float, nargs=2, default=(4.0, 7.0))
    ap.add_argument("--pairs", action="store_true", help="time the shared voxels alone")
    args = ap.parse_args()
    import iaa_frames as iaf

    mapping = corpus(args.scans, args.size, radius=tuple(args.radius))
    if args.pairs:
        print(json.dumps(pairs_timing(iaf.read_nifti(mapping, instances=True))))
        return
    settings = {"distance": "iou", "match_threshold": 0.2, "n_boot": 0, "seed": 0}
    # imports (about 1 s: scipy.stats, the engine) out of the timing: a small run first
    small = {k: mapping[k] for k in list(mapping)[:2]}
    iaf.agreement(iaf.read_nifti(small, instances=True), n_chance=20, **settings)
    t0 = time.process_time()
    df = iaf.read_nifti(mapping, instances=True)
    t_read = time.process_time() - t0
    t0, w0 = time.process_time(), time.perf_counter()
    res = iaf.agreement(df, n_chance=args.n_chance, **settings)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    got = res["agreement"].sel(label="(all)", annotator="(all)").to_series().round(4)
    print(
        json.dumps(
            {
                "objects": int(df["vol_voxels"].notna().sum()),
                "read_cpu_s": round(t_read, 2),
                "agreement_cpu_s": round(cpu, 2),
                "agreement_wall_s": round(wall, 2),
                "agreement": got.to_dict(),
            }
        )
    )


if __name__ == "__main__":
    main()
