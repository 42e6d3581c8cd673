"""False-positive rate (and power) of the KS p-values of agreement.

Run: ``python benchmarks/bench_kstest.py [--sizes 4 200] [--corpora 300 300] [--seed 0]``
(about 10 minutes on one core; power is measured on the smallest size only)

Two kinds of null corpora, where "no agreement" holds (within-item distances have the
distribution of chance):

* ``shuffled``: three ``"good"`` annotators on an easy corpus (one large central object
  per image, ``layout="single_center"``, 640 x 480) of three times as many images as
  items; the images are dealt at random into groups of three, and item ``j`` holds
  annotator ``k``'s annotations of the ``k``-th image of group ``j`` only. The annotators
  ignore the image, yet their boxes overlap a lot, so raw IoU is high and localization has
  matched pairs within and between items. Every image is used once: no item holds two
  annotations of one image (real agreement), and no two items share an image (the test
  assumes independent items; moving each annotator's annotations along a cyclic order
  of the items, as this study once did, makes neighbouring items share images and
  correlates their within-item distances);
* ``random``: three annotators who draw at random (``"random"`` profile).

For every corpus and every sigma component (detection, localization, overall; label and
annotator "(all)") the table reports how often "agreement" is declared at the 5 % level
by

* ``scipy two-sided``: ``scipy.stats.ks_2samp`` (independent samples), p < 0.05;
* ``scipy, agreement``: the same and the within ECDF above chance (``ks_sign = +1``);
* ``cluster one-sided``: ``ks_pvalue`` of ``iaf.agreement`` (the cluster-bootstrap test of
  :mod:`iaa_frames.stats.kstest` on the cell's distinct chance units), p < 0.05.

The rate of a valid test is at most 5 % (Monte-Carlo standard error ~1.3 points with 300
corpora). Power: the easy corpus with three ``"sloppy"`` annotators
(jitter 0.15) who do look at the image, share of corpora where agreement is declared.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import iaa_frames as iaf
from iaa_frames.core.engine import agreement_from_tables, cell_distances
from iaa_frames.stats.samples import ks

COMPONENTS = ("detection", "localization", "overall")


def samples(tables, component):
    """(within, chance, chance weights) of the cell at label and annotator "(all)": every
    within-item row, and the chance rows that cell counts with their weights (the uniform
    stratum's rows, post-stratified for localization; see :mod:`iaa_frames.core.chance` and
    :mod:`iaa_frames.core.chance.poststrata`)."""
    d = cell_distances(tables, component)
    d = d[(d["label"] == iaf.ALL) & (d["annotator"] == iaf.ALL)]
    within, chance = d[d["sample"] == "within"], d[d["sample"] == "between"]
    return (
        within["distance"].to_numpy(),
        chance["distance"].to_numpy(),
        chance["weight"].to_numpy(),
    )


def corpus(kind, n_items, seed):
    """A null ("shuffled", "random") or an agreeing ("sloppy") corpus."""
    annotators = ("a", "b", "c")
    if kind == "random":
        return iaf.simulate(
            n_items=n_items, seed=seed, annotators=dict.fromkeys(annotators, "random")
        )
    profile = "good" if kind == "shuffled" else "sloppy"
    images = n_items * (len(annotators) if kind == "shuffled" else 1)
    df = iaf.simulate(
        n_items=images,
        seed=seed,
        layout="single_center",
        image_size=(640, 480),
        annotators=dict.fromkeys(annotators, profile),
    )
    if kind != "shuffled":
        return df
    # item j takes annotator k's annotations of image order[3 j + k]: every image is used
    # once, by one annotator, so items share no image and stay independent
    rng = np.random.default_rng([seed, 1])
    order = rng.permutation(np.array(sorted(df["item"].unique())))
    item_of = {
        (image, annotators[pos % len(annotators)]): f"item_{pos // len(annotators):05d}"
        for pos, image in enumerate(order)
    }
    keys = list(zip(df["item"], df["annotator"]))
    item = pd.Series([item_of.get(key) for key in keys], index=df.index, dtype=object)
    kept = item.notna()
    return df[kept].assign(item=item[kept].astype(str)).reset_index(drop=True)


def one_corpus(n_items, seed, kind):
    tables = iaf.pair_tables(corpus(kind, n_items, seed), seed=seed, progress=False)
    ds = agreement_from_tables(tables, n_boot=0, seed=seed, progress=False)
    rows = []
    for comp in COMPONENTS:
        x, y, wy = samples(tables, comp)
        pvalue = float(ds["ks_pvalue"].sel(component=comp, label=iaf.ALL, annotator=iaf.ALL))
        if len(x) < 2 or len(y) < 2 or np.isnan(pvalue):
            continue
        res = ks(x, y, between_weights=wy)
        rows.append(
            {
                "component": comp,
                "scipy two-sided": res.pvalue < 0.05,
                "scipy, agreement": (res.pvalue < 0.05) and res.sign > 0,
                "cluster one-sided": pvalue < 0.05,
            }
        )
    return rows


def run(args):
    methods = ["scipy two-sided", "scipy, agreement", "cluster one-sided"]
    for n_items, n_corpora in zip(args.sizes, args.corpora):
        for kind, what in (
            ("shuffled", "null (shuffled): false-positive rate"),
            ("random", "null (random drawers): false-positive rate"),
            ("sloppy", "power (sloppy annotators, easy corpus)"),
        ):
            if kind == "sloppy" and (args.no_power or n_items != min(args.sizes)):
                continue
            t0 = time.perf_counter()
            rows = []
            for r in range(n_corpora):
                rows.extend(one_corpus(n_items, args.seed + 1000 * n_items + r, kind))
            out = pd.DataFrame(rows).groupby("component")[methods].agg(["mean", "size"])
            print(
                f"\n{n_items} items, {n_corpora} corpora, {what} ({time.perf_counter() - t0:.0f} s)"
            )
            for comp in COMPONENTS:
                if comp not in out.index:
                    continue
                cells = "  ".join(f"{m} {100 * out.loc[comp, (m, 'mean')]:5.1f} %" for m in methods)
                print(
                    f"  {comp:<13} {cells}  (n {int(out.loc[comp, (methods[0], 'size')])})",
                    flush=True,
                )


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[4, 200])
    p.add_argument("--corpora", type=int, nargs="+", default=[300, 300])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-power", action="store_true")
    args = p.parse_args()
    if len(args.corpora) != len(args.sizes):
        p.error("give one --corpora count per size")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        run(args)


if __name__ == "__main__":
    main()
