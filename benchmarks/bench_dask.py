"""Agreement of a box corpus larger than one worker's memory, on a dask LocalCluster.

Run: ``python benchmarks/bench_dask.py [--boxes 10000000] [--reference 1000000]
[--workers 2] [--memory-limit 4GB] [--rows-per-file 500000] [--boot 200] [--dir DIR]``

1. Writes a simulated corpus of about ``--boxes`` box annotations as Parquet with
   :func:`iaa_frames.to_parquet` (whole items per file; 5 annotators, 4 objects per item
   on average; simulated chunk by chunk, so that writing never holds the corpus either).
2. Times the in-memory ``agreement()`` of a ``--reference``-box corpus of the same shape
   in a fresh process (the baseline: the issue's target is ``--boxes`` in at most 8x its
   time), with its peak RSS.
3. Starts a ``LocalCluster`` of ``--workers`` worker processes, one thread each, with
   ``--memory-limit`` per worker, and times ``iaf.agreement(iaa_frames.dask.read_parquet(dir))``.
   Prints the time, the peak RSS of every worker process and of the driver (the process
   that calls ``agreement``: it holds the corpus index, the per-item sums and the within
   samples, draws the chance sample and computes the statistics), whether every worker
   stayed under its limit, and the CPU time of the driver and the workers with the load
   average of the machine (on a shared machine the wall time follows the load).

Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of each process.

Measured (2 cores, quiet, 4 GB per worker, 2026-12-01): 9.33M boxes in 201 s, 18.1x the
in-memory 0.93M boxes (11.1 s; an earlier release: 295 s, 11.5x a 25.7 s reference);
workers' peaks 1.4 and 1.8 GB, driver's peak 8.2 GB. After it (quiet, 2026-12-02): 145 s,
16.1x a 9.0 s reference (two threads in memory), CPU 57 + 199 s (19.8x the reference's
CPU time, against 27.6x), workers' peaks 2.1 and 1.4 GB, driver's peak 5.3 GB (its
Dataset, on a loaded machine, bit for bit the earlier release's: ``--save`` both runs). Memory to plan for: a worker needs about
1 GB for the matching of a 500k-row file, and for the KS test of the "(all)" cells
about 250 bytes per object of the corpus (one cell is tested in one process), and the
replicates' multiplicities while the tests run, 199 bytes per item; the driver about 570
bytes per object at its peak. On 2026-12-04 (quieter): 87.3-91.1 s, CPU 39-41 + 111-115 s
before each worker drew the KS replicates once for all its groups of cells; 82.5-87.3 s,
CPU 39-44 + 103-105 s after (12.0x a 7.1 s reference), the Dataset identical.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's iaa_frames, in the workers too
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
)

ANNOTATORS = {"a0": "good", "a1": "good", "a2": "sloppy", "a3": "misser", "a4": "mislabeler"}
OBJECTS = 4
CHUNK_ITEMS = 25_000  # about 500k boxes per simulated chunk


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def n_items_for(boxes: int) -> int:
    return max(2, round(boxes / (len(ANNOTATORS) * OBJECTS)))


def simulate_chunk(k: int, n_items: int, seed: int):
    import iaa_frames as iaf

    df = iaf.simulate(
        n_items=n_items, annotators=ANNOTATORS, objects_per_item=OBJECTS, seed=seed * 100_003 + k
    )
    return df.assign(
        item=f"c{k:04d}_" + df["item"].astype(str), object_id=df["object_id"] + k * 10**9
    )  # unique over chunks


def write_corpus(path: Path, boxes: int, rows_per_file: int, seed: int) -> dict:
    """Simulate chunk by chunk; each chunk becomes whole-item Parquet files in ``path``.
    A corpus written before with the same parameters (``corpus.json``) is kept."""
    import iaa_frames as iaf

    manifest = path / "corpus.json"
    wanted = {"target": boxes, "rows_per_file": rows_per_file, "seed": seed}
    if manifest.exists():
        done = json.loads(manifest.read_text())
        if {k: done.get(k) for k in wanted} == wanted:
            print("  (written before: kept)")
            return {**done, "seconds": 0.0}
    path.mkdir(parents=True, exist_ok=True)
    for old in path.glob("part-*.parquet"):
        old.unlink()
    total = n_items_for(boxes)
    n_files = n_rows = n_boxes = k = 0
    done = 0
    t0 = time.perf_counter()
    while done < total:
        n = min(CHUNK_ITEMS, total - done)
        df = simulate_chunk(k, n, seed)
        n_rows += len(df)
        n_boxes += int(df["label"].notna().sum())
        with tempfile.TemporaryDirectory(dir=path) as tmp:
            iaf.to_parquet(df, tmp, rows_per_file=rows_per_file)
            for f in sorted(Path(tmp).glob("part-*.parquet")):
                f.rename(path / f"part-{n_files:05d}.parquet")
                n_files += 1
        done += n
        k += 1
        print(f"\r  written {n_boxes:,} boxes in {n_files} files", end="", flush=True)
    print()
    out = {"items": total, "rows": n_rows, "boxes": n_boxes, "files": n_files}
    manifest.write_text(json.dumps({**out, **wanted}))
    return {**out, "seconds": time.perf_counter() - t0}


class RssSampler:
    """Peak resident memory of this process, sampled every 0.1 s while in the block
    (unlike ``ru_maxrss``, it leaves out what ran before, e.g. writing the corpus)."""

    def __init__(self):
        import psutil

        self.process = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            self._stop.wait(0.1)

    def __enter__(self):
        self.peak = self.process.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)


def reference(boxes: int, boot: int, seed: int) -> dict:
    """In-memory agreement() of a corpus of ``boxes`` boxes (run in a fresh process)."""
    import pandas as pd

    import iaa_frames as iaf

    total = n_items_for(boxes)
    df = pd.concat(
        [
            simulate_chunk(k, min(CHUNK_ITEMS, total - k * CHUNK_ITEMS), seed)
            for k in range(-(-total // CHUNK_ITEMS))
        ],
        ignore_index=True,
    )
    before = peak_rss_mb()
    load = os.getloadavg()[0]
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    iaf.agreement(df, n_boot=boot, seed=seed, progress=False)
    return {
        "boxes": int(df["label"].notna().sum()),
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": cpu_seconds() - cpu0,
        "load": [load, os.getloadavg()[0]],
        "peak_rss_mb": peak_rss_mb(),
        "rss_before_mb": before,
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    import psutil

    t = psutil.Process().cpu_times()
    return t.user + t.system


def distributed_run(
    path: Path, workers: int, memory_limit: str, boot: int, seed: int, save: Path | None = None
):
    from dask.distributed import Client, LocalCluster

    import iaa_frames as iaf

    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
    ):
        limits = {w: info["memory_limit"] for w, info in client.scheduler_info()["workers"].items()}
        worker_cpu = client.run(cpu_seconds)
        load = os.getloadavg()[0]
        cpu0 = cpu_seconds()
        with RssSampler() as driver:
            t0 = time.perf_counter()
            ds = iaf.agreement(iaf.dask.read_parquet(path), n_boot=boot, seed=seed, progress=True)
            seconds = time.perf_counter() - t0
        driver_cpu = cpu_seconds() - cpu0
        worker_cpu = {w: t - worker_cpu.get(w, 0.0) for w, t in client.run(cpu_seconds).items()}
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
        restarts = sum(1 for w in limits if w not in peaks)
        loc = float(ds["agreement"].sel(component="localization", label="(all)", annotator="(all)"))
    if save is not None:  # to compare the Datasets of two runs bit for bit (netCDF: no pickle)
        ds.to_netcdf(save)
    return {
        "seconds": seconds,
        "workers": {
            w: {"peak_rss_mb": peaks[w] / 2**20, "limit_mb": limits[w] / 2**20} for w in peaks
        },
        "lost_workers": restarts,
        "driver_peak_rss_mb": driver.peak / 2**20,
        "driver_cpu_seconds": driver_cpu,
        "worker_cpu_seconds": worker_cpu,
        "load": [load, os.getloadavg()[0]],
        "driver_ru_maxrss_mb": peak_rss_mb(),
        "localization_sigma": loc,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boxes", type=int, default=10_000_000)
    ap.add_argument("--reference", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--rows-per-file", type=int, default=500_000)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="where to write the corpus (kept; default: a temporary directory)",
    )
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument(
        "--save",
        type=Path,
        default=None,
        help="write the distributed run's Dataset here (netCDF; compare two with "
        "xarray.load_dataset(a).identical(xarray.load_dataset(b)))",
    )
    ap.add_argument("--_reference", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._reference:  # the child process of step 2
        print(json.dumps(reference(args._reference, args.boot, args.seed)))
        return

    tmp = None
    if args.dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="iaa_bench_dask_")
        args.dir = Path(tmp.name)
    print(f"1. writing about {args.boxes:,} boxes to {args.dir}", flush=True)
    corpus = write_corpus(args.dir, args.boxes, args.rows_per_file, args.seed)
    print(json.dumps({"corpus": corpus}), flush=True)
    size = sum(f.stat().st_size for f in args.dir.glob("*.parquet")) / 2**20
    print(
        f"   {corpus['boxes']:,} boxes, {corpus['rows']:,} rows, {corpus['items']:,} items, "
        f"{corpus['files']} files, {size:.0f} MB, in {corpus['seconds']:.0f} s",
        flush=True,
    )

    ref = None
    if not args.skip_reference:
        print(f"2. in-memory agreement() of {args.reference:,} boxes (fresh process)", flush=True)
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--_reference",
                str(args.reference),
                "--boot",
                str(args.boot),
                "--seed",
                str(args.seed),
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        ref = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"   {ref['boxes']:,} boxes: {ref['seconds']:.1f} s, peak RSS "
            f"{ref['peak_rss_mb']:.0f} MB",
            flush=True,
        )

    print(
        f"3. agreement() of the Parquet corpus on a LocalCluster of {args.workers} workers "
        f"x {args.memory_limit} (n_boot={args.boot})",
        flush=True,
    )
    run = distributed_run(
        args.dir, args.workers, args.memory_limit, args.boot, args.seed, save=args.save
    )
    print(f"   {run['seconds']:.1f} s; localization sigma {run['localization_sigma']:.3f}")
    for w, m in run["workers"].items():
        ok = "under" if m["peak_rss_mb"] < m["limit_mb"] else "OVER"
        print(
            f"   worker {w}: peak RSS {m['peak_rss_mb']:.0f} MB ({ok} its "
            f"{m['limit_mb']:.0f} MB limit)"
        )
    if run["lost_workers"]:
        print(f"   {run['lost_workers']} worker(s) were lost (restarted) during the run")
    print(
        f"   driver: peak RSS {run['driver_peak_rss_mb']:.0f} MB during agreement() "
        f"({run['driver_ru_maxrss_mb']:.0f} MB over the whole process)"
    )
    cpu = run["driver_cpu_seconds"] + sum(run["worker_cpu_seconds"].values())
    print(
        f"   CPU: driver {run['driver_cpu_seconds']:.0f} s + workers "
        f"{sum(run['worker_cpu_seconds'].values()):.0f} s = {cpu:.0f} s; load average "
        f"{run['load'][0]:.1f} at the start, {run['load'][1]:.1f} at the end"
    )
    print(json.dumps({"reference": ref, "distributed": run}), flush=True)
    if ref is not None:
        ratio = run["seconds"] / ref["seconds"]
        print(
            f"   in memory: {ref['cpu_seconds']:.0f} s CPU, load average "
            f"{ref['load'][0]:.1f} -> {ref['load'][1]:.1f}"
        )
        print(
            f"   time ratio to the in-memory {ref['boxes']:,}-box run: {ratio:.1f}x "
            f"(target <= 8x); CPU time ratio {cpu / ref['cpu_seconds']:.1f}x (the machine "
            "is shared: wall time depends on the load, CPU time much less)"
        )
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
