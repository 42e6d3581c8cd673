"""Random annotators must score 0: the full grid of the chance-baseline check (issue 9).

Usage: python benchmarks/bench_chance.py [--items N] [--seeds K] [--taus 0,0.3,0.5,0.7]
                                         [--annotators 2,3,4,5] [--kind box]

For every threshold tau, density (sparse: 2 objects per item on average, dense: 10),
and number of annotators, ``--seeds`` corpora of ``--items`` items are simulated with
annotators who all draw at random (``iaf.simulate(..., annotators={...: "random"})``):
their draws do not depend on the item, so within-item and between-item pairs have the
same distribution and every sigma (and classification alpha) is 0 in expectation.

Printed per cell (tau, density, annotators, component): the mean agreement of the
"(all)" cell over seeds, its standard error over seeds, the mean number of within units,
and a verdict: "ok" when |mean| <= 0.02 (the target of the issue), "noise" when it is
larger but within 2.5 standard errors (too few units at that size: raise --items), and
"BIAS?" otherwise. A last line summarises the cells.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import iaa_frames as iaf

COMPONENTS = ("detection", "classification", "localization", "overall")
DENSITY = {"sparse": 2.0, "dense": 10.0}
TARGET = 0.02


def run_cell(tau, density, n_annotators, *, items, seeds, kind):
    """Agreement of the "(all)" cell of every component, one row per seed, and the
    within units."""
    values, units = [], []
    for seed in range(seeds):
        df = iaf.simulate(n_items=items, kind=kind, objects_per_item=DENSITY[density],
                          annotators={f"r{k}": "random" for k in range(n_annotators)},
                          seed=seed)
        ds = iaf.agreement(df, match_threshold=tau, n_boot=0, seed=seed)
        cell = ds.sel(label=iaf.ALL, annotator=iaf.ALL, component=list(COMPONENTS))
        values.append(cell["agreement"].values)
        units.append(cell["n_units"].values)
    return np.array(values), np.array(units)


def verdict(mean, se):
    if np.isnan(mean):
        return "undefined"
    if abs(mean) <= TARGET:
        return "ok"
    return "noise" if abs(mean) <= 2.5 * se else "BIAS?"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=300)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--taus", default="0,0.3,0.5,0.7")
    p.add_argument("--annotators", default="2,3,4,5")
    p.add_argument("--kind", default="box", choices=("box", "polygon", "mixed"))
    args = p.parse_args()
    taus = [float(x) for x in args.taus.split(",")]
    annotators = [int(x) for x in args.annotators.split(",")]
    print(f"random annotators, {args.items} items, {args.seeds} seeds, {args.kind}; "
          f"target |mean| <= {TARGET}")
    print(f"{'tau':>4} {'density':>7} {'ann':>3} {'component':>14} {'mean':>8} {'se':>7} "
          f"{'|mean|':>7} {'units':>8}  verdict")
    counts = {}
    start = time.perf_counter()
    for tau in taus:
        for density in DENSITY:
            for n_ann in annotators:
                t0 = time.perf_counter()
                values, units = run_cell(tau, density, n_ann, items=args.items,
                                         seeds=args.seeds, kind=args.kind)
                for c, comp in enumerate(COMPONENTS):
                    v = values[:, c]
                    ok = ~np.isnan(v)
                    mean = v[ok].mean() if ok.any() else np.nan
                    se = v[ok].std(ddof=1) / np.sqrt(ok.sum()) if ok.sum() > 1 else np.nan
                    verdict_ = verdict(mean, se)
                    counts[verdict_] = counts.get(verdict_, 0) + 1
                    print(f"{tau:>4} {density:>7} {n_ann:>3} {comp:>14} {mean:>8.4f} "
                          f"{se:>7.4f} {abs(mean):>7.4f} {units[:, c].mean():>8.0f}  "
                          f"{verdict_}")
                print(f"     ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
                sys.stdout.flush()
    print(f"cells: {counts}; {time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
