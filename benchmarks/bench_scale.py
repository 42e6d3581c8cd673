"""Scaling curves of ``agreement(df, n_boot=200)`` on boxes (issue #44, third item).

Run: ``python benchmarks/bench_scale.py [--curves objects annotators million]
[--repeat 3] [--boot 200]``

Three curves, every point in a fresh process (its own peak RSS, nothing cached), the
clock started after the imports and the corpus:

* ``objects``: objects per image 10 -> 1,000 at a fixed ~90k boxes (3 annotators on
  every image; 3,000 images of 10 objects down to 30 images of 1,000). Target: the cost
  per box at 1,000 within 2x of that at 10.
* ``annotators``: a pool of 3 -> 1,000 annotators at a fixed ~7.9k boxes (330 images of
  8 objects, each image drawn by 3 annotators of the pool, as in a crowd). Target: 30
  annotators within 2x the time of 3.
* ``million``: ~1M boxes (50,000 images, 5 annotators, 4 objects) with intervals
  (``n_boot=200``). Target: <= 8 s wall and <= 2 GiB.

The corpora are numpy-built: true boxes placed uniformly in a 640 x 480 image, their
size log-normal like LVIS objects (sqrt of the area share: median 0.05, clipped to
[0.01, 0.5]), aspect ratio log-normal (sd 0.5), 20 classes (Zipf-like); every
annotator redraws each true box with Gaussian corner jitter (3 % of its size), misses
5 % of them, slips the class of 3 %, and adds 3 % boxes of its own.

Each point prints wall, CPU (user + system, all threads) and peak RSS (and, as
``corpus_peak_mb``, the peak before the call: the corpus built); with
``--repeat R`` the best (least CPU) of R fresh processes, and all R CPU times.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

CURVES = {
    # name: list of (label, n_images, objects per image, annotators per image, pool)
    "objects": [
        ("10/img", 3000, 10, 3, 3),
        ("30/img", 1000, 30, 3, 3),
        ("100/img", 300, 100, 3, 3),
        ("300/img", 100, 300, 3, 3),
        ("1000/img", 30, 1000, 3, 3),
    ],
    "annotators": [
        ("3 ann", 330, 8, 3, 3),
        ("10 ann", 330, 8, 3, 10),
        ("30 ann", 330, 8, 3, 30),
        ("100 ann", 330, 8, 3, 100),
        ("1000 ann", 330, 8, 3, 1000),
    ],
    "million": [("1M boxes", 50_000, 4, 5, 5)],
}


def corpus(n_images, objects, per_image, pool, seed=0) -> pd.DataFrame:
    """A numpy-built box corpus (see the module docstring)."""
    rng = np.random.default_rng(seed)
    W, H = 640.0, 480.0
    n = n_images * objects
    item = np.repeat(np.arange(n_images), objects)
    side = np.clip(np.exp(rng.normal(np.log(0.05), 0.8, n)), 0.01, 0.5) * np.sqrt(W * H)
    aspect = np.exp(rng.normal(0, 0.5, n))
    w = np.minimum(side * np.sqrt(aspect), W * 0.9)
    h = np.minimum(side / np.sqrt(aspect), H * 0.9)
    x0 = rng.uniform(0, W - w)
    y0 = rng.uniform(0, H - h)
    n_classes = 20
    p = 1.0 / np.arange(1, n_classes + 1)
    cls = rng.choice(n_classes, n, p=p / p.sum())
    if pool == per_image:
        who = np.broadcast_to(np.arange(per_image), (n_images, per_image))
    else:
        who = np.argsort(rng.random((n_images, pool)), axis=1)[:, :per_image]
    parts = []
    for k in range(per_image):
        keep = rng.random(n) >= 0.05
        jit = rng.normal(0, 0.03, (n, 4)) * np.stack([w, h, w, h], axis=1)
        slip = rng.random(n) < 0.03
        c = np.where(slip, rng.integers(0, n_classes, n), cls)
        bx = np.stack([x0, y0, x0 + w, y0 + h], axis=1) + jit
        n_extra = int(round(0.03 * n))
        e_item = rng.integers(0, n_images, n_extra)
        e_side = np.clip(np.exp(rng.normal(np.log(0.05), 0.8, n_extra)), 0.01, 0.5) * 554.0
        e_x0 = rng.uniform(0, W - e_side)
        e_y0 = rng.uniform(0, H - e_side)
        e_box = np.stack([e_x0, e_y0, e_x0 + e_side, e_y0 + e_side], axis=1)
        it = np.concatenate([item[keep], e_item])
        parts.append(
            pd.DataFrame(
                {
                    "item": it,
                    "annotator": who[it, k],
                    "label": np.concatenate([c[keep], rng.integers(0, n_classes, n_extra)]),
                    "x0": np.concatenate([bx[keep, 0], e_box[:, 0]]),
                    "y0": np.concatenate([bx[keep, 1], e_box[:, 1]]),
                    "x1": np.concatenate([bx[keep, 2], e_box[:, 2]]),
                    "y1": np.concatenate([bx[keep, 3], e_box[:, 3]]),
                }
            )
        )
    df = pd.concat(parts, ignore_index=True)
    df[["x0", "x1"]] = df[["x0", "x1"]].clip(0, W)
    df[["y0", "y1"]] = df[["y0", "y1"]].clip(0, H)
    df = df[(df.x1 - df.x0 > 1) & (df.y1 - df.y0 > 1)].sort_values(["item", "annotator"])
    df["item"] = [f"img_{i:05d}" for i in df["item"]]
    df["annotator"] = [f"a{a:04d}" for a in df["annotator"]]
    df["label"] = [f"class_{c:02d}" for c in df["label"]]
    df["width"], df["height"] = W, H
    return df.reset_index(drop=True)


def run_point(spec, boot, profile=None):
    import iaa_frames as iaf
    import iaa_frames.core.engine.assemble  # noqa: F401 (the engine's imports before the clock)

    _, n_images, objects, per_image, pool = spec
    df = iaf.validate(corpus(n_images, objects, per_image, pool))
    n_boxes = len(df)
    corpus_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    if profile:
        import cProfile

        cProfile.runctx(
            "iaf.agreement(df, n_boot=boot, seed=0, progress=False)",
            globals(),
            dict(iaf=iaf, df=df, boot=boot),
            profile,
        )
    else:
        iaf.agreement(df, n_boot=boot, seed=0, progress=False)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    print(
        json.dumps(
            dict(
                boxes=n_boxes,
                annotators=int(df["annotator"].nunique()),
                wall=round(wall, 3),
                cpu=round(cpu, 3),
                peak_mb=round(r1.ru_maxrss / 1024),
                corpus_peak_mb=corpus_mb,
            )
        )
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--curves", nargs="+", default=["objects", "annotators"], choices=CURVES)
    p.add_argument("--only", nargs="*", help="labels of the points to run (default all)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--boot", type=int, default=200)
    p.add_argument("--profile", help="cProfile output file (with --point)")
    p.add_argument("--point", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.point is not None:
        spec = next(s for c in CURVES.values() for s in c if s[0] == args.point)
        run_point(spec, args.boot, args.profile)
        return
    for name in args.curves:
        print(
            f"# {name}: label, boxes, wall s, cpu s (best of {args.repeat}), "
            "cpu s per 1k boxes, peak MB, all cpu"
        )
        first = None
        for spec in CURVES[name]:
            if args.only and spec[0] not in args.only:
                continue
            runs = []
            for _ in range(args.repeat):
                out = subprocess.run(
                    [sys.executable, __file__, "--point", spec[0], "--boot", str(args.boot)],
                    capture_output=True,
                    text=True,
                )
                if out.returncode:
                    print(out.stderr, file=sys.stderr)
                    sys.exit(out.returncode)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            best = min(runs, key=lambda r: r["cpu"])
            per_k = best["cpu"] / best["boxes"] * 1000
            first = first or best
            print(
                f"{spec[0]:>10} {best['boxes']:>8,} {best['wall']:7.2f} {best['cpu']:7.2f} "
                f"{per_k:7.3f} {best['peak_mb']:6d}  cpu {[r['cpu'] for r in runs]}  "
                f"x{best['cpu'] / first['cpu']:.2f} cpu of the first point",
                flush=True,
            )


if __name__ == "__main__":
    main()
