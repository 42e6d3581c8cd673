"""Time the nominal alpha core and the bootstrap statistics of iaa_frames.

Run: ``python benchmarks/bench_alpha.py [--values N] [--units U] [--categories C]
[--boot B] [--distances D] [--seed S]``

* ``nominal_alpha_from_codes`` on N pairable values in U units with C categories
  (default 1 000 000 / 300 000 / 1 200, an LVIS-sized classification table), unweighted
  and with (B, U) cluster-bootstrap weights (default B = 200);
* ``binary_alpha_per_category`` with the same (B, U) weights;
* ``sigma`` and ``ks_statistic_weighted`` on D within and D between distances with
  (B, D) weights (default D = 200 000).

Each line prints the best wall time of a few runs and the peak of traced allocations
(``tracemalloc``; the input arrays are not counted).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from iaa_frames.stats.krippendorff import binary_alpha_per_category, nominal_alpha_from_codes
from iaa_frames.stats.samples import ks_statistic_weighted, sigma


def timed(label, func, *args, repeat=3, **kwargs):
    best, peak = np.inf, 0
    for _ in range(repeat):
        tracemalloc.start()
        t0 = time.perf_counter()
        out = func(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    print(f"{label:<52s} {best:8.3f} s  peak {peak / 1e6:8.1f} MB  (best of {repeat})")
    return out


def bootstrap_weights(rng, n_boot, n_units):
    """Multiplicities of a cluster bootstrap: n_units draws with replacement, per row."""
    draws = rng.integers(0, n_units, size=(n_boot, n_units))
    rows = np.repeat(np.arange(n_boot), n_units)
    w = np.zeros((n_boot, n_units), dtype=np.int32)
    np.add.at(w, (rows, draws.ravel()), 1)
    return w


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--units", type=int, default=300_000)
    parser.add_argument("--categories", type=int, default=1_200)
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--distances", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    units = rng.integers(0, args.units, args.values)
    truth = rng.integers(0, args.categories, args.units)
    noise = rng.integers(0, args.categories, args.values)
    values = np.where(rng.random(args.values) < 0.8, truth[units], noise)
    print(
        f"{args.values:,} values, {args.units:,} units, {args.categories:,} categories, "
        f"B = {args.boot}"
    )
    a = timed("nominal_alpha_from_codes", nominal_alpha_from_codes, units, values)
    print(f"    alpha = {a:.4f}")
    w = bootstrap_weights(rng, args.boot, args.units)
    reps = timed(
        f"nominal_alpha_from_codes, weights ({args.boot}, U)",
        nominal_alpha_from_codes,
        units,
        values,
        weights=w,
        repeat=2,
    )
    print(f"    replicates: mean {np.nanmean(reps):.4f}, sd {np.nanstd(reps):.4f}")
    timed(
        f"binary_alpha_per_category, weights ({args.boot}, U)",
        binary_alpha_per_category,
        units,
        values,
        weights=w,
        repeat=2,
    )
    del w

    d = args.distances
    within = rng.beta(2, 5, d)
    between = rng.beta(3, 3, d)
    wx = rng.poisson(1.0, (args.boot, d)).astype(np.float64)
    wy = rng.poisson(1.0, (args.boot, d)).astype(np.float64)
    print(f"{d:,} within and {d:,} between distances, B = {args.boot}")
    timed(
        f"sigma, weights ({args.boot}, D)",
        sigma,
        within,
        between,
        within_weights=wx,
        between_weights=wy,
    )
    timed("ks_statistic_weighted, unweighted", ks_statistic_weighted, within, between)
    timed(
        f"ks_statistic_weighted, weights ({args.boot}, D)",
        ks_statistic_weighted,
        within,
        between,
        within_weights=wx,
        between_weights=wy,
        repeat=2,
    )


if __name__ == "__main__":
    main()
