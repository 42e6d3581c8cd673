"""Time and peak memory of the pair tables (within pairs + chance sample).

Usage: python benchmarks/bench_pairs.py [--boxes N_ITEMS] [--polygons N_ITEMS] [--tau T]

Defaults follow issue #3: 1,000,000 box annotations (50,000 items x 5 annotators x 4
objects) and 100,000 polygon annotations (5,000 items x 5 annotators x 4 objects). Each
case runs in a fresh subprocess so that peak RSS (ru_maxrss) belongs to that case alone.
"""

import argparse
import subprocess
import sys

CASE = r"""
import json, resource, time, warnings
import iaa_frames as iaf
df = iaf.simulate(n_items={n_items}, kind="{kind}", objects_per_item=4, seed=0,
                  annotators={{n: "good" for n in "ABCDE"}})
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
tables = iaf.pair_tables(df, match_threshold={tau}, progress=False)
elapsed = time.perf_counter() - t0
print(json.dumps(dict(kind="{kind}", annotations=int(iaf.is_object(df).sum()), rows=len(df),
    tau={tau}, seconds=round(elapsed, 2),
    peak_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    rss_before_gb=round(rss0 / 2**20, 2),
    within_pairs=len(tables.localization_within), chance_pairs=len(tables.localization_between),
    within_pairings=len(tables.sets_within), chance_pairings=len(tables.sets_between))))
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boxes", type=int, default=50_000, help="items of the box corpus (0 = skip)")
    p.add_argument(
        "--polygons", type=int, default=5_000, help="items of the polygon corpus (0 = skip)"
    )
    p.add_argument("--tau", type=float, default=0.5)
    args = p.parse_args()
    for kind, n in (("box", args.boxes), ("polygon", args.polygons)):
        if n:
            code = CASE.format(n_items=n, kind=kind, tau=args.tau)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                sys.exit(out.returncode)
            print(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
