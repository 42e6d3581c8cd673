"""Benchmark of ``report()`` on a crowd of thousands of annotators (issue #41, B6).

Each annotator draws 2 boxes on 2 images drawn at random among 50, each box near one of a
few true objects of its image (a jitter of a few pixels), so that 10,000 annotators make
20,000 rows and about 400 annotators an image. The report is written in a fresh process
per run, so that its peak RSS (``VmHWM``) is that of one report only; ``/usr/bin/time -v``
around it gives the same figure.

Usage::

    python benchmarks/bench_report_crowd.py                   # 2,000 and 10,000 annotators
    python benchmarks/bench_report_crowd.py --annotators 300  # one size
    python benchmarks/bench_report_crowd.py --child 2000 OUT  # one report, in this process
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

#: Images of the crowd, true objects per image, image side in pixels, box jitter in pixels.
N_IMAGES, N_OBJECTS, SIDE, JITTER = 50, 4, 640.0, 4.0


def make_crowd(n_annotators: int, *, n_images: int = N_IMAGES, seed: int = 0) -> pd.DataFrame:
    """A frame of ``n_annotators`` annotators with 2 boxes each on 2 random images.

    Examples
    --------
    >>> df = make_crowd(10)
    >>> len(df), df["annotator"].nunique()
    (20, 10)
    """
    rng = np.random.default_rng(seed)
    # the true objects: N_OBJECTS per image, sides 40-120 px
    side = rng.uniform(40, 120, size=(n_images, N_OBJECTS, 2))
    corner = rng.uniform(0, SIDE - 120, size=(n_images, N_OBJECTS, 2))
    n = 2 * n_annotators
    # two distinct images an annotator, one box on each
    first = rng.integers(0, n_images, size=n_annotators)
    second = (first + rng.integers(1, n_images, size=n_annotators)) % n_images
    image = np.column_stack([first, second]).ravel()
    obj = rng.integers(0, N_OBJECTS, size=n)
    lo = corner[image, obj] + rng.normal(0, JITTER, size=(n, 2))
    hi = lo + side[image, obj] + rng.normal(0, JITTER, size=(n, 2))
    return pd.DataFrame(
        {
            "item": [f"img{i:02d}" for i in image],
            "annotator": np.repeat([f"a{k:05d}" for k in range(n_annotators)], 2),
            "label": np.where(obj % 2 == 0, "cat", "dog"),
            "x0": lo[:, 0],
            "y0": lo[:, 1],
            "x1": np.maximum(hi[:, 0], lo[:, 0] + 1),
            "y1": np.maximum(hi[:, 1], lo[:, 1] + 1),
            "width": SIDE,
            "height": SIDE,
        }
    )


def child(n_annotators: int, out: str) -> None:
    """One report, timed, its figures printed as one JSON line."""
    import iaa_frames as iaf

    df = make_crowd(n_annotators)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    iaf.report(df, out, progress=False)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB on Linux
    print(json.dumps({"annotators": n_annotators, "cpu_s": cpu, "wall_s": wall, "peak_mb": peak}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, nargs="*", default=[2000, 10000])
    parser.add_argument("--child", nargs=2, metavar=("N", "OUT"))
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1])
        return
    for n in args.annotators:
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run(
                [sys.executable, __file__, "--child", str(n), str(Path(tmp) / "report")],
                capture_output=True,
                text=True,
            )
        print(run.stdout.strip() or run.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
