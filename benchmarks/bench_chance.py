"""Random annotators must score 0: the full grid of the chance-baseline check (issue 9).

Usage: python benchmarks/bench_chance.py [--items N] [--seeds K] [--taus 0,0.3,0.5,0.7]
                                         [--annotators 2,3,4,5] [--kind box]
                                         [--min-units U] [--max-items M]

For every threshold tau, density (sparse: 2 objects per item on average, dense: 10),
and number of annotators, ``--seeds`` corpora of ``--items`` items are simulated with
annotators who all draw at random (``iaf.simulate(..., annotators={...: "random"})``):
their draws do not depend on the item, so within-item and between-item pairs have the
same distribution and every sigma (and classification alpha) is 0 in expectation.

Random shapes rarely match at a high threshold when items are sparse, and a mean over a
handful of matched pairs says nothing. So a cell whose first corpus has fewer than
``--min-units`` within-item localization pairs is rerun on proportionally more items (at
most ``--max-items``); the items used are printed.

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


def _corpus(items, density, n_annotators, seed, kind):
    return iaf.simulate(
        n_items=items,
        kind=kind,
        objects_per_item=DENSITY[density],
        annotators={f"r{k}": "random" for k in range(n_annotators)},
        seed=seed,
    )


def _cell(df, tau, seed):
    ds = iaf.agreement(df, match_threshold=tau, n_boot=0, seed=seed)
    cell = ds.sel(label=iaf.ALL, annotator=iaf.ALL, component=list(COMPONENTS))
    return cell["agreement"].values, cell["n_units"].values


def run_cell(tau, density, n_annotators, *, items, seeds, kind, min_units, max_items):
    """Agreement of the "(all)" cell of every component, one row per seed; the within
    units; and the number of items used."""
    value, units = _cell(_corpus(items, density, n_annotators, 0, kind), tau, 0)
    matched = units[COMPONENTS.index("localization")]
    if matched < min_units and items < max_items:
        items = int(min(max_items, np.ceil(items * min_units / max(matched, 1))))
        value, units = _cell(_corpus(items, density, n_annotators, 0, kind), tau, 0)
    values, all_units = [value], [units]
    for seed in range(1, seeds):
        value, units = _cell(_corpus(items, density, n_annotators, seed, kind), tau, seed)
        values.append(value)
        all_units.append(units)
    return np.array(values), np.array(all_units), items


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
    p.add_argument(
        "--min-units",
        type=int,
        default=150,
        help="within-item matched pairs wanted per corpus (more items if fewer)",
    )
    p.add_argument("--max-items", type=int, default=10_000)
    args = p.parse_args()
    taus = [float(x) for x in args.taus.split(",")]
    annotators = [int(x) for x in args.annotators.split(",")]
    print(
        f"random annotators, {args.items} items, {args.seeds} seeds, {args.kind}; "
        f"target |mean| <= {TARGET}"
    )
    print(
        f"{'tau':>4} {'density':>7} {'ann':>3} {'items':>6} {'component':>14} {'mean':>8} "
        f"{'se':>7} {'|mean|':>7} {'units':>8}  verdict"
    )
    counts = {}
    start = time.perf_counter()
    for tau in taus:
        for density in DENSITY:
            for n_ann in annotators:
                t0 = time.perf_counter()
                values, units, items = run_cell(
                    tau,
                    density,
                    n_ann,
                    items=args.items,
                    seeds=args.seeds,
                    kind=args.kind,
                    min_units=args.min_units,
                    max_items=args.max_items,
                )
                for c, comp in enumerate(COMPONENTS):
                    v = values[:, c]
                    ok = ~np.isnan(v)
                    mean = v[ok].mean() if ok.any() else np.nan
                    se = v[ok].std(ddof=1) / np.sqrt(ok.sum()) if ok.sum() > 1 else np.nan
                    verdict_ = verdict(mean, se)
                    counts[verdict_] = counts.get(verdict_, 0) + 1
                    print(
                        f"{tau:>4} {density:>7} {n_ann:>3} {items:>6} {comp:>14} {mean:>8.4f} "
                        f"{se:>7.4f} {abs(mean):>7.4f} {units[:, c].mean():>8.0f}  "
                        f"{verdict_}"
                    )
                print(f"     ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
                sys.stdout.flush()
    print(f"cells: {counts}; {time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
