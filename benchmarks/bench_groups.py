"""Copied items and the ``group`` column (issue 21, point 4).

Usage: python benchmarks/bench_groups.py [--items 40] [--copies 8] [--seeds 5]
                                         [--tau 0.5] [--profiles good,sloppy,...]
                                         [--boxes 1000000]

Video frames, burst photos and augmented copies are near duplicates; a chance pairing of
an item with its copy looks like agreement and deflates sigma. For every annotator
profile and seed, a corpus of ``--items`` items is simulated (three annotators of that
profile; ``a+b+c``: one annotator of each), ``--copies`` of its items are duplicated under new names (the same
annotations), and localization sigma of the "(all)" cell at ``--tau`` is computed on:

* ``clean``: the corpus without the copies;
* ``copies``: with the copies and no group column (every item its own group);
* ``grouped``: with the copies, each in one group with its original.

Printed per profile and seed: the three sigmas and ``grouped - clean`` (target: within
0.03), whether the CopiedItemsWarning of the ``copies`` run named every copy (of an
image with objects: empty images are all alike), then the mean over seeds. A last part times the copy search (:func:`iaa_frames.core.matching.copies.find_copies`)
against :func:`iaa_frames.core.matching.corpus.prepare` on a corpus of about ``--boxes`` boxes (0:
skip).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

import iaa_frames as iaf
from iaa_frames.core.matching.copies import find_copies
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.errors import CopiedItemsWarning

TARGET = 0.03


def with_copies(df: pd.DataFrame, n_copies: int, seed: int) -> pd.DataFrame:
    """``df`` with ``n_copies`` of its items duplicated under new names (``<item>_copy``,
    same annotations) and a ``group`` column putting every copy with its original."""
    items = np.sort(df["item"].unique())
    pick = np.random.default_rng(seed).choice(items, n_copies, replace=False)
    copy = df[df["item"].isin(pick)].copy()
    copy["item"] = copy["item"].astype(str) + "_copy"
    out = pd.concat([df, copy], ignore_index=True)
    out["object_id"] = np.arange(len(out))
    out["group"] = out["item"].astype(str).str.removesuffix("_copy")
    return out


def localization(df: pd.DataFrame, tau: float) -> tuple[float, list]:
    """Localization sigma of the "(all)" cell, and the CopiedItemsWarnings issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CopiedItemsWarning)
        ds = iaf.agreement(df, match_threshold=tau, n_boot=0)
    cell = ds["agreement"].sel(component="localization", label="(all)", annotator="(all)")
    return float(cell), [w.message for w in caught if isinstance(w.message, CopiedItemsWarning)]


def run(profile: str, n_items: int, n_copies: int, seed: int, tau: float) -> dict:
    parts = profile.split("+")  # "good+sloppy+misser": one annotator of each
    annotators = {name: parts[i % len(parts)] for i, name in enumerate("ABC")}
    df = iaf.simulate(n_items=n_items, annotators=annotators, seed=seed)
    both = with_copies(df, n_copies, seed)
    clean, _ = localization(df, tau)
    copies, warned = localization(both.drop(columns="group"), tau)
    grouped, warned_grouped = localization(both, tau)
    named = set()
    for w in warned:
        named |= set(w.copies["item"]) | set(w.copies["copy"])
    # copies of an empty image cannot be told from any other empty image: not counted
    drawn = both["x0"].notna()
    copied = set(both.loc[both["item"].str.endswith("_copy") & drawn, "item"])
    return {
        "profile": profile,
        "seed": seed,
        "clean": clean,
        "copies": copies,
        "grouped": grouped,
        "difference": grouped - clean,
        "warning names every copy": copied <= named,
        "warning when grouped": bool(warned_grouped),
    }


def timing(n_boxes: int) -> None:
    n_items = max(n_boxes // 12, 10)  # about 12 boxes per item (3 annotators)
    df = iaf.simulate(n_items=n_items, seed=1)
    start = time.perf_counter()
    corpus = prepare(df, copies="ignore")
    t_prepare = time.perf_counter() - start
    start = time.perf_counter()
    found = find_copies(corpus)
    t_find = time.perf_counter() - start
    print(
        f"\ncopy search on {len(corpus.objects):,} boxes ({n_items:,} items): "
        f"{t_find:.2f} s (prepare: {t_prepare:.2f} s); {len(found)} pair(s) found "
        "(no copies were made)"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=40)
    p.add_argument("--copies", type=int, default=8)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--tau", type=float, default=0.5)
    p.add_argument("--profiles", default="good,sloppy,good+sloppy+misser")
    p.add_argument("--boxes", type=int, default=1_000_000)
    args = p.parse_args(argv)
    rows = [
        run(profile, args.items, args.copies, seed, args.tau)
        for profile in args.profiles.split(",")
        for seed in range(args.seeds)
    ]
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.precision", 3):
        print(
            f"localization sigma, '(all)' cell, tau = {args.tau}: {args.items} items, "
            f"{args.copies} copied under new names\n"
        )
        print(table.to_string(index=False))
        means = table.groupby("profile")[["clean", "copies", "grouped", "difference"]].mean()
        print("\nmean over seeds:\n" + means.to_string())
    ok = bool((table["difference"].abs() <= TARGET).all())
    ok &= bool(table["warning names every copy"].all() and not table["warning when grouped"].any())
    print(
        f"\n|grouped - clean| <= {TARGET} in every run, every copy named, no warning when "
        f"grouped: {'yes' if ok else 'NO'}"
    )
    if args.boxes:
        timing(args.boxes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
