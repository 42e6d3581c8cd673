"""Time and peak memory of ``agreement(n_boot=0)`` on dense items and on huge crowds.

Usage: python benchmarks/bench_dense.py [--dense N ...] [--grid N ...] [--crowd A ...]

* ``--dense N``: 3 items x 2 annotators x N overlapping boxes (sizes 20-60 in a
  1000 x 1000 image, the second annotator a jittered copy): cell microscopy, crowd
  counting, aerial and retail-shelf images (issue #23, point 11; targets: N = 2,000 in
  at most 5 s, N = 5,000 in at most 15 s and 2 GB).
* ``--grid N``: the same with N small boxes on a grid, none overlapping another.
* ``--crowd A``: A annotators with one object each, 10 annotators per item (A / 10
  items): crowdsourcing (point 12; targets: A = 10,000 in at most 5 s and 1 GiB; A =
  50,000 without error, memory linear in A).

Each case runs in a fresh subprocess, so that the peak RSS (``ru_maxrss``, imports
included) is that case's alone; ``seconds`` times the ``agreement`` call only.
"""

import argparse
import subprocess
import sys

CASE = r"""
import json, resource, time, warnings
import numpy as np, pandas as pd
import iaa_frames as iaf
warnings.simplefilter("ignore")
kind, n = "{kind}", {n}
rng = np.random.default_rng(0)
if kind == "crowd":  # n annotators, 10 per item, one object each
    items = np.arange(n) // 10
    centre = rng.uniform(100, 900, (n // 10 + 1, 2))[items] + rng.normal(0, 4, (n, 2))
    size = rng.uniform(40, 80, (n // 10 + 1, 2))[items]
    df = pd.DataFrame(dict(item=[f"i{{i}}" for i in items], annotator=[f"w{{k}}" for k in range(n)],
                           label="car"))
    parts = [df]
else:  # 3 items x 2 annotators x n boxes
    parts, size, centre = [], None, None
    for i in range(3):
        if kind == "dense":
            c, s = rng.uniform(0, 1000, (n, 2)), rng.uniform(20, 60, (n, 2))
        else:
            g = int(np.ceil(np.sqrt(n)))
            k = np.arange(n)
            c = np.column_stack([(k % g) * 10 + 5, (k // g) * 10 + 5]).astype(float)
            s = np.full((n, 2), 6.0)
        for a in "ab":
            parts.append(pd.DataFrame(dict(item=f"i{{i}}", annotator=a, label="cell",
                                           cx=c[:, 0] + rng.normal(0, 1, n),
                                           cy=c[:, 1] + rng.normal(0, 1, n), w=s[:, 0], h=s[:, 1])))
if kind == "crowd":
    df = df.assign(cx=centre[:, 0], cy=centre[:, 1], w=size[:, 0], h=size[:, 1])
else:
    df = pd.concat(parts, ignore_index=True)
df = df.assign(x0=df.cx - df.w / 2, y0=df.cy - df.h / 2, x1=df.cx + df.w / 2,
               y1=df.cy + df.h / 2)[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
t0 = time.perf_counter()
res = iaf.agreement(df, n_boot=0, progress=False)
elapsed = time.perf_counter() - t0
loc = float(res.agreement.sel(component="localization", label="(all)", annotator="(all)"))
print(json.dumps(dict(case=kind, n=n, rows=len(df), seconds=round(elapsed, 2),
    peak_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3),
    localization=round(loc, 4))))
"""


def _run(kind: str, n: int) -> None:
    code = CASE.format(kind=kind, n=n)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        print(out.stderr, file=sys.stderr)
        sys.exit(out.returncode)
    print(out.stdout.strip().splitlines()[-1], flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dense", type=int, nargs="*", default=[1000, 2000, 5000])
    p.add_argument("--grid", type=int, nargs="*", default=[5000])
    p.add_argument("--crowd", type=int, nargs="*", default=[2500, 10_000, 50_000])
    args = p.parse_args()
    for kind, sizes in (("dense", args.dense), ("grid", args.grid), ("crowd", args.crowd)):
        for n in sizes:
            _run(kind, n)


if __name__ == "__main__":
    main()
