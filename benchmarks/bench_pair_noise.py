"""The item bootstrap's variance of a mean over chance pairs whose values carry no item
effect (pure pair noise), against its true variance (docs/validation/coverage.md).

A chance row pairing items ``i`` and ``j`` weighs ``k_i * k_j`` in a replicate
(:mod:`iaa_frames.stats.bootstrap`). Where each pair's value is its own (a matched chance
pair's label disagreement, say), the replicates' variance of the mean over ``M`` pairs is
about ``3 s^2 / M`` against a true ``s^2 / M``: each pair's value moves with both its
items' multiplicities (variance 1 each) and with their product's second-order term (1).

Run: ``python benchmarks/bench_pair_noise.py [--items 60] [--pairs 1000] [--seed 0]``
"""

from __future__ import annotations

import argparse

import numpy as np


def variances(n_items: int, n_pairs: int, *, seed: int, n_boot: int = 2000, corpora: int = 200):
    """(true variance over ``corpora`` draws of the pair values, mean bootstrap variance
    over the first 20 of them) of the mean of ``n_pairs`` Bernoulli(0.3) pair values on
    pairs of ``n_items`` items."""
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n_items, n_pairs)
    j = (i + rng.integers(1, n_items, n_pairs)) % n_items  # two different items
    true, boot = [], []
    for r in range(corpora):
        d = rng.random(n_pairs) < 0.3
        true.append(d.mean())
        if r < 20:
            k = rng.multinomial(n_items, np.full(n_items, 1 / n_items), size=n_boot)
            w = k[:, i] * k[:, j]
            boot.append(((w * d).sum(axis=1) / w.sum(axis=1)).var())
    return float(np.var(true)), float(np.mean(boot))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=60)
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    true, boot = variances(args.items, args.pairs, seed=args.seed)
    print(f"true variance {true:.3g}, bootstrap variance {boot:.3g}, ratio {boot / true:.2f}")


if __name__ == "__main__":
    main()
