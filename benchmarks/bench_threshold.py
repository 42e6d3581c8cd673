"""Time of a threshold sweep: one ``agreement(match_threshold=[...])`` against one call per τ.

Usage: python benchmarks/bench_threshold.py [--polygons N_IMAGES] [--boxes N_ITEMS]
                                            [--thresholds 0.1,0.2,...] [--repeat K]

Two corpora:

* ``lvis_like`` polygons (:func:`corpora.lvis_like`: the shapes of the real LVIS double
  annotations, 274 long-tailed classes, two raters), 200 images by default;
* boxes from ``iaf.simulate`` (5 "good" annotators, 4 objects per item), 2,000 items.

For each, the sweep is computed as separate calls ``iaf.agreement(df, match_threshold=τ)``
and as one call with the list; both with ``n_boot=0`` (the bootstrap is per τ either way,
so it only adds the same time to both). Each measurement runs in a fresh subprocess; the
best of ``--repeat`` runs of wall time and of CPU time (``time.process_time``: all threads
of the process, robust to other load on a shared machine) is reported, with the saving in
CPU time and a check that the results agree bitwise (every variable of every τ).

What the sweep shares: the frame is validated and prepared once, and the exact polygon IoU
of every object pair met (within items and by chance) is computed once
(:func:`iaa_frames.core.tables.pairs.pair_tables_by_threshold`). The matching, the chance sample and
the statistics depend on τ and are computed for each.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASE = r"""
import json, sys, time, warnings
sys.path[:0] = [{root!r}, {bench!r}]
import numpy as np
import xarray as xr
import iaa_frames as iaf
import corpora
warnings.simplefilter("ignore")
if "{kind}" == "polygon":
    df = corpora.lvis_like(n_images={n})
else:
    df = iaf.simulate(n_items={n}, kind="box", objects_per_item=4, seed=0,
                      annotators={{a: "good" for a in "ABCDE"}})
taus = {taus!r}
t0, c0 = time.perf_counter(), time.process_time()
if "{mode}" == "separate":
    parts = [iaf.agreement(df, match_threshold=t, n_boot=0, progress=False) for t in taus]
else:
    sweep = iaf.agreement(df, match_threshold=taus, n_boot=0, progress=False)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
out = dict(kind="{kind}", mode="{mode}", seconds=round(seconds, 3), cpu=round(cpu, 3),
           objects=int(iaf.is_object(df).sum()))
if "{mode}" == "sweep":
    sweep.to_netcdf({dump!r})  # the result's own format (no pickle)
else:
    ref = xr.load_dataset({dump!r})
    same = True
    for t, one in zip(taus, parts):
        got = ref.sel(threshold=t)
        for v in one.data_vars:
            a, b = got[v].values, one[v].values
            ok = (np.array_equal(a, b, equal_nan=True) if a.dtype.kind == "f"
                  else np.array_equal(a, b))
            same = same and ok
    out["identical_to_sweep"] = bool(same)
print(json.dumps(out))
"""


def _run(kind, n, taus, mode, dump):
    code = CASE.format(
        root=str(ROOT),
        bench=str(ROOT / "benchmarks"),
        kind=kind,
        n=n,
        taus=list(taus),
        mode=mode,
        dump=dump,
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if out.returncode:
        print(out.stderr, file=sys.stderr)
        sys.exit(out.returncode)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--polygons", type=int, default=200, help="images of the lvis_like corpus (0 = skip)"
    )
    p.add_argument("--boxes", type=int, default=2000, help="items of the box corpus (0 = skip)")
    p.add_argument("--thresholds", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    taus = [float(t) for t in args.thresholds.split(",")]
    import tempfile

    for kind, n in (("polygon", args.polygons), ("box", args.boxes)):
        if not n:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            dump = str(Path(tmp) / "sweep.nc")
            sweep = [_run(kind, n, taus, "sweep", dump) for _ in range(args.repeat)]
            separate = [_run(kind, n, taus, "separate", dump) for _ in range(args.repeat)]
        best = {
            (mode, clock): min(r[clock] for r in runs)
            for mode, runs in (("sweep", sweep), ("separate", separate))
            for clock in ("seconds", "cpu")
        }
        print(
            json.dumps(
                {
                    "corpus": "lvis_like" if kind == "polygon" else "simulate boxes",
                    "size": n,
                    "objects": sweep[0]["objects"],
                    "thresholds": len(taus),
                    "separate_wall_s": best["separate", "seconds"],
                    "sweep_wall_s": best["sweep", "seconds"],
                    "separate_cpu_s": best["separate", "cpu"],
                    "sweep_cpu_s": best["sweep", "cpu"],
                    "saving_cpu": f"{1 - best['sweep', 'cpu'] / best['separate', 'cpu']:.0%}",
                    "identical": all(r["identical_to_sweep"] for r in separate),
                }
            )
        )


if __name__ == "__main__":
    main()
