"""Benchmark of ``read_coco`` between two versions of the package: CPU and wall time.

Issue #41 asked that the readers be no slower after its fixes. Two files are read:

1. a COCO file of LVIS double annotations, given by ``--lvis`` (skipped without it);
2. a synthetic COCO file of 300,000 annotations, half boxes and half 16-vertex polygons
   (:func:`bench_io.make_coco`), written to a temporary folder.

Each read runs in a fresh process whose ``PYTHONPATH`` is the root of one version (an
exported tree, e.g. ``git archive <commit> | tar -x -C /tmp/before``); the time is that of
``read_coco`` alone (the import not counted): CPU as user + system time of the process
(``resource.getrusage``), and wall. The versions are run in turn, before then after,
``--repeat`` times, and the best of each is kept.

Usage::

    python benchmarks/bench_readers.py --before /tmp/before41 [--after .] [--lvis FILE]
    python benchmarks/bench_readers.py --before /tmp/before41 --annotations 30000  # smaller
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def child(path: str) -> None:
    """One read, in this process (whose ``PYTHONPATH`` names the version); a JSON line."""
    import iaa_frames as iaf

    cpu0, wall0 = _cpu(), time.perf_counter()
    df = iaf.read_coco(path)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    package = str(Path(iaf.__file__).parent.parent)  # the version that read it
    print(json.dumps({"cpu_s": cpu, "wall_s": wall, "rows": len(df), "package": package}))


def run(root: Path, path: Path) -> dict:
    """One read of ``path`` by the version at ``root``, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),  # not the checkout: its package would shadow PYTHONPATH
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if Path(got["package"]) != root:
        raise SystemExit(f"{root} was asked for, {got['package']} read the file")
    return got


def compare(name: str, path: Path, versions: dict, repeat: int) -> None:
    """Best of ``repeat`` alternated runs of every version, printed as one table row each."""
    runs = {v: [] for v in versions}
    for _ in range(repeat):
        for v, root in versions.items():
            runs[v].append(run(root, path))
    for v, got in runs.items():
        cpu = min(r["cpu_s"] for r in got)
        wall = min(r["wall_s"] for r in got)
        every = ", ".join(f"{r['cpu_s']:.2f}" for r in got)
        print(
            f"{name:<24} {v:<8} rows {got[0]['rows']:>9,}  CPU {cpu:7.2f} s  wall {wall:7.2f} s  "
            f"(every CPU: {every})",
            flush=True,
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="root of the earlier version (required)")
    ap.add_argument("--after", type=Path, default=ROOT, help="root of the later version")
    ap.add_argument("--lvis", type=Path, help="a COCO file of LVIS double annotations")
    ap.add_argument("--annotations", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child)
        return
    if args.before is None:
        ap.error("--before is required")
    versions = {"before": args.before.resolve(), "after": args.after.resolve()}
    if args.lvis is not None and args.lvis.exists():
        compare("LVIS double annotations", args.lvis, versions, args.repeat)
    else:
        print("no LVIS file given (--lvis): skipped")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_io import make_coco

    with tempfile.TemporaryDirectory(prefix="bench_readers_") as tmp:
        path = Path(tmp) / "coco.json"
        make_coco(path, args.annotations, polygon_share=0.5)
        size = path.stat().st_size / 1e6
        compare(f"COCO {args.annotations:,} ({size:.0f} MB)", path, versions, args.repeat)


if __name__ == "__main__":
    main()
