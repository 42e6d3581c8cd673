"""Reader for Supervisely point-cloud annotations (``cuboid_3d`` figures), also exported by
CVAT as "Sly Point Cloud Format 1.0".

A Supervisely point-cloud project holds, per dataset, one annotation file per point cloud,
``<dataset>/ann/<name>.pcd.json``::

    {"description": "", "key": "...", "tags": [],
     "objects": [{"key": "o1", "classTitle": "car", "tags": []}],
     "figures": [{"key": "f1", "objectKey": "o1", "geometryType": "cuboid_3d",
                  "labelerLogin": "ana",
                  "geometry": {"position": {"x": 1.0, "y": 2.0, "z": 0.5},
                               "rotation": {"x": 0.0, "y": 0.0, "z": 0.3},
                               "dimensions": {"x": 4.0, "y": 1.8, "z": 1.5}}}]}

``position`` is the centre (metres), ``dimensions`` the size along the cuboid's own x, y,
z axes and ``rotation`` the angles about x, y and z in radians. The cuboid kind
(:mod:`iaa_frames.geometry.kinds.cuboid`) takes them as length, width, height and roll,
pitch, yaw, rotated as ``Rz(yaw) Ry(pitch) Rx(roll)``: exact for the usual rotation about
z alone; Supervisely's documentation does not state the order of combined rotations. The
item is the point cloud's name (``<dataset>/<name>.pcd``), the label the object's
``classTitle``, the annotator the figure's ``labelerLogin`` unless ``annotator=`` names
one, and the object's key is kept as ``object_key`` (the track across frames). Figures of
other geometry types are skipped and reported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from iaa_frames.errors import ParameterError

from .builder import FrameBuilder, finish
from .paths import as_path, reader_error
from .values import number

__all__ = ["read_supervisely_pointcloud"]


def _files(path) -> list[tuple[Path, str]]:
    """(annotation file, item) of a file, a dataset folder or a project folder."""
    p = as_path(path, "a file or folder path")
    if not p.exists():
        raise reader_error(p, None, "no such file or folder")
    if p.is_file():
        return [(p, p.name.removesuffix(".json"))]
    out = []
    for f in sorted(p.rglob("*.json")):
        if f.parent.name == "ann":
            dataset = f.parent.parent.relative_to(p).as_posix()
            name = f.name.removesuffix(".json")
            out.append((f, name if dataset == "." else f"{dataset}/{name}"))
    if not out:
        raise reader_error(p, None, "no point-cloud annotation files (ann/*.json)")
    return out


def read_supervisely_pointcloud(
    path, *, annotator: str | None = None, on_invalid: str = "raise", return_dropped: bool = False
):
    """Read Supervisely point-cloud annotations (cuboids) into the tidy frame.

    Parameters
    ----------
    path : path or mapping {annotator: path}
        An annotation file, a dataset or project folder (its ``ann/*.json`` files), or a
        mapping of annotators to those.
    annotator : str, optional
        The annotator of every figure; by default each figure's ``labelerLogin``.
    on_invalid : {"raise", "drop"}, default "raise"
    return_dropped : bool, default False

    Returns
    -------
    pandas.DataFrame
        Cuboid rows; coverage rows for point clouds an annotator left empty (known only
        with a named annotator).

    Raises
    ------
    ReaderError
        For a file that is not JSON (or nested too deeply, or an object writing one key
        twice) or a figure that is not a cuboid (naming the file and the figure), a figure
        without an annotator, a coordinate that is not a JSON number (a string, a
        boolean), two objects or two figures of one ``key``, two cuboids of one object by
        one annotator in one point cloud (with ``on_invalid="drop"``: the later one is
        dropped and counted).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "scene.pcd.json"
    >>> g = {"position": {"x": 1, "y": 2, "z": 0.5}, "rotation": {"x": 0, "y": 0, "z": 0.3},
    ...      "dimensions": {"x": 4, "y": 1.8, "z": 1.5}}
    >>> _ = f.write_text(json.dumps({"objects": [{"key": "o1", "classTitle": "car"}],
    ...     "figures": [{"key": "f1", "objectKey": "o1", "geometryType": "cuboid_3d",
    ...                  "labelerLogin": "ana", "geometry": g}]}))
    >>> read_supervisely_pointcloud(f)[["item", "annotator", "label", "cuboid_yaw"]].values.tolist()
    [['scene.pcd', 'ana', 'car', 0.3]]
    """
    if isinstance(path, Mapping):
        if annotator is not None:
            raise ParameterError("pass annotator names either as mapping keys or annotator=")
        sources = [(str(a), p) for a, p in path.items()]
    elif isinstance(path, (str, os.PathLike)):
        sources = [(annotator, path)]
    else:
        raise ParameterError(f"read_supervisely_pointcloud needs a path; got {path!r}")
    builder = FrameBuilder("supervisely_pointcloud", on_invalid=on_invalid)
    for name, src in sources:
        for file, item in _files(src):
            _read_file(builder, file, item, name)
    return finish(builder, on_invalid=on_invalid, return_dropped=return_dropped)


def _unique_keys(pairs):
    """A JSON object whose members have distinct names (``json`` keeps the last of two
    silently: a second ``classTitle`` would replace the first unseen)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        values = [v for k, v in pairs if k == twice]
        raise _DuplicateKey(
            f"an object writes the key {twice!r} {len(values)} times "
            f"({', '.join(f'{v!r:.40}' for v in values)}): JSON would keep only the last; "
            "keep one in the file"
        )
    return out


class _DuplicateKey(Exception):
    pass


def _load(file: Path):
    try:
        return json.loads(file.read_text(encoding="utf-8-sig"), object_pairs_hook=_unique_keys)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise reader_error(file, None, f"not a JSON annotation file ({exc})") from None
    except RecursionError:
        raise reader_error(file, None, "JSON nested too deeply") from None
    except _DuplicateKey as exc:
        raise reader_error(file, None, str(exc)) from None
    except ValueError as exc:  # an integer of over 4,300 digits (int()'s limit)
        raise reader_error(file, None, f"a number too large to read ({str(exc)[:80]}...)") from None


def _read_file(builder, file: Path, item: str, annotator):
    data = _load(file)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("figures", []), list)
        or not isinstance(data.get("objects", []), list)
    ):
        raise reader_error(file, None, "expected an object with lists of 'figures' and 'objects'")
    objects: dict = {}  # keys are strings (a list or dict would not hash)
    for j, o in enumerate(data.get("objects", [])):
        if not (isinstance(o, dict) and isinstance(o.get("key"), str)):
            continue
        if o["key"] in objects:
            why = (
                f"the object key {o['key']!r} is also an earlier object's: its figures "
                "would belong to either (the first is kept with on_invalid='drop')"
            )
            exc = reader_error(file, f"objects[{j}]", why)
            builder.entry_failed(exc, file, f"objects[{j}]", item=item, record=o)
            continue
        objects[o["key"]] = o
    f = builder.add_file(file, lambda e: f"figures[{e}]")
    if annotator is not None:
        builder.cover(item, annotator, file_idx=f)
    figure_keys: set = set()
    drawn: dict = {}  # (annotator, object key) -> the figure that drew it
    for k, fig in enumerate(data.get("figures", [])):
        entry = f"figures[{k}]"
        if not isinstance(fig, dict):
            raise reader_error(file, entry, "a figure must be an object")
        fkey = fig.get("key")
        if isinstance(fkey, str) and fkey in figure_keys:
            why = (
                f"the figure key {fkey!r} is also an earlier figure's: one figure written "
                "twice would count twice (the first is kept with on_invalid='drop')"
            )
            builder.entry_failed(reader_error(file, entry, why), file, entry, item=item, record=fig)
            continue
        if isinstance(fkey, str):
            figure_keys.add(fkey)
        if fig.get("geometryType", "cuboid_3d") != "cuboid_3d":
            why = f"geometryType {fig.get('geometryType')!r}"
            builder.drop(file, entry, "unsupported_shape", why, item=item, record=fig)
            continue
        who = annotator if annotator is not None else fig.get("labelerLogin")
        if not isinstance(who, str) or not who:
            raise reader_error(
                file, entry, "no labelerLogin: pass annotator= to name the annotator"
            )
        key = fig.get("objectKey")
        obj = objects.get(key) if isinstance(key, str) else None
        if obj is None:
            raise reader_error(
                file, entry, f"objectKey {fig.get('objectKey')!r} is no object of the file"
            )
        builder.cover(item, who, file_idx=f)
        label = obj.get("classTitle")
        if not isinstance(label, str) or not label:
            raise reader_error(
                file,
                entry,
                f"the object {obj.get('key')!r} has no classTitle (a non-empty string), "
                f"got {label!r}",
            )
        g = fig.get("geometry")
        try:
            pos, rot, dim = (
                [number(file, entry, g[part][axis], f"geometry.{part}.{axis}") for axis in "xyz"]
                for part in ("position", "rotation", "dimensions")
            )
        except (TypeError, KeyError, OverflowError):
            why = "geometry needs position, rotation and dimensions, each with numbers x, y, z"
            raise reader_error(file, entry, why) from None
        earlier = drawn.get((who, key))
        if earlier is not None:
            why = (
                f"the object {key!r} of {who!r} has a cuboid already (figures[{earlier}]): "
                "an object (a track across frames) is one cuboid per point cloud (the first "
                "is kept with on_invalid='drop')"
            )
            builder.entry_failed(reader_error(file, entry, why), file, entry, item=item, record=fig)
            continue
        drawn[(who, key)] = k
        params, extras = [*pos, *dim, rot[2], rot[1], rot[0]], {"object_key": str(obj.get("key"))}
        builder.add_shape(item, who, label, "cuboid", params, file_idx=f, entry=k, extras=extras)
