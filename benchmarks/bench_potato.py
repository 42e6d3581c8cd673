"""Benchmark of :func:`iaa_frames.potato_metrics`: what Potato's admin page would wait for.

Each run is a fresh subprocess on the Potato sample's rows (40 images, 3 annotators, 276
shapes, read from ``iaa_frames/samples/potato`` as Potato holds them in memory), and
times, wall clock and CPU (the process's, every thread's) apart:

1. ``import iaa_frames``;
2. ``from iaa_frames import potato_metrics`` (the package imports its modules on first
   use: this one brings the engine, scipy.stats and scipy.optimize among it);
3. the first call, and the same call again with the rows rebuilt (equal content, new
   dicts: served from the cache);
4. a call on changed rows (one image fewer) in the warm process: a computed call without
   the first-use costs.

Usage::

    python benchmarks/bench_potato.py                 # n_boot 0 and 100, 5 runs each
    python benchmarks/bench_potato.py --runs 1        # one run each
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time

def clock():
    return time.perf_counter(), time.process_time()

def since(t):
    w, c = clock()
    return [w - t[0], c - t[1]]

out = {}
t = clock()
import iaa_frames as iaf
out["import iaa_frames"] = since(t)
t = clock()
from iaa_frames import potato_metrics
out["first access (engine import)"] = since(t)

def rows():
    found = {}
    for f in sorted((iaf.sample_path("potato") / "annotation_output").glob("*/user_state.json")):
        st = json.loads(f.read_text())
        for item, pairs in st["instance_id_to_label_to_value"].items():
            found.setdefault(item, {})[st["user_id"]] = json.loads(pairs[0][1])
    return found

n_boot = int(sys.argv[1])
data = rows()
t = clock()
potato_metrics(data, n_boot=n_boot)
out["first call"] = since(t)
again = rows()
t = clock()
potato_metrics(again, n_boot=n_boot)
out["equal rows again (cache)"] = since(t)
changed = dict(list(rows().items())[1:])
t = clock()
potato_metrics(changed, n_boot=n_boot)
out["changed rows (warm process)"] = since(t)
print(json.dumps(out))
"""


def one_run(n_boot: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(n_boot)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--n-boot", type=int, nargs="*", default=[0, 100])
    args = parser.parse_args()
    for n_boot in args.n_boot:
        runs = [one_run(n_boot) for _ in range(args.runs)]
        print(f"n_boot={n_boot}: median (min-max) of {args.runs} fresh processes")
        for step in runs[0]:
            walls = sorted(r[step][0] for r in runs)
            cpus = sorted(r[step][1] for r in runs)
            med = len(runs) // 2
            print(
                f"  {step:30s} wall {walls[med]:6.3f} s ({walls[0]:.3f}-{walls[-1]:.3f})"
                f"   cpu {cpus[med]:6.3f} s ({cpus[0]:.3f}-{cpus[-1]:.3f})"
            )


if __name__ == "__main__":
    main()
