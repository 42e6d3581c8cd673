"""Make the sample exports packaged in iaa_frames/samples/ (``iaf.load_sample``).

One corpus is simulated (40 images, 4 annotators with different profiles, boxes and
polygons) and written in every supported format. The corpus itself is saved as
``corpus.csv`` (geometry as WKT, full precision) so that tests can check that each sample
reads back into the same frame.

Run from the repository root::

    python tests/support/make_samples.py

The output is deterministic: running it twice gives identical files.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "iaa_frames" / "samples"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import shapely  # noqa: E402

from iaa_frames.io import writers  # noqa: E402
from iaa_frames.simulate import Profile, simulate  # noqa: E402

#: The simulated corpus behind every sample.
SEED = 2024
N_ITEMS = 40
CLASSES = ("car", "person", "bicycle")
ANNOTATORS = {
    "ana": Profile.preset("good"),  # careful
    "ben": Profile.preset("sloppy", coverage=0.85),  # loose boxes, skipped some images
    "chloe": Profile.preset("misser"),  # misses 30 % of the objects
    "dev": Profile(
        jitter=0.03, confusion=0.3, false_positives=0.3
    ),  # mixes classes up, adds objects
}

#: Files and directories written (relative to the output directory).
OUTPUTS = (
    "corpus.csv",
    "coco",
    "coco_raters.json",
    "cvat",
    "labelstudio.json",
    "voc",
    "yolo",
    "darwin",
)


def make_corpus() -> pd.DataFrame:
    """The simulated corpus (a validated tidy frame with coverage rows and ``truth_id``)."""
    return simulate(
        n_items=N_ITEMS,
        annotators=ANNOTATORS,
        kind="mixed",
        classes=CLASSES,
        objects_per_item=3,
        seed=SEED,
    )


def corpus_to_csv(df: pd.DataFrame, path: Path) -> None:
    out = df.copy()
    geom = out["geometry"].to_numpy(dtype=object)
    has = ~np.equal(geom, None)
    wkt = np.full(len(out), "", dtype=object)
    if has.any():
        wkt[has] = shapely.to_wkt(geom[has], rounding_precision=-1)
    out["geometry"] = wkt
    out.to_csv(path, index=False, lineterminator="\n")


def corpus_from_csv(path) -> pd.DataFrame:
    """Read ``corpus.csv`` back into a tidy frame (used by the tests)."""
    df = pd.read_csv(
        path,
        keep_default_na=False,
        na_values={"label": [""], "x0": [""], "y0": [""], "x1": [""], "y1": [""], "truth_id": [""]},
    )
    wkt = df["geometry"].astype(str).to_numpy()
    geom = np.full(len(df), None, dtype=object)
    has = wkt != ""
    geom[has] = shapely.from_wkt(wkt[has])
    df["geometry"] = geom
    df["item"] = df["item"].astype(str)
    df["label"] = df["label"].where(df["label"].notna(), None)
    return df


def write_all(corpus: pd.DataFrame, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUTS:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    corpus_to_csv(corpus, out / "corpus.csv")
    writers.write_coco(corpus, out / "coco")
    writers.write_coco_raters(corpus, out / "coco_raters.json")
    writers.write_cvat(corpus, out / "cvat")
    writers.write_labelstudio(corpus, out / "labelstudio.json")
    writers.write_voc(corpus, out / "voc")
    writers.write_yolo(corpus, out / "yolo", classes=CLASSES)
    writers.write_darwin(corpus, out / "darwin")


def main() -> None:
    corpus = make_corpus()
    write_all(corpus, PACKAGE)
    n_obj = int(corpus["x0"].notna().sum())
    print(
        f"wrote {len(corpus)} rows ({n_obj} objects, {len(corpus) - n_obj} coverage rows) "
        f"in {len(OUTPUTS) - 1} formats to {PACKAGE}"
    )


if __name__ == "__main__":
    main()
