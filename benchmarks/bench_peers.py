"""Our ``agreement()`` against the peers on the same files, each run in a fresh process.

Usage::

    python benchmarks/bench_peers.py [--coco PATH] [--peer-python PY] [--potato DIR]
                                     [--repeat 3] [--box-items 1500] [--skip TOOL ...]

* **Polygons** (``--coco``: a COCO file whose images carry ``rater_list`` and whose
  annotations carry ``rater_id``, e.g. the LVIS double-annotation subset; without it an
  LVIS-shaped file from :func:`corpora.lvis_like`). Ours: ``iaf.read_coco`` +
  ``iaf.agreement(n_boot=200)`` (every cell: four components x every class x every
  annotator, chance baseline, KS, 200 bootstrap replicates). kalphacv: its segmentation α
  at IoU 0.5 (``calculate_iaa_from_annotations("segm", ...)``). KαLOS (``kalos``): its
  shortest route, reading the file and one ``calculate_iaa`` at similarity 0.5 (greedy
  matching, ``segm_iou_similarity``), without the calc-disagreement / configure steps.
* **Boxes** (``--box-items`` items x 3 annotators from ``iaf.simulate``, written once as
  CSV): ours (``iaf.read_table`` + ``agreement(n_boot=200)``) against Potato's own
  ``geometry_agreement(bootstrap=200)`` (``potato.server_utils.iaa.geometry_agreement``,
  pure Python; ``--potato`` is a folder holding the ``potato`` package, e.g. an unpacked
  ``pip download potato-annotation`` wheel, or omit it when the peer Python has
  ``potato-annotation`` installed).

Every run is a fresh process (nothing cached between runs); its clock starts after the
imports (ours: ``iaa_frames`` and the modules its lazy attributes load, ``read_coco`` and
``agreement``) and includes reading the file. Peers run with ``--peer-python`` (an interpreter of
an environment of their own: ``pip install kalphacv kalos``; they are never dependencies of
iaa_frames); ours with this interpreter. The tools alternate ``--repeat`` times so that
they see the same load, and the medians are compared. Printed: wall and CPU seconds of
every run, the medians and the ratio peer / ours of the median CPU times, with the ratio
by wall time and the CPU ratio of each round beside it (targets, by CPU: kalphacv ≥ 6,
KαLOS ≥ 15, Potato ≥ 50).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: tool -> (which interpreter runs it, which input it reads)
TOOLS = {
    "ours_polygons": ("ours", "coco"),
    "kalphacv": ("peer", "coco"),
    "kalos": ("peer", "coco"),
    "ours_boxes": ("ours", "boxes"),
    "potato": ("peer", "boxes"),
}
#: the pairs compared: (peer, ours, target ratio peer / ours)
RATIOS = (
    ("kalphacv", "ours_polygons", 6),
    ("kalos", "ours_polygons", 15),
    ("potato", "ours_boxes", 50),
)


# ------------------------------------------------------------------ child processes


def _clock(work, summarize=lambda out: out):
    """Run ``work()``; its wall and CPU seconds and ``summarize`` of its result (read after
    the clock stops: reading our Dataset is xarray's first indexing, which imports dask
    where it is installed, about 0.3 s that no peer's dict lookup pays)."""
    t, c = time.perf_counter(), time.process_time()
    out = work()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return {"wall": wall, "cpu": cpu, "value": summarize(out)}


def _overall_cells(res):
    """The four components' agreement of the ``(all)`` cell of our Dataset."""
    cell = res["agreement"].sel(label="(all)", annotator="(all)")
    return {str(c): round(float(v), 4) for c, v in zip(res["component"].values, cell.values)}


def run_ours_polygons(path):
    import iaa_frames as iaf

    # the package loads its modules on first use: load them before the clock, as the
    # peers' imports are
    read_coco, agreement = iaf.read_coco, iaf.agreement

    def work():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = read_coco(path, rater_key="rater_id", rater_list_key="rater_list")
            return agreement(frame, n_boot=200, progress=False)

    return _clock(work, _overall_cells)


def run_kalphacv(path):
    from kalphacv.calculate_iaa import calculate_iaa_from_annotations

    def work():
        r = calculate_iaa_from_annotations(
            "segm",
            str(path),
            images_rater_key="rater_list",
            annotations_rater_key="rater_id",
            silent=True,
        )
        return {"segm_alpha_0.5": round(float(r[0.5]), 4)}

    return _clock(work)


def run_kalos(path):
    import logging

    from kalos.iaa.core import calculate_iaa
    from kalos.utils.data_loading import load_and_preprocess_data

    logging.disable(logging.INFO)

    def work():
        data = load_and_preprocess_data(Path(path), "coco-json")
        out = calculate_iaa(
            processed_data=data["processed_data"],
            categories=data["categories"],
            method="greedy",
            threshold_func="segm_iou_similarity",
            cost_func="negative_score",
            similarity_threshold=0.5,
            calculate_vitality=False,
            calculate_difficulty=False,
            collaboration_clusters=False,
            all_raters=data.get("all_raters"),
        )
        return {
            "mean_image_alpha": round(float(out[0]), 4),
            "global_alpha": round(float(out[1]), 4),
        }

    return _clock(work)


def run_ours_boxes(path):
    import iaa_frames as iaf

    read_table, agreement = iaf.read_table, iaf.agreement  # loaded before the clock

    def work():
        return agreement(read_table(path), n_boot=200, progress=False)

    return _clock(work, _overall_cells)


def run_potato(path):
    import csv
    from collections import defaultdict

    from potato.server_utils.iaa.geometry_agreement import geometry_agreement

    def work():
        items = defaultdict(lambda: defaultdict(list))
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                objects = items[row["item"]][row["annotator"]]
                if row["x0"]:  # a coverage row (drew nothing) keeps the annotator
                    x0, y0, x1, y1 = (float(row[k]) for k in ("x0", "y0", "x1", "y1"))
                    objects.append({"bbox": [x0, y0, x1 - x0, y1 - y0], "label": row["label"]})
        out = geometry_agreement(items, distance="iou", bootstrap=200)
        return {
            "detection": out["detection"].get("alpha"),
            "classification": out["classification"].get("alpha"),
            "localization": out["localization"]["sigma"],
        }

    return _clock(work)


RUNNERS = {
    "ours_polygons": run_ours_polygons,
    "kalphacv": run_kalphacv,
    "kalos": run_kalos,
    "ours_boxes": run_ours_boxes,
    "potato": run_potato,
}


def child(tool: str, path: str, extra_path: str | None) -> None:
    if extra_path:
        sys.path.insert(0, extra_path)
    print(json.dumps(RUNNERS[tool](path)))


# ------------------------------------------------------------------ the parent


def fresh_run(tool: str, path: Path, args) -> dict:
    """One run of ``tool`` in a new process; its timings, or the reason it failed."""
    python = sys.executable if TOOLS[tool][0] == "ours" else args.peer_python
    cmd = [python, str(Path(__file__).resolve()), "--child", tool, str(path)]
    if tool == "potato" and args.potato:
        cmd += ["--extra-path", str(args.potato)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE.parent)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def inputs(args, tmp: Path) -> dict:
    sys.path.insert(0, str(HERE))
    import corpora

    import iaa_frames as iaf

    if args.coco:
        coco = Path(args.coco)
        print(f"polygons: {coco} ({coco.stat().st_size / 1e6:.1f} MB)")
    else:
        df = corpora.lvis_like(n_images=200, seed=args.seed)
        coco = tmp / "lvis_like.json"
        corpora.to_coco_raters(df, coco)
        print(f"polygons: generated LVIS-like file ({int(iaf.is_object(df).sum()):,} polygons)")
    boxes = tmp / "boxes.csv"
    frame = iaf.simulate(n_items=args.box_items, seed=args.seed)
    frame[["item", "annotator", "label", "x0", "y0", "x1", "y1"]].to_csv(boxes, index=False)
    print(
        f"boxes: {args.box_items:,} items x {frame['annotator'].nunique()} annotators, "
        f"{int(iaf.is_object(frame).sum()):,} boxes"
    )
    return {"coco": coco, "boxes": boxes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coco", help="COCO file with rater_list / rater_id (real data)")
    parser.add_argument("--peer-python", default=sys.executable)
    parser.add_argument("--potato", help="folder holding the potato package")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--box-items", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", nargs="*", default=[], choices=sorted(TOOLS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument("--extra-path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.path, args.extra_path)
    if args.coco and not Path(args.coco).exists():
        sys.exit(f"skipped: {args.coco} does not exist (pass the real file's path)")
    tools = [t for t in TOOLS if t not in args.skip]
    runs = {t: [] for t in tools}
    with tempfile.TemporaryDirectory() as tmp:
        paths = inputs(args, Path(tmp))
        for r in range(args.repeat):
            for tool in tools:
                out = fresh_run(tool, paths[TOOLS[tool][1]], args)
                runs[tool].append(out)
                shown = (
                    f"wall {out['wall']:7.2f} s  cpu {out['cpu']:7.2f} s  {out['value']}"
                    if "wall" in out
                    else f"failed: {out['error']}"
                )
                print(f"run {r + 1}  {tool:<14} {shown}", flush=True)
    # the targets are ratios of CPU time (user + system of every thread: ours runs some
    # work in a second thread), wall time beside; failed runs are left out
    done = {t: [x for x in rs if "cpu" in x] for t, rs in runs.items()}
    medians = {
        clock: {t: statistics.median(x[clock] for x in rs) for t, rs in done.items() if rs}
        for clock in ("cpu", "wall")
    }
    for clock in ("cpu", "wall"):
        shown = ", ".join(f"{t} {m:.2f}" for t, m in medians[clock].items())
        print(("\n" if clock == "cpu" else "") + f"median {clock} seconds: {shown}")
    for peer, ours, target in RATIOS:
        if peer in medians["cpu"] and ours in medians["cpu"]:
            ratio = medians["cpu"][peer] / medians["cpu"][ours]
            by_wall = medians["wall"][peer] / medians["wall"][ours]
            # the ratio of each round (the two ran one after the other): how it varies
            rounds = [
                f"x{p['cpu'] / o['cpu']:.1f}"
                for p, o in zip(runs[peer], runs[ours], strict=True)
                if "cpu" in p and "cpu" in o
            ]
            verdict = "met" if ratio >= target else "not met"
            print(
                f"{peer} / {ours} by CPU = x{ratio:.1f}  (target x{target}: {verdict}; "
                f"by wall x{by_wall:.1f}; rounds by CPU {', '.join(rounds)})"
            )


if __name__ == "__main__":
    main()
