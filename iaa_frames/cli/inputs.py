# Over 400 lines: the inputs told and read format by format, each format's options checked.
"""The inputs of ``iaa-frames report``: their format told from names and contents, read
into one tidy frame.

:func:`guess_format` tells each input's format as :func:`iaa_frames.io.formats.reader_for`
does (file names and first bytes, or the files of a directory); :func:`read_inputs` calls the reader of the format
(:mod:`iaa_frames.io`) on one or several inputs and concatenates their frames, keeping
object ids unique. The error messages speak of the command's options (``--format``,
``--classes``, ``--image-sizes``, ``--schema``, ``--data-files``, ``--id-key``).
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

import pandas as pd

from iaa_frames import io as readers
from iaa_frames.errors import ParameterError, ReaderError
from iaa_frames.io.formats import reader_for
from iaa_frames.io.paths import check_file
from iaa_frames.io.table import read_csv_text_ids

__all__ = [
    "FORMATS",
    "check_distinct",
    "check_paths",
    "guess_format",
    "input_formats",
    "read_image_sizes",
    "read_inputs",
]

#: ``--format`` choices.
FORMATS = ("coco", "cvat", "labelstudio", "voc", "yolo", "darwin", "potato", "csv", "parquet")

#: The ``iaa-frames report`` option of each :func:`iaa_frames.read_potato` keyword it passes.
_POTATO_OPTIONS = {"schema": "--schema", "data_files": "--data-files", "id_key": "--id-key"}

#: The ``--format`` of each :mod:`iaa_frames.io` reader the command reads with.
_READER_FORMATS = {
    "read_coco": "coco",
    "read_cvat": "cvat",
    "read_labelstudio": "labelstudio",
    "read_voc": "voc",
    "read_yolo": "yolo",
    "read_darwin": "darwin",
    "read_potato": "potato",
}


def _input_format(path: Path) -> str:
    """The ``--format`` of one input, told by :func:`iaa_frames.io.formats.reader_for`."""
    found = reader_for(path)
    if found is None:
        raise ParameterError(
            f"cannot tell the format of {path}; pass --format ({', '.join(FORMATS)})"
        )
    reader, words = found
    if reader == "read_table":
        return "parquet" if path.suffix.lower() in (".parquet", ".pq") else "csv"
    if reader not in _READER_FORMATS:
        raise ParameterError(
            f"{path} looks like {words}, which iaa-frames report does not read; read it "
            f"with iaf.{reader} and call iaf.report on the frame"
        )
    return _READER_FORMATS[reader]


def input_formats(inputs) -> dict:
    """The format of every input, told from its name and contents (:func:`guess_format`).

    Raises
    ------
    ParameterError
        When an input's format cannot be told.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ann.json").write_text('{"images": [], "annotations": [], "categories": []}')
    >>> _ = (d / "job.xml").write_text("<annotations><version>1.1</version></annotations>")
    >>> sorted(input_formats([d / "ann.json", d / "job.xml"]).values())
    ['coco', 'cvat']
    """
    return {p: _input_format(p) for p in map(Path, inputs)}


def guess_format(inputs) -> str:
    """The ``--format`` of the inputs, told from their names and contents.

    ``.csv`` and ``.parquet`` by name; ``.xml``: CVAT (root ``<annotations>``) or VOC
    (``<annotation>``); ``.json``: COCO (``images``/``annotations``/``categories``, or a
    list of annotations), Darwin (``item``) or Label Studio (a list of tasks or JSON-MIN
    records); directories by the files they (or their subdirectories) hold, YOLO when they
    hold ``.txt`` labels, ``labels/``, ``data.yaml`` or ``obj.data``. Potato: a project
    folder (a config naming ``output_annotation_dir``), the config, the annotation output
    (a ``user_state.json`` per annotator subfolder), one annotator's folder or
    ``user_state.json``, and the jsonl / csv / tsv exports (``instance_id``, ``user_id``).
    Formats the command does not read (MOTChallenge text, KITTI object labels: a type and
    14 numbers a line, Supervisely point clouds) are named, with the reader to call.

    Raises
    ------
    ParameterError
        When an input's format cannot be told, or the inputs have different formats
        (:func:`read_inputs` reads such inputs format by format).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ann.json").write_text('{"images": [], "annotations": [], "categories": []}')
    >>> _ = (d / "job.xml").write_text("<annotations><version>1.1</version></annotations>")
    >>> guess_format([d / "ann.json"]), guess_format([d / "job.xml"])
    ('coco', 'cvat')
    """
    formats = input_formats(inputs)
    kinds = set(formats.values())
    if len(kinds) > 1:
        listed = ", ".join(f"{p.name}: {f}" for p, f in formats.items())
        raise ParameterError(f"the inputs have different formats ({listed})")
    return kinds.pop()


def check_paths(paths):
    """Raise a ReaderError naming the first of ``paths`` that does not exist."""
    for p in paths:
        if not p.exists():
            raise ReaderError(f"{p}: no such file or directory")


def read_image_sizes(path) -> pd.DataFrame:
    """The ``--image-sizes`` CSV (columns item or stem, width, height), the names as text
    (``01`` and ``1`` are two images); an unreadable file is a ReaderError naming it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "sizes.csv"
    >>> _ = p.write_text("item,width,height\\n01,640,480\\n")
    >>> read_image_sizes(p)["item"].tolist()
    ['01']
    """
    check_paths([Path(path)])
    return read_csv_text_ids(Path(path), ("item", "stem", "image"))


def check_distinct(paths) -> None:
    """Raise a ReaderError when one input is given twice: the same path, or two files of
    the same content (a copy), which would count the work as agreement with itself.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.json").write_text("[]"); _ = (d / "b.json").write_text("[]")
    >>> check_distinct([d / "a.json", d / "b.json"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: ... and ... have the same content: ...
    """
    seen: dict = {}
    for p in map(Path, paths):
        key = ("path", str(p.resolve()))
        if key in seen:
            raise ReaderError(f"{p}: given twice (as {seen[key]} and {p}): each input is read once")
        seen[key] = p
        if p.is_file():
            digest = hashlib.sha256()
            with open(p, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            key = ("content", digest.hexdigest(), p.stat().st_size)
            if key in seen:
                raise ReaderError(
                    f"{seen[key]} and {p} have the same content: one export given twice "
                    "would count its annotators' work as agreement with themselves"
                )
            seen[key] = p


def _concat(frames, paths=None):
    """Concatenate reader outputs, keeping object ids unique across inputs; an
    (item, annotator) read from two inputs is a ReaderError (the same work twice)."""
    if len(frames) == 1:
        return frames[0]
    pairs = pd.concat(
        [f[["item", "annotator"]].drop_duplicates().assign(_input=k) for k, f in enumerate(frames)],
        ignore_index=True,
    )
    twice = pairs[pairs.duplicated(["item", "annotator"], keep=False)]
    if len(twice):
        item, annotator = twice["item"].iat[0], twice["annotator"].iat[0]
        j, k = twice["_input"].iat[0], twice["_input"].iat[1]
        names = paths or [f"input {n + 1}" for n in range(len(frames))]
        raise ReaderError(
            f"{names[k]}: the annotator {annotator!r} on the item {item!r} is read from this "
            f"input and from {names[j]}: the same work read twice would count as agreement "
            "with itself; give each annotator's work once"
        )
    parts = []
    for k, f in enumerate(frames):
        f = f.copy()
        if "object_id" in f.columns:
            f["object_id"] = [f"{k}/{v}" for v in f["object_id"]]
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def group_by_column(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """``df`` with its ``group`` column taken from ``column`` (``--group COLUMN``).

    Examples
    --------
    >>> group_by_column(pd.DataFrame({"item": ["a"], "video": ["v1"]}), "video")["group"].tolist()
    ['v1']
    """
    if column not in df.columns:
        raise ParameterError(
            f"--group {column}: the inputs have no column {column!r}; their columns are "
            f"{', '.join(map(str, df.columns))}"
        )
    return df.assign(group=df[column])


def _potato_options(schema, data_files, id_key) -> dict:
    """The :func:`iaa_frames.read_potato` keywords of the Potato options given, checked: a
    name that is not a non-empty string is a ParameterError, a data file that is not there
    a ReaderError, each naming its option."""
    kw = {}
    for key, value in (("schema", schema), ("id_key", id_key)):
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise ParameterError(f"{_POTATO_OPTIONS[key]}: expected a name, got {value!r}")
        kw[key] = value
    if data_files is not None:
        files = [data_files] if isinstance(data_files, (str, os.PathLike)) else list(data_files)
        try:
            kw["data_files"] = [check_file(f) for f in files]
        except ReaderError as exc:
            raise ReaderError(f"--data-files {exc}") from None
    return kw


def _check_options(kinds, classes, image_sizes, potato) -> None:
    """A ParameterError when options are given for a format none of the inputs has."""
    if (classes or image_sizes) and "yolo" not in kinds:
        raise ParameterError("--classes and --image-sizes apply to --format yolo only")
    if potato and "potato" not in kinds:
        names = [option for key, option in _POTATO_OPTIONS.items() if key in potato]
        listed = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        raise ParameterError(
            f"{listed} {'applies' if len(names) == 1 else 'apply'} to Potato inputs "
            f"(--format potato) only; the inputs are read as {' + '.join(kinds)}"
        )


def read_inputs(
    inputs,
    fmt: str | None = None,
    *,
    classes=None,
    image_sizes=None,
    schema=None,
    data_files=None,
    id_key=None,
    on_invalid: str = "raise",
):
    """Read the inputs of ``iaa-frames report`` into one tidy frame.

    Parameters
    ----------
    inputs : list of path
    fmt : str, optional
        One of :data:`FORMATS` for every input; by default told input by input
        (:func:`input_formats`): inputs of different formats (a Label Studio export and a
        CVAT job, say) are read format by format and put together, each annotator's work
        on an item read once.
    classes, image_sizes : path, optional
        YOLO class names and image sizes.
    schema, data_files, id_key : optional
        Passed to :func:`iaa_frames.read_potato` for the Potato inputs: the
        ``image_annotation`` scheme to read, the data files giving the image sizes (a path
        or a list) and their item id key.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to the readers (and to ``validate`` for tables).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ParameterError
        Options given for a format no input has (``--schema`` with COCO files, ...).
    ReaderError
        An input or option file missing or unreadable; Potato annotations holding several
        ``image_annotation`` schemes without ``--schema``, or none of the one it names.
    """
    paths = [Path(p) for p in inputs]
    check_paths(paths)
    check_distinct(paths)
    potato = _potato_options(schema, data_files, id_key)
    if fmt is None:
        formats = input_formats(paths)
        kinds = list(dict.fromkeys(formats.values()))
        if len(kinds) > 1:
            _check_options(kinds, classes, image_sizes, potato)
            frames = [
                _read_one_format(
                    [p for p in paths if formats[p] == kind],
                    kind,
                    classes=classes if kind == "yolo" else None,
                    image_sizes=image_sizes if kind == "yolo" else None,
                    potato=potato if kind == "potato" else {},
                    on_invalid=on_invalid,
                )
                for kind in kinds
            ]
            names = [
                ", ".join(str(p) for p in paths if formats[p] == kind) + f" ({kind})"
                for kind in kinds
            ]
            return _concat(frames, names)
        fmt = kinds[0]
    return _read_one_format(
        paths, fmt, classes=classes, image_sizes=image_sizes, potato=potato, on_invalid=on_invalid
    )


def _read_potato(paths, kw):
    """Potato inputs: state files and exports given together are read in one call (an
    item's size found in one annotator's mask serves them all), folders and configs each
    by itself. The error of several schemes says ``--schema`` where the reader says
    ``read_potato(schema=)``."""
    from iaa_frames.io.potato import SCHEMA_HINT, read_potato

    try:
        if len(paths) > 1 and all(
            p.is_file() and p.suffix.lower() not in (".yaml", ".yml") for p in paths
        ):
            frame = read_potato(paths, **kw)
        else:
            frame = _concat([read_potato(p, **kw) for p in paths], paths)
    except ReaderError as exc:
        schemes = getattr(exc, "schemes", None)
        if not schemes:
            raise
        choose = "choose one with " + " or ".join(f"--schema {shlex.quote(s)}" for s in schemes)
        text = str(exc)
        text = text.replace(SCHEMA_HINT, choose) if SCHEMA_HINT in text else f"{text}; {choose}"
        raise ReaderError(text) from None
    return frame


def _read_one_format(paths, fmt, *, classes, image_sizes, potato, on_invalid):
    """The inputs ``paths``, all of format ``fmt``, read into one frame; ``potato`` holds
    the :func:`iaa_frames.read_potato` keywords of the Potato options."""
    if fmt not in FORMATS:
        raise ParameterError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    _check_options([fmt], classes, image_sizes, potato)
    one = len(paths) == 1
    kw = {"on_invalid": on_invalid}
    if fmt in ("coco", "cvat"):
        read = readers.read_coco if fmt == "coco" else readers.read_cvat
        return read(paths[0] if one else paths, **kw)
    if fmt in ("csv", "parquet"):
        return _concat(
            [readers.read_table(p, fmt=fmt, on_invalid=on_invalid) for p in paths], paths
        )
    if fmt == "labelstudio":
        return _concat([readers.read_labelstudio(p, **kw) for p in paths], paths)
    if fmt == "potato":
        return _read_potato(paths, {**kw, **potato})
    if fmt == "yolo":
        if classes:
            check_paths([Path(classes)])
            kw["classes"] = Path(classes)
        if image_sizes:
            check_paths([Path(image_sizes)])
            kw["image_sizes"] = read_image_sizes(image_sizes)
        read = lambda p: readers.read_yolo(p, **kw)
    else:
        reader = readers.read_voc if fmt == "voc" else readers.read_darwin
        read = lambda p: reader(p, **kw)
    if one:
        return read(paths[0])
    if all(p.is_dir() for p in paths):
        names = [p.resolve().name for p in paths]
        if len(set(names)) < len(names):
            raise ParameterError(
                "several input directories have the same name; each "
                "directory is one annotator, named after it"
            )
        return read(dict(zip(names, paths)))
    return _concat([read(p) for p in paths], paths)
