"""Time ``agreement()`` on large box corpora, without and with the bootstrap.

Run: ``python benchmarks/bench_agreement.py [--sizes 100000 1000000] [--boot 200]
[--annotators 5] [--objects 4] [--n-chance 2000] [--seed 0]``

For every size N a corpus of about N box annotations is simulated (``--annotators``
annotators, ``--objects`` objects per item on average, so N / (annotators x objects)
items) and, in a fresh process so that the peak RSS belongs to that size alone:

* ``pair_tables`` (matching, chance sample, clusters);
* ``agreement_from_tables`` with ``n_boot=0`` (every statistic of every cell);
* ``agreement_from_tables`` with ``n_boot=B`` (default 200).

Every step prints its wall and CPU seconds (the CPU seconds of both threads: the KS tests
run beside the bootstrap), so that a run on a loaded machine still says what it costs.

"base" is ``pair_tables`` + statistics, i.e. what ``agreement(df, n_boot=0)`` costs; the
requirement is that B = 200 resamples cost no more than the base again (total <= 2 x
base). Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` after each step.

The statistics with B resamples run after those without, in the same process, so that
step is warm (its arrays' memory already the process's). The figure for a user's call,
``agreement(df, n_boot=B)`` alone in a fresh process (clock started after the imports and
the simulation), is printed first, from a process of its own.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

ANNOTATORS = ("good", "good", "sloppy", "misser", "mislabeler", "good", "good", "good")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_one(n, args):
    from iaa_frames.core.engine import agreement_from_tables
    from iaa_frames.core.tables.pairs import pair_tables
    from iaa_frames.simulate import simulate

    n_items = max(1, round(n / (args.annotators * args.objects)))
    annotators = {f"ann{i}": ANNOTATORS[i % len(ANNOTATORS)] for i in range(args.annotators)}
    t0 = time.perf_counter()
    df = simulate(
        n_items=n_items, annotators=annotators, objects_per_item=args.objects, seed=args.seed
    )
    n_objects = int(df["label"].notna().sum())
    print(
        f"N = {n:,}: {n_items:,} items, {n_objects:,} box annotations, "
        f"{args.annotators} annotators (simulated in {time.perf_counter() - t0:.1f} s, "
        f"RSS {peak_rss_mb():.0f} MB)",
        flush=True,
    )

    t0, c0 = time.perf_counter(), time.process_time()
    tables = pair_tables(df, n_chance=args.n_chance, seed=args.seed, progress=False)
    t_tables, c_tables = time.perf_counter() - t0, time.process_time() - c0
    sizes = ", ".join(
        f"{k} {len(getattr(tables, k)):,}"
        for k in (
            "localization_within",
            "localization_between",
            "sets_within",
            "sets_between",
            "units",
        )
    )
    print(
        f"  pair_tables                      {t_tables:8.2f} s   cpu {c_tables:7.2f} s   peak RSS "
        f"{peak_rss_mb():7.0f} MB   ({sizes})",
        flush=True,
    )

    t0, c0 = time.perf_counter(), time.process_time()
    ds = agreement_from_tables(tables, n_boot=0, progress=False)
    t_stats, c_stats = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"  statistics, n_boot=0             {t_stats:8.2f} s   cpu {c_stats:7.2f} s   peak RSS "
        f"{peak_rss_mb():7.0f} MB",
        flush=True,
    )

    t0, c0 = time.perf_counter(), time.process_time()
    ds_boot = agreement_from_tables(tables, n_boot=args.boot, progress=False)
    t_boot, c_boot = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"  statistics, n_boot={args.boot:<4d}          {t_boot:8.2f} s   cpu {c_boot:7.2f} s   "
        f"peak RSS {peak_rss_mb():7.0f} MB",
        flush=True,
    )

    base = t_tables + t_stats
    total = t_tables + t_boot
    print(f"  agreement(n_boot=0)  = {base:8.2f} s")
    print(f"  agreement(n_boot={args.boot}) cpu = {c_tables + c_boot:8.2f} s (both threads)")
    print(
        f"  agreement(n_boot={args.boot}) = {total:8.2f} s  -> {total / base:.2f} x base "
        f"(bootstrap alone {t_boot - t_stats:.2f} s = {(t_boot - t_stats) / base:.2f} x base; "
        f"requirement <= 1)"
    )
    cell = dict(label="(all)", annotator="(all)")
    for component in ds["component"].values:
        c = ds_boot.sel(component=component, **cell)
        print(
            f"    {component:<15s} {float(c['agreement']):7.4f}  "
            f"[{float(c['ci_low']):7.4f}, {float(c['ci_high']):7.4f}]"
        )


def run_whole(n, args):
    """``agreement(df, n_boot=B)`` alone, cold: its wall, CPU (user + system, both threads)
    and peak RSS."""
    import iaa_frames as iaf
    import iaa_frames.core.engine.assemble  # noqa: F401 (the engine's imports before the clock)
    from iaa_frames.simulate import simulate

    n_items = max(1, round(n / (args.annotators * args.objects)))
    annotators = {f"ann{i}": ANNOTATORS[i % len(ANNOTATORS)] for i in range(args.annotators)}
    df = simulate(
        n_items=n_items, annotators=annotators, objects_per_item=args.objects, seed=args.seed
    )
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    iaf.agreement(df, n_boot=args.boot, n_chance=args.n_chance, seed=args.seed, progress=False)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    print(
        f"N = {n:,}: agreement(n_boot={args.boot}) alone, fresh process "
        f"{wall:8.2f} s   cpu {r1.ru_utime - r0.ru_utime:6.2f} s user + "
        f"{r1.ru_stime - r0.ru_stime:5.2f} s system   peak RSS {peak_rss_mb():7.0f} MB",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--objects", type=float, default=4)
    parser.add_argument("--n-chance", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--whole", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        run_one(args.one, args)
        return
    if args.whole is not None:
        run_whole(args.whole, args)
        return
    passthrough = [
        "--boot",
        str(args.boot),
        "--annotators",
        str(args.annotators),
        "--objects",
        str(args.objects),
        "--n-chance",
        str(args.n_chance),
        "--seed",
        str(args.seed),
    ]
    for n in args.sizes:  # fresh processes per size: their own peak RSS, nothing cached
        for step in ("--whole", "--one"):
            subprocess.run([sys.executable, __file__, step, str(n), *passthrough], check=True)


if __name__ == "__main__":
    main()
