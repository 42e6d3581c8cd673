"""Benchmark of the readers: read time and peak memory.

Measures, each in a fresh subprocess (so that peak RSS belongs to one read only):

1. ``read_coco`` on a COCO file of 100,000 box annotations (5,000 images, 80 classes);
2. ``read_coco`` on a COCO file of about 100 MB (boxes and polygon segmentations, as in
   COCO instances files), with the peak RSS compared to the file size and to plain
   ``json.load`` of the same file;
3. ``read_cvat`` on a CVAT XML export with 100,000 shapes.

Usage::

    python benchmarks/bench_io.py            # all
    python benchmarks/bench_io.py --quick    # smaller files (CI smoke run)

Peak RSS is the child's high-water mark (``VmHWM`` in /proc/self/status on Linux) minus its
RSS after importing iaa_frames (the baseline), so it is what the read itself adds.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def make_coco(
    path: Path,
    n_annotations: int,
    *,
    polygon_share: float = 0.0,
    vertices: int = 16,
    n_images: int = 5000,
    n_classes: int = 80,
    seed: int = 0,
) -> None:
    """Write a synthetic COCO file, streaming so that making it needs little memory."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write('{"info": {"description": "synthetic"}, "licenses": [], "images": [')
        f.write(
            ",".join(
                json.dumps({"id": i + 1, "file_name": f"{i:012d}.jpg", "width": 640, "height": 480})
                for i in range(n_images)
            )
        )
        f.write('], "categories": [')
        f.write(
            ",".join(
                json.dumps({"id": c + 1, "name": f"class_{c}", "supercategory": "thing"})
                for c in range(n_classes)
            )
        )
        f.write('], "annotations": [')
        block = 20_000
        for start in range(0, n_annotations, block):
            n = min(block, n_annotations - start)
            xy = rng.uniform(0, 500, (n, 2)).round(2)
            wh = rng.uniform(4, 140, (n, 2)).round(2)
            img = rng.integers(1, n_images + 1, n)
            cat = rng.integers(1, n_classes + 1, n)
            poly = rng.random(n) < polygon_share
            parts = []
            for j in range(n):
                x, y = xy[j]
                w, h = wh[j]
                a = {
                    "id": start + j + 1,
                    "image_id": int(img[j]),
                    "category_id": int(cat[j]),
                    "bbox": [float(x), float(y), float(w), float(h)],
                    "area": round(float(w * h), 2),
                    "iscrowd": 0,
                }
                if poly[j]:
                    t = np.linspace(0, 2 * np.pi, vertices, endpoint=False)
                    ring = np.column_stack(
                        [x + w / 2 * (1 + np.cos(t)), y + h / 2 * (1 + np.sin(t))]
                    ).round(2)
                    a["segmentation"] = [ring.ravel().tolist()]
                else:
                    a["segmentation"] = []
                parts.append(json.dumps(a, separators=(",", ":")))
            if start:
                f.write(",")
            f.write(",".join(parts))
        f.write("]}")


def make_cvat(path: Path, n_shapes: int, *, n_images: int = 5000, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    per = np.bincount(rng.integers(0, n_images, n_shapes), minlength=n_images)
    with open(path, "w") as f:
        f.write(
            '<?xml version="1.0" encoding="utf-8"?>\n<annotations><version>1.1</version>'
            "<meta><job><assignee><username>bench</username></assignee></job></meta>\n"
        )
        for i in range(n_images):
            f.write(f'<image id="{i}" name="{i:06d}.jpg" width="640" height="480">\n')
            for _ in range(per[i]):
                x, y = rng.uniform(0, 500, 2)
                w, h = rng.uniform(4, 140, 2)
                f.write(
                    f'<box label="c{rng.integers(10)}" source="manual" occluded="0" '
                    f'xtl="{x:.2f}" ytl="{y:.2f}" xbr="{x + w:.2f}" ybr="{y + h:.2f}" z_order="0"/>\n'
                )
            f.write("</image>\n")
        f.write("</annotations>\n")


def _memory() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB.

    On Linux both come from /proc/self/status (VmRSS, VmHWM): unlike ``ru_maxrss``, which
    survives ``exec`` and so starts at the parent's RSS, VmHWM belongs to this process image.
    """
    try:
        fields = dict(
            line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines()
        )
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def _child(what: str, path: str) -> None:
    """Run one read in this (child) process and print a JSON line with time and memory."""
    sys.path.insert(0, str(ROOT))
    from iaa_frames import io  # noqa: F401  (the import is part of the baseline)

    base, _ = _memory()
    t0 = time.perf_counter()
    if what == "json":
        with open(path) as fh:
            obj = json.load(fh)
        n = len(obj.get("annotations", []))
    elif what == "coco":
        df = io.read_coco(path)
        n = int(df["x0"].notna().sum())
    elif what == "cvat":
        df = io.read_cvat(path)
        n = int(df["x0"].notna().sum())
    else:
        raise SystemExit(f"unknown child task {what}")
    dt = time.perf_counter() - t0
    _, peak = _memory()
    print(
        json.dumps(
            {
                "what": what,
                "seconds": dt,
                "objects": n,
                "baseline_mb": base,
                "peak_mb": peak,
                "added_mb": peak - base,
            }
        )
    )


def run(what: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(title: str, path: Path, res: dict) -> None:
    size = path.stat().st_size / 1e6
    print(
        f"{title}: {res['objects']:,} objects, file {size:.1f} MB, read in {res['seconds']:.2f} s, "
        f"peak RSS +{res['added_mb']:.0f} MB over the {res['baseline_mb']:.0f} MB baseline "
        f"({res['added_mb'] / (size / 1.048576):.1f}x the file size)"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small files only")
    ap.add_argument("--child", nargs=2, metavar=("WHAT", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return
    scale = 10 if args.quick else 1
    with tempfile.TemporaryDirectory(prefix="bench_io_") as tmp:
        tmp = Path(tmp)
        p = tmp / "coco_100k.json"
        make_coco(p, 100_000 // scale)
        report(f"read_coco, {100_000 // scale:,} box annotations", p, run("coco", p))

        big = tmp / "coco_big.json"
        make_coco(big, 400_000 // scale, polygon_share=0.5, n_images=40_000 // scale)  # ~100 MB
        report("read_coco, big file with polygons", big, run("coco", big))
        report("json.load of the same file (reference)", big, run("json", big))
        big.unlink()

        x = tmp / "cvat.xml"
        make_cvat(x, 100_000 // scale)
        report(f"read_cvat, {100_000 // scale:,} boxes", x, run("cvat", x))


if __name__ == "__main__":
    main()
