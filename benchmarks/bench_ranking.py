"""Does the per-annotator quality order crowd workers by their true quality?

Run: ``python benchmarks/bench_ranking.py [--crowds 20] [--seed 0] [--workload skewed]
[--scenario crowds|sparse|skewed196] [--n-boot 200]``

Each crowd (simulated with ``iaa_frames.simulate_with_truth``; each worker draws its own
profile: jitter ~ U(0, 0.25), miss ~ U(0, 0.4), confusion ~ U(0, 0.4), false positives
~ U(0, 0.5) per item; 5 % of the workers are spammers who draw at random; boxes, 3
classes, 4 objects per item on average):

* ``--scenario crowds`` (default): 50 to 200 workers (uniform), 3 x n_workers items, each
  annotated by 3 to 7 workers (uniform), drawn without replacement with probability
  proportional to the worker's activity: log-normal(0, 1) with ``--workload skewed``
  (some workers do many items, most do few, as on crowdsourcing platforms), equal with
  ``--workload uniform``;
* ``--scenario sparse``: 2,000 workers who take 1 to 5 items each (uniform), dealt into
  items of 3 to 7 workers (about 1,200 items; a fifth of the workers have one item);
* ``--scenario skewed196``: 196 workers (the size of a public crowdsourced box data set)
  on 300 items, activity log-normal(0, 2): a few workers do most items, many do one
  (a worker the draw left idle joins one random item: everyone annotated something).

The **true quality** of a worker is its PQ (panoptic quality: IoU of same-class matches
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
* ``fixed point``: the partner-corrected fixed point of ``iaf.annotator_quality`` before
  shrinkage (column ``unshrunk``, bounded to [0, 1]);
* ``shrunk``: ``quality`` of ``iaf.annotator_quality``, the fixed point shrunk towards
  the crowd (empirical Bayes).

Reported: Spearman ρ of each with the true quality (workers without an estimate rank
last), per crowd and averaged, the gain of the shrunk quality over the others; the
calibration (mean |estimate - true PQ|); workers above 1; how many of the 10 best workers
by each estimate annotated a single item; and the share of workers whose 95 % interval
holds their true PQ. Targets: shrunk ρ exceeds raw peer IoU's by at least 0.05 on
average, is at least the fixed point's, no quality above 1, and at most 2 one-item
workers in any crowd's top 10.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

import iaa_frames as iaf
from iaa_frames.measures.partner_fit import (
    Dispersion,
    fixed_point,
    own_items_posterior,
    pair_scores,
)
from iaa_frames.measures.ranking import annotator_quality_from_tables
from iaa_frames.stats.shrinkage import dersimonian_laird, normal_posterior, restricted_mean

HELD_OUT = 40
BATCH = 250  # workers simulated at once
SPARSE_WORKERS = 2000
SKEWED196_ITEMS = 300
SKEWED196_SIGMA = 2.0  # log-normal sd of the workers' activity
TOP = 10
TRUTH = "__truth__"
GOLD_NAME = "__gold__"


def _profiles(rng, names):
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
    return profiles


def _assign_by_activity(rng, names, work, activity):
    """Each item gets 3 to 7 workers, drawn with probability proportional to activity."""
    activity = activity / activity.sum()
    k = rng.integers(3, 8, len(work))
    return pd.DataFrame(
        [
            (it, w)
            for it, kk in zip(work, k)
            for w in rng.choice(names, kk, replace=False, p=activity)
        ],
        columns=["item", "annotator"],
    )


def _assign_sparse(rng, names):
    """Each worker takes 1 to 5 items; the slots are dealt into items of 3 to 7 workers
    (a worker dealt twice into one item keeps one slot). Returns (n_items, assignment)."""
    slots = np.repeat(np.asarray(names, dtype=object), rng.integers(1, 6, len(names)))
    slots = slots[rng.permutation(len(slots))]
    sizes = rng.integers(3, 8, len(slots) // 3 + 1)
    bounds = np.cumsum(sizes)
    bounds = bounds[bounds < len(slots)]
    item = np.searchsorted(bounds, np.arange(len(slots)), side="right")
    chosen = pd.DataFrame({"item": item, "annotator": slots}).drop_duplicates()
    return int(item.max()) + 1, chosen


def crowd(seed: int, workload: str, scenario: str = "crowds"):
    """(crowd frame, oracle frame, worker names) of one simulated crowd."""
    rng = np.random.default_rng([seed, 7])
    if scenario == "sparse":
        n_workers = SPARSE_WORKERS
    elif scenario == "skewed196":
        n_workers = 196
    else:
        n_workers = int(rng.integers(50, 201))
    names = [f"w{k:0{max(3, len(str(n_workers - 1)))}d}" for k in range(n_workers)]
    profiles = _profiles(rng, names)
    if scenario == "sparse":
        n_items, chosen = _assign_sparse(rng, names)
    else:
        n_items = 3 * n_workers if scenario == "crowds" else SKEWED196_ITEMS
        if scenario == "skewed196":
            activity = rng.lognormal(0.0, SKEWED196_SIGMA, n_workers)
        elif workload == "skewed":
            activity = rng.lognormal(0.0, 1.0, n_workers)
        else:
            activity = np.ones(n_workers)
        chosen = _assign_by_activity(rng, names, np.arange(n_items), activity)
        if scenario == "skewed196":  # everyone in a crowd's data set annotated something
            idle = sorted(set(names) - set(chosen["annotator"]))
            extra = pd.DataFrame({"item": rng.integers(0, n_items, len(idle)), "annotator": idle})
            chosen = pd.concat([chosen, extra], ignore_index=True)
    width = max(5, len(str(n_items + HELD_OUT - 1)))
    chosen["item"] = [f"img_{i:0{width}d}" for i in chosen["item"]]
    held = [f"img_{i:0{width}d}" for i in range(n_items, n_items + HELD_OUT)]

    # the truth depends on the seed only, each worker's drawing on the seed and its name:
    # simulating the workers in batches and keeping their own items gives the same crowd
    parts, truth = [], None
    for start in range(0, n_workers, BATCH):
        batch = {w: profiles[w] for w in names[start : start + BATCH]}
        sim = iaf.simulate_with_truth(
            n_items=n_items + HELD_OUT, annotators=batch, seed=seed, objects_per_item=4
        )
        ann = sim.annotations.drop(columns=["truth_id", "object_id"])
        truth = sim.truth
        parts.append(
            (
                ann.merge(chosen, on=["item", "annotator"]),
                ann[ann["item"].isin(held)],
            )
        )
    df = pd.concat([p[0] for p in parts], ignore_index=True)
    mine = pd.concat([p[1] for p in parts], ignore_index=True)

    # oracle: every worker against the truth on the held-out items, one pseudo-item per
    # (item, worker) so that only worker-truth pairings are matched
    mine = mine.assign(item=mine["item"] + "|" + mine["annotator"])
    truth = truth[truth["item"].isin(held)].drop(columns=["truth_id"])
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
    q = annotator_quality_from_tables(t, n_boot=0)  # its raw_pq against the only partner, the truth
    return q.set_index("annotator")["raw_pq"].reindex(names)


#: The estimates of :func:`variants`, in the order they are reported.
VARIANTS = (
    "peer IoU",
    "peer PQ",
    "sym fixed point",
    "sym latent (before)",
    "sym own",
    "dir peer PQ",
    "dir fixed point",
    "dir latent",
    "dir own (quality)",
)


def variants(tables) -> pd.DataFrame:
    """Per annotator (index: name), the estimates compared.

    ``peer IoU`` (mean IoU of the matched pairs with peers, the ``raw_iou`` column) and
    ``peer PQ`` are raw figures; ``sym`` uses PQ as the pair score (the previous
    release), ``dir`` the directed score of
    :func:`iaa_frames.measures.partner_fit.pair_scores` (an unmatched object of a that
    another annotator drew is b's miss, not a's false positive). ``fixed point`` is the
    partner-corrected estimate; ``latent`` shrinks it with all of the item-to-item
    dispersion as noise (the previous release's ``quality``); ``own`` with the partners'
    noise only (the shipped ``quality``, an estimate of the quality on the annotator's own
    items)."""
    out = {}
    names = [str(x) for x in tables.corpus.annotators]
    w = tables.localization_within
    wa, wb, iou = (w[c].to_numpy() for c in ("annotator_a", "annotator_b", "iou"))
    n_ann = len(names)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["peer IoU"] = (np.bincount(wa, iou, n_ann) + np.bincount(wb, iou, n_ann)) / (
            np.bincount(wa, minlength=n_ann) + np.bincount(wb, minlength=n_ann)
        )
    for tag, directed in (("sym", False), ("dir", True)):
        a, b, item, num, den, den_b, n_ann, n_items = pair_scores(tables, directed=directed)
        with np.errstate(invalid="ignore", divide="ignore"):
            raw = (np.bincount(a, num, n_ann) + np.bincount(b, num, n_ann)) / (
                np.bincount(a, den, n_ann) + np.bincount(b, den_b, n_ann)
            )
        out["peer PQ" if tag == "sym" else "dir peer PQ"] = raw
        q, _ = fixed_point(a, b, num, den, n_ann, den_b=den_b)
        groups = Dispersion(a, b, item, num, den, n_ann, n_items, den_b=den_b)
        phi, info = groups.dispersion(q[None, :])
        phi, info = float(phi[0]), info[0]
        phi_m = float(groups.noise(q[None, :])[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            v = np.where(np.isfinite(q) & (info > 0), phi / info, np.nan)
        mu, tau2 = (float(x[0]) for x in dersimonian_laird(q[None, :], v[None, :]))
        m, sd, _ = normal_posterior(q, v, mu, tau2)
        out[f"{tag} fixed point"] = q
        out[f"{tag} latent" + (" (before)" if tag == "sym" else "")] = restricted_mean(m, sd)
        m, sd, _ = own_items_posterior(q, info, phi, phi_m, mu, tau2)
        out[f"{tag} own" + (" (quality)" if tag == "dir" else "")] = restricted_mean(m, sd)
    return pd.DataFrame(out, index=names)[list(VARIANTS)]


def rho(estimate, truth) -> float:
    x = np.where(np.isfinite(estimate), estimate, -np.inf)
    return float(spearmanr(x, truth)[0])


def one_item_in_top(q: pd.DataFrame, column: str) -> int:
    """How many of the TOP best workers by ``column`` annotated a single item."""
    x = q[column].to_numpy(dtype=float)
    top = np.argsort(-np.where(np.isfinite(x), x, -np.inf), kind="stable")[:TOP]
    return int((q["n_items"].to_numpy()[top] == 1).sum())


def run(args):
    rows = []
    for c in range(args.crowds):
        seed = args.seed + c
        t0 = time.perf_counter()
        df, oracle, names = crowd(seed, args.workload, args.scenario)
        truth = true_quality(oracle, names).to_numpy()
        tables = iaf.pair_tables(df, seed=seed, n_chance=50, progress=False)  # within only
        q = (
            annotator_quality_from_tables(tables, n_boot=args.n_boot, seed=seed, progress=False)
            .set_index("annotator")
            .reindex(names)
        )
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
        est, fixed = q["quality"].to_numpy(), q["unshrunk"].to_numpy()
        inside = (q["ci_low"].to_numpy() <= truth) & (truth <= q["ci_high"].to_numpy())
        row = {
            "crowd": c,
            "workers": len(names),
            "items": df["item"].nunique(),
            "items/worker": df.groupby("annotator")["item"].nunique().median(),
            "1-item workers": int((q["n_items"] == 1).sum()),
            "raw IoU": rho(q["raw_iou"].to_numpy(), truth),
            "raw PQ": rho(q["raw_pq"].to_numpy(), truth),
            "raw overall": rho(overall, truth),
            "fixed point": rho(fixed, truth),
            "shrunk": rho(est, truth),
            "|fp - PQ|": float(np.nanmean(np.abs(fixed - truth))),
            "|q - PQ|": float(np.nanmean(np.abs(est - truth))),
            "fp > 1": int((fixed > 1).sum()),
            "q > 1": int((est > 1).sum()),
            "top-10 1-item fp": one_item_in_top(q, "unshrunk"),
            "top-10 1-item q": one_item_in_top(q, "quality"),
            "coverage": float(np.mean(inside[np.isfinite(est)])),
            **{
                f"v:{k}": rho(v.to_numpy(), truth)
                for k, v in variants(tables).reindex(names).items()
            },
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
    cols = ["raw IoU", "raw PQ", "raw overall", "fixed point", "shrunk"]
    print(
        f"\nSpearman rho with the true quality over {len(out)} crowds "
        f"({args.scenario}, {args.workload} workload): mean (sd) [min, max]"
    )
    for col in cols:
        v = out[col]
        print(f"  {col:<12} {v.mean():.3f} ({v.std():.3f}) [{v.min():.3f}, {v.max():.3f}]")
    for base in ("raw IoU", "raw PQ", "raw overall", "fixed point"):
        d = out["shrunk"] - out[base]
        print(
            f"  shrunk - {base:<12} {d.mean():+.3f} ({d.std():.3f}) "
            f"[{d.min():+.3f}, {d.max():+.3f}], better in {int((d > 0).sum())}/{len(d)}"
        )
    print(
        f"  mean |estimate - true PQ|: fixed point {out['|fp - PQ|'].mean():.3f}, "
        f"shrunk {out['|q - PQ|'].mean():.3f}"
    )
    print(
        f"  workers above 1 per crowd: fixed point {out['fp > 1'].mean():.1f}, "
        f"shrunk {out['q > 1'].mean():.1f}"
    )
    print(
        f"  one-item workers among the top {TOP}: fixed point {out['top-10 1-item fp'].mean():.1f}"
        f" (max {out['top-10 1-item fp'].max()}), shrunk {out['top-10 1-item q'].mean():.1f}"
        f" (max {out['top-10 1-item q'].max()})"
    )
    print(f"  95 % interval contains the true PQ: {out['coverage'].mean():.1%} of workers")
    print("  every variant (see variants()): mean rho (sd)")
    for col in [c for c in out.columns if c.startswith("v:")]:
        print(f"    {col[2:]:<22} {out[col].mean():.3f} ({out[col].std():.3f})")
    gain = (out["shrunk"] - out["raw IoU"]).mean()
    print(
        f"targets: shrunk - raw IoU >= +0.05 on average: "
        f"{'met' if gain >= 0.05 else 'NOT met'} ({gain:+.3f}); shrunk rho >= fixed point "
        f"rho on average: {'met' if out['shrunk'].mean() >= out['fixed point'].mean() else 'NOT met'};"
        f" at most 2 one-item workers in the top {TOP}: "
        f"{'met' if out['top-10 1-item q'].max() <= 2 else 'NOT met'}; quality <= 1: "
        f"{'met' if out['q > 1'].max() == 0 else 'NOT met'}"
    )
    return out


# ----------------------------------------------------------------------- real crowd


def gold_scores(crowd_df, gold_df) -> pd.DataFrame:
    """Per (worker, item): the PQ numerator and denominator of the worker's annotation
    against the gold (one pseudo-item per worker and item, so that only worker-gold
    pairings are matched)."""
    cov = crowd_df[["item", "annotator"]].drop_duplicates()
    mine = crowd_df.assign(item=crowd_df["item"] + "|" + crowd_df["annotator"])
    gold = gold_df.assign(annotator=GOLD_NAME).merge(
        cov.rename(columns={"annotator": "worker"}), on="item"
    )
    gold = gold.assign(item=gold["item"] + "|" + gold["worker"]).drop(columns="worker")
    # a coverage row of the gold on every pseudo-item (an item without gold boxes)
    sizes = crowd_df.drop_duplicates("item").set_index("item")[["width", "height"]]
    bare = cov.join(sizes, on="item").assign(
        item=cov["item"] + "|" + cov["annotator"], annotator=GOLD_NAME
    )
    oracle = pd.concat([mine, gold, bare], ignore_index=True)
    t = iaf.pair_tables(oracle, n_chance=50, progress=False)
    a, b, item, num, den, _, _, _ = pair_scores(t, directed=False)
    names = np.asarray([str(x) for x in t.corpus.annotators], dtype=object)
    items = np.asarray([str(x) for x in t.corpus.items], dtype=object)
    worker = np.where(names[a] == GOLD_NAME, names[b], names[a])
    return pd.DataFrame(
        {
            "annotator": worker,
            "item": [x.split("|")[0] for x in items[item]],
            "num": num,
            "den": den,
        }
    )


def _pq(scores, items=None) -> pd.Series:
    if items is not None:
        scores = scores[scores["item"].isin(items)]
    g = scores.groupby("annotator")[["num", "den"]].sum()
    return g["num"] / g["den"]


def _ranks(x):
    from scipy.stats import rankdata

    return rankdata(np.where(np.isfinite(x), x, -np.inf), axis=-1)


def boot_rho(est: pd.DataFrame, truth: np.ndarray, n_boot: int, seed: int) -> pd.DataFrame:
    """Spearman ρ of every column of ``est`` with ``truth`` on ``n_boot`` bootstrap
    resamples of the workers (the same resamples for every column)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(truth), (n_boot, len(truth)))
    rt = _ranks(truth[idx])
    rt -= rt.mean(axis=1, keepdims=True)
    out = {}
    for col in est.columns:
        re = _ranks(est[col].to_numpy()[idx])
        re -= re.mean(axis=1, keepdims=True)
        out[col] = (re * rt).sum(1) / np.sqrt((re * re).sum(1) * (rt * rt).sum(1))
    return pd.DataFrame(out)


def braylan_study(args) -> pd.DataFrame:
    """The real crowd: every estimate against each worker's PQ with the gold, on all its
    items (with a bootstrap over workers) and on held-out items (random halves of the
    items: estimated on one, judged on the other)."""
    import braylan

    if not braylan.available(args.braylan_dir):
        print(f"no Braylan data in {braylan.data_dir(args.braylan_dir)}: skipped")
        return pd.DataFrame()
    crowd_df, gold_df = braylan.load(args.braylan_dir)
    gold = gold_scores(crowd_df, gold_df)
    truth_all = _pq(gold)
    tables = iaf.pair_tables(crowd_df, n_chance=50, progress=False)
    est = variants(tables).reindex(truth_all.index)
    truth = truth_all.to_numpy()
    n_items = crowd_df.groupby("annotator")["item"].nunique().reindex(truth_all.index)
    print(
        f"Braylan et al. boxes ({braylan.data_dir(args.braylan_dir)}): "
        f"{crowd_df['item'].nunique()} items, {len(truth)} workers "
        f"({int((n_items == 1).sum())} with one item), gold PQ on the worker's items"
    )
    point = {c: rho(est[c].to_numpy(), truth) for c in est.columns}
    boots = boot_rho(est, truth, args.n_boot_workers, args.seed)
    print(f"\nSpearman rho [95 % bootstrap over workers, {args.n_boot_workers} resamples]")
    for c in est.columns:
        lo, hi = np.quantile(boots[c], [0.025, 0.975])
        print(f"  {c:<22} {point[c]:.3f} [{lo:.3f}, {hi:.3f}]")
    print("differences (paired bootstrap)")
    for base in ("peer IoU", "peer PQ", "sym latent (before)", "dir fixed point"):
        for c in ("dir own (quality)",):
            d = boots[c] - boots[base]
            lo, hi = np.quantile(d, [0.025, 0.975])
            print(f"  {c} - {base:<20} {point[c] - point[base]:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    for c in ("dir own (quality)", "sym latent (before)"):
        top = est[c].sort_values(ascending=False, kind="stable").index[:TOP]
        gold_rank = truth_all.rank(ascending=False, method="min")
        print(
            f"  gold ranks of the top {TOP} by {c}: "
            f"{sorted(int(r) for r in gold_rank.reindex(top))}"
        )

    # held-out items
    items = np.sort(crowd_df["item"].unique())
    rows = []
    for split in range(args.splits):
        rng = np.random.default_rng([args.seed, split])
        half = rng.choice(items, len(items) // 2, replace=False)
        t = iaf.pair_tables(crowd_df[crowd_df["item"].isin(half)], n_chance=50, progress=False)
        e = variants(t)
        target = _pq(gold, np.setdiff1d(items, half))
        common = e.index.intersection(target.index)
        e, target = e.reindex(common), target.reindex(common).to_numpy()
        rows.append({c: rho(e[c].to_numpy(), target) for c in e.columns} | {"n": len(common)})
    cv = pd.DataFrame(rows)
    print(
        f"\nheld-out items ({args.splits} random halves; estimated on one half, gold PQ on "
        f"the other; {cv['n'].mean():.0f} workers in both on average): mean rho (sd)"
    )
    for c in est.columns:
        print(f"  {c:<22} {cv[c].mean():.3f} ({cv[c].std():.3f})")
    for base in ("peer IoU", "peer PQ", "sym latent (before)", "dir fixed point"):
        d = cv["dir own (quality)"] - cv[base]
        print(
            f"  dir own (quality) - {base:<20} {d.mean():+.3f} (sd {d.std():.3f}), "
            f"better in {int((d > 0).sum())}/{len(d)}"
        )
    return cv


def independent_study(args) -> pd.DataFrame:
    """Crowds of ``independent_crowd`` (written without ``iaf.simulate``): every estimate
    against each worker's PQ with the truth on its own items and on 30 held-out items
    every worker annotated."""
    import independent_crowd

    rows = []
    for c in range(args.crowds):
        seed = args.seed + c
        ann, truth_df, held, held_truth, _ = independent_crowd.crowd(seed)
        own = _pq(gold_scores(ann, truth_df))
        new = _pq(gold_scores(held, held_truth)).reindex(own.index)
        est = variants(iaf.pair_tables(ann, n_chance=50, progress=False)).reindex(own.index)
        for target, truth in (("own items", own), ("held-out items", new)):
            row = {"crowd": c, "target": target}
            row |= {k: rho(est[k].to_numpy(), truth.to_numpy()) for k in est.columns}
            rows.append(row)
        print(pd.DataFrame(rows[-2:]).round(3).to_string(index=False), flush=True)
    out = pd.DataFrame(rows)
    print(f"\nindependent crowds ({args.crowds}): mean rho (sd) by target")
    print(
        out.groupby("target")[list(VARIANTS)].agg(["mean", "std"]).T.unstack().round(3).to_string()
    )
    for target, g in out.groupby("target"):
        for base in ("peer IoU", "peer PQ", "sym latent (before)"):
            d = g["dir own (quality)"] - g[base]
            print(
                f"  {target}: dir own (quality) - {base:<20} {d.mean():+.3f} "
                f"(sd {d.std():.3f}), better in {int((d > 0).sum())}/{len(d)}"
            )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--crowds", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workload", choices=("skewed", "uniform"), default="skewed")
    p.add_argument("--scenario", choices=("crowds", "sparse", "skewed196"), default="crowds")
    p.add_argument("--n-boot", type=int, default=200)
    p.add_argument(
        "--braylan", action="store_true", help="the real crowd of Braylan et al. with its gold"
    )
    p.add_argument(
        "--independent", action="store_true", help="crowds of benchmarks/independent_crowd.py"
    )
    p.add_argument("--braylan-dir", default=None, help="its directory (or $IAA_BRAYLAN)")
    p.add_argument("--n-boot-workers", type=int, default=2000)
    p.add_argument("--splits", type=int, default=20)
    args = p.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        if args.braylan:
            braylan_study(args)
        elif args.independent:
            independent_study(args)
        else:
            run(args)


if __name__ == "__main__":
    main()
