"""Benchmark: our streaming JSON decoder against ``json.load`` and ``ijson``.

Run: ``python benchmarks/bench_json.py [--annotations N]`` (``ijson`` is optional: install
it in the benchmark's environment, it is not a dependency)

Writes a COCO file (half boxes, half 16-vertex polygons, as :mod:`bench_io` does) and
times, best of three, CPU seconds, each decoder producing every annotation as a Python
dict: :class:`iaa_frames.io.json_stream.JSONStream` (the elements of ``images``,
``annotations`` and ``categories`` one at a time, the standard library's C decoder on each
element), ``json.load`` (the whole document at once) and ``ijson.items(...,
"annotations.item", use_float=True)`` (its fastest backend, ``annotations`` only). Issue
#39 asked whether ``ijson`` should replace ``JSONStream``; on this machine it is slower
(2026-12-05, 2 cores, 71 MB, two runs: JSONStream 1.4-1.5 s, json.load 2.4-2.5 s, ijson
yajl2_c 1.9-2.8 s).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from bench_io import make_coco

from iaa_frames.io.json_stream import JSONStream


def best_cpu(func, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        func()
        best = min(best, time.process_time() - t)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--annotations", type=int, default=300_000)
    args = ap.parse_args(argv)
    path = Path(tempfile.mkdtemp()) / "coco.json"
    make_coco(path, args.annotations, polygon_share=0.5)
    print(f"{os.path.getsize(path) / 1e6:.0f} MB, {args.annotations:,} annotations; CPU s")
    keys = ("images", "annotations", "categories")
    print(f"JSONStream  {best_cpu(lambda: sum(1 for _ in JSONStream(path, stream_keys=keys))):.2f}")
    print(f"json.load   {best_cpu(lambda: json.loads(path.read_text())):.2f}")
    try:
        import ijson
    except ImportError:
        print("ijson       not installed")
        return

    def with_ijson():
        with open(path, "rb") as fh:
            for _ in ijson.items(fh, "annotations.item", use_float=True):
                pass

    print(f"ijson       {best_cpu(with_ijson):.2f} ({ijson.backend})")


if __name__ == "__main__":
    main()
