"""Every target of issue #44 in one run: fresh processes, in turn, medians and verdicts.

Run::

    python benchmarks/bench_targets.py [--rounds 5] [--coco PATH] [--peer-python PY]
                                       [--out FILE]

A round runs, each in a fresh process (the clock after the imports and the corpus, as in
``bench_scale.py`` and ``bench_peers.py``): the scale points ``1M boxes``, ``10/img``,
``1000/img``, ``3 ann`` and ``30 ann`` of ``bench_scale.py``, then ours on the COCO
polygons (``read_coco`` + ``agreement(n_boot=200)``) and kalphacv's segmentation alpha
at 0.5 on the same file (``bench_peers.py``; with ``--coco``, the LVIS subset of
``rater_list`` / ``rater_id``; a run that fails, e.g. a ``--peer-python`` without
kalphacv, is reported and left out). The rounds alternate the runs so that every one sees the same phases of a
shared machine, whose speed moves by 10-30 % within the hour here: a target is read from
the medians over the rounds, and the per-round values are printed beside them.

The targets (issue #44, "Done when"):

* 1M boxes with intervals: wall <= 8 s and peak <= 2 GiB;
* cost per box at 1,000 objects per image <= 2x that at 10 (CPU, the two points hold
  about the same boxes: ``bench_scale.py``);
* 30 annotators <= 2x the time of 3 at the same boxes (CPU and wall both shown; the
  verdict by CPU);
* the real LVIS subset: our CPU <= 1/6 of kalphacv's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCALE_POINTS = ("1M boxes", "10/img", "1000/img", "3 ann", "30 ann")
GIB_MB = 1024


def run_scale(point: str) -> dict:
    """One fresh process of ``bench_scale.py --point``: boxes, wall, cpu, peak_mb."""
    cmd = [sys.executable, str(HERE / "bench_scale.py"), "--point", point]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_peer(tool: str, path: Path, python: str) -> dict | None:
    """One fresh process of ``bench_peers.py --child``: wall and cpu, None if it failed."""
    cmd = [python, str(HERE / "bench_peers.py"), "--child", tool, str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE.parent)
    if out.returncode:
        print(f"  {tool} failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}", flush=True)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median_ratio(rounds, num, den, value) -> tuple[float | None, list]:
    """median(value(num)) / median(value(den)) over the rounds holding both, and the
    ratio of each such round."""
    both = [r for r in rounds if num in r and den in r]
    if not both:
        return None, []
    top = statistics.median(value(r[num]) for r in both)
    return top / statistics.median(value(r[den]) for r in both), [
        value(r[num]) / value(r[den]) for r in both
    ]


def _cpu_per_box(run: dict) -> float:
    return run["cpu"] / run["boxes"]


def summarize(rounds: list[dict]) -> list[dict]:
    """The verdict of every target from the rounds (each ``{name: {"wall", "cpu",
    "peak_mb", "boxes"}}``; a name is missing where its run was skipped): per target its
    value from the medians, its limit, whether it is met (None: no verdict, or no runs)
    and the value of each round.

    Examples
    --------
    >>> r = {"1M boxes": {"wall": 7.0, "cpu": 11.0, "peak_mb": 1900, "boxes": 10**6},
    ...      "10/img": {"cpu": 2.0, "boxes": 90_000}, "1000/img": {"cpu": 3.0, "boxes": 90_000},
    ...      "3 ann": {"wall": 0.4, "cpu": 0.5}, "30 ann": {"wall": 0.7, "cpu": 0.9},
    ...      "ours_polygons": {"cpu": 1.0}, "kalphacv": {"cpu": 7.0}}
    >>> [(round(t["value"], 6), t["met"]) for t in summarize([r])]
    [(7.0, True), (1900, True), (1.5, True), (1.8, True), (1.75, None), (7.0, True)]
    """
    out = []

    def add(target, found, limit, at_most=True, verdict=True):
        value, each = found
        met = None
        if verdict and value is not None:
            met = value <= limit if at_most else value >= limit
        out.append(dict(target=target, value=value, limit=limit, met=met, rounds=each))

    for key, limit in (("wall", 8.0), ("peak_mb", 2 * GIB_MB)):
        each = [r["1M boxes"][key] for r in rounds if "1M boxes" in r]
        add(f"1M boxes: {key}", (statistics.median(each) if each else None, each), limit)
    add(
        "CPU per box, 1000/img over 10/img",
        _median_ratio(rounds, "1000/img", "10/img", _cpu_per_box),
        2.0,
    )
    add("30 ann over 3 ann: cpu", _median_ratio(rounds, "30 ann", "3 ann", lambda r: r["cpu"]), 2.0)
    add(
        "30 ann over 3 ann: wall (shown)",
        _median_ratio(rounds, "30 ann", "3 ann", lambda r: r["wall"]),
        2.0,
        verdict=False,
    )
    add(
        "LVIS: kalphacv CPU over ours",
        _median_ratio(rounds, "kalphacv", "ours_polygons", lambda r: r["cpu"]),
        6.0,
        at_most=False,
    )
    return out


def report(targets: list[dict]) -> str:
    """The verdicts as lines of text."""
    lines = []
    for t in targets:
        value = "n/a" if t["value"] is None else f"{t['value']:.4g}"
        verdict = {True: "met", False: "NOT met", None: ""}[t["met"]]
        each = ", ".join(f"{v:.4g}" for v in t["rounds"])
        lines.append(
            f"{t['target']:<34} {value:>7} (limit {t['limit']:g}) {verdict:<7} rounds: {each}"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument(
        "--coco", type=Path, help="the LVIS double-annotation file (without it: no LVIS runs)"
    )
    p.add_argument("--peer-python", default=sys.executable, help="an interpreter with kalphacv")
    p.add_argument("--out", type=Path, help="also write the rounds and verdicts (JSON) here")
    args = p.parse_args(argv)

    def load():
        return " ".join(f"{x:.2f}" for x in os.getloadavg())

    print(f"# start {time.strftime('%H:%M:%S')} load {load()}", flush=True)
    rounds = []
    for k in range(args.rounds):
        runs = {}
        for point in SCALE_POINTS:
            runs[point] = run_scale(point)
            print(f"round {k + 1} {point:>9} {json.dumps(runs[point])}", flush=True)
        if args.coco is not None:
            for tool, python in (("ours_polygons", sys.executable), ("kalphacv", args.peer_python)):
                found = run_peer(tool, args.coco, python)
                if found is not None:
                    runs[tool] = {"wall": found["wall"], "cpu": found["cpu"]}
                    print(f"round {k + 1} {tool:>9} {json.dumps(runs[tool])}", flush=True)
        rounds.append(runs)
    print(f"# end {time.strftime('%H:%M:%S')} load {load()}")
    targets = summarize(rounds)
    print(report(targets))
    if args.out:
        args.out.write_text(json.dumps({"rounds": rounds, "targets": targets}, indent=1))


if __name__ == "__main__":
    main()
