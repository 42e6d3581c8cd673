"""Coverage of the 95 % bootstrap intervals of ``iaf.agreement``.

Run: ``python benchmarks/bench_coverage.py --items 60 [--replicates 500] [--n-boot 400]
[--n-chance 1000] [--seed 0] [--save rows.csv] [--annotators]`` (one corpus size per run;
2,000 replicates of 60 items take about 7 minutes on one core, of 20 items about 5).

The population
--------------
A pool of 3,000 items of four kinds, so that items differ in noise, misses and density
(each kind simulated with ``iaf.simulate``; share of the pool, objects per item, base
profile):

=============  =====  =======  ====================================================
kind           share  objects  base profile
=============  =====  =======  ====================================================
easy           35 %   2        jitter 0.03, miss 0.05, confusion 0.05
dense          25 %   8        jitter 0.06, miss 0.10, confusion 0.10
hard           25 %   3        jitter 0.15, miss 0.25, confusion 0.25, fp 0.3
sparse         15 %   0.5      jitter 0.05, miss 0.10, confusion 0.10, fp 0.2
=============  =====  =======  ====================================================

Four annotators scale the base profile by 0.7, 1.0, 1.5 and 2.0 (probabilities capped at
0.9). The **population value** of each component is the agreement of the whole pool
(3,000 items, ``n_chance=20000``).

The study
---------
Each replicate draws a corpus of ``--items`` items from the pool without replacement,
computes ``pair_tables`` (``--n-chance``) and the 95 % intervals (``--n-boot``
replicates) of every component at label and annotator "(all)" (with ``--annotators``,
also at every annotator's cell of label "(all)"), with the percentile
interval and with the shipped interval (BCa, its width corrected by
``iaa_frames.intervals.interval_scale``; same bootstrap replicates). Reported per
component: coverage of the population value (with its Monte-Carlo standard error), the
share of misses above and below, the mean width, and the bias of the estimate.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import iaa_frames as iaf
from iaa_frames.engine import agreement_from_tables

KINDS = (  # name, share, objects per item, base profile
    ("easy", 0.35, 2.0, {"jitter": 0.03, "miss": 0.05, "confusion": 0.05}),
    ("dense", 0.25, 8.0, {"jitter": 0.06, "miss": 0.10, "confusion": 0.10}),
    ("hard", 0.25, 3.0, {"jitter": 0.15, "miss": 0.25, "confusion": 0.25, "false_positives": 0.3}),
    (
        "sparse",
        0.15,
        0.5,
        {"jitter": 0.05, "miss": 0.10, "confusion": 0.10, "false_positives": 0.2},
    ),
)
SCALES = {"ana": 0.7, "ben": 1.0, "cyd": 1.5, "dee": 2.0}
POOL = 3000
COMPONENTS = ("detection", "classification", "localization", "overall")


def population(seed: int = 2024) -> pd.DataFrame:
    """The pool of heterogeneous items (a tidy frame)."""
    parts = []
    for k, (name, share, objects, base) in enumerate(KINDS):
        annotators = {}
        for ann, scale in SCALES.items():
            prof = {}
            for field, v in base.items():
                v = v * scale
                prof[field] = min(v, 0.9) if field in ("miss", "confusion") else v
            annotators[ann] = prof
        df = iaf.simulate(
            n_items=round(share * POOL),
            annotators=annotators,
            objects_per_item=objects,
            seed=seed + k,
        )
        parts.append(df.assign(item=name + "/" + df["item"].astype(str)))
    out = pd.concat(parts, ignore_index=True)
    return out.assign(object_id=np.arange(len(out)))


def values(ds, annotators=(iaf.ALL,)):
    """Estimate and interval of every component at label "(all)" and the given annotator
    cells: a frame indexed by (component, annotator)."""
    cells = ds[["agreement", "ci_low", "ci_high"]].sel(
        component=list(COMPONENTS), label=iaf.ALL, annotator=list(annotators)
    )
    out = cells.to_dataframe()[["agreement", "ci_low", "ci_high"]]
    return out.rename(columns={"agreement": "estimate", "ci_low": "low", "ci_high": "high"})


def run(args):
    t0 = time.perf_counter()
    pool = population()
    cells = [iaf.ALL, *SCALES] if args.annotators else [iaf.ALL]
    truth = values(iaf.agreement(pool, n_chance=20000, seed=args.seed, n_boot=0), cells)
    truth = truth["estimate"].rename("truth")
    items = pool["item"].unique()
    overall = truth.xs(iaf.ALL, level="annotator")
    print(
        f"pool: {len(items):,} items, {int(pool['label'].notna().sum()):,} objects; "
        f"population values "
        + ", ".join(f"{c} {overall[c]:.4f}" for c in COMPONENTS)
        + f" ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    rng = np.random.default_rng([args.seed, args.items])
    by_item = pool.groupby("item", sort=False).indices
    rows = []
    t0 = time.perf_counter()
    for r in range(args.replicates):
        chosen = rng.choice(items, args.items, replace=False)
        df = pool.iloc[np.concatenate([by_item[i] for i in chosen])]
        tables = iaf.pair_tables(df, n_chance=args.n_chance, seed=args.seed + r, progress=False)
        for method in ("percentile", "bca"):
            ds = agreement_from_tables(
                tables, n_boot=args.n_boot, seed=args.seed + r, ci_method=method, progress=False
            )
            rows.append(values(ds, cells).assign(replicate=r, method=method))
        if (r + 1) % 50 == 0:
            print(f"  {r + 1} replicates ({time.perf_counter() - t0:.0f} s)", flush=True)
    out = pd.concat(rows).join(truth).reset_index()
    if args.save:
        out.to_csv(args.save, index=False)
    ok = out[["estimate", "low", "high"]].notna().all(axis=1)
    out = out[ok]
    out["covered"] = (out["low"] <= out["truth"]) & (out["truth"] <= out["high"])
    out["above"] = out["truth"] > out["high"]
    out["below"] = out["truth"] < out["low"]
    out["width"] = out["high"] - out["low"]
    summary = out.groupby(["method", "annotator", "component"], sort=False).agg(
        n=("covered", "size"),
        coverage=("covered", "mean"),
        above=("above", "mean"),
        below=("below", "mean"),
        width=("width", "mean"),
        estimate=("estimate", "mean"),
        truth=("truth", "first"),
    )
    order = {"method": ["percentile", "bca"], "annotator": cells, "component": list(COMPONENTS)}
    summary = summary.sort_index(key=lambda level: level.map(order[level.name].index))
    summary["se"] = np.sqrt(summary["coverage"] * (1 - summary["coverage"]) / summary["n"])
    summary["bias"] = summary["estimate"] - summary["truth"]
    print(
        f"\n{args.items}-item corpora, {args.replicates} replicates, n_boot {args.n_boot}, "
        f"n_chance {args.n_chance}: coverage of the 95 % interval"
    )
    for (method, annotator, comp), s in summary.iterrows():
        print(
            f"  {method:<10} {annotator:<6} {comp:<15} {100 * s.coverage:5.1f} %"
            f" (se {100 * s.se:.1f})"
            f"  truth above {100 * s.above:4.1f} %, below {100 * s.below:4.1f} %"
            f"  width {s.width:.4f}  bias {s.bias:+.4f}  (n {int(s.n)})"
        )
    return summary


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--items", type=int, default=60)
    p.add_argument("--replicates", type=int, default=500)
    p.add_argument("--n-boot", type=int, default=400)
    p.add_argument("--n-chance", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", help="write every replicate's estimate and interval to this CSV")
    p.add_argument(
        "--annotators",
        action="store_true",
        help="also every annotator's cell (label '(all)'), not only the '(all)' cell",
    )
    args = p.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        run(args)


if __name__ == "__main__":
    main()
