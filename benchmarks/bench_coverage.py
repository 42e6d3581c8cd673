"""Coverage of the 95 % bootstrap intervals of ``iaf.agreement``.

Run: ``python benchmarks/bench_coverage.py --items 60 [--replicates 500] [--n-boot 400]
[--n-chance 1000] [--seed 0] [--save rows.csv] [--annotators] [--rare]`` (one corpus size
per run; 2,000 replicates of 60 items take about 7 minutes on one core, of 20 items about
5). ``--rare``: the rare-class study below instead (2,000 replicates of 40 items: about
30 minutes on one core).

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
``iaa_frames.stats.intervals.interval_scale`` on the cube root of 1 - agreement; same
bootstrap replicates). Reported per
component: coverage of the population value (with its Monte-Carlo standard error), the
share of misses above and below, the mean width, and the bias of the estimate.

Rare classes (``--rare``)
-------------------------
The pool above plus four rare classes, each inserted into its own random share of the
3,000 items (``RARE``: 3 %, 8 %, 15 % and 25 % of the items, so that a corpus of 40 holds
each in about 1, 3, 6 and 10 items). An insert is an ``iaf.simulate`` item of its own
(about 1.5 objects of the rare class, Poisson, confused with "car"; base profile jitter
0.06, miss 0.10, confusion 0.15, false positives 0.1, scaled per annotator as above),
rescaled to the host image and added to the host item's annotations. The population
value of a class is its cell on the whole pool (label the class, annotator "(all)").
Each replicate's corpus gives the four classes' cells; a cell is binned by the number of
items of the corpus in which the class is drawn (by anyone): 1, 2, 3, 4-6, 7-10, more
than 10. Reported per bin and component: the share of cells with an interval, and the
coverage, misses, width and bias of those that have one. The shipped interval is NaN
below ``iaa_frames.stats.intervals.MIN_CI_ITEMS`` items; to state what it would cover there,
the study lowers that guard to 2 items (``--guard`` sets it; 1 item never has an
interval: its width factor is undefined). ``--df corpus`` measures the interval as it
was before this study: Student's degrees of freedom from the jackknife over the corpus,
not capped at the cell's items - 1. ``--widening linear`` (both studies) widens the BCa
interval on the agreement itself, as before it acted on the cube root of 1 - agreement.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import iaa_frames as iaf
from iaa_frames.core.engine import agreement_from_tables

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
#: rare classes: name, share of the pool's items they are inserted into
RARE = (("rare03", 0.03), ("rare08", 0.08), ("rare15", 0.15), ("rare25", 0.25))
RARE_PROFILE = {"jitter": 0.06, "miss": 0.10, "confusion": 0.15, "false_positives": 0.1}
#: bins of the number of items a rare class is drawn in
BINS = ((1, 1, "1"), (2, 2, "2"), (3, 3, "3"), (4, 6, "4-6"), (7, 10, "7-10"))


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


def _profiles(base: dict) -> dict:
    out = {}
    for ann, scale in SCALES.items():
        out[ann] = {
            f: min(v * scale, 0.9) if f in ("miss", "confusion") else v * scale
            for f, v in base.items()
        }
    return out


def with_rare_classes(pool: pd.DataFrame, seed: int = 2025) -> pd.DataFrame:
    """The pool with the rare classes of :data:`RARE` inserted into random items."""
    rng = np.random.default_rng(seed)
    items = pool["item"].unique()
    size = pool.groupby("item", sort=False)[["width", "height"]].first()
    parts = [pool]
    for k, (name, share) in enumerate(RARE):
        hosts = rng.choice(items, round(share * len(items)), replace=False)
        ins = iaf.simulate(
            n_items=len(hosts),
            annotators=_profiles(RARE_PROFILE),
            classes=(name, "car"),
            class_weights=(1.0, 0.0),
            objects_per_item=1.5,
            seed=seed + 1 + k,
        )
        ins = ins[ins["label"].notna()]  # the host item has the coverage rows
        code = ins["item"].str.slice(4).astype(int).to_numpy()
        host = hosts[code]
        w, h = size.loc[host, "width"].to_numpy(), size.loc[host, "height"].to_numpy()
        sx, sy = w / ins["width"].to_numpy(), h / ins["height"].to_numpy()
        ins = ins.assign(
            item=host,
            x0=ins["x0"] * sx,
            x1=ins["x1"] * sx,
            y0=ins["y0"] * sy,
            y1=ins["y1"] * sy,
            width=w,
            height=h,
            truth_id=ins["truth_id"] + (k + 1) * 10**7,
        )
        parts.append(ins)
    out = pd.concat(parts, ignore_index=True).sort_values(["item", "annotator"], kind="stable")
    return out.reset_index(drop=True).assign(object_id=np.arange(sum(len(p) for p in parts)))


def rare_values(ds, df) -> pd.DataFrame:
    """Estimate, interval and ``n_items`` of every rare class's cell (annotator "(all)"),
    with the number of items of ``df`` the class is drawn in: a frame indexed by
    (component, label)."""
    names = [n for n, _ in RARE if n in set(ds["label"].values)]
    cells = ds[["agreement", "ci_low", "ci_high", "n_items"]].sel(
        component=list(COMPONENTS), label=names, annotator=iaf.ALL
    )
    out = cells.to_dataframe()[["agreement", "ci_low", "ci_high", "n_items"]]
    out = out.rename(columns={"agreement": "estimate", "ci_low": "low", "ci_high": "high"})
    drawn = df[df["label"].isin(names)].groupby("label")["item"].nunique()
    return out.assign(class_items=drawn.reindex(out.index.get_level_values("label")).to_numpy())


def bin_of(k) -> np.ndarray:
    """Bin name of each number of items (:data:`BINS`; "> 10" above)."""
    k = np.asarray(k)
    out = np.full(k.shape, "> 10", dtype=object)
    for lo, hi, name in BINS:
        out[(k >= lo) & (k <= hi)] = name
    return out


def run_rare(args):
    from iaa_frames.core.engine import assemble
    from iaa_frames.stats import intervals

    assemble.MIN_CI_ITEMS = args.guard  # what the interval would cover below the guard
    if (
        args.df == "corpus"
    ):  # the interval before the rare-class study: degrees of freedom of the corpus
        scale = assemble._interval_scale
        assemble._interval_scale = lambda parts, jack, n, cell_items: scale(parts, jack, n, None)
    t0 = time.perf_counter()
    pool = with_rare_classes(population())
    full = iaf.agreement(pool, n_chance=20000, seed=args.seed, n_boot=0)
    truth = rare_values(full, pool)["estimate"].rename("truth")
    print(
        f"pool: {pool['item'].nunique():,} items; rare classes in "
        + ", ".join(f"{n} {int(pool.loc[pool['label'] == n, 'item'].nunique())}" for n, _ in RARE)
        + " items; population values\n"
        + truth.unstack("component").round(4).to_string()
        + f"\n({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    items = pool["item"].unique()
    rng = np.random.default_rng([args.seed, args.items, 7])
    by_item = pool.groupby("item", sort=False).indices
    rows = []
    t0 = time.perf_counter()
    for r in range(args.replicates):
        chosen = rng.choice(items, args.items, replace=False)
        df = pool.iloc[np.concatenate([by_item[i] for i in chosen])]
        ds = iaf.agreement(df, n_chance=args.n_chance, n_boot=args.n_boot, seed=args.seed + r)
        rows.append(rare_values(ds, df).assign(replicate=r))
        if (r + 1) % 50 == 0:
            print(f"  {r + 1} replicates ({time.perf_counter() - t0:.0f} s)", flush=True)
            if args.save:
                pd.concat(rows).join(truth).reset_index().to_csv(args.save, index=False)
    out = pd.concat(rows).join(truth).reset_index()
    if args.save:
        out.to_csv(args.save, index=False)
    return summarize_rare(out, args, intervals.MIN_CI_ITEMS)


def summarize_rare(out: pd.DataFrame, args, shipped_guard: int) -> pd.DataFrame:
    """Coverage per bin of the number of items a class is in, and per component."""
    out = out[out["estimate"].notna() & out["truth"].notna()].copy()
    out["bin"] = bin_of(out["class_items"])
    has = out["low"].notna() & out["high"].notna()
    out["with_interval"] = has
    out["covered"] = has & (out["low"] <= out["truth"]) & (out["truth"] <= out["high"])
    out["above"] = has & (out["truth"] > out["high"])
    out["below"] = has & (out["truth"] < out["low"])
    out["width"] = np.where(has, out["high"] - out["low"], np.nan)
    out["error"] = out["estimate"] - out["truth"]
    order = [b for _, _, b in BINS] + ["> 10"]
    g = out.groupby(["component", "bin"], sort=False)
    summary = g.agg(
        cells=("estimate", "size"),
        with_interval=("with_interval", "mean"),
        bias=("error", "mean"),
    )
    with_ci = (
        out[has]
        .groupby(["component", "bin"], sort=False)
        .agg(
            n=("covered", "size"),
            coverage=("covered", "mean"),
            above=("above", "mean"),
            below=("below", "mean"),
            width=("width", "mean"),
            zero_width=("width", lambda w: float(np.mean(w < 1e-9))),
        )
    )
    summary = summary.join(with_ci)
    summary = summary.sort_index(
        key=lambda level: level.map(
            (list(COMPONENTS) if level.name == "component" else order).index
        )
    )
    summary["se"] = np.sqrt(summary["coverage"] * (1 - summary["coverage"]) / summary["n"])
    print(
        f"\n{args.items}-item corpora, {out['replicate'].nunique()} replicates, n_boot "
        f"{args.n_boot}, n_chance {args.n_chance}; rare classes by the number of items they "
        f"are in; guard lowered to {args.guard} items (shipped: NaN below {shipped_guard}); "
        f"degrees of freedom of the {getattr(args, 'df', 'items')}; widening "
        f"{getattr(args, 'widening', 'cube-root')}: coverage of the 95 % interval"
    )
    for (comp, b), s in summary.iterrows():
        cov = (
            f"{100 * s.coverage:5.1f} % (se {100 * s.se:.1f})  above {100 * s.above:4.1f} %,"
            f" below {100 * s.below:4.1f} %  width {s.width:.3f}"
            f"  zero width {100 * s.zero_width:4.1f} %"
            if s.n == s.n and s.n > 0
            else "   no interval"
        )
        print(
            f"  {comp:<15} {b:>5} items  {cov}  bias {s.bias:+.4f}"
            f"  (cells {int(s.cells)}, {100 * s.with_interval:.0f} % with an interval)"
        )
    return summary


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
    p.add_argument(
        "--rare",
        action="store_true",
        help="the rare-class study: coverage per number of items a class is in",
    )
    p.add_argument(
        "--guard",
        type=int,
        default=2,
        help="with --rare: fewest items for an interval during the study (default 2)",
    )
    p.add_argument(
        "--df",
        choices=("items", "corpus"),
        default="items",
        help="with --rare: the interval's degrees of freedom at most the cell's items - 1 "
        "(shipped) or from the corpus (the interval before the rare-class study)",
    )
    p.add_argument(
        "--widening",
        choices=("cube-root", "linear"),
        default="cube-root",
        help="widen the BCa interval on the cube root of 1 - agreement (shipped) or on the "
        "agreement itself (before)",
    )
    args = p.parse_args()
    if args.widening == "linear":
        import functools

        from iaa_frames.core.engine import assemble
        from iaa_frames.stats.intervals import bca_interval

        assemble.bca_interval = functools.partial(bca_interval, bound=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        run_rare(args) if args.rare else run(args)


if __name__ == "__main__":
    main()
