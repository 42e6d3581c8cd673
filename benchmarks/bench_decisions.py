"""Decisions on simulated crowds with known truth: consensus, plan, next items.

Run: ``python benchmarks/bench_decisions.py [--study consensus|plan|next|all] [--seeds 5]``
(writes ``benchmarks/results/decisions_<study>.txt``). Over 400 lines: one script per
validation page keeps every figure of that page reproducible from one command, and the
studies share their scoring helpers.

* ``consensus``: sparse crowds of ``iaf.simulate_crowd`` (150 workers of mixed quality:
  45 % good, 20 % sloppy, 15 % missers, 10 % mislabelers, 10 % random; 200 images of 3-7
  workers each, so about 6.5 images per worker; boxes). Against the truth (``iaf.accuracy``
  with the truth as reference, IoU >= 0.5): the quality-weighted consensus
  (``iaf.consensus``), the unweighted majority (``weights="equal"``) and the best single
  worker per image chosen without the truth (the worker of highest
  ``iaf.annotator_quality`` among those who saw the image); F1 at IoU 0.5 and the mean IoU
  of the matched boxes.
* ``plan``: a 40-item pilot of a population (``simulate_crowd`` with 2 workers per image),
  the plan's recommended number of items for a half-width, then a fresh corpus of that many
  items from the same population (the same 40 workers, new images and assignment): its
  95 % interval's half-width against the target.
* ``plan_sequential`` (and ``plan_sequential_independent``, on ``independent_crowd``):
  the same pilot and targets with ``iaf.plan_sequential`` (``--stages`` batches: half the
  plan, plan again, ..., the rest); the interval of the corpus annotated in the end.
* ``consensus_biased``: crowds of ``biased_crowd`` (no ``iaf.simulate``: careful, sloppy
  and biased workers, 2-5 per image): the default consensus, the previous box fusion
  (``box_fusion="mean"``) and the best single worker, against the truth.
* ``braylan``: the real crowd of Braylan et al. against its gold (``$IAA_BRAYLAN``), on all
  images and on each half of :func:`half_of` (the box fusion was chosen on half 0), with
  bootstrap intervals over images and the placement on the gold boxes that two candidates
  both match (:func:`paired_placement`).
* ``next``: a corpus where a third of the images has one worker, the rest two; a budget of
  k extra annotations chosen by ``iaf.next_items`` or at random (a fresh worker of the
  pool draws each); the localization interval's half-width after.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import iaa_frames as iaf

RESULTS = Path(__file__).resolve().parent / "results"
sys.path.insert(0, str(Path(__file__).resolve().parent))  # braylan, *_crowd


def truth_frame(crowd) -> pd.DataFrame:
    """The true objects as the annotations of ``"truth"``, with a coverage row for every
    image without objects."""
    t = crowd.truth
    items = pd.unique(crowd.annotations["item"])
    obj = pd.DataFrame(
        {
            "item": t["item"],
            "annotator": "truth",
            "label": t["label"],
            "x0": t["x0"],
            "y0": t["y0"],
            "x1": t["x1"],
            "y1": t["y1"],
            "geometry": t["geometry"],
            "width": t["width"],
            "height": t["height"],
        }
    )
    obj = obj[obj["item"].isin(items)]
    sizes = crowd.annotations.drop_duplicates("item").set_index("item")[["width", "height"]]
    bare = pd.DataFrame({"item": np.setdiff1d(items, obj["item"].unique()), "annotator": "truth"})
    bare = bare.join(sizes, on="item")
    return pd.concat([obj, bare], ignore_index=True)


def best_single(df: pd.DataFrame, quality: pd.DataFrame, name: str = "best_single"):
    """Per image, the annotation of the worker with the highest estimated quality."""
    q = quality.set_index("annotator")["quality"]
    cov = df[["item", "annotator"]].drop_duplicates()
    cov = cov.assign(q=q.reindex(cov["annotator"]).to_numpy())
    pick = cov.sort_values(["item", "q"], ascending=[True, False]).drop_duplicates("item")
    keep = df.merge(pick[["item", "annotator"]], on=["item", "annotator"])
    return keep.assign(annotator=name)


def _frame_cols(df):
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "geometry", "width", "height"]
    return df[cols]


def score_against_truth(candidates: dict, truth: pd.DataFrame) -> pd.DataFrame:
    """F1 at IoU 0.5 and mean IoU of matched objects of every candidate frame."""
    frames = [_frame_cols(truth)]
    for name, frame in candidates.items():
        frames.append(_frame_cols(frame.assign(annotator=name)))
    both = pd.concat(frames, ignore_index=True)
    acc = iaf.accuracy(both, reference="truth", n_boot=0, n_chance=50)
    sel = acc["score"].sel(label="(all)", metric=["f1", "mean_iou"])
    rows = []
    for name in candidates:
        s = sel.sel(annotator=name)
        rows.append(
            {
                "method": name,
                "f1": float(s.sel(metric="f1")),
                "mean_iou": float(s.sel(metric="mean_iou")),
            }
        )
    return pd.DataFrame(rows)


def consensus_study(seed: int, quorum="auto", **crowd_options) -> pd.DataFrame:
    crowd = iaf.simulate_crowd(seed=seed, **crowd_options)
    df = crowd.annotations
    weighted = iaf.consensus(df, weights="quality", quorum=quorum)
    equal = iaf.consensus(df, weights="equal", quorum=quorum)
    quality = iaf.annotator_quality(df, n_boot=0)
    candidates = {
        "consensus_quality": weighted.objects,
        "majority_equal": equal.objects,
        "best_single": best_single(df, quality),
    }
    out = score_against_truth(candidates, truth_frame(crowd))
    return out.assign(seed=seed)


#: The population of the plan study, and the half-width asked of each component.
PLAN_MIX = {"good": 0.5, "sloppy": 0.2, "misser": 0.15, "mislabeler": 0.15}
PLAN_TARGETS = {"detection": 0.04, "classification": 0.05, "localization": 0.06, "overall": 0.04}


def plan_population(n_items, seed, workers_of=None):
    """``n_items`` images of 2 of 40 workers each (``simulate_crowd``); with
    ``workers_of``, the workers (their profiles) are those of the crowd of seed
    ``workers_of``: a fresh corpus of the same population, only the images and the
    assignment are new (``simulate_crowd`` draws the profiles anew with every seed, which
    would change the population between the pilot and the corpus planned)."""
    if workers_of is None:
        return iaf.simulate_crowd(
            n_items=n_items, n_workers=40, per_item=(2, 2), mix=PLAN_MIX, seed=seed
        ).annotations
    workers = iaf.simulate_crowd(
        n_items=1, n_workers=40, per_item=(2, 2), mix=PLAN_MIX, seed=workers_of
    ).workers
    profiles = dict(zip(workers["annotator"], workers["profile"], strict=True))
    a = iaf.simulate_with_truth(n_items=n_items, annotators=profiles, seed=seed).annotations
    rng = np.random.default_rng(seed)
    items = np.sort(a["item"].unique())
    names = np.array(list(profiles), dtype=object)
    chosen = np.argsort(rng.random((len(items), len(names))), axis=1)[:, :2]
    keep = pd.MultiIndex.from_arrays([np.repeat(items, 2), names[chosen].ravel()])
    rows = pd.MultiIndex.from_arrays([a["item"], a["annotator"]]).isin(keep)
    return a[rows].reset_index(drop=True)


def plan_study(seed: int, components=None) -> pd.DataFrame:
    """Plan from a 40-item pilot, then draw the recommended number of items (a fresh
    corpus of the same population) and measure its interval."""
    pilot = plan_population(40, seed)
    rows = []
    for comp in components or list(PLAN_TARGETS):
        target = PLAN_TARGETS[comp]
        p = iaf.plan(pilot, target_halfwidth=target, component=comp, n_outer=20, seed=seed)
        row = p.table.iloc[0]
        n = int(row["n_items"])
        fresh = plan_population(n, 10_000 + seed, workers_of=seed)
        ds = iaf.agreement(fresh, n_boot=200, seed=seed)
        cell = ds.sel(component=comp, label="(all)", annotator="(all)")
        achieved = 0.5 * float(cell["ci_high"] - cell["ci_low"])
        rows.append(
            {
                "seed": seed,
                "component": comp,
                "target": target,
                "n_items": n,
                "n_low": int(row["n_low"]),
                "n_high": int(row["n_high"]),
                "achieved": achieved,
                "ratio": achieved / target,
            }
        )
    return pd.DataFrame(rows)


def consensus_independent_study(seed: int) -> pd.DataFrame:
    """Consensus on a crowd of ``independent_crowd`` (200 images of 3-7 of 150 workers,
    single class) against its truth: the defaults, ``quorum=0.5`` and the best single
    worker per image."""
    import independent_crowd

    ann, truth, _, _, _ = independent_crowd.crowd(
        seed, n_items=200, n_workers=150, held_out=0, activity_sd=1.0, per_item=(3, 7)
    )
    quality = iaf.annotator_quality(ann, n_boot=0)
    cands = {
        "consensus (defaults)": iaf.consensus(ann).objects,
        "consensus quorum 0.5": iaf.consensus(ann, quorum=0.5).objects,
        "best single worker": best_single(ann, quality),
    }
    out = score_boxes(cands, truth, np.sort(ann["item"].unique()))
    return out.reset_index().assign(seed=seed)


def plan_independent_study(seed: int, components=None) -> pd.DataFrame:
    """:func:`plan_study` on the crowds of ``independent_crowd`` (written without
    ``iaf.simulate``; 4 classes, each worker with its own recall, jitter, false boxes and
    label confusion; 40 workers, 2 per image): a 40-item pilot, then a fresh corpus of
    the recommended size from the same workers."""
    import independent_crowd

    options = dict(n_workers=40, held_out=0, per_item=(2, 2), activity_sd=0.0, n_classes=4)
    pilot, _, _, _, workers = independent_crowd.crowd(seed, n_items=40, **options)
    rows = []
    for comp in components or list(PLAN_TARGETS):
        target = PLAN_TARGETS[comp]
        p = iaf.plan(pilot, target_halfwidth=target, component=comp, n_outer=20, seed=seed)
        row = p.table.iloc[0]
        n = int(row["n_items"])
        fresh = independent_crowd.crowd(10_000 + seed, n_items=n, workers=workers, **options)[0]
        ds = iaf.agreement(fresh, n_boot=200, seed=seed)
        cell = ds.sel(component=comp, label="(all)", annotator="(all)")
        achieved = 0.5 * float(cell["ci_high"] - cell["ci_low"])
        rows.append(
            {"seed": seed, "component": comp, "target": target, "n_items": n,
             "n_low": int(row["n_low"]), "n_high": int(row["n_high"]),
             "achieved": achieved, "ratio": achieved / target}
        )  # fmt: skip
    return pd.DataFrame(rows)


def _batch_names(df, stage):
    """``df`` with item names and object ids of its own for batch ``stage``."""
    tag = f"b{stage}:"
    df = df.assign(item=tag + df["item"].astype(str))
    if "object_id" in df:
        df = df.assign(object_id=tag + df["object_id"].astype(str))
    return df


#: Batches of the sequential plan study (``--stages``).
PLAN_STAGES = [3]


def _sequential_rows(seed, pilot, fresh, components):
    """Per component, ``iaf.plan_sequential`` from ``pilot`` (``PLAN_STAGES`` batches:
    half the plan, plan again, ..., the rest), batches of ``fresh(n, stage)``; the interval of the corpus
    annotated in the end (the pilot and the batches) against the target."""
    pilot = _batch_names(pilot, 0)
    rows = []
    for comp in components or list(PLAN_TARGETS):
        target = PLAN_TARGETS[comp]
        s = iaf.plan_sequential(
            pilot,
            annotate=lambda n, stage: _batch_names(fresh(n, stage), stage),
            target_halfwidth=target, component=comp, n_outer=20, seed=seed,
            stages=PLAN_STAGES[0],
        )  # fmt: skip
        ds = iaf.agreement(s.corpus, n_boot=200, seed=seed, progress=False)
        cell = ds.sel(component=comp, label="(all)", annotator="(all)")
        achieved = 0.5 * float(cell["ci_high"] - cell["ci_low"])
        first, last = s.stages.iloc[0], s.stages.iloc[-1]
        rows.append(
            {"seed": seed, "component": comp, "target": target,
             "n_plan": int(first["n_items"]), "n_first": int(first["n_next"]),
             "n_items": int(last["n_annotated"]), "achieved": achieved,
             "ratio": achieved / target}
        )  # fmt: skip
    return pd.DataFrame(rows)


def plan_sequential_study(seed: int, components=None) -> pd.DataFrame:
    """:func:`plan_study` in two stages (``iaf.plan_sequential``): the 40-item pilot's
    plan, half of it annotated (the pilot's items included), a new plan on those, the
    rest; every batch from the pilot's 40 workers."""
    pilot = plan_population(40, seed)
    fresh = lambda n, stage: plan_population(n, 10_000 * stage + seed, workers_of=seed)  # noqa: E731
    return _sequential_rows(seed, pilot, fresh, components)


def plan_sequential_independent_study(seed: int, components=None) -> pd.DataFrame:
    """:func:`plan_sequential_study` on the crowds of ``independent_crowd`` (the protocol
    of :func:`plan_independent_study`)."""
    import independent_crowd

    options = dict(n_workers=40, held_out=0, per_item=(2, 2), activity_sd=0.0, n_classes=4)
    pilot, _, _, _, workers = independent_crowd.crowd(seed, n_items=40, **options)

    def fresh(n, stage):
        return independent_crowd.crowd(
            10_000 * stage + seed, n_items=n, workers=workers, **options
        )[0]

    return _sequential_rows(seed, pilot, fresh, components)


def next_study(
    seed: int, *, n_items=150, n_workers=30, budget=30, component="localization", n_random=5
):
    """Items with 1 or 2 workers (a third with one); ``budget`` extra annotations chosen by
    ``iaf.next_items`` or at random (``n_random`` draws); each extra annotation is the next worker of the item's
    (random) order. The half-width of ``component``'s interval after."""
    rng = np.random.default_rng(seed)
    names = [f"w{k:03d}" for k in range(n_workers)]
    from iaa_frames.simulate import CROWD_MIX

    presets = list(CROWD_MIX)
    share = np.array(list(CROWD_MIX.values()))
    profile = rng.choice(presets, n_workers, p=share / share.sum())
    full = iaf.simulate_with_truth(
        n_items=n_items, annotators=dict(zip(names, profile, strict=True)), seed=seed
    ).annotations
    order = np.argsort(rng.random((n_items, n_workers)), axis=1)  # each item's workers
    items = np.sort(full["item"].unique())
    first = np.where(rng.random(n_items) < 1 / 3, 1, 2)

    def corpus(count):
        item_idx, slot = np.nonzero(np.arange(n_workers)[None, :] < count[:, None])
        pairs = pd.DataFrame(
            {"item": items[item_idx], "annotator": np.asarray(names)[order[item_idx, slot]]}
        )
        return full.merge(pairs, on=["item", "annotator"])

    start = corpus(first)
    chosen = iaf.next_items(start, budget=budget, component=component, seed=seed)
    rows = []
    draws = [("next_items", chosen["item"].to_numpy())] + [
        ("random", rng.choice(items, budget, replace=False)) for _ in range(n_random)
    ]
    for selection, picked in draws:
        count = first + np.isin(items, picked)
        ds = iaf.agreement(corpus(count), n_boot=200, seed=seed)
        cell = ds.sel(component=component, label="(all)", annotator="(all)")
        rows.append(
            {
                "seed": seed,
                "selection": selection,
                "budget": budget,
                "halfwidth": 0.5 * float(cell["ci_high"] - cell["ci_low"]),
                "predicted": float(chosen["halfwidth_after"].iloc[-1])
                if selection == "next_items"
                else np.nan,
            }
        )
    before = iaf.agreement(start, n_boot=200, seed=seed)
    cell = before.sel(component=component, label="(all)", annotator="(all)")
    rows.append(
        {
            "seed": seed,
            "selection": "before",
            "budget": 0,
            "halfwidth": 0.5 * float(cell["ci_high"] - cell["ci_low"]),
            "predicted": chosen.attrs["halfwidth"],
        }
    )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ against a gold


def score_boxes(candidates: dict, gold: pd.DataFrame, items, return_items=False) -> pd.DataFrame:
    """Per candidate frame (one annotation per item, single class): against ``gold`` on
    ``items`` at IoU >= 0.5, F1, PQ (IoU of the matches over (n + n_gold) / 2), the gold
    boxes missed, the false boxes and the mean IoU of the matched boxes (placement)."""
    frames = []
    for name, frame in candidates.items():
        f = frame[frame["item"].isin(items)]
        frames.append(f.assign(annotator="cand", item=f["item"] + "|" + name))
        g = gold[gold["item"].isin(items)]
        frames.append(g.assign(annotator="gold", item=g["item"] + "|" + name))
        # coverage rows, so that an item without any box still counts
        sizes = gold.drop_duplicates("item").set_index("item")[["width", "height"]]
        its = pd.Index(items)
        cov = pd.DataFrame({"item": its + "|" + name}).join(
            sizes.reindex(its).reset_index(drop=True)
        )
        frames += [cov.assign(annotator="cand"), cov.assign(annotator="gold")]
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    both = pd.concat([f.reindex(columns=cols) for f in frames], ignore_index=True)
    t = iaf.pair_tables(both, n_chance=20, progress=False)
    s = t.sets_within[t.sets_within["label"] == -1]
    names = np.asarray([str(x) for x in t.corpus.annotators], dtype=object)
    items_c = np.asarray([str(x) for x in t.corpus.items], dtype=object)
    cand_is_a = names[s["annotator_a"].to_numpy()] == "cand"
    n_c = np.where(cand_is_a, s["n_a"], s["n_b"])
    n_g = np.where(cand_is_a, s["n_b"], s["n_a"])
    w = t.localization_within
    iou = w.groupby("item")["iou"].sum().reindex(s["item"]).fillna(0).to_numpy()
    which = np.array([x.split("|", 1)[1] for x in items_c[s["item"].to_numpy()]], dtype=object)
    per_item = pd.DataFrame(
        {"method": which, "item": [x.split("|", 1)[0] for x in items_c[s["item"].to_numpy()]],
         "n": n_c, "n_gold": n_g, "tp": s["n_matched"].to_numpy(), "iou": iou}
    )  # fmt: skip
    if return_items:
        return per_item
    tab = per_item.groupby("method")[["n", "n_gold", "tp", "iou"]].sum()
    # a candidate that drew nothing anywhere on an item with gold: its gold still counts
    out = pd.DataFrame(
        {
            "f1": 2 * tab["tp"] / (tab["n"] + tab["n_gold"]),
            "pq": tab["iou"] / ((tab["n"] + tab["n_gold"]) / 2),
            "missed": tab["n_gold"] - tab["tp"],
            "false": tab["n"] - tab["tp"],
            "placement": tab["iou"] / tab["tp"],
            "n_gold": tab["n_gold"],
        }
    )
    return out.reindex(list(candidates))


def _figures(tab):
    n, g, tp, iou = (tab[c] for c in ("n", "n_gold", "tp", "iou"))
    return {"f1": 2 * tp / (n + g), "pq": iou / ((n + g) / 2), "placement": iou / tp}


def half_of(items) -> np.ndarray:
    """0 (the half the defaults were chosen on) or 1 (the half reported), from the SHA-1
    of each item's name."""
    return np.array([int(hashlib.sha1(str(i).encode()).hexdigest(), 16) % 2 for i in items])


def _bootstrap_lines(per_item, out, items, n_boot, seed, bases, label=""):
    cube = {
        m: g.set_index("item").reindex(items)[["n", "n_gold", "tp", "iou"]].fillna(0.0).to_numpy()
        for m, g in per_item.groupby("method")
    }
    rng = np.random.default_rng(seed)
    k = rng.multinomial(len(items), np.full(len(items), 1 / len(items)), size=n_boot)
    boot = {
        m: _figures(pd.DataFrame(k @ v, columns=["n", "n_gold", "tp", "iou"]))
        for m, v in cube.items()
    }
    lines = []
    for base in bases:
        if base not in boot:
            continue
        for fig in ("f1", "pq", "placement"):
            d = boot["consensus (defaults)"][fig] - boot[base][fig]
            lo, hi = np.quantile(d, [0.025, 0.975])
            point = out.loc["consensus (defaults)", fig] - out.loc[base, fig]
            lines.append(f"# {label}defaults - {base}: {fig} {point:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    return lines


def paired_placement(a, b, gold, items, n_boot=1000, seed=0):
    """On the gold boxes that both ``a`` and ``b`` matched (IoU >= 0.5, each matched
    one-to-one with the gold on its own): how many, the mean IoU of ``a``'s and of ``b``'s
    matches, and ``a - b`` with a 95 % bootstrap interval over images."""
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    frames = [f[f["item"].isin(items)].assign(annotator=n) for n, f in
              (("gold", gold), ("a", a), ("b", b))]  # fmt: skip
    both = pd.concat([f.reindex(columns=cols) for f in frames], ignore_index=True)
    t = iaf.pair_tables(both, n_chance=20, progress=False)
    names = np.asarray([str(x) for x in t.corpus.annotators], dtype=object)
    w = t.localization_within
    na, nb = names[w["annotator_a"].to_numpy()], names[w["annotator_b"].to_numpy()]
    per = {}
    for who in ("a", "b"):
        sel = ((na == "gold") & (nb == who)) | ((nb == "gold") & (na == who))
        g = np.where(
            na[sel] == "gold", w["object_a"].to_numpy()[sel], w["object_b"].to_numpy()[sel]
        )
        per[who] = pd.Series(w["iou"].to_numpy()[sel], index=g)
    j = pd.concat(per, axis=1, join="inner")
    j["item"] = t.corpus.objects["item"].to_numpy()[j.index.to_numpy()]
    sums = j.groupby("item")[["a", "b"]].agg(["sum", "count"])
    s_a, s_b, n = (sums[("a", "sum")].to_numpy(), sums[("b", "sum")].to_numpy(),
                   sums[("a", "count")].to_numpy())  # fmt: skip
    rng = np.random.default_rng(seed)
    k = rng.multinomial(len(n), np.full(len(n), 1 / len(n)), size=n_boot)
    d = (k @ s_a - k @ s_b) / (k @ n)
    lo, hi = np.quantile(d, [0.025, 0.975]) if n_boot else (np.nan, np.nan)
    return {"n": int(n.sum()), "a": s_a.sum() / n.sum(), "b": s_b.sum() / n.sum(),
            "diff": (s_a.sum() - s_b.sum()) / n.sum(), "low": lo, "high": hi}  # fmt: skip


def _paired_line(label, a, b, gold, items, n_boot, seed):
    p = paired_placement(a, b, gold, items, n_boot, seed)
    return (f"# {label}: placement on the {p['n']} gold boxes both matched: {p['a']:.3f} vs "
            f"{p['b']:.3f}, {p['diff']:+.3f} [{p['low']:+.3f}, {p['high']:+.3f}]")  # fmt: skip


def braylan_study(seed: int = 0, quorums=None, n_boot: int = 1000) -> pd.DataFrame:
    """The real crowd of Braylan et al. against its gold: consensus (defaults, equal
    weights, the previous box fusion ``box_fusion="mean"``, and every quorum of
    ``quorums``) and the best single worker per image, with a bootstrap over images of the
    defaults' differences; on all images, then on each half of :func:`half_of` (the
    defaults were chosen on half 0; half 1 is the held-out report)."""
    import braylan

    crowd_df, gold_df = braylan.load()
    items = np.sort(crowd_df["item"].unique())
    quality = iaf.annotator_quality(crowd_df, n_boot=0)
    cands = {
        "consensus (defaults)": iaf.consensus(crowd_df).objects,
        "consensus equal weights": iaf.consensus(crowd_df, weights="equal").objects,
        "consensus box_fusion mean": iaf.consensus(crowd_df, box_fusion="mean").objects,
        "best single worker": best_single(crowd_df, quality),
    }
    for q in quorums or ():
        cands[f"consensus quorum {q:g}"] = iaf.consensus(crowd_df, quorum=q).objects
    per_item = score_boxes(cands, gold_df, items, return_items=True)
    out = score_boxes(cands, gold_df, items)
    bases = ("best single worker", "consensus box_fusion mean", "consensus quorum 0.5")
    lines = _bootstrap_lines(per_item, out, items, n_boot, seed, bases)
    d, b = cands["consensus (defaults)"], cands["best single worker"]
    m = cands["consensus box_fusion mean"]
    lines.append(_paired_line("defaults - best single worker", d, b, gold_df, items, n_boot, seed))
    lines.append(_paired_line("box_fusion mean - best single worker", m, b, gold_df, items,
                              n_boot, seed))  # fmt: skip
    lines.append(_paired_line("defaults - box_fusion mean", d, m, gold_df, items, n_boot, seed))
    half = half_of(items)
    for h in (0, 1):
        its = items[half == h]
        sub = score_boxes(cands, gold_df, its)
        lines.append(f"# half {h} ({len(its)} images)\n" + "\n".join(
            "#   " + x for x in sub.round(4).to_string().splitlines()
        ))  # fmt: skip
        lines += _bootstrap_lines(
            per_item[per_item["item"].isin(its)], sub, its, n_boot, seed, bases[:2],
            label=f"half {h}: ",
        )  # fmt: skip
        lines.append(_paired_line(f"half {h}: defaults - best single worker", d, b, gold_df,
                                  its, n_boot, seed))  # fmt: skip
        lines.append(_paired_line(f"half {h}: defaults - box_fusion mean", d, m, gold_df,
                                  its, n_boot, seed))  # fmt: skip
    out.attrs["lines"] = lines
    return out.reset_index()


def consensus_biased_study(seed: int) -> pd.DataFrame:
    """Consensus on a crowd of ``biased_crowd`` (written without ``iaf.simulate``: three
    classes with their own regions and sizes; careful, sloppy and biased workers, 2-5 per
    image) against its truth: the defaults, the previous box fusion and the best single
    worker per image."""
    import biased_crowd

    ann, truth, _ = biased_crowd.crowd(seed)
    quality = iaf.annotator_quality(ann, n_boot=0)
    cands = {
        "consensus (defaults)": iaf.consensus(ann).objects,
        "consensus box_fusion mean": iaf.consensus(ann, box_fusion="mean").objects,
        "best single worker": best_single(ann, quality),
    }
    out = score_boxes(cands, truth, np.sort(ann["item"].unique()))
    return out.reset_index().assign(seed=seed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--study",
        default="all",
        choices=[
            "consensus",
            "consensus_independent",
            "consensus_biased",
            "plan",
            "plan_independent",
            "plan_sequential",
            "plan_sequential_independent",
            "next",
            "braylan",
            "all",
        ],  # fmt: skip
    )
    parser.add_argument("--components", default=None, help="plan: comma-separated components")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--stages", type=int, default=3, help="plan_sequential: batches")
    parser.add_argument("--n-boot-items", type=int, default=1000, help="braylan: bootstrap")
    args = parser.parse_args(argv)
    PLAN_STAGES[0] = args.stages
    RESULTS.mkdir(exist_ok=True)
    studies = ["consensus", "plan", "next"] if args.study == "all" else [args.study]
    for study in studies:
        t0 = time.perf_counter()
        fn = {"consensus": consensus_study, "plan": plan_study, "next": next_study,
              "plan_independent": plan_independent_study, "braylan": braylan_study,
              "plan_sequential": plan_sequential_study,
              "plan_sequential_independent": plan_sequential_independent_study,
              "consensus_independent": consensus_independent_study,
              "consensus_biased": consensus_biased_study}[study]  # fmt: skip
        if study == "braylan":
            table = braylan_study(seed=0, quorums=(0.2, 0.3, 0.5), n_boot=args.n_boot_items)
        elif study.startswith("plan") and args.components:
            comps = args.components.split(",")
            table = pd.concat([fn(seed, comps) for seed in range(args.seeds)], ignore_index=True)
        else:
            table = pd.concat([fn(seed) for seed in range(args.seeds)], ignore_index=True)
        text = f"# bench_decisions --study {study} --seeds {args.seeds}"
        text += f" --stages {args.stages}\n" if "sequential" in study else "\n"
        text += table.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n"
        text += summary(study, table) + f"\n# {time.perf_counter() - t0:.1f} s\n"
        (RESULTS / f"decisions_{study}.txt").write_text(text)
        sys.stdout.write(text)


def summary(study, table) -> str:
    if study in ("consensus_independent", "consensus_biased"):
        figs = ["f1", "pq", "missed", "placement"]
        return "# mean over seeds\n" + table.groupby("method")[figs].mean().to_string()
    if study == "consensus":
        means = table.groupby("method")[["f1", "mean_iou"]].agg(["mean", "min", "max"])
        return "# mean over seeds\n" + means.to_string(float_format=lambda v: f"{v:.4f}")
    if study == "braylan":
        return "# 95 % bootstrap over images\n" + "\n".join(table.attrs.get("lines", []))
    if study.startswith("plan"):
        ratio = table["ratio"]
        return (
            "# achieved / target half-width, per component\n"
            + table.groupby("component")["ratio"].agg(["median", "mean", "min", "max"]).to_string()
            + "\n# within +-20 %, per component\n"
            + table.groupby("component")["ratio"]
            .agg(lambda r: f"{int(((r > 0.8) & (r < 1.2)).sum())} of {len(r)}")
            .to_string()
            + f"\n# within +-20 %: {int(((ratio > 0.8) & (ratio < 1.2)).sum())} of {len(ratio)}"
        )
    means = table.groupby("selection")["halfwidth"].agg(["mean", "min", "max"])
    return "# half-width after the extra annotations\n" + means.to_string()


if __name__ == "__main__":
    main()
