"""Agreement on label volumes: CPU time of ``agreement`` in a fresh process.

50 scans of 64³ voxels, 3 annotators, 5 lesions a scan (balls of radius 4 to 7 voxels,
each annotator's drawn about the same centre, moved by up to a voxel, radius by up to
one), read with ``read_nifti(instances=True)``; ``agreement(distance="iou",
match_threshold=0.2, n_chance=300, n_boot=0)`` after a small run that imports the
engine. Reading is timed apart.

Run ``python benchmarks/bench_volumes.py`` (one process per call; run it again for the
spread). ``--scans N``, ``--size S`` and ``--n-chance K`` change the corpus and the chance
sample.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def corpus(n_scans: int = 50, size: int = 64, n_objects: int = 5, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    g = np.indices((size, size, size), dtype=np.float32)
    out = {}
    for s in range(n_scans):
        centres = rng.uniform(10, size - 10, (n_objects, 3))
        centres[:, 0] = (np.arange(n_objects) + 0.5) * size / n_objects  # apart along x
        radii = rng.uniform(4, 7, n_objects)
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scans", type=int, default=50)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--n-chance", type=int, default=300)
    args = ap.parse_args()
    import iaa_frames as iaf

    mapping = corpus(args.scans, args.size)
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
