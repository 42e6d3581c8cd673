"""Reader for KITTI object labels (one ``.txt`` per frame, one folder per annotator).

A KITTI label file (the object benchmark's devkit, ``readme.txt``) has one object per
line, 15 values separated by spaces, 16 for results with a score:

==============  ======  ================================================================
type            1       Car, Van, Truck, Pedestrian, Person_sitting, Cyclist, Tram, Misc
                        or DontCare
truncated       1       0 (not truncated) to 1
occluded        1       0 visible, 1 partly occluded, 2 largely occluded, 3 unknown
alpha           1       observation angle, [-pi, pi]
bbox            4       the 2D box in the image: left, top, right, bottom pixels
dimensions      3       height, width, length (metres)
location        3       x, y, z of the bottom centre in camera coordinates (metres)
rotation_y      1       rotation around the camera's y axis, [-pi, pi]
score           1       (results only) confidence
==============  ======  ================================================================

Camera coordinates have x to the right, y down and z forward. The cuboid kind's scene
(:mod:`iaa_frames.geometry.kinds.cuboid`) has z up, so a KITTI object becomes the cuboid
of centre ``(x, z, -y + height / 2)``, length along its heading, and yaw
``-rotation_y`` (the heading ``(cos ry, 0, -sin ry)`` of the camera frame). DontCare lines
are regions left unlabelled, not objects: they are skipped and reported (a
:class:`~iaa_frames.errors.DroppedRowsWarning`). The 2D box, truncation, occlusion,
alpha and score are kept as the columns ``kitti_left, kitti_top, kitti_right,
kitti_bottom, truncated, occluded, alpha, score``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from iaa_frames.errors import ParameterError

from .builder import FrameBuilder, finish
from .paths import as_path, check_dir, reader_error
from .values import parse_float

__all__ = ["read_kitti"]

_EXTRAS = (
    "truncated",
    "occluded",
    "alpha",
    "kitti_left",
    "kitti_top",
    "kitti_right",
    "kitti_bottom",
)


def _sources(path_or_folder, annotator):
    """[(annotator, folder, [label files])] from a file, a folder of label files, a folder
    of annotator folders, or a mapping {annotator: file or folder}; the items are the
    files' paths relative to the folder (a file's: to its own folder)."""
    if isinstance(path_or_folder, Mapping):
        if annotator is not None:
            raise ParameterError("pass annotator names either as mapping keys or annotator=")
        if not path_or_folder:
            raise ParameterError("read_kitti: the mapping of annotators to folders is empty")
        return [(str(a), *_files(p)) for a, p in path_or_folder.items()]
    if not isinstance(path_or_folder, (str, os.PathLike)):
        raise ParameterError(f"read_kitti needs a path or a mapping; got {path_or_folder!r}")
    p = Path(path_or_folder)
    if p.is_dir() and annotator is None:
        _refuse_mixed(p)
    if p.is_dir() and not any(q.suffix == ".txt" for q in p.iterdir()):
        subs = sorted(q for q in p.iterdir() if q.is_dir() and not q.name.startswith("."))
        if not subs:
            raise reader_error(p, None, "no KITTI label files (.txt) and no annotator folders")
        if annotator is not None:
            raise ParameterError("annotator= names one annotator; this folder holds several")
        return [(q.name, *_files(q)) for q in subs]
    name = annotator if annotator is not None else (p.name if p.is_dir() else p.parent.name)
    return [(str(name), *_files(p))]


def _refuse_mixed(p: Path) -> None:
    """A folder holding label files both at its top and in subfolders: one annotator's
    folder of sequences, or a folder of annotator folders with stray files at its top?
    Read as one annotator's, it would merge every annotator into one: a ReaderError
    naming the files at the top and the ways out."""
    top = sorted(q.name for q in p.iterdir() if q.suffix == ".txt" and q.is_file())
    subs = sorted(
        q.name
        for q in p.iterdir()
        if q.is_dir() and not q.name.startswith(".") and next(q.rglob("*.txt"), None)
    )
    if top and subs:
        names = ", ".join(top[:5]) + (f" and {len(top) - 5} more" if len(top) > 5 else "")
        folders = ", ".join(subs[:5]) + (" ..." if len(subs) > 5 else "")
        raise reader_error(
            p,
            None,
            f"holds label files both at its top ({names}) and in subfolders ({folders}): "
            "one annotator's folder, or a folder of annotator folders with stray files? "
            "Pass annotator= to read it as one annotator's (the items are the files' paths "
            "in it), or a mapping {annotator: folder}, or move the stray files away",
        )


def _files(path) -> tuple[Path, list[Path]]:
    """(the folder the items are named from, the label files) of a file or a folder; the
    hidden files and folders of a folder (``.ipynb_checkpoints/``) are not labels."""
    p = as_path(path, "a file or folder path")
    if p.is_file():
        return p.parent, [p]
    check_dir(p)
    files = sorted(
        q
        for q in p.rglob("*.txt")
        if q.is_file() and not any(part.startswith(".") for part in q.relative_to(p).parts)
    )
    if not files:
        raise reader_error(p, None, "no KITTI label files (.txt)")
    return p, files


def _number(path, n, text, field):
    try:
        return parse_float(text)
    except ValueError:
        raise reader_error(path, f"line {n}", f"{field} is {text!r}, not a number") from None


def read_kitti(
    path_or_folder,
    *,
    annotator: str | None = None,
    on_invalid: str = "raise",
    return_dropped: bool = False,
):
    """Read KITTI object label files into the tidy frame, as cuboids.

    Parameters
    ----------
    path_or_folder : path or mapping {annotator: path}
        A label file, a folder of label files (one per frame, searched recursively: the
        item is the file's path relative to the folder, without ``.txt``), a folder whose
        subfolders are the annotators' label folders, or a mapping. A folder holding label
        files both at its top and in subfolders is ambiguous (an annotator's folder, or
        annotator folders beside stray files) and a ReaderError naming the top files,
        unless ``annotator=`` says it is one annotator's.
    annotator : str, optional
        The annotator of a single file or folder (by default the folder's name).
    on_invalid : {"raise", "drop"}, default "raise"
        Cuboids of no volume (a size not positive) and objects whose 2D box is inverted
        (left > right or top > bottom): raise, or drop with a warning.
    return_dropped : bool, default False
        Also return the skipped records (DontCare regions, dropped cuboids).

    Returns
    -------
    pandas.DataFrame
        One row per object (cuboid columns, :mod:`iaa_frames.geometry.kinds.cuboid`),
        with coverage rows for frames an annotator labelled empty; ``(frame, dropped)``
        with ``return_dropped=True``.

    Raises
    ------
    ReaderError
        For a line that is not a KITTI object or whose 2D box is inverted (naming the file
        and the line), or a folder both of label files and of label folders.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "ana"
    >>> d.mkdir()
    >>> _ = (d / "000001.txt").write_text(
    ...     "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\\n")
    >>> df = read_kitti(d)
    >>> df[["item", "annotator", "label", "cuboid_x", "cuboid_y", "cuboid_z"]].values.tolist()
    [['000001', 'ana', 'Car', -0.65, 46.7, -0.885]]
    """
    builder = FrameBuilder("kitti", on_invalid=on_invalid)
    for name, root, files in _sources(path_or_folder, annotator):
        for path in files:
            item = path.relative_to(root).with_suffix("").as_posix()
            f = builder.add_file(path, lambda e: f"line {e}")
            builder.cover(item, name, file_idx=f)
            try:
                text = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                raise reader_error(path, None, f"cannot be read as text ({exc})") from None
            for n, line in enumerate(text.splitlines(), 1):
                _line(builder, path, n, line, item, name, f)
    return finish(builder, on_invalid=on_invalid, return_dropped=return_dropped)


def _line(builder, path, n, line, item, name, f):
    fields = line.split()
    if not fields:
        return
    if len(fields) not in (15, 16):
        why = f"a KITTI object has 15 values (16 with a score); this line has {len(fields)}"
        raise reader_error(path, f"line {n}", why)
    label = fields[0]
    values = [_number(path, n, t, field) for t, field in zip(fields[1:], _FIELDS, strict=False)]
    if label == "DontCare":
        why = "a DontCare region, not an object"
        builder.drop(path, f"line {n}", "dont_care", why, item=item, annotator=name, record=line)
        return
    truncated, occluded, alpha, left, top, right, bottom, h, w, length, x, y, z, ry = values[:14]
    if left > right or top > bottom:
        why = (
            f"the 2D box is inverted (left {left:g}, top {top:g}, right {right:g}, bottom "
            f"{bottom:g}): KITTI writes left <= right and top <= bottom"
        )
        exc = reader_error(path, f"line {n}", why)
        builder.entry_failed(exc, path, f"line {n}", item=item, annotator=name, record=line)
        return
    extras = dict(zip(_EXTRAS, (truncated, occluded, alpha, left, top, right, bottom), strict=True))
    if len(values) == 15:
        extras["score"] = values[14]
    params = [x, z, -y + h / 2, length, w, h, -ry, 0.0, 0.0]
    builder.add_shape(item, name, label, "cuboid", params, file_idx=f, entry=n, extras=extras)


_FIELDS = ("truncated", "occluded", "alpha", "bbox left", "bbox top", "bbox right")
_FIELDS += ("bbox bottom", "height", "width", "length", "location x", "location y")
_FIELDS += ("location z", "rotation_y", "score")
