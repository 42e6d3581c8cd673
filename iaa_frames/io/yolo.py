# Over 400 lines: one format in its three dialects (Darknet, Ultralytics, OBB/segments); a third is
# documentation.
"""Reader for YOLO text labels (one ``.txt`` per image, one directory per annotator)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import AnnotatorNameWarning, ParameterError, ReaderError

from .builder import FrameBuilder, finish
from .item_keys import ItemKeys
from .paths import annotator_dirs, check_dir, reader_error
from .values import parse_float
from .yolo_classes import class_names, read_yolo_classes

__all__ = ["read_yolo", "read_yolo_classes"]

_NOT_LABELS = {"classes.txt", "obj.names", "train.txt", "val.txt", "valid.txt", "test.txt"}
_IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".gif", ".dng", ".mpo"}
_SPLITS = ("train", "val", "valid", "validation", "test")


#: A stem that two entries of ``image_sizes`` give different sizes.
_AMBIGUOUS = object()


def _size(key, w, h):
    """``(w, h)`` of an ``image_sizes`` entry as positive finite floats, or an error
    naming the entry."""
    try:
        w, h = float(w), float(h)
    except (TypeError, ValueError):
        raise ParameterError(
            f"image_sizes[{key!r}] must be (width, height) numbers, got {(w, h)!r}"
        ) from None
    if not (w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h)):
        raise ParameterError(f"image_sizes[{key!r}] must be positive, got {(w, h)!r}")
    return w, h


def _sizes(image_sizes):
    """``{key: (w, h)}`` of ``image_sizes``, under each entry's path without its extension
    and under its stem; a stem that two entries give different sizes (``train/a.jpg``,
    ``val/a.jpg``) is kept as ambiguous and answered only by the full key."""
    if image_sizes is None:
        return None
    if isinstance(image_sizes, pd.DataFrame):
        key = next((c for c in ("item", "stem", "image") if c in image_sizes.columns), None)
        if key is None or "width" not in image_sizes or "height" not in image_sizes:
            raise ParameterError(
                "image_sizes as a DataFrame needs columns item (or stem), width and height"
            )
        entries = zip(image_sizes[key], image_sizes["width"], image_sizes["height"], strict=True)
    elif isinstance(image_sizes, Mapping):
        entries = []
        for k, v in image_sizes.items():
            try:
                w, h = v
            except (TypeError, ValueError):
                raise ParameterError(
                    f"image_sizes[{k!r}] must be (width, height), got {v!r}"
                ) from None
            entries.append((k, w, h))
    else:
        raise ParameterError(
            "image_sizes must be a mapping {image stem: (width, height)} or a DataFrame"
        )
    out: dict = {}
    stems: dict = {}
    for k, w, h in entries:
        size = _size(k, w, h)
        path = Path(str(k))
        out[path.with_suffix("").as_posix()] = size
        stems.setdefault(path.stem, set()).add(size)
    for stem, found in stems.items():
        out.setdefault(stem, next(iter(found)) if len(found) == 1 else _AMBIGUOUS)
    return out


def _size_of(sizes, path: Path, item, source: str):
    """The size of a label file's image: by its item, by its image's path (each without
    extension), else by its stem; an error naming what to do when the stem is ambiguous
    or missing."""
    keys = (Path(str(item)).with_suffix("").as_posix(), Path(source).with_suffix("").as_posix())
    for key in (*keys, path.stem):
        found = sizes.get(key)
        if found is _AMBIGUOUS:
            raise reader_error(
                path,
                None,
                f"image_sizes gives images of stem {path.stem!r} different sizes; key "
                f"them by the item instead (here {item!r})",
            )
        if found is not None:
            return found
    raise reader_error(path, None, f"no size for image {path.stem!r} in image_sizes")


def _list_files(d: Path) -> list[Path]:
    """Darknet image lists: the ``train``/``valid`` entries of ``obj.data``, else the usual
    names (``train.txt``, ``valid.txt``, ...)."""
    out = []
    data = d / "obj.data"
    if data.is_file():
        for line in data.read_text(encoding="utf-8-sig", errors="replace").splitlines():
            key, _, val = line.partition("=")
            if key.strip() in ("train", "valid", "test") and val.strip():
                name = Path(val.strip()).name  # "data/train.txt": the export's root is data/
                if (d / name).is_file():
                    out.append(d / name)
    if not out:
        out = [
            d / n for n in ("train.txt", "valid.txt", "val.txt", "test.txt") if (d / n).is_file()
        ]
    return out


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (symbolic links and ``..`` resolved) lies inside ``root``."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _is_dataset(d: Path) -> bool:
    """Whether ``d`` is one YOLO export (rather than a parent of annotator directories)."""
    if (d / "labels").is_dir() or (d / "obj.data").is_file():
        return True
    if any((d / sp / "labels").is_dir() for sp in _SPLITS):
        return True
    if any(
        p.is_dir() and p.name.startswith("obj_") and p.name.endswith("_data") for p in d.iterdir()
    ):
        return True
    return any(
        p.is_file() and p.suffix.lower() == ".txt" and p.name.lower() not in _NOT_LABELS
        for p in d.iterdir()
    )


def _images_by_stem(dirs) -> dict:
    out: dict = {}
    for d in dirs:
        if d.is_dir():
            for p in d.rglob("*"):
                if p.suffix.lower() in _IMAGE_EXT and p.is_file():
                    out.setdefault(p.with_suffix(""), p)
    return out


def _refuse_mixed(root: Path) -> None:
    """A plain export whose subfolders hold label files too: one export with copies in
    subfolders, or a folder of annotators' exports with stray files at its top? Reading
    it as one export would merge the annotators into one; a ReaderError naming the files
    at the top and the way out."""
    top = sorted(
        p.name
        for p in root.iterdir()
        if p.is_file() and p.suffix.lower() == ".txt" and p.name.lower() not in _NOT_LABELS
    )
    deeper = [
        p
        for p in _unread_label_files(root, ())
        if not p.relative_to(root).parts[0].startswith("obj_")
    ]
    if not top or not deeper:
        return
    subs = sorted({p.relative_to(root).parts[0] for p in deeper})
    names = ", ".join(top[:5]) + (f" and {len(top) - 5} more" if len(top) > 5 else "")
    raise reader_error(
        root,
        None,
        f"holds both .txt label files ({names}) and subfolders of label files "
        f"({', '.join(subs[:5])}{' ...' if len(subs) > 5 else ''}): one export, or a "
        "folder of annotators' exports with stray files at its top? Pass annotator= to "
        "read it as one export (the subfolders' files are then reported, not read), or "
        "move the stray files away to read each subfolder as an annotator's export",
    )


def _plain(d: Path) -> bool:
    """Whether the export ``d`` is in the plain layout (no ``labels/``, no image lists)."""
    if (d / "labels").is_dir() or any((d / sp / "labels").is_dir() for sp in _SPLITS):
        return False
    return not _list_files(d)


def _label_files(d: Path) -> list[tuple[Path, str | None]]:
    """(label file, the image it annotates when the layout names it) of one export, in
    the layouts :func:`read_yolo` lists (Ultralytics and Roboflow, Darknet, plain)."""
    if (d / "labels").is_dir():
        roots = [(d / "labels", d / "images")]
    else:
        roots = [
            (d / sp / "labels", d / sp / "images") for sp in _SPLITS if (d / sp / "labels").is_dir()
        ]
    if roots:
        out = []
        for lab, img in roots:
            images = _images_by_stem([img])
            for p in sorted(lab.rglob("*.txt")):
                if p.name.lower() in _NOT_LABELS:
                    continue
                twin = images.get(img / p.relative_to(lab).with_suffix(""))
                out.append((p, None if twin is None else str(twin.relative_to(d))))
        return out
    lists = _list_files(d)
    if lists:
        root = d.resolve()  # a listed path never leads out of the export (../, /abs)
        out, seen = [], set()
        for lst in lists:
            for n, line in enumerate(
                lst.read_text(encoding="utf-8-sig", errors="replace").splitlines(), 1
            ):
                line = line.strip()
                if not line:
                    continue
                rel = Path(line)
                cands = [d / rel, *(d / Path(*rel.parts[k:]) for k in range(1, len(rel.parts)))]
                label = next(
                    (
                        c.with_suffix(".txt")
                        for c in cands
                        if _inside(c.with_suffix(".txt"), root) and c.with_suffix(".txt").is_file()
                    ),
                    None,
                )
                if label is None:
                    raise reader_error(
                        lst,
                        f"line {n}",
                        f"no label file {rel.with_suffix('.txt').name!r} "
                        f"for the listed image {line!r} (looked in {d})",
                    )
                if label not in seen:
                    seen.add(label)
                    out.append((label, line))
        return out
    files = sorted(
        p
        for p in d.iterdir()
        if p.is_file() and p.suffix.lower() == ".txt" and p.name.lower() not in _NOT_LABELS
    )
    for sub in sorted(p for p in d.iterdir() if p.is_dir() and p.name.startswith("obj_")):
        files += sorted(q for q in sub.rglob("*.txt") if q.name.lower() not in _NOT_LABELS)
    images = _images_by_stem(sorted({p.parent for p in files}))
    image = [images.get(p.with_suffix("")) for p in files]
    return [(p, None if i is None else str(i.relative_to(d))) for p, i in zip(files, image)]


def _unread_label_files(d: Path, read) -> list[Path]:
    """The ``.txt`` files in the subfolders of a plain export ``d`` that are not among
    ``read`` (the plain layout reads the top-level files and ``obj_*/``): label files of
    a layout the reader does not know, reported rather than lost. Hidden folders
    (``.ipynb_checkpoints/``) and the image lists and class files are not label files."""
    read = set(read)
    out = []
    for sub in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for q in sorted(sub.rglob("*.txt")):
            rel = q.relative_to(d).parts
            if q in read or q.name.lower() in _NOT_LABELS or not q.is_file():
                continue
            if not any(part.startswith(".") for part in rel):
                out.append(q)
    return out


def read_yolo(
    dir_per_annotator,
    *,
    classes=None,
    image_sizes=None,
    annotator: str | None = None,
    item_key="name",
    on_invalid: str = "raise",
    return_dropped: bool = False,
):
    """Read YOLO text labels, one ``.txt`` per image and one directory per annotator.

    Parameters
    ----------
    dir_per_annotator : mapping {annotator: directory} or directory
        A mapping {annotator: export}, a parent directory whose subdirectories are the
        annotators' exports, or one export (see ``annotator``). An export is read in the
        layout its tool writes:

        * Ultralytics: ``data.yaml`` and ``labels/`` (with or without split folders
          ``labels/train``, ``labels/val``), images in the parallel ``images/`` tree; or
          Roboflow's ``train/labels``, ``valid/labels``, ``test/labels``;
        * Darknet (CVAT's "YOLO 1.1"): ``obj.names``, ``obj.data``, and the image lists
          ``train.txt``/``valid.txt``, each listed image's ``.txt`` beside it
          (``obj_train_data/``); the lists are read as lists, never as labels;
        * else the ``.txt`` files of the directory and of its ``obj_*/`` folders
          (``classes.txt``, ``obj.names`` and the list files are not label files); the
          ``.txt`` files of its other subfolders are not read (a subfolder is no layout of
          YOLO's: a copy, another export) but counted and reported
          (``label_file_not_read``, a DroppedRowsWarning naming each file).
    classes : list of str, mapping {index: name}, or path, optional
        The class names, by index. A path may name ``classes.txt``/``obj.names`` (one name
        per line) or a ``data.yaml``, whose ``names`` is read without a YAML library (flow
        list ``[a, b]``, block list ``- a`` or mapping ``0: a``; anything fancier: pass a
        list). By default such a file is looked for in the annotator directories and their
        parent; without one, the labels are the class indices as strings.
    image_sizes : mapping {image stem: (width, height)} or DataFrame, optional
        Image sizes in pixels (a DataFrame needs columns ``item`` or ``stem``, ``width``,
        ``height``). An image is matched by its item, its path without extension, or its
        stem when no two entries of that stem differ (``train/a.jpg`` and ``val/a.jpg``
        of different sizes must be keyed by item). Every label file must then have a size.
        Without sizes, coordinates stay normalized and ``width = height = 1.0``: the image is
        the unit square, which makes every normalized distance identical to what pixel
        coordinates would give.
    annotator : str, optional
        The annotator when ``dir_per_annotator`` is one export. By default the directory
        name, with an :class:`~iaa_frames.errors.AnnotatorNameWarning` saying so (YOLO
        labels name no annotator).
    item_key : {"name", "stem", "path"} or callable, default "name"
        How an image becomes the ``item`` (see :mod:`iaa_frames.io.item_keys`). YOLO labels
        name no image: the item source is the image the layout pairs with the label file
        (``images/train/x.jpg`` for ``labels/train/x.txt``, the image listed in
        ``train.txt``, or an image of the same stem beside it), so that ``"name"`` gives
        ``x.jpg`` as other tools do; without such an image it is the label file's stem
        ``x``. ``item_key="stem"`` gives ``x`` in every case (and lines up other tools'
        exports on stems).
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable lines (zero or negative size, wrong number of values, a class index not in
        ``classes``): raise a ReaderError naming file and line, or drop them, counted, with
        a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame (``item``: see ``item_key``). Lines ``class cx cy w h``
        are boxes (a sixth value is kept as ``score``); lines ``class x1 y1 x2 y2 ...`` with
        three or more points are polygons: segmentation outlines, and oriented boxes
        (``class x1 y1 x2 y2 x3 y3 x4 y4``, Ultralytics OBB); with a score after the
        points (an even number of values, Ultralytics' ``save_conf``) it is kept as
        ``score``. A 7-value line is a triangle, unless a line of its file has a track id
        no coordinate can be (an integer beyond 1): then the file's 7-value lines are
        tracker lines ``class cx cy w h conf track_id`` (``score``, ``track_id``). Every
        coordinate must lie in [0, 1] (fractions of the image size). An empty label file
        is a coverage row. Without ``classes=``, each annotator's export uses its own class
        file (``classes.txt``, ``obj.names``, ``data.yaml``; in the export or its parent).

    Raises
    ------
    ReaderError
        Missing directory, no label files, a malformed line (wrong number of values,
        non-numbers), a class index not in ``classes``, an image without a size; the
        message names the file and the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "ana").mkdir()
    >>> _ = (root / "ana" / "a.txt").write_text("0 0.25 0.5 0.1 0.2\\n")
    >>> _ = (root / "ana" / "b.txt").write_text("")
    >>> df = read_yolo(root, classes=["cat"], image_sizes={"a": (200, 100), "b": (200, 100)})
    >>> df[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
      item annotator label    x0    y0    x1    y1
    0    a       ana   cat  40.0  40.0  60.0  60.0
    1    b       ana   NaN   NaN   NaN   NaN   NaN
    """
    if annotator is not None and (not isinstance(annotator, str) or not annotator):
        raise ParameterError(f"annotator must be a non-empty string, got {annotator!r}")
    if isinstance(dir_per_annotator, Mapping):
        if annotator is not None:
            raise ParameterError(
                "pass annotator names either as mapping keys or as annotator=, not both"
            )
        dirs = annotator_dirs(dir_per_annotator, "read_yolo")
    else:
        root = check_dir(dir_per_annotator)
        if _is_dataset(root):
            if annotator is None and _plain(root):
                _refuse_mixed(root)
            if annotator is None:
                annotator = root.resolve().name
                message = (
                    f"{root}: one YOLO export, and YOLO labels name no annotator; its "
                    f"annotator is the directory name {annotator!r}: pass annotator= to name it"
                )
                warnings.warn(AnnotatorNameWarning(message), stacklevel=2)
            dirs = [(annotator, root)]
        else:
            dirs = [(a, d) for a, d in annotator_dirs(root, "read_yolo") if a != "images"]
            if annotator is not None:
                raise ParameterError(
                    f"{root} holds one export per subdirectory: annotator= names "
                    "one export; pass a mapping {annotator: directory} instead"
                )
            if not dirs:
                raise reader_error(
                    root, None, "no annotator subdirectories and no .txt label files"
                )
    names_of = class_names(classes, dirs)
    sizes = _sizes(image_sizes)
    b = FrameBuilder("yolo", on_invalid=on_invalid)
    keys = ItemKeys(item_key)
    for ann, d in dirs:
        files = _label_files(d)
        if not files:
            deeper = _unread_label_files(d, ()) if _plain(d) else []
            names = ", ".join(p.relative_to(d).as_posix() for p in deeper[:4])
            names += " ..." if len(deeper) > 4 else ""
            held = f"; its subfolders hold {len(deeper)} ({names}), not read" if deeper else ""
            raise reader_error(
                d,
                None,
                f"no .txt label files for annotator {ann!r} (looked in "
                "labels/, <split>/labels/, the image lists of obj.data and the "
                f"directory itself){held}",
            )
        for path, image in files:
            source = image if image is not None else str(path.relative_to(d).with_suffix(""))
            item = keys(source, scope=d, path=path, entry="(file)")
            _read_file(path, ann, names_of[ann], sizes, b, item, source)
        if _plain(d):
            for path in _unread_label_files(d, (p for p, _ in files)):
                why = (
                    f"a .txt file in the subfolder {path.parent.relative_to(d).as_posix()!r} "
                    "of a plain export (labels/, the image lists and obj_*/ absent), which "
                    "reads the folder's own .txt files: not read; move it up, or pass its "
                    "folder as an export of its own"
                )
                b.drop(path, "(file)", "label_file_not_read", why, annotator=ann)
    return finish(b, on_invalid=on_invalid, return_dropped=return_dropped)


def _read_file(path, annotator, names, sizes, b: FrameBuilder, item, source):
    f = b.add_file(path)
    w, h = (1.0, 1.0) if sizes is None else _size_of(sizes, path, item, source)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise reader_error(path, None, "not UTF-8 text") from None
    b.cover(item, annotator, width=w, height=h, file_idx=f, entry="(file)")
    parsed = []  # (entry, label, values after the class, line), in file order
    for n, line in enumerate(text.splitlines(), start=1):
        tok = line.split()
        if not tok:
            continue
        entry = f"line {n}"
        try:
            parsed.append((*_line(path, entry, line, tok, names), line))
        except ReaderError as exc:
            b.entry_failed(exc, path, entry, item=item, annotator=annotator, record=line)
    lines = []  # (entry, label, kind, values), in file order
    tracks, scored = _file_dialect(parsed)
    for entry, label, vals, line in parsed:
        try:
            lines.append(_kind(path, entry, label, vals, tracks, scored))
        except ReaderError as exc:
            b.entry_failed(exc, path, entry, item=item, annotator=annotator, record=line)
    is_box = [line[2] == "box" for line in lines]
    if any(is_box):
        a = np.asarray([v[:4] for (_, _, kind, v, _) in lines if kind == "box"], dtype="float64")
        corners = (
            np.hstack([a[:, :2] - a[:, 2:4] / 2, a[:, :2] + a[:, 2:4] / 2]) * (w, h, w, h)
        ).tolist()
    j = 0
    for entry, label, kind, v, score in lines:
        extras = None if score is None else {"score": score}
        kw = dict(width=w, height=h, file_idx=f, entry=entry, extras=extras)
        if kind == "box":
            if len(v) == 6:
                extras["track_id"] = int(v[5])
            b.add_box(item, annotator, label, *corners[j], **kw)
            j += 1
            continue
        ring = (np.asarray(v, dtype="float64").reshape(-1, 2) * (w, h)).ravel().tolist()
        if ring[:2] == ring[-2:]:
            ring = ring[:-2]
        if len(ring) < 6:
            why = "a polygon with fewer than 3 distinct points"
            b.drop(path, entry, "degenerate_polygon", why, item=item, annotator=annotator, record=v)
            continue
        b.add_polygon(item, annotator, label, [[ring]], **kw)


def _line(path, entry, line, tok, names):
    """(entry, label, values after the class) of one label line."""
    try:
        vals = [parse_float(t) for t in tok]
    except ValueError:
        raise reader_error(path, entry, f"non-numeric value in {line.strip()!r}") from None
    if not all(math.isfinite(v) for v in vals):
        raise reader_error(path, entry, f"non-finite value in {line.strip()!r}")
    c = vals[0]
    if c != int(c) or c < 0:
        raise reader_error(path, entry, f"class {tok[0]!r} is not a non-negative integer")
    c = int(c)
    if names is None:
        label = str(c)
    elif isinstance(names, dict):
        label = names.get(c)
    else:
        label = names[c] if c < len(names) else None
    if label is None:
        raise reader_error(
            path, entry, f"class index {c} is not defined in classes ({len(names)} names)"
        )
    k = len(vals)
    if k >= 5:
        return (entry, label, vals[1:])
    raise reader_error(
        path,
        entry,
        f"{k} values: expected 'class cx cy w h' (5; 6 with a score; 7 with a score and "
        "a track id) or 'class x1 y1 x2 y2 x3 y3 ...' (an odd number >= 7; even with a "
        "score)",
    )


def _tracker_like(v) -> bool:
    """Whether the 6 values of a 7-value line can only be ``cx cy w h conf track_id``: a
    track id (an integer beyond 1) is no normalized coordinate."""
    return float(v[5]).is_integer() and v[5] > 1


def _file_dialect(parsed) -> tuple[bool, bool]:
    """(7-value lines are tracker lines, the file holds segment lines with a score) of one
    label file. A 7-value line is a triangle ``class x1 y1 x2 y2 x3 y3`` or a tracker line
    ``class cx cy w h conf track_id``: tracker lines when one of the file's has a track id
    no coordinate can be (an integer beyond 1). Segment lines with a score (Ultralytics'
    ``save_conf``: ``class x1 y1 ... xn yn conf``, an even number of values from 8) make
    a 6-value line of the file a segment of two points with a score, not a box."""
    seven = [v for _, _, v, _ in parsed if len(v) == 6]
    tracks = any(_tracker_like(v) for v in seven)
    scored = any(len(v) >= 7 and len(v) % 2 == 1 for _, _, v, _ in parsed)
    return tracks, scored


def _kind(path, entry, label, v, tracks: bool, scored: bool):
    """(entry, label, kind, values) of a parsed line, in its file's dialect; coordinates
    outside [0, 1] (YOLO's are normalized by the image size) are a ReaderError."""
    k = len(v) + 1
    if k == 6 and scored:
        raise reader_error(
            path,
            entry,
            "6 values in a file of segment lines with a score: a segment of two points "
            "(no shape), not a box",
        )
    if k == 7 and tracks:
        if not (float(v[5]).is_integer() and v[5] >= 0):
            raise reader_error(
                path,
                entry,
                f"7 values in a file of tracker lines 'class cx cy w h conf track_id': the "
                f"track id {v[5]!r} is not a non-negative integer",
            )
        kind, coords, score = "box", v[:4], v[4]
    elif k in (5, 6):
        kind, coords, score = "box", v[:4], v[4] if k == 6 else None
    elif k % 2 == 0:
        kind, coords, score = "polygon", v[:-1], v[-1]
    else:
        kind, coords, score = "polygon", v, None
    if score is not None and not 0 <= score <= 1:
        raise reader_error(path, entry, f"the score {score!r} is not in [0, 1]")
    bad = next((x for x in coords if not 0 <= x <= 1), None)
    if bad is not None:
        raise reader_error(
            path,
            entry,
            f"the coordinate {bad!r} is outside [0, 1]: YOLO coordinates are fractions of "
            "the image size",
        )
    return (entry, label, kind, coords if kind == "polygon" else v, score)
