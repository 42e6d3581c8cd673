# Over 400 lines: one format read from three layouts (project, store, exports); 110 are documentation.
"""Reader for Potato's image annotations: its store (``user_state.json`` per annotator),
a whole project (the config names the store and the data files), and its jsonl / csv
exports.

Potato writes ``<task_dir>/<output_annotation_dir>/<user>/user_state.json`` per annotator.
``instance_id_to_label_to_value[<item>]`` is a list of ``[{"schema": S, "name": N},
value]`` pairs; an ``image_annotation`` scheme stores one pair named ``_data`` whose value
is a JSON string holding the list of shapes (:mod:`iaa_frames.io.potato_shapes`):
``"[]"`` means the annotator saved the item and drew nothing; an item with no entry was
not seen. ``instance_id_to_behavioral_data[<item>]`` holds ``session_start``,
``session_end`` (Unix seconds) and ``annotation_changes`` with their ``timestamp``; the
top-level ``origin`` says whether the annotator is a person (``{}``) or a machine
(``kind``: ``tool`` or ``llm``). The jsonl export writes one line per (item, user):
``instance_id``, ``user_id``, ``annotator_origin`` (when a machine took part), ``labels``
``{schema: {"_data": "<json>"}}``; the csv export one row with a column ``<schema>._data``
and ``annotator_origin``. Image sizes are not stored with the annotations: Potato takes
them from the item of the data file (``image_width``, ``width``, ``img_width`` or ``w``,
and the heights alike), else from a mask's ``rle.size``.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError, ReaderError
from iaa_frames.geometry.kinds import available_kinds, get_kind
from iaa_frames.geometry.kinds.registry import FRAME_COLUMNS

from .builder import FrameBuilder, finish
from .formats import is_potato_export
from .json_stream import JSONStream, load_json
from .masks import MAX_MASK_PIXELS
from .paths import ENTRY_ERRORS, check_file, reader_error
from .potato_shapes import Place, add_shape, mask_size
from .values import is_number

__all__ = ["RATER_KINDS", "SCHEMA_HINT", "read_potato"]

STATE_FILE = "user_state.json"
#: Potato's kinds of rater (the ``rater_origin`` column) and the ``rater_kind`` of each:
#: the package's one vocabulary, ``human`` or ``machine``, as the other readers write it
#: (an origin of another kind is a machine too).
RATER_KINDS = {"human": "human", "tool": "machine", "llm": "machine"}
_STATE_KEYS = ("user_id", "instance_id_to_label_to_value", "instance_id_to_behavioral_data")
_SIZE_KEYS = (
    ("image_width", "width", "img_width", "w"),
    ("image_height", "height", "img_height", "h"),
)
_OWN_COLUMNS = set(
    "source confidence iscrowd mask_width mask_height time rater_kind rater_origin".split()
)
_MAX_CSV_FIELD = 1 << 28  # a mask's RLE in one csv cell can be long
#: The advice ending the ReaderError of annotations holding several ``image_annotation``
#: schemes; the error's ``schemes`` attribute holds their names, so that a caller with
#: other means of choosing (``iaa-frames report --schema``) can reword it.
SCHEMA_HINT = "pass read_potato(schema=) to choose one"


# ------------------------------------------------------------------ what the path holds


class _Project:
    """What a path resolves to: the annotation sources, and the config's facts."""

    def __init__(self):
        self.states: list[tuple[Path, str]] = []  # (user_state.json, its folder's name)
        self.exports: list[Path] = []  # jsonl / csv / tsv exports
        self.config: dict | None = None
        self.data_files: list[Path] = []
        self.id_key = "id"
        self.schemes: set[str] | None = None  # image_annotation schemes of the config
        self.skeletons: dict = {}  # skeleton name -> point names
        self.roster: dict = {}  # user id -> kind of a declared machine annotator


def _load_config(path: Path) -> dict:
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            why = "needs PyYAML (pip install pyyaml); or pass the annotation_output folder"
            raise reader_error(path, None, f"reading a YAML config {why} and data_files=") from None
        try:
            with open(path, encoding="utf-8") as fh:
                config = yaml.safe_load(fh)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise reader_error(path, None, f"not a readable YAML config: {exc}") from None
    else:
        config = load_json(check_file(path))
    if not isinstance(config, dict) or "output_annotation_dir" not in config:
        raise reader_error(path, None, "not a Potato config (no 'output_annotation_dir')")
    return config


def _configs_in(folder: Path) -> list[Path]:
    found = []
    for d in (folder, folder / "configs"):
        if d.is_dir():
            found += sorted(
                p for p in d.iterdir() if p.suffix.lower() in (".yaml", ".yml") and p.is_file()
            )
    out = []
    for p in found:
        try:
            _load_config(p)
        except ReaderError:
            continue
        out.append(p)
    return out


def _use_config(proj: _Project, path: Path, *, with_store: bool = True) -> None:
    """The store, data files, schemes and machine annotators a config names (relative
    paths from its ``task_dir``, itself relative to the config's folder, as the server
    resolves them)."""
    config = _load_config(path)
    proj.config = config
    task_dir = config.get("task_dir") or "."
    if not isinstance(task_dir, str):
        raise reader_error(path, "task_dir", f"must be a path, got {task_dir!r}")
    base = (path.parent / task_dir).resolve()

    def where(rel, what):
        if not isinstance(rel, str) or not rel:
            raise reader_error(path, what, f"must be a path, got {rel!r}")
        for root in (base, path.parent.resolve()):
            if (root / rel).exists():
                return root / rel
        raise reader_error(path, what, f"{rel!r} not found (from task_dir {str(base)!r})")

    if with_store:
        out = where(config["output_annotation_dir"], "output_annotation_dir")
        proj.states = _states_in(out)
    files = config.get("data_files") or []
    if not isinstance(files, list):
        raise reader_error(path, "data_files", f"must be a list, got {type(files).__name__}")
    for i, f in enumerate(files):
        f = f.get("path") if isinstance(f, dict) else f
        if f in (None, "null", "default"):
            continue
        proj.data_files.append(where(f, f"data_files[{i}]"))
    props = _section(path, "item_properties", config.get("item_properties"), dict)
    if isinstance(props.get("id_key"), str):
        proj.id_key = props["id_key"]
    schemes = _section(path, "annotation_schemes", config.get("annotation_schemes"), list)
    proj.schemes = set()
    for i, s in enumerate(schemes):
        if isinstance(s, dict) and s.get("annotation_type") == "image_annotation":
            name = s.get("name")
            if not isinstance(name, str) or not name:
                why = f"must be a non-empty string (the scheme's name), got {name!r:.60}"
                raise reader_error(path, f"annotation_schemes[{i}].name", why)
            proj.schemes.add(name)
            at = f"annotation_schemes[{i}].skeletons"
            for name, d in _section(path, at, s.get("skeletons"), dict).items():
                if isinstance(d, dict) and isinstance(d.get("names"), list):
                    proj.skeletons[str(name)] = [str(n) for n in d["names"]]
    block = _section(path, "machine_annotators", config.get("machine_annotators"), dict)
    if block.get("enabled"):
        at = "machine_annotators.annotators"
        for a in _section(path, at, block.get("annotators"), list):
            if isinstance(a, dict) and a.get("id") is not None:
                kind = str(a.get("kind") or "tool").strip().lower()
                proj.roster.setdefault(str(a["id"]).strip(), kind)


def _section(path, where: str, value, kind: type):
    """The config section ``where`` (None: empty), or a ReaderError naming it when it is
    not a ``kind`` (``dict``: a mapping; ``list``)."""
    if value is None:
        return kind()
    if not isinstance(value, kind):
        what = "a mapping" if kind is dict else "a list"
        why = f"must be {what}, got {type(value).__name__}: {value!r:.60}"
        raise reader_error(path, where, why)
    return value


def _exports_in(folder: Path) -> list[Path]:
    """The Potato exports at the top of ``folder`` (``.jsonl``, ``.csv``, ``.tsv`` files
    told by their first line: :func:`~iaa_frames.io.formats.is_potato_export`), in order of
    name; other files (a data file of items, say) are left alone."""
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".") and is_potato_export(p))


def _states_in(folder: Path) -> list[tuple[Path, str]]:
    if (folder / STATE_FILE).is_file():
        return [(folder / STATE_FILE, folder.name)]
    subs = sorted(d for d in folder.iterdir() if d.is_dir() and (d / STATE_FILE).is_file())
    if not subs:
        raise reader_error(
            folder, None, f"no {STATE_FILE} here nor in its subfolders (one per annotator)"
        )
    return [(d / STATE_FILE, d.name) for d in subs]


def _resolve(path_or_paths, data_files, id_key) -> _Project:
    proj = _Project()
    if isinstance(path_or_paths, (list, tuple)):
        if not path_or_paths:
            raise ParameterError("read_potato: no files given")
        for p in path_or_paths:
            p = check_file(p)
            if p.suffix.lower() in (".jsonl", ".csv", ".tsv"):
                proj.exports.append(p)
            else:
                proj.states.append((p, p.parent.name))
    elif isinstance(path_or_paths, (str, os.PathLike)):
        p = Path(path_or_paths)
        if not p.exists():
            raise reader_error(p, None, "no such file or folder")
        suffix = p.suffix.lower()
        if p.is_dir():
            if (p / STATE_FILE).is_file() or any(
                (d / STATE_FILE).is_file() for d in p.iterdir() if d.is_dir()
            ):
                proj.states = _states_in(p)
                parent = [c for c in _configs_in(p.parent) if _names_store(c, p)]
                if len(parent) == 1 and data_files is None:
                    _use_config(proj, parent[0], with_store=False)
            else:
                configs = _configs_in(p)
                exports = [] if configs else _exports_in(p)
                if exports:  # a folder of exports: each of them
                    proj.exports = exports
                elif len(configs) != 1:
                    what = "no Potato config" if not configs else f"{len(configs)} Potato configs"
                    raise reader_error(
                        p,
                        None,
                        f"not a Potato project folder ({what}; expected one config "
                        f"naming output_annotation_dir, {STATE_FILE} files, or exports): "
                        "pass the config file, the annotation_output folder or the export "
                        "files",
                    )
                else:
                    _use_config(proj, configs[0])
        elif suffix in (".yaml", ".yml") or (suffix == ".json" and p.name != STATE_FILE):
            _use_config(proj, check_file(p))
        elif suffix in (".jsonl", ".csv", ".tsv"):
            proj.exports.append(check_file(p))
        else:
            proj.states.append((check_file(p), p.parent.name))
    else:
        raise ParameterError(
            f"expected a path or a list of paths, got {type(path_or_paths).__name__}"
        )
    if data_files is not None:
        files = [data_files] if isinstance(data_files, (str, os.PathLike)) else list(data_files)
        proj.data_files = [check_file(f) for f in files]
    if id_key is not None:
        if not isinstance(id_key, str) or not id_key.strip():
            raise ParameterError(f"id_key must be a non-empty string, got {id_key!r}")
        if not proj.data_files:  # it would change nothing, and say nothing
            raise ParameterError(
                f"id_key {id_key!r} names the item id of the data files, and there are "
                "none: give data_files, or a config that lists them"
            )
        proj.id_key = id_key
    return proj


def _names_store(config: Path, store: Path) -> bool:
    try:
        c = _load_config(config)
        base = (config.parent / (c.get("task_dir") or ".")).resolve()
        return (base / c["output_annotation_dir"]).resolve() == store.resolve()
    except (ReaderError, TypeError, OSError):
        return False


# ------------------------------------------------------------------ the data files


def _size(v):
    """Potato's reading of a size: an integer (or integral text), else unknown."""
    if is_number(v) and math.isfinite(v) and v > 0:
        return float(int(v))
    if isinstance(v, str):  # "²" and "٣" are digits to str.isdigit, not to int()
        text = v.strip()
        if text.isascii() and text.isdigit() and len(text) <= 15 and int(text) > 0:
            return float(int(text))
    return None


def _data_items(path: Path) -> Iterator[tuple[str, object]]:
    """(entry, item record) of a data file: a JSON array, JSON lines, csv or tsv (a
    ReaderError where it is not UTF-8 text)."""
    last = None
    try:
        for entry, record in _data_records(path):
            last = entry
            yield entry, record
    except UnicodeDecodeError as exc:
        where = "before its first record" if last is None else f"after {last}"
        raise _not_utf8(path, where, exc) from None


def _data_records(path: Path) -> Iterator[tuple[str, object]]:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        with open(path, encoding="utf-8-sig", newline="") as fh:
            for i, row in enumerate(
                csv.DictReader(fh, delimiter="," if suffix == ".csv" else "\t")
            ):
                yield f"row {i + 2}", row
        return
    with open(path, encoding="utf-8-sig") as fh:
        head = fh.read(4096).lstrip()
    if suffix == ".json" and head.startswith("["):
        for _kind, _key, i, item in JSONStream(path, top_name="items"):
            yield f"items[{i}]", item
        return
    if suffix not in (".json", ".jsonl"):
        raise reader_error(path, None, "a data file must be .json, .jsonl, .csv or .tsv")
    with open(path, encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                yield f"line {n}", _json_line(path, f"line {n}", line)


def _json_line(path, entry, line):
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise reader_error(path, entry, f"invalid JSON: {str(exc)[:200]}") from None


def _sizes(proj: _Project, b: FrameBuilder) -> dict:
    """{item: (width, height)} of the data files; a size that cannot be read is counted."""
    sizes = {}
    for path in proj.data_files:
        for entry, item in _data_items(path):
            if not isinstance(item, dict) or proj.id_key not in item:
                raise reader_error(path, entry, f"an item must be an object with {proj.id_key!r}")
            iid = str(item[proj.id_key])
            wh = []
            for keys in _SIZE_KEYS:
                key = next((k for k in keys if k in item), None)
                wh.append(None if key is None else _size(item[key]))
                if key is not None and wh[-1] is None:
                    b.drop(path, entry, "unreadable_size",
                           f"{key}={item[key]!r} is not a positive integer", item=iid)  # fmt: skip
            if wh[0] and wh[1]:
                sizes[iid] = (wh[0], wh[1])
    return sizes


# ------------------------------------------------------------------ the records

# a record: (file, entry, item, annotator, rater kind, time or None, labels, form)
# labels: user_state's [[{schema, name}, value], ...] ("pairs"), the jsonl export's
# {schema: {name: value}} ("nested") or the csv export's {"schema.name": value} ("flat")


def _kind_of(origin, declared=None) -> str:
    """Potato's reading of an origin: absent or ``{}`` a person (unless the config declares
    the user a machine), a mapping its ``kind``, anything else an undeclared machine."""
    if origin is None or origin == {} or origin == "":
        return declared or "human"
    if isinstance(origin, str):
        return origin.strip().lower() or "human"
    if isinstance(origin, dict):
        kind = origin.get("kind")
        return kind.strip().lower() if isinstance(kind, str) and kind.strip() else "tool"
    return "tool"


def _last_time(bd) -> float | None:
    """The time of an item's last annotation change, else of the end (start) of its
    session, in Unix seconds."""
    if not isinstance(bd, dict):
        return None
    changes = bd.get("annotation_changes")
    stamps = [
        c["timestamp"]
        for c in (changes if isinstance(changes, list) else [])
        if isinstance(c, dict) and is_number(c.get("timestamp")) and math.isfinite(c["timestamp"])
    ]
    if stamps:
        return float(max(stamps))
    for key in ("session_end", "session_start"):
        v = bd.get(key)
        if is_number(v) and math.isfinite(v) and v > 0:
            return float(v)
    return None


def _state_records(path: Path, folder: str, proj: _Project):
    stream = JSONStream(path)
    keep = {}
    origin = None
    for _kind, key, _i, value in stream:
        if stream.top != "object":
            raise reader_error(path, None, f"not a Potato {STATE_FILE}: expected a JSON object")
        if key in _STATE_KEYS:
            keep[key] = value
        elif key == "origin":
            origin = value
    if stream.top is None:
        keep = {}
    user = keep.get("user_id", folder)
    if not isinstance(user, str) or not user:
        user = folder
    labels = keep.get("instance_id_to_label_to_value")
    if labels is None:
        raise reader_error(
            path, None, f"not a Potato {STATE_FILE}: no instance_id_to_label_to_value"
        )
    if not isinstance(labels, dict):
        raise reader_error(path, "instance_id_to_label_to_value", "must be a JSON object")
    behavior = keep.get("instance_id_to_behavioral_data") or {}
    if not isinstance(behavior, dict):
        raise reader_error(path, "instance_id_to_behavioral_data", "must be a JSON object")
    kind = _kind_of(origin, proj.roster.get(user))
    for item, value in labels.items():
        entry = f"instance_id_to_label_to_value[{item!r}]"
        yield path, entry, item, user, kind, _last_time(behavior.get(item)), value, "pairs"


def _not_utf8(path: Path, after: str, exc: UnicodeDecodeError):
    """The ReaderError of an export that is not UTF-8 text (read a block at a time: the
    bad byte lies after the last line or row read)."""
    return reader_error(
        path,
        after,
        f"the file is not UTF-8 text ({exc.reason}, byte "
        f"{exc.object[exc.start : exc.start + 1]!r}): save the export as UTF-8",
    )


def _export_records(path: Path):
    if path.suffix.lower() == ".jsonl":
        with open(path, encoding="utf-8-sig") as fh:
            n = 0
            try:
                for n, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    entry = f"line {n}"
                    rec = _json_line(path, entry, line)
                    if not isinstance(rec, dict):
                        raise reader_error(path, entry, "a record must be a JSON object")
                    item, user = rec.get("instance_id"), rec.get("user_id")
                    if not isinstance(item, str) or not isinstance(user, str) or not user:
                        raise reader_error(path, entry, "instance_id and user_id must be strings")
                    kind, labels = _kind_of(rec.get("annotator_origin")), rec.get("labels")
                    entry = f"{entry} ({item!r}, {user!r})"
                    yield path, entry, item, user, kind, None, labels, "nested"
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, f"after line {n}", exc) from None
        return
    limit = csv.field_size_limit()
    csv.field_size_limit(_MAX_CSV_FIELD)
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            try:
                if not {"instance_id", "user_id"} <= set(reader.fieldnames or ()):
                    raise reader_error(
                        path, "header", "a Potato csv export has instance_id and user_id"
                    )
                for n, row in enumerate(reader, 2):
                    item, user = row["instance_id"], row["user_id"]
                    if not user:
                        raise reader_error(path, f"row {n}", "user_id is empty")
                    kind = _kind_of(row.get("annotator_origin"))
                    yield path, f"row {n} ({item!r}, {user!r})", item, user, kind, None, row, "flat"
            except csv.Error as exc:
                raise reader_error(
                    path, f"row {reader.line_num}", f"not a valid csv: {exc}"
                ) from None
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, f"after line {reader.line_num}", exc) from None
    finally:
        csv.field_size_limit(limit)


def _records(proj: _Project):
    for path, folder in proj.states:
        yield from _state_records(path, folder, proj)
    for path in proj.exports:
        yield from _export_records(path)


def _by_schema(path, entry, labels, form) -> dict:
    """``{schema: {name: value}}`` of one record's labels."""
    out: dict = {}
    if form == "flat":
        for col, value in labels.items():
            if col and col.endswith("._data") and value not in (None, ""):
                out.setdefault(col[: -len("._data")], {})["_data"] = value
        return out
    if form == "pairs" and isinstance(labels, list):
        for k, pair in enumerate(labels):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], dict)):
                raise reader_error(path, f"{entry}[{k}]", "must be a pair [{schema, name}, value]")
            schema, name = pair[0].get("schema"), pair[0].get("name")
            if not isinstance(schema, str) or not isinstance(name, str):
                raise reader_error(path, f"{entry}[{k}]", "schema and name must be strings")
            out.setdefault(schema, {})[name] = pair[1]
        return out
    if isinstance(labels, dict):  # the nested form (jsonl, and older stores)
        for schema, values in labels.items():
            if not isinstance(values, dict):
                raise reader_error(path, f"{entry} (schema {schema!r})", "must be a JSON object")
            out[schema] = values
        return out
    raise reader_error(
        path, entry, f"labels must be a list of pairs or an object, got {labels!r:.80}"
    )


def _shapes(path, entry, value):
    """The list of shapes of a ``_data`` value (a JSON string, or already a list)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise reader_error(path, entry, f"_data is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(value, list):
        raise reader_error(
            path, entry, f"_data must hold a list of shapes, got {type(value).__name__}"
        )
    return value


def _geometry_schemas(values: dict, proj: _Project) -> list[str]:
    if proj.schemes is not None:
        return [s for s in values if s in proj.schemes]
    out = []
    for s, v in values.items():
        data = v.get("_data")
        if isinstance(data, list) or (isinstance(data, str) and data.lstrip().startswith("[")):
            out.append(s)
    return out


# ------------------------------------------------------------------ the reader


def read_potato(
    path,
    *,
    schema: str | None = None,
    data_files=None,
    id_key: str | None = None,
    on_invalid: str = "raise",
    return_dropped: bool = False,
    max_mask_pixels: int = MAX_MASK_PIXELS,
):
    """Read the image annotations of a Potato project.

    Parameters
    ----------
    path : path or list of paths
        A project folder (holding one config, ``*.yaml`` at its top or in ``configs/``,
        whose ``output_annotation_dir`` and ``data_files`` are read, relative to its
        ``task_dir``), a config file, the ``annotation_output`` folder (one subfolder per
        annotator; a config in its parent that names it is read for the data files), one
        annotator's folder or ``user_state.json``, a jsonl export (``annotations.jsonl``) or
        a csv / tsv export, a folder of such exports (the files its first lines tell as
        exports; others, such as a data file of items, are left alone), or a list of such
        files.
    schema : str, optional
        The ``image_annotation`` scheme to read. By default the one the annotations hold
        (the config's ``image_annotation`` schemes; without a config, every scheme whose
        ``_data`` is a list of shapes); several need ``schema=``.
    data_files : path or list of paths, optional
        The data files giving the image sizes (instead of the config's): ``.json`` (an
        array or JSON lines), ``.jsonl``, ``.csv`` or ``.tsv``.
    id_key : str, optional
        The item id of the data files (the config's ``item_properties.id_key``, else
        ``"id"``); a ParameterError where there are no data files.
    on_invalid : {"raise", "drop"}, default "raise"
        Unreadable entries and unusable shapes: raise a ReaderError naming file, entry and
        shape, or drop them with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.
    max_mask_pixels : int, default 100,000,000
        The largest mask decoded (height x width of its ``rle.size``), checked before
        anything is allocated.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. ``item`` is Potato's instance id, ``annotator`` the
        ``user_id`` (else the folder's name). Every shape type becomes a row
        (:mod:`iaa_frames.io.potato_shapes`): boxes, polygons (ellipses as 64-vertex
        polygons, freeform paths as the polygon of their points), ``cuboid_2d`` as the kind
        ``cuboid_2d`` (front and back faces, compared by their faces:
        :mod:`iaa_frames.geometry.kinds.cuboid2d`), polylines, landmarks (``point``), keypoint sets (keypoints kind; joint names
        from the config's ``skeletons``, else ``0, 1, ...``) and masks, decoded row-major
        into the exact polygon of their pixels (``mask_width``, ``mask_height`` and
        ``iscrowd`` kept). Coordinates are pixels when the item's size is known: from the
        data file, else from the first mask drawn on it (``rle.size``, as Potato does);
        otherwise they stay fractions and ``width = height = 1`` (the image is the unit
        square). Coordinates up to one image size past an edge are kept as written (not
        clipped); a shape reaching farther out (``x: 10``: pixels where fractions belong)
        is a ReaderError, or with ``on_invalid="drop"`` a counted drop. ``"[]"`` (saved, nothing drawn) is a coverage row. Extra columns:
        ``source`` and ``confidence`` (provenance, when present), one column per
        attribute (``attr_<name>`` when the name is taken), listed in
        ``attrs["iaa_attributes"]``; ``time``, the UTC time of the annotator's last
        change to the item (else the end of their session on it; NaT when unrecorded, as
        in the exports) for :func:`iaa_frames.agreement_over_time`; ``rater_origin``,
        Potato's kind of rater, ``"human"``, ``"tool"`` or ``"llm"`` (the state's
        ``origin``, else the config's ``machine_annotators``, else human); and
        ``rater_kind``, ``"human"`` or ``"machine"`` (a tool or an LLM), the vocabulary of
        every reader, to compare humans with machines
        (``rater_kind_agreement(df, kinds="rater_origin")`` tells tools from LLMs).

    Raises
    ------
    ReaderError
        Missing or malformed files, a ``_data`` value that is not a JSON list, shapes of
        the wrong types or more than an image size past its edge, masks whose size is not two positive integers, exceeds
        ``max_mask_pixels`` or disagrees with their run lengths, several schemes without
        ``schema=`` or a ``schema=`` that no record holds (the error's ``schemes``
        attribute names those they hold); the message names the file, the entry (the
        item) and the shape.

    Notes
    -----
    Labels of other schemes (``other_schema``), shape types Potato does not draw
    (``unsupported_shape``), empty masks, degenerate shapes and unreadable sizes in the
    data files are counted and reported in a DroppedRowsWarning. Each file is decoded one
    top-level key (``user_state.json``) or one line or row (exports) at a time; only the
    keys read are kept.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> shapes = [{"type": "bbox", "label": "car", "attributes": {"occluded": True},
    ...            "coordinates": {"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}}]
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "annotation_output"
    >>> for user, data in [("ana", json.dumps(shapes)), ("ben", "[]")]:
    ...     (out / user).mkdir(parents=True)
    ...     state = {"user_id": user, "instance_id_to_label_to_value": {
    ...         "img1": [[{"schema": "objects", "name": "_data"}, data]]}}
    ...     _ = (out / user / "user_state.json").write_text(json.dumps(state))
    >>> sizes = out.parent / "data.jsonl"
    >>> _ = sizes.write_text(json.dumps({"id": "img1", "width": 200, "height": 100}))
    >>> df = read_potato(out, data_files=sizes)
    >>> df[["item", "annotator", "label", "x0", "y0", "x1", "y1", "occluded"]]
       item annotator label    x0    y0    x1    y1  occluded
    0  img1       ana   car  20.0  20.0  80.0  60.0      True
    1  img1       ben   NaN   NaN   NaN   NaN   NaN      <NA>
    """
    if schema is not None and not isinstance(schema, str):
        raise ParameterError(f"schema must be a string, got {schema!r}")
    if type(max_mask_pixels) is not int or max_mask_pixels <= 0:
        raise ParameterError(f"max_mask_pixels must be a positive integer, got {max_mask_pixels!r}")
    proj = _resolve(path, data_files, id_key)
    b = FrameBuilder("potato", on_invalid=on_invalid)
    sizes = _sizes(proj, b)
    taken = frozenset(
        FRAME_COLUMNS | _OWN_COLUMNS | {c for k in available_kinds() for c in get_kind(k).columns}
    )
    state = _State(proj, b, schema, sizes, taken, max_mask_pixels)
    state.mask_sizes()
    for rec in _records(proj):
        state.record(*rec)
    state.check_schema(path)
    frame = finish(b, on_invalid=on_invalid, return_dropped=return_dropped)
    dropped = None
    if return_dropped:
        frame, dropped = frame
    frame = state.columns(frame)
    return (frame, dropped) if return_dropped else frame


class _State:
    """What reading one project keeps: the sizes, the schema, times and rater kinds."""

    def __init__(self, proj, b, schema, sizes, taken, max_mask_pixels):
        self.proj, self.b, self.schema, self.sizes = proj, b, schema, sizes
        self.taken, self.max_mask_pixels = taken, max_mask_pixels
        self.seen: set = set()  # the geometry schemas met
        self.held: set = set()  # with ``schema``: every scheme the records hold
        self.times: dict = {}
        self.kinds: dict = {}
        self.files: dict = {}
        self.records: dict = {}  # (item, user) -> (file, entry) of the record read

    def _schemas(self, path, entry, labels, form):
        values = _by_schema(path, entry, labels, form)
        if self.schema is not None:
            self.held.update(values)
            return values, [self.schema] if self.schema in values else []
        found = _geometry_schemas(values, self.proj)
        self.seen.update(found)
        if len(self.seen) > 1:
            why = f"several image_annotation schemes ({', '.join(sorted(self.seen))}): "
            err = reader_error(path, entry, why + SCHEMA_HINT)
            err.fatal = True
            err.schemes = tuple(sorted(self.seen))  # for callers that reword SCHEMA_HINT
            raise err
        return values, found

    def check_schema(self, path) -> None:
        """A ReaderError when ``schema`` names a scheme no record holds (a typo would
        otherwise give an empty frame, every record dropped as ``other_schema``); its
        ``schemes`` attribute holds the geometry schemes the records do hold."""
        if self.schema is None or self.schema in self.held or not self.held:
            return
        # the config's image_annotation schemes among them, else every one
        schemes = tuple(sorted((self.held & (self.proj.schemes or set())) or self.held))
        err = reader_error(
            path,
            None,
            f"no record holds the scheme {self.schema!r}; they hold "
            f"{', '.join(map(repr, schemes))}: {SCHEMA_HINT}",
        )
        err.schemes = schemes
        raise err

    def mask_sizes(self) -> None:
        """The size of items the data files do not describe: their first mask's."""
        for path, entry, item, _user, _kind, _t, labels, form in _records(self.proj):
            if item in self.sizes or '"mask"' not in str(labels):
                continue
            try:
                values, found = self._schemas(path, entry, labels, form)
                for s in found:
                    for shape in _shapes(path, entry, values[s].get("_data", "[]")):
                        size = mask_size(shape)
                        if size is not None:
                            self.sizes[item] = tuple(map(float, size))
                            break
            except ENTRY_ERRORS:
                continue  # reported by the second pass
        self.seen = set()

    def record(self, path, entry, item, user, kind, time, labels, form) -> None:
        b = self.b
        if path not in self.files:
            self.files[path] = b.add_file(path)
        f = self.files[path]
        self.kinds.setdefault(user, kind)
        try:
            first = self.records.setdefault((item, user), (path, entry))
            if first != (path, entry):
                where = "" if first[0] == path else f" of {first[0]}"
                raise reader_error(
                    path,
                    entry,
                    f"the user {user!r} has a record of the item {item!r} already, "
                    f"{first[1]}{where}: one annotator's work on an item is one record, "
                    "read twice it would count as agreement with itself",
                )
            values, found = self._schemas(path, entry, labels, form)
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, entry, item=item, annotator=user, record=labels)
            return
        for s in values:
            if s not in found:
                b.drop(path, f"{entry} (schema {s!r})", "other_schema",
                       f"the scheme {s!r} is not the image_annotation read", item=item, annotator=user)  # fmt: skip
        for s in found:
            where = f"{entry} (schema {s!r})"
            size = self.sizes.get(item)
            w, h = size if size else (1.0, 1.0)
            place = Place(path, where, item, user, w, h, size is not None, f, self.proj.skeletons,
                          self.taken, self.max_mask_pixels)  # fmt: skip
            try:
                shapes = _shapes(path, where, values[s].get("_data"))
            except ENTRY_ERRORS as exc:
                b.entry_failed(exc, path, where, item=item, annotator=user, record=values[s])
                continue
            b.cover(item, user, width=w, height=h, file_idx=f, entry=where)
            if time is not None:
                self.times[(item, user)] = time
            for k, shape in enumerate(shapes):
                try:
                    add_shape(b, place, k, shape)
                except ENTRY_ERRORS as exc:
                    e = f"{where}: shapes[{k}]"
                    b.entry_failed(exc, path, e, item=item, annotator=user, record=shape)
            for col in self._attribute_columns(shapes):
                b.attributes[col] = None

    def _attribute_columns(self, shapes):
        for shape in shapes:
            if isinstance(shape, dict) and isinstance(shape.get("attributes"), dict):
                for name in shape["attributes"]:
                    yield f"attr_{name}" if name in self.taken else name

    def columns(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``time``, ``rater_origin`` and ``rater_kind`` on every row, coverage rows
        included."""
        keys = zip(frame["item"].to_numpy(), frame["annotator"].to_numpy(), strict=True)
        seconds = np.array([self.times.get(k, np.nan) for k in keys], dtype=np.float64)
        attrs = frame.attrs
        origin = frame["annotator"].map(self.kinds)
        frame = frame.assign(
            time=pd.to_datetime(seconds, unit="s", utc=True),
            rater_origin=pd.array(origin.to_numpy(), dtype="str"),
            rater_kind=pd.array(
                origin.where(origin.isna() | (origin == "human"), "machine").to_numpy(),
                dtype="str",
            ),
        )
        frame.attrs = attrs
        return frame
