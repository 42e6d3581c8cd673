"""Does the per-annotator quality order crowd workers by their true quality?

Run: ``python benchmarks/bench_ranking.py [--crowds 20] [--seed 0] [--workload skewed]``

Each crowd (simulated with ``iaa_frames.simulate_with_truth``):

* 50 to 200 workers (uniform); each worker draws its own profile: jitter ~ U(0, 0.25),
  miss ~ U(0, 0.4), confusion ~ U(0, 0.4), false positives ~ U(0, 0.5) per item; 5 % of
  the workers are spammers who draw at random;
* 3 x n_workers items (boxes, 3 classes, 4 objects per item on average); each item is
  annotated by 3 to 7 workers (uniform), drawn without replacement with probability
  proportional to the worker's activity: log-normal(0, 1) with ``--workload skewed``
  (some workers do many items, most do few, as on crowdsourcing platforms), equal with
  ``--workload uniform``;
* the **true quality** of a worker is its PQ (panoptic quality: IoU of same-class matches
  over (n_worker + n_truth) / 2, pooled over items) against the true objects on 40
  held-out items that every worker annotates; it combines jitter, misses, confusion and
  false positives in one number, and does not depend on who the worker's partners were.

Per worker, from the crowd's annotations alone (no truth):

* ``raw IoU``: mean IoU of the worker's matched pairs with peers (what annotation tools
  show per annotator; ``raw_iou`` of ``annotator_quality``);
* ``raw PQ``: the worker's pooled PQ with peers (same pair score as ours, raw average);
* ``raw overall``: the worker's mean set-level similarity with peers (1 - the ``overall``
  distance of Braylan et al., GIoU best matches, label-agnostic). The per-annotator
  overall σ of ``iaf.agreement`` divides it by a chance mean; with 50 to 200 workers most
  workers have fewer than 30 chance pairings of their own there, so their σ is NaN;
  with a crowd-wide chance mean σ orders workers exactly as this raw figure does;
* ``fixed point``: ``iaf.annotator_quality`` (partner-weighted PQ iterated to a fixed
  point).

Reported: Spearman ρ of each with the true quality (workers without an estimate rank
last), per crowd and averaged, the gain of the fixed point over raw IoU and raw PQ, and
the calibration of the fixed point (mean |quality - true PQ|). Target: the fixed point's
ρ exceeds raw peer IoU's by at least 0.05 on average over 20 crowds.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

import iaa_frames as iaf
from iaa_frames.ranking import annotator_quality_from_tables

HELD_OUT = 40
TRUTH = "__truth__"


def crowd(seed: int, workload: str):
    """(crowd frame, oracle frame, worker names) of one simulated crowd."""
    rng = np.random.default_rng([seed, 7])
    n_workers = int(rng.integers(50, 201))
    names = [f"w{k:03d}" for k in range(n_workers)]
    profiles = {}
    for name in names:
        if rng.random() < 0.05:
            profiles[name] = {"random": True}
        else:
            profiles[name] = {
                "jitter": float(rng.uniform(0, 0.25)),
                "miss": float(rng.uniform(0, 0.4)),
                "confusion": float(rng.uniform(0, 0.4)),
                "false_positives": float(rng.uniform(0, 0.5)),
            }
    n_items = 3 * n_workers
    sim = iaf.simulate_with_truth(
        n_items=n_items + HELD_OUT, annotators=profiles, seed=seed, objects_per_item=4
    )
    ann = sim.annotations
    items = np.array(sorted(ann["item"].unique()))
    work, held = items[:n_items], items[n_items:]
    activity = rng.lognormal(0.0, 1.0, n_workers) if workload == "skewed" else np.ones(n_workers)
    activity /= activity.sum()
    k = rng.integers(3, 8, n_items)
    chosen = pd.DataFrame(
        [
            (it, w)
            for it, kk in zip(work, k)
            for w in rng.choice(names, kk, replace=False, p=activity)
        ],
        columns=["item", "annotator"],
    )
    df = ann.merge(chosen, on=["item", "annotator"])

    # oracle: every worker against the truth on the held-out items, one pseudo-item per
    # (item, worker) so that only worker-truth pairings are matched
    mine = ann[ann["item"].isin(held)].drop(columns=["truth_id", "object_id"])
    mine = mine.assign(item=mine["item"] + "|" + mine["annotator"])
    truth = sim.truth[sim.truth["item"].isin(held)].drop(columns=["truth_id"])
    truth_rows = pd.concat(
        [truth.assign(item=truth["item"] + "|" + w, annotator=TRUTH) for w in names],
        ignore_index=True,
    )
    coverage = pd.DataFrame(
        {"item": [f"{it}|{w}" for it in held for w in names], "annotator": TRUTH}
    )
    oracle = pd.concat([mine, truth_rows, coverage], ignore_index=True)
    return df, oracle, names


def true_quality(oracle: pd.DataFrame, names) -> pd.Series:
    """Pooled PQ of every worker against the truth."""
    t = iaf.pair_tables(oracle, n_chance=50, progress=False)
    q = annotator_quality_from_tables(t)  # its raw_pq against the only partner, the truth
    return q.set_index("annotator")["raw_pq"].reindex(names)


def rho(estimate, truth) -> float:
    x = np.where(np.isfinite(estimate), estimate, -np.inf)
    return float(spearmanr(x, truth)[0])


def run(args):
    rows = []
    for c in range(args.crowds):
        seed = args.seed + c
        t0 = time.perf_counter()
        df, oracle, names = crowd(seed, args.workload)
        truth = true_quality(oracle, names).to_numpy()
        tables = iaf.pair_tables(df, seed=seed, progress=False)
        q = annotator_quality_from_tables(tables).set_index("annotator").reindex(names)
        sets = tables.sets_within[tables.sets_within["label"] == -1]
        sim = 1.0 - sets["overall"].to_numpy()
        n_ann = len(tables.corpus.annotators)
        a, b = sets["annotator_a"].to_numpy(), sets["annotator_b"].to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            overall = (np.bincount(a, sim, n_ann) + np.bincount(b, sim, n_ann)) / (
                np.bincount(a, minlength=n_ann) + np.bincount(b, minlength=n_ann)
            )
        overall = (
            pd.Series(overall, index=[str(x) for x in tables.corpus.annotators])
            .reindex(names)
            .to_numpy()
        )
        est = q["quality"].to_numpy()
        row = {
            "crowd": c,
            "workers": len(names),
            "items": df["item"].nunique(),
            "items/worker": df.groupby("annotator")["item"].nunique().median(),
            "raw IoU": rho(q["raw_iou"].to_numpy(), truth),
            "raw PQ": rho(q["raw_pq"].to_numpy(), truth),
            "raw overall": rho(overall, truth),
            "fixed point": rho(est, truth),
            "|q - PQ|": float(np.nanmean(np.abs(est - truth))),
            "s": time.perf_counter() - t0,
        }
        rows.append(row)
        print(
            "  ".join(
                f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()
            ),
            flush=True,
        )
    out = pd.DataFrame(rows)
    cols = ["raw IoU", "raw PQ", "raw overall", "fixed point"]
    print(
        f"\nSpearman rho with the true quality over {len(out)} crowds "
        f"({args.workload} workload): mean (sd) [min, max]"
    )
    for col in cols:
        v = out[col]
        print(f"  {col:<12} {v.mean():.3f} ({v.std():.3f}) [{v.min():.3f}, {v.max():.3f}]")
    for base in ("raw IoU", "raw PQ", "raw overall"):
        d = out["fixed point"] - out[base]
        print(
            f"  fixed point - {base:<10} {d.mean():+.3f} ({d.std():.3f}) "
            f"[{d.min():+.3f}, {d.max():+.3f}], better in {int((d > 0).sum())}/{len(d)}"
        )
    print(f"  mean |quality - true PQ|: {out['|q - PQ|'].mean():.3f}")
    gain = (out["fixed point"] - out["raw IoU"]).mean()
    print(
        f"target (fixed point - raw IoU >= +0.05 on average): "
        f"{'met' if gain >= 0.05 else 'NOT met'} ({gain:+.3f})"
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--crowds", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workload", choices=("skewed", "uniform"), default="skewed")
    args = p.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        run(args)


if __name__ == "__main__":
    main()
