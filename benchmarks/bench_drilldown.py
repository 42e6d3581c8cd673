"""Are the per-class and pooled cells unbiased on the class structures real data has?

Run: ``python benchmarks/bench_drilldown.py [--corpora 8] [--seed 0]``

Every annotator places objects at random given the class, so every localization cell
should score sigma ~ 0 (or be NaN with a note). The corpora (``benchmarks/corpora.py``):

* ``corner random``: class A tiny and in the top-left corner, in 3 of 150 items, drawn at
  random in its corner; background boxes at random (its own position and size prior);
* ``corner same spot``: the same, each annotator putting A on its own spot in every image
  (lazy, image-blind: only A's own chance units can see it);
* ``co-occurring``: a large class B drawn on the same 10 of 150 items by everyone (they
  agree which images hold B, not where): the "(all)" cell;
* ``count-aware``: random drawers who know each item's object count: the "(all)" cell.

Each corpus at tau 0 and 0.5; printed: the mean sigma over the defined corpora, its
standard error, and how many corpora gave NaN (with a note). Targets (#21): |mean| <= 0.05
(count-aware at tau 0: <= 0.025). About 2 s per corpus and tau.
"""

from __future__ import annotations

import argparse
import warnings

import corpora
import numpy as np

import iaa_frames as iaf

CASES = {
    "corner random": (lambda s: corpora.corner_corpus(s, "random"), "A"),
    "corner same spot": (lambda s: corpora.corner_corpus(s, "spot"), "A"),
    "co-occurring": (corpora.cooccurring_corpus, iaf.ALL),
    "count-aware": (corpora.counting_corpus, iaf.ALL),
}


def one(case: str, seed: int, tau: float) -> tuple[float, str]:
    make, label = CASES[case]
    ds = iaf.agreement(make(seed), match_threshold=tau, n_boot=0, seed=seed, progress=False)
    cell = ds.sel(component="localization", label=label, annotator=iaf.ALL)
    return float(cell["agreement"]), str(cell["note"].item())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'corpus':<18} {'tau':>4} {'mean sigma':>11} {'se':>6} {'NaN':>5}")
    for case in CASES:
        for tau in (0.0, 0.5):
            runs = [one(case, args.seed + k, tau) for k in range(args.corpora)]
            values = np.array([v for v, _ in runs])
            ok = np.isfinite(values)
            assert all(note for v, note in runs if not np.isfinite(v)), "a NaN says why"
            mean = values[ok].mean() if ok.any() else np.nan
            se = values[ok].std(ddof=1) / np.sqrt(ok.sum()) if ok.sum() > 1 else np.nan
            print(f"{case:<18} {tau:>4} {mean:>+11.3f} {se:>6.3f} {int((~ok).sum()):>5}")


if __name__ == "__main__":
    main()
