"""The corpora and parameters of the golden results (tests/test_golden.py).

Small versions of the benchmarks' corpora, chosen so that every path of the engine runs:
sampled and enumerated chance populations, polygons (pooled per-class baselines on many
small classes), crowds with many annotators, a bundled export, and a threshold sweep.
``python tests/support/golden_corpora.py`` rewrites the stored results: run it only when a change
of the numbers is intended, and say so in the commit.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # tests/
GOLDEN = HERE / "fixtures" / "golden"
sys.path.insert(0, str(HERE.parent / "benchmarks"))

import corpora  # noqa: E402

import iaa_frames as iaf  # noqa: E402

N_BOOT = 40


def cases():
    """name -> (frame, agreement keywords)."""
    return {
        "boxes_sampled": (
            iaf.simulate(
                n_items=60,
                seed=1,
                annotators={"a": "good", "b": "sloppy", "c": "misser", "d": "mislabeler"},
            ),
            {},
        ),
        "polygons": (iaf.simulate(n_items=25, kind="polygon", seed=2), {}),
        "lvis_like": (corpora.lvis_like(n_images=30, shapes="stars", seed=0), {}),
        "crowd": (corpora.crowd(n_items=40, n_workers=20, per_item=3, seed=0), {}),
        "sample_coco": (iaf.load_sample("coco"), {"distance": "iou", "overall": "per_direction"}),
        "boxes_tau0": (iaf.simulate(n_items=40, seed=3), {"match_threshold": 0.0}),
    }


def result(frame, kwargs):
    return iaf.agreement(frame, n_boot=N_BOOT, seed=0, progress=False, **kwargs)


def main():
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (frame, kwargs) in cases().items():
        ds = result(frame, kwargs)
        ds = ds.drop_vars([v for v in ("threshold",) if v in ds.coords])
        for v in ds.data_vars:
            if ds[v].dtype == object:
                ds[v] = ds[v].astype(str)
        ds.attrs = {k: v for k, v in ds.attrs.items() if k != "iaa_frames_version"}
        ds.to_netcdf(GOLDEN / f"{name}.nc")
        print(name, dict(ds.sizes))


if __name__ == "__main__":
    main()
