"""Time :func:`iaa_frames.simulate.simulate` on large corpora.

Run from the repository root::

    /tmp/venv/bin/python benchmarks/bench_simulate.py            # default sizes
    /tmp/venv/bin/python benchmarks/bench_simulate.py --quick    # smaller, for a smoke run

Targets: about 1,000,000 box annotations (50,000 items x 5 annotators x ~4 objects) and
100,000 polygon annotations in a few seconds each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iaa_frames.simulate import simulate  # noqa: E402

ANNOTATORS = {
    "good1": "good",
    "good2": "good",
    "sloppy": {"jitter": 0.15, "false_positives": 0.3},
    "misser": "misser",
    "mislabeler": {"confusion": 0.3, "coverage": 0.9},
}


def bench(label, repeat=3, **kwargs):
    best, n = float("inf"), 0
    for _ in range(repeat):
        t = time.perf_counter()
        df = simulate(annotators=ANNOTATORS, **kwargs)
        best = min(best, time.perf_counter() - t)
        n = len(df)
    print(f"{label:<34} {n:>10,d} rows  best of {repeat}: {best:6.2f} s")
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    bench(
        "boxes, 50,000 items x 5 annotators",
        args.repeat,
        n_items=50_000 // scale,
        kind="box",
        seed=0,
    )
    bench("polygons, 5,000 items x 5", args.repeat, n_items=5_000 // scale, kind="polygon", seed=0)
    bench("mixed, 10,000 items x 5", args.repeat, n_items=10_000 // scale, kind="mixed", seed=0)


if __name__ == "__main__":
    main()
