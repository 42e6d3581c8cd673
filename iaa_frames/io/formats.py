"""The reader of a file or directory, told from its name and first bytes: the remedy an
error names when a path is passed where a frame is expected, or a directory where a
reader takes files.

:func:`reader_for` looks at the suffix and the first bytes of a file (or at the files of
a directory and of its subdirectories, one level down, the layout of one directory per
annotator; a Potato project by its config, its annotation output by the
``user_state.json`` of its subfolders, a folder of Potato exports by their first lines);
:func:`read_hint` writes the call to make. Registered with
:func:`iaa_frames.frame.schema.register_path_hint` when :mod:`iaa_frames.io` is imported,
so that ``iaf.agreement("ann.json")`` says ``df = iaf.read_coco('ann.json')``.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "ann.json").write_text('{"images": [], "annotations": [], "categories": []}')
>>> reader_for(d / "ann.json")
('read_coco', 'COCO JSON')
>>> reader_for(d / "notes.txt") is None
True
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

__all__ = ["FILE_READERS", "READERS", "files_call", "read_call", "read_hint", "reader_for"]

#: The readers a hint names when a file's format cannot be told.
READERS = (
    "read_coco",
    "read_cvat",
    "read_labelstudio",
    "read_voc",
    "read_yolo",
    "read_darwin",
    "read_mot",
    "read_kitti",
    "read_potato",
    "read_table",
)

#: The readers of files (one per annotator or job), by the suffix of their files: a
#: directory passed to one is answered with its files of that suffix (:func:`files_call`).
FILE_READERS = {
    "read_coco": ".json",
    "read_cvat": ".xml",
    "read_labelstudio": ".json",
    "read_labelstudio_video": ".json",
    "read_mot": ".txt",
    "read_activitynet": ".json",
}
_LISTED = 4

#: Directories and files read as YOLO.
_YOLO_FILES = ("obj.data", "data.yaml", "dataset.yaml", "obj.names")
_MOT_LINE = re.compile(r"^\s*-?\d+\s*,\s*-?\d+\s*,(\s*-?[\d.eE+-]+\s*,){3}")
#: A KITTI object label: its type, then 14 numbers (truncation, occlusion, alpha, the 2D
#: box, the 3D size and place, rotation), 15 with a detection score. YOLO's lines are
#: numbers only, MOT's separated by commas.
_KITTI_LINE = re.compile(
    r"^\s*[A-Za-z_][\w-]*(?:\s+[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?){14,15}\s*$"
)

#: Potato (potato-annotation): an annotator's state, kept in ``<annotator>/user_state.json``
#: under the ``annotation_output`` folder a config names (``output_annotation_dir``, the
#: one key read_potato requires of a config). A state opens with ``user_id`` and holds
#: ``instance_id_to_label_to_value``, keys no other format has.
_POTATO_STATE_FILE = "user_state.json"
_POTATO_LABELS = re.compile(r'"instance_id_to_label_to_value"\s*:')
_POTATO_STATE_KEYS = re.compile(
    r'"(?:instance_id_ordering|instance_id_to_behavioral_data|current_instance_index)"\s*:'
)
_POTATO_USER = re.compile(r'"user_id"\s*:')
_POTATO_YAML_CONFIG = re.compile(r"(?m)^[\"']?output_annotation_dir[\"']?[ \t]*:")
_POTATO_JSON_CONFIG = re.compile(r'"output_annotation_dir"\s*:')
_POTATO_STATE = ("read_potato", "Potato user_state.json")
_POTATO_CONFIG = ("read_potato", "Potato config")


def _head(path: Path, n: int = 65536) -> str:
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            return fh.read(n)
    except OSError:
        return ""


def _json_reader(path: Path):
    head = _head(path).lstrip()
    if head.startswith("["):
        if re.search(r'"image_id"\s*:', head) and re.search(r'"category_id"\s*:', head):
            return "read_coco", "COCO results JSON"
        if re.search(r'"videorectangle"', head):
            return "read_labelstudio_video", "Label Studio video JSON"
        return "read_labelstudio", "Label Studio JSON"
    if head.startswith("{"):
        potato = _potato_json(path, head)
        if potato is not None:
            return potato
        if re.search(r'"(database|results)"\s*:\s*\{', head) and re.search(r'"segment"\s*:', head):
            return "read_activitynet", "ActivityNet-style JSON (time segments)"
        if re.search(r'"item"\s*:\s*\{', head):
            return "read_darwin", "V7 Darwin JSON"
        if re.search(r'"image"\s*:\s*\{', head):
            return "read_darwin", "V7 Darwin 1.0 JSON"  # read_darwin says to export 2.0
        if re.search(r'"(images|annotations|categories)"\s*:', head):
            return "read_coco", "COCO JSON"
        if re.search(r'"figures"\s*:', head):
            return "read_supervisely_pointcloud", "Supervisely point-cloud JSON"
    return None


def _first_line(head: str) -> str:
    """The first line of ``head`` that is not blank ("" when none is)."""
    return next((line for line in head.splitlines() if line.strip()), "")


def _potato_json(path: Path, head: str):
    """A Potato state (its labels, or its ``user_id`` with another key of a state, or in a
    file named ``user_state.json``) or a Potato config in JSON; None otherwise."""
    if _POTATO_LABELS.search(head) or (
        _POTATO_USER.search(head)
        and (path.name == _POTATO_STATE_FILE or _POTATO_STATE_KEYS.search(head))
    ):
        return _POTATO_STATE
    if _POTATO_JSON_CONFIG.search(head):
        return _POTATO_CONFIG
    return None


def _potato_export(path: Path):
    """Potato's jsonl export (a first line holding ``instance_id`` and ``user_id``) or its
    csv / tsv export (columns ``instance_id`` and ``user_id``, no ``item`` nor
    ``annotator``); None otherwise. Only the first line is read."""
    first = _first_line(_head(path, 65536)).strip()
    if path.suffix.lower() == ".jsonl":
        keys = re.search(r'"instance_id"\s*:', first) and _POTATO_USER.search(first)
        return ("read_potato", "Potato jsonl export") if first[:1] == "{" and keys else None
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        columns = {c.strip() for c in next(csv.reader([first], delimiter=delimiter), [])}
    except csv.Error:
        return None
    if {"instance_id", "user_id"} <= columns and not columns & {"item", "annotator"}:
        return "read_potato", f"Potato {path.suffix.lower()[1:]} export"
    return None


def is_potato_export(path) -> bool:
    """Whether ``path`` is one of Potato's exports: a ``.jsonl`` whose first line holds
    ``instance_id`` and ``user_id``, a ``.csv`` or ``.tsv`` with those columns (and no
    ``item`` nor ``annotator``). Only the first line is read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "annotations.jsonl"
    >>> _ = p.write_text('{"instance_id": "img1", "user_id": "ana", "labels": {}}\\n')
    >>> is_potato_export(p), is_potato_export(p.with_suffix(".csv"))
    (True, False)
    """
    path = Path(path)
    try:
        ok = path.suffix.lower() in (".jsonl", ".csv", ".tsv") and path.is_file()
        return ok and _potato_export(path) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _potato_dir(path: Path, entries) -> tuple[str, str] | None:
    """The folders read_potato reads: one annotator's (holding ``user_state.json``), the
    annotation output (subfolders holding it), a project (a config at the top or in
    ``configs/``), a folder of exports."""
    if (path / _POTATO_STATE_FILE).is_file():
        return "read_potato", "Potato annotator's folder (user_state.json)"
    dirs = [p for p in entries if p.is_dir()]
    if any((d / _POTATO_STATE_FILE).is_file() for d in dirs):
        return "read_potato", "Potato annotation output (a user_state.json per annotator)"
    configs = list(entries)
    if (path / "configs").is_dir():
        try:
            configs += sorted((path / "configs").iterdir())[:200]
        except OSError:
            pass
    for p in configs:
        if p.suffix.lower() in (".yaml", ".yml") and p.is_file() and _file_reader(p):
            return "read_potato", "Potato project"
    if any(is_potato_export(p) for p in entries if not p.name.startswith(".")):
        return "read_potato", "Potato exports (a folder of them)"
    return None


def _xml_reader(path: Path):
    m = re.search(r"<(annotations|annotation)[\s>]", _head(path, 8192))
    if m is None:
        return None
    return (
        ("read_cvat", "CVAT XML") if m.group(1) == "annotations" else ("read_voc", "Pascal VOC XML")
    )


def _file_reader(path: Path):
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".csv", ".tsv"):
        potato = _potato_export(path)
        if potato is not None or suffix != ".csv":
            return potato
    if suffix in (".yaml", ".yml"):
        return _POTATO_CONFIG if _POTATO_YAML_CONFIG.search(_head(path)) else None
    if suffix in (".csv", ".parquet", ".pq"):
        return "read_table", "a tidy frame saved as CSV or Parquet"
    if suffix == ".json":
        return _json_reader(path)
    if suffix == ".xml":
        return _xml_reader(path)
    if suffix == ".txt":
        head = _head(path, 4096)
        if _MOT_LINE.match(head):
            return "read_mot", "MOTChallenge text"
        if _KITTI_LINE.match(_first_line(head)):
            return "read_kitti", "KITTI object labels"
    return None


def _dir_reader(path: Path, depth: int = 0):
    try:
        entries = sorted(path.iterdir())[:200]
    except OSError:
        return None
    if depth == 0:
        potato = _potato_dir(path, entries)
        if potato is not None:
            return potato
    names = {p.name for p in entries}
    if names & set(_YOLO_FILES) or (path / "labels").is_dir():
        return "read_yolo", "YOLO labels"
    found = set()
    for p in entries:
        if p.name.startswith("."):
            continue
        if p.is_file():
            suffix = p.suffix.lower()
            if suffix == ".txt" and p.name not in ("train.txt", "valid.txt", "test.txt"):
                found.add(_file_reader(p) or ("read_yolo", "YOLO labels"))
            elif suffix in (".xml", ".json"):
                fmt = _file_reader(p)
                if fmt is not None and fmt[0] != "read_potato":  # read from its folders only
                    found.add(fmt)
        elif p.is_dir() and depth == 0:
            fmt = _dir_reader(p, depth=1)
            if fmt is not None:
                found.add(fmt)
    return found.pop() if len(found) == 1 else None


def reader_for(path):
    """``(reader name, format)`` of a file or directory, or None when it cannot be told
    (or does not exist).

    Parameters
    ----------
    path : str or os.PathLike
        A file (told from its suffix and first bytes) or a directory (from its files, and
        those of its subdirectories one level down). Potato's layouts are told by their
        names and first bytes: a ``user_state.json`` (``user_id``,
        ``instance_id_to_label_to_value``), a folder holding one or whose subfolders hold
        one (the annotation output), a project folder (a YAML config naming
        ``output_annotation_dir`` at its top or in ``configs/``), a config, and the jsonl
        (``instance_id`` and ``user_id`` on its first line) or csv / tsv exports.

    Returns
    -------
    tuple of (str, str) or None
        The name of the :mod:`iaa_frames.io` reader and the format in words.
    """
    p = Path(path)
    if p.is_dir():
        return _dir_reader(p)
    if p.is_file():
        return _file_reader(p)
    return None


def files_call(reader: str, directory) -> tuple[str, list] | None:
    """The call of the file reader ``reader`` (:data:`FILE_READERS`) on the files of
    ``directory`` it reads (of its suffix, and of its format where that can be told),
    with those files; None when there is none.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ana.json").write_text('{"images": [], "annotations": []}')
    >>> _ = (d / "tasks.json").write_text('[{"data": {}}]')  # Label Studio's
    >>> call, files = files_call("read_coco", d)
    >>> [f.name for f in files], call.startswith("iaf.read_coco([")
    (['ana.json'], True)
    """
    suffix = FILE_READERS.get(reader)
    d = Path(directory)
    if suffix is None or not d.is_dir():
        return None
    files = [
        f
        for f in sorted(d.glob(f"*{suffix}"))
        if f.is_file() and (_file_reader(f) or (reader,))[0] == reader
    ]
    if not files:
        return None
    if len(files) <= _LISTED:
        return f"iaf.{reader}({[os.fspath(f) for f in files]!r})", files
    glob = f"sorted(pathlib.Path({os.fspath(d)!r}).glob('*{suffix}'))"
    return f"iaf.{reader}({glob})", files


def read_call(reader: str, path) -> str:
    """The call of ``reader`` that reads ``path``: a file reader given a directory reads
    its files (:func:`files_call`), VOC and YOLO read the directory of a file.

    Examples
    --------
    >>> read_call("read_voc", __file__).startswith("iaf.read_voc(")
    True
    """
    path = Path(path)
    if path.is_file() and reader in ("read_voc", "read_yolo"):
        return f"iaf.{reader}({os.fspath(path.parent)!r})"  # they read directories
    if (
        reader == "read_potato"
        and path.name != _POTATO_STATE_FILE
        and path.suffix.lower() == ".json"
        and _file_reader(path) == _POTATO_STATE
    ):
        return f"iaf.read_potato([{os.fspath(path)!r}])"  # a lone .json is read as a config
    if path.is_dir():
        found = files_call(reader, path)
        if found is not None:
            return found[0]
    return f"iaf.{reader}({os.fspath(path)!r})"


def read_hint(path) -> str:
    """What to do with a path passed where a frame is expected: the reader call that
    reads it (told by :func:`reader_for`), or the readers to choose from.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "job.xml"
    >>> _ = p.write_text("<annotations><version>1.1</version></annotations>")
    >>> read_hint(p).split(": ", 1)[1].startswith("df = iaf.read_cvat(")
    True
    """
    p = Path(path)
    found = reader_for(p)
    if found is not None:
        reader, what = found
        return f"read it first ({what}): df = {read_call(reader, p)}, then pass df"
    state = "" if p.exists() else " (no such file or directory here)"
    listed = ", ".join(f"iaf.{r}" for r in READERS)
    return (
        f"read it first{state} with the reader of its format ({listed}, ...), then pass the frame"
    )
