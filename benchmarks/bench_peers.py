"""Our ``agreement()`` against kalphacv on the same LVIS-shaped polygon file, in one run.

Usage: ``python benchmarks/bench_peers.py [--images 200] [--repeat 3] [--seed 0]``

kalphacv (``pip install kalphacv``; a benchmark-only package, not a dependency) computes
its segmentation alpha (per-image Krippendorff's alpha with IoU matching at 0.5, averaged
over images). We compute every cell of ``agreement()`` (four components x every class x
every annotator, chance baseline, KS, 200 bootstrap replicates) on the same file, read
with ``iaf.read_coco``. Each tool runs ``--repeat`` times, alternating, and the medians
are compared, so that both see the same load on the machine. Target: ours <= 1/3 of
kalphacv's time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402

import iaa_frames as iaf  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        from kalphacv.calculate_iaa import calculate_iaa_from_annotations
    except ImportError:
        sys.exit("kalphacv is not installed: pip install kalphacv (benchmark only)")

    df = corpora.lvis_like(n_images=args.images, seed=args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lvis_like.json"
        corpora.to_coco_raters(df, path)
        print(
            f"{path.stat().st_size / 1e6:.1f} MB COCO file: {args.images} images, "
            f"{int(iaf.is_object(df).sum()):,} polygons, {df['label'].nunique()} classes, "
            "2 raters"
        )
        ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            r = calculate_iaa_from_annotations(
                "segm",
                str(path),
                images_rater_key="rater_list",
                annotations_rater_key="rater",
                silent=True,
            )
            theirs.append(time.perf_counter() - t)
            theirs_cpu.append(time.process_time() - c)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, c = time.perf_counter(), time.process_time()
                frame = iaf.read_coco(path, rater_key="rater", rater_list_key="rater_list")
                res = iaf.agreement(frame, progress=False)
                ours.append(time.perf_counter() - t)
                ours_cpu.append(time.process_time() - c)
    k, o = statistics.median(theirs), statistics.median(ours)
    print(
        f"kalphacv segm alpha        {r[0.5]:.3f}   median {k:6.2f} s  ({', '.join(f'{x:.2f}' for x in theirs)})"
    )
    head = res["agreement"].sel(label="(all)", annotator="(all)").values
    print(
        f"iaa_frames agreement()     {' / '.join(f'{x:.3f}' for x in head)}   median "
        f"{o:6.2f} s  ({', '.join(f'{x:.2f}' for x in ours)})"
    )
    loc = res["agreement"].sel(component="localization", annotator="(all)")
    print(
        f"  cells: {res.sizes['label']} labels x {res.sizes['annotator']} annotators; "
        f"per-class localization defined for {int(loc.notnull().sum()) - 1} classes"
    )
    print(f"ratio ours / kalphacv = {o / k:.2f}  (target <= 0.33)")
    # CPU seconds (all threads): kalphacv runs on one thread, so on a busy machine this
    # ratio bounds the wall-time ratio of an idle one from above
    print(
        f"CPU seconds: kalphacv {min(theirs_cpu):.2f}, ours {min(ours_cpu):.2f}, "
        f"ratio {min(ours_cpu) / min(theirs_cpu):.2f}"
    )


if __name__ == "__main__":
    main()
