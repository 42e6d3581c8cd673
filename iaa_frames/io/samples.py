"""The packaged sample exports: one simulated corpus written in every supported format."""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

import pandas as pd

from iaa_frames.errors import ParameterError

__all__ = ["PROJECTS", "SAMPLES", "load_sample", "sample_path"]

#: Sample name -> (path inside ``iaa_frames/samples``, one-line description).
SAMPLES = {
    "coco": ("coco", "COCO JSON, one file per annotator (boxes and polygons)"),
    "coco_raters": (
        "coco_raters.json",
        "COCO JSON, one file with rater_id / rater_list (LVIS style)",
    ),
    "cvat": ("cvat", "CVAT for images 1.1 XML, one job per annotator (job assignee)"),
    "labelstudio": ("labelstudio.json", "Label Studio JSON export (rectangles and polygons)"),
    "voc": ("voc", "Pascal VOC XML, one directory per annotator (boxes only)"),
    "yolo": ("yolo", "YOLO txt, one directory per annotator (boxes and segmentation)"),
    "darwin": ("darwin", "V7 Darwin JSON 2.0, one directory per annotator"),
}
#: Samples that are corpora of their own, not the one above: name -> (path, description).
PROJECTS = {
    "potato": (
        "potato",
        "a Potato project (config, data file, user_state.json per annotator): 40 images, "
        "3 annotators (one a tool), boxes, polygons, masks, attributes, times",
    ),
    "volumes": (
        "volumes",
        "NIfTI-1 label volumes (<annotator>/<scan>.nii.gz; reading needs nibabel): 6 scans "
        "of 32x32x16 voxels of 1x1x2.5 mm, 3 annotators, lesions (label 1) and a cyst (2)",
    ),
}
_ALL = {**SAMPLES, **PROJECTS}


def _package_root():
    return resources.files("iaa_frames").joinpath("samples")


def _materialize(node, tmp: list) -> Path:
    """A real filesystem path for a resource (extracted to a temporary directory when the
    package is not installed as plain files, e.g. from a zip)."""
    if isinstance(node, Path):
        return node
    target = Path(tempfile.mkdtemp(prefix="iaa_frames_sample_"))
    tmp.append(target)

    def copy(src, dst: Path):
        if src.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
            for child in src.iterdir():
                copy(child, dst / child.name)
        else:
            dst.write_bytes(src.read_bytes())

    copy(node, target / node.name)
    return target / node.name


def sample_path(name: str) -> Path:
    """Filesystem path of a packaged sample (a file or a directory).

    Examples
    --------
    >>> sample_path("voc").name
    'voc'
    """
    _check(name)
    node = _package_root().joinpath(_ALL[name][0])
    return _materialize(node, [])


def _check(name):
    if not isinstance(name, str) or name not in _ALL:
        listing = "\n".join(f"  {k!r}: {v[1]}" for k, v in _ALL.items())
        raise ParameterError(f"unknown sample {name!r}; the samples are:\n{listing}")


def load_sample(name: str) -> pd.DataFrame:
    """The tidy frame read from a packaged sample export.

    All samples hold the same simulated corpus (40 images, 4 annotators with different
    profiles, boxes and polygons: :func:`iaa_frames.simulate`), written in each format by the
    source repository's ``make_samples.py`` and shipped in the package.

    Parameters
    ----------
    name : str
        One of ``"coco"``, ``"coco_raters"``, ``"cvat"``, ``"labelstudio"``, ``"voc"``,
        ``"yolo"``, ``"darwin"`` (see :data:`SAMPLES`), ``"potato"``, a Potato project
        of its own corpus (:data:`PROJECTS`, read with :func:`iaa_frames.read_potato`),
        or ``"volumes"``, NIfTI label volumes of six synthetic scans (read with
        :func:`iaa_frames.read_nifti`, one object per connected component, labels
        ``lesion`` and ``cyst``; needs nibabel, the ``nifti`` extra).

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame, as the matching ``read_*`` function returns it.

    Raises
    ------
    ParameterError
        For an unknown name; the message lists the samples.

    Examples
    --------
    >>> df = load_sample("coco")
    >>> sorted(df["annotator"].unique())
    ['ana', 'ben', 'chloe', 'dev']
    >>> df["item"].nunique()
    40
    """
    _check(name)
    from .coco import read_coco
    from .cvat import read_cvat
    from .darwin import read_darwin
    from .labelstudio import read_labelstudio
    from .potato import read_potato
    from .voc import read_voc
    from .yolo import read_yolo

    tmp: list = []
    try:
        path = _materialize(_package_root().joinpath(_ALL[name][0]), tmp)
        if name == "potato":
            return read_potato(path)
        if name == "volumes":
            from .nifti import read_nifti

            scans: dict = {}
            for p in sorted(path.glob("*/*.nii.gz")):
                scans.setdefault(p.name[: -len(".nii.gz")], {})[p.parent.name] = p
            return read_nifti(scans, instances=True, labels={1: "lesion", 2: "cyst"})
        if name == "coco":
            return read_coco({p.stem: p for p in sorted(path.glob("*.json"))})
        if name == "coco_raters":
            return read_coco(path)
        if name == "cvat":
            return read_cvat(sorted(path.glob("*.xml")))
        if name == "labelstudio":
            return read_labelstudio(path)
        if name == "voc":
            return read_voc(path)
        if name == "yolo":
            sizes = pd.read_csv(path / "image_sizes.csv")
            return read_yolo(path, classes=path / "classes.txt", image_sizes=sizes)
        return read_darwin(path)
    finally:
        for t in tmp:
            shutil.rmtree(t, ignore_errors=True)
