# Over 400 lines: one format; its layouts (files, item folders, one export or one per
# annotator, slots) share the shape parsing; about 120 lines are documentation.
"""Reader for V7 Darwin JSON 2.0 (one file per item).

The annotation types read, by the key that holds their data (as V7's own parser reads
them: darwin-py, ``_parse_darwin_annotation`` in ``darwin/utils/utils.py``): ``polygon``
(``paths``, or 1.0's ``path``) and ``complex_polygon``, ``bounding_box`` (``x, y, w, h``),
``line`` (``{"path": [{"x", "y"}, ...]}``, an open line: the kind ``polyline``) and
``keypoint`` (``{"x", "y"}``, one landmark: the kind ``point``).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import shapely

from iaa_frames.errors import AnnotatorNameWarning, ParameterError, ReaderError
from iaa_frames.frame.tangles import MAX_CROSSINGS, crossings
from iaa_frames.geometry.kinds import POINT, POLYLINE, polyline_params

from .builder import FrameBuilder, finish
from .item_keys import ItemKeys
from .json_stream import load_json
from .paths import ENTRY_ERRORS, check_file, entry_error, reader_error
from .values import is_number, json_list, json_object, size_value

__all__ = ["read_darwin"]

_SHAPES = ("polygon", "complex_polygon", "bounding_box", "line", "keypoint")
_OTHER = ("tag", "ellipse", "skeleton", "mask", "raster_layer", "cuboid")
_OTHER += ("directional_vector", "string", "text", "attributes", "instance_id")


def _sources(path_or_dir, annotator):
    """[(file, annotator from the argument or layout or None, name of the export)]."""
    if isinstance(path_or_dir, Mapping):
        if annotator is not None:
            raise ParameterError(
                "pass annotator names either as mapping keys or as annotator=, not both"
            )
        out = []
        for ann, p in path_or_dir.items():
            out += [(f, ann, ann) for f, _, _ in _sources(p, None)]
        return out
    if not isinstance(path_or_dir, (str, os.PathLike)):
        raise ParameterError(
            f"expected a path or a mapping {{annotator: path}}, got {type(path_or_dir).__name__}"
        )
    p = Path(path_or_dir)
    if p.is_dir():
        files = sorted(q for q in p.iterdir() if q.is_file() and q.suffix.lower() == ".json")
        subdirs = sorted(q for q in p.iterdir() if q.is_dir() and not q.name.startswith("."))
        folders = [] if files else [d for d in subdirs if _item_folder(d, p)]
        if files or (folders and folders == subdirs):  # one export, its items' folders
            return [(f, annotator, p.resolve().name) for f in _json_files(p)]
        if folders:
            names = ", ".join(d.name for d in folders[:5])
            others = ", ".join(d.name for d in subdirs if d not in folders)
            raise reader_error(
                p,
                None,
                f"the subfolders {names} hold the items of V7 folders of those names "
                f"(item.path), the subfolders {others} do not: one export, or a folder of "
                "annotators' exports? Pass a mapping {annotator: directory}, or one export",
            )
        if subdirs:  # a parent directory whose subdirectories are the annotators
            out = []
            for d in subdirs:
                sub = _json_files(d)
                if not sub:
                    raise reader_error(d, None, "no .json files for annotator " + repr(d.name))
                out += [(f, annotator if annotator is not None else d.name, d.name) for f in sub]
            return out
        raise reader_error(p, None, "no .json files and no annotator subdirectories")
    return [(check_file(p), annotator, p.stem)]


def _json_files(d: Path) -> list[Path]:
    """The ``.json`` files of an export, in its subfolders too (V7 writes the items of a
    folder under that folder; darwin-py reads ``**/*.json``), except in hidden folders
    (``.v7/``, V7's metadata)."""
    return sorted(
        q
        for q in d.rglob("*.json")
        if q.is_file() and not any(part.startswith(".") for part in q.relative_to(d).parts)
    )


def _item_folder(d: Path, root: Path) -> bool:
    """Whether the subfolder ``d`` of ``root`` is the folder of V7 items (its first file's
    ``item.path`` is ``/<d's path in root>``) rather than an annotator's export."""
    first = next(iter(_json_files(d)), None)
    if first is None:
        return False
    try:
        doc = load_json(check_file(first))
    except ReaderError:
        return False  # read (and reported) as the files of an annotator
    item = doc.get("item") if isinstance(doc, dict) else None
    folder = item.get("path") if isinstance(item, dict) else None
    return (
        isinstance(folder, str) and folder.strip("/") == first.parent.relative_to(root).as_posix()
    )


def _points(path, entry, pts, name, *, closed=True):
    """The flat ``[x0, y0, x1, y1, ...]`` of a list of ``{x, y}`` points; a closed path
    (a polygon's) loses a last point that repeats the first."""
    if not isinstance(pts, list):
        raise reader_error(
            path, entry, f"{name} must be a list of {{x, y}} points, got {type(pts).__name__}"
        )
    ring = []
    for pt in pts:
        if not isinstance(pt, dict) or not is_number(pt.get("x")) or not is_number(pt.get("y")):
            raise reader_error(path, entry, f"{name} holds {pt!r}, not a point {{x, y}}")
        ring += [float(pt["x"]), float(pt["y"])]
    if not all(math.isfinite(v) for v in ring):
        raise reader_error(path, entry, f"{name} holds a non-finite coordinate")
    if closed and len(ring) >= 4 and ring[:2] == ring[-2:]:
        ring = ring[:-2]
    return ring


def _even_odd(path, entry, rings, names):
    """Several paths of one polygon, filled with the even-odd rule: a path inside another
    is a hole, disjoint paths are separate parts. A path that crosses itself is repaired
    with :func:`shapely.make_valid`, unless it crosses itself
    :data:`~iaa_frames.frame.tangles.MAX_CROSSINGS` times or more (vertices out of order,
    which GEOS takes minutes to repair): a ReaderError naming it (``names``: each ring's
    name), as ``validate`` refuses such a polygon of one path (``tangled_polygon``)."""
    polys = np.array([shapely.Polygon(np.reshape(r, (-1, 2))) for r in rings], dtype=object)
    bad = np.flatnonzero(~shapely.is_valid(polys))
    if len(bad):
        tangled = crossings(polys[bad]) >= MAX_CROSSINGS
        if tangled.any():
            name = names[int(bad[np.argmax(tangled)])]
            why = (
                f"{name}'s outline crosses itself {MAX_CROSSINGS} times or more (its vertices "
                "out of order, not a drawn shape); repairing it would take minutes"
            )
            raise reader_error(path, entry, why)
        polys[bad] = shapely.make_valid(polys[bad])
    # pairwise, in rounds: the even-odd rule is associative, and one path at a time
    # would redo the growing result per path (4,000 paths: 36 s instead of 0.1 s)
    while len(polys) > 1:
        odd = polys[-1:] if len(polys) % 2 else polys[:0]
        polys = np.concatenate([shapely.symmetric_difference(polys[:-1:2], polys[1::2]), odd])
    return polys[0]


def _people(ann):
    out = []
    for p in ann.get("annotators") or []:
        if isinstance(p, dict):
            v = p.get("email") or p.get("full_name")
            if isinstance(v, str) and v:
                out.append(v)
    return out


def _annotator_of(ann):
    people = ann.get("annotators")
    if isinstance(people, list) and people:
        p = people[0]
        if isinstance(p, dict):
            for key in ("email", "full_name"):
                if isinstance(p.get(key), str) and p[key]:
                    return p[key]
    return None


def read_darwin(
    path_or_dir,
    *,
    annotator=None,
    item_key="name",
    on_invalid: str = "raise",
    return_dropped: bool = False,
):
    """Read V7 Darwin JSON 2.0 exports.

    Parameters
    ----------
    path_or_dir : path, directory, or mapping {annotator: path or directory}
        One Darwin JSON file (one item), a directory of them (one export, read with its
        subfolders as darwin-py reads one: V7 writes the items of a folder under that
        folder; hidden folders such as ``.v7/`` are not read), a parent directory whose
        subdirectories are the exports of each annotator, or a mapping. A directory with
        no ``.json`` file of its own whose subfolders hold the items of V7 folders of
        their names (``item.path``) is one export, not a folder of annotators.
    annotator : str, optional
        The annotator of every file read (see Returns for the default).
    item_key : {"name", "stem", "path"} or callable, default "name"
        How the item (``item.path`` + ``item.name``) becomes the ``item`` (see
        :mod:`iaa_frames.io.item_keys`): by default its base name, ``item.name``, as other
        tools name the image.

    on_invalid : {"raise", "drop"}, default "raise"
        Unusable shapes (zero area, ...): raise a ReaderError naming file and annotation, or
        drop them with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. ``item``: see ``item_key`` (the source is ``item.name``
        with ``item.path`` prefixed when it is not ``/``); ``width``/``height`` come from
        ``item.slots[0]``. The annotator is ``annotator=``, the mapping key or the
        subdirectory when given (then the ``annotators`` recorded in the file are kept in
        an ``annotators`` column); otherwise the first of each annotation's ``annotators``
        (``email``, else ``full_name``); where the export records no annotator (V7 writes
        ``annotators`` only on request), it is one name for the whole export, never one per
        file: the directory's name (or, for one file, its stem), with an
        :class:`~iaa_frames.errors.AnnotatorNameWarning` that says which and how many files. ``polygon`` annotations become polygons: ``paths`` holds
        one or more closed paths, filled with the even-odd rule, so a path inside another is
        a hole and disjoint paths are parts of a MultiPolygon (Darwin stores holes as plain
        extra paths). Annotations with only ``bounding_box`` {x, y, w, h} become boxes.
        ``line`` annotations (``{"path": [{x, y}, ...]}``) become lines of the kind
        ``polyline`` (``pl_*`` columns, :mod:`iaa_frames.geometry.kinds.polyline`: up to
        32 vertices as drawn, a longer line resampled to 32 points at equal arc length; a
        line of fewer than 2 points is dropped, counted as ``degenerate_polyline``), and
        ``keypoint`` annotations (``{x, y}``) points of the kind ``point`` (``pt_x``,
        ``pt_y``); a ``bounding_box`` written beside them is not read.
        ``name`` is the label, ``id`` the object_id. The ``attributes`` sub-annotation
        (``{"attributes": ["parked", "red"]}``, a set of tags) becomes an ``attributes``
        column holding the sorted list, listed in ``attrs["iaa_attributes"]`` for
        :func:`iaa_frames.attribute_agreement` (nominal: two objects agree when their sets
        are equal). A file with no annotations is a coverage row for its annotator (from
        the argument or layout, else the export's name).

    Raises
    ------
    ReaderError
        Missing, empty, truncated or malformed file, wrong types, missing keys, a file
        that is not Darwin JSON 2.0 (no ``item``); the message names the file and the
        entry (``annotations[3] (id='...')``).

    Notes
    -----
    Tags, skeletons, ellipses, masks and other annotation types are skipped, counted and
    reported in a DroppedRowsWarning; so are the annotations on another slot than the
    first of a multi-slot item (``other_slot``: its size is the first slot's).

    An annotation whose ``annotators`` lists several people is one object (V7 lists
    everyone who created or edited it; independent annotators draw separate annotations):
    it is read once, as the first's, and the second and later annotators are counted and
    reported, one dropped record each (``other_annotator``, in
    ``attrs["iaa_reader_dropped"]`` and the DroppedRowsWarning), never read as more
    annotators' rows. Where ``annotator=``, the mapping key or the subdirectory names the
    annotator, the ``annotators`` column lists them all and nothing is dropped.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> doc = {"version": "2.0", "item": {"name": "a.jpg", "path": "/",
    ...        "slots": [{"slot_name": "0", "width": 100, "height": 80}]},
    ...        "annotations": [{"id": "u1", "name": "cat", "slot_names": ["0"],
    ...                         "bounding_box": {"x": 10, "y": 20, "w": 30, "h": 40},
    ...                         "annotators": [{"email": "ana@example.org", "full_name": "Ana"}]}]}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = p.write_text(json.dumps(doc))
    >>> read_darwin(p)[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
        item        annotator label    x0    y0    x1    y1
    0  a.jpg  ana@example.org   cat  10.0  20.0  40.0  60.0
    """
    if annotator is not None and not isinstance(annotator, str):
        raise ParameterError(f"annotator must be a string, got {annotator!r}")
    sources = _sources(path_or_dir, annotator)
    b = FrameBuilder("darwin", on_invalid=on_invalid)
    keys = ItemKeys(item_key)
    unnamed: dict = {}  # export name -> files where it stood in for the annotator
    for path, ann_name, export in sources:
        try:
            guessed = _read_file(path, ann_name, export, b, keys)
        except OverflowError as exc:  # in the item's sizes: the whole file is unusable
            raise entry_error(exc, path, "item") from None
        if guessed:
            unnamed[export] = unnamed.get(export, 0) + 1
    for export, n in unnamed.items():
        message = (
            f"darwin: {n} file(s) of the export {export!r} record no annotator (no 'annotators' "
            f"on their annotations); their annotator is the export's name {export!r}: pass "
            "annotator= (or a mapping {annotator: directory}) to name it"
        )
        warnings.warn(AnnotatorNameWarning(message), stacklevel=2)
    return finish(b, on_invalid=on_invalid, return_dropped=return_dropped)


def _read_file(path, layout_annotator, export, b: FrameBuilder, keys: ItemKeys) -> bool:
    """Read one Darwin file; True when the export's name stood in for its annotator."""
    doc = load_json(check_file(path))
    if not isinstance(doc, dict):
        raise reader_error(path, None, "not Darwin JSON: expected a JSON object")
    item_d = doc.get("item")
    if not isinstance(item_d, dict):
        hint = " (Darwin JSON 1.0 has 'image'; export as 2.0)" if "image" in doc else ""
        raise reader_error(path, "item", f"missing or invalid 'item'{hint}")
    name = item_d.get("name")
    if not isinstance(name, str) or not name:
        raise reader_error(path, "item.name", f"must be a non-empty string, got {name!r}")
    folder = item_d.get("path", "/")
    if folder is not None and not isinstance(folder, str):
        why = f"must be the item's folder (a string such as '/'), got {folder!r:.60}"
        raise reader_error(path, "item.path", why)
    source = name if folder in (None, "", "/") else f"{folder.rstrip('/')}/{name}"
    item = keys(source, scope=export, path=path, entry="item.name")
    w = h = math.nan
    slot = None  # the first slot's name, when the item has several
    slots = json_list(path, "item.slots", item_d.get("slots"))
    if slots:
        s0 = slots[0]
        if not isinstance(s0, dict):
            raise reader_error(path, "item.slots[0]", "must be a JSON object")
        w = size_value(path, "item.slots[0]", s0.get("width"), "width")
        h = size_value(path, "item.slots[0]", s0.get("height"), "height")
        if len(slots) > 1:
            slot = s0.get("slot_name")
    anns = json_list(path, "annotations", doc.get("annotations"))
    f = b.add_file(path)
    file_annotator = layout_annotator if layout_annotator is not None else export
    guessed = layout_annotator is None and not any(
        isinstance(a, dict) and _annotator_of(a) for a in anns
    )
    if not anns:
        b.cover(item, file_annotator, width=w, height=h, file_idx=f, entry="(no annotations)")
    for k, ann in enumerate(anns):
        entry = f"annotations[{k}]"
        try:
            _annotation(
                path, f, b, k, ann, item, layout_annotator, file_annotator, w, h, not guessed, slot
            )
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, entry, item=item, record=ann)
    return guessed


def _annotation(
    path,
    f,
    b,
    k,
    ann,
    item,
    layout_annotator,
    file_annotator,
    w,
    h,
    others_recorded=False,
    slot=None,
):
    entry = f"annotations[{k}]"
    json_object(path, entry, ann, "an annotation")
    aid = ann.get("id")
    if aid is not None:
        entry += f" (id={aid!r})"
    recorded = _annotator_of(ann)
    if layout_annotator is None and recorded is None and others_recorded:
        # the file names its annotators: one left out is not the export's folder
        raise reader_error(
            path,
            entry,
            "the annotation records no annotator ('annotators') while others of the file "
            "do: its annotator is unknown; pass annotator= (or a mapping {annotator: "
            "directory}) to name it, or on_invalid='drop' to drop it",
        )
    annotator = layout_annotator or recorded or file_annotator
    b.cover(item, annotator, width=w, height=h, file_idx=f, entry=entry)
    if layout_annotator is None and recorded is not None:
        _other_annotators(path, b, entry, item, ann, recorded)
    label = ann.get("name")
    if not isinstance(label, str) or not label:
        raise reader_error(
            path, entry, f"'name' (the class) must be a non-empty string, got {label!r}"
        )
    extras = None
    if layout_annotator is not None and recorded is not None:
        extras = {"annotators": ", ".join(_people(ann))}
    tags = ann.get("attributes")
    if isinstance(tags, dict) and "attributes" in tags:  # the attributes sub-annotation
        values = tags["attributes"]
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise reader_error(
                path, entry, f"attributes.attributes must be a list of strings, got {values!r}"
            )
        extras = {**(extras or {}), "attributes": sorted(values)}
        b.attributes["attributes"] = None
    on = ann.get("slot_names")
    if slot is not None and isinstance(on, list) and on and on[0] != slot:
        why = (
            f"an annotation on the slot {on[0]!r} of a multi-slot item (only its first slot, "
            f"{slot!r}, whose size is width/height, is read)"
        )
        b.drop(path, entry, "other_slot", why, item=item, annotator=annotator, record=ann)
        return
    kw = dict(object_id=aid, width=w, height=h, file_idx=f, entry=entry, extras=extras)
    poly = ann.get("polygon", ann.get("complex_polygon"))
    if poly is None and (ann.get("line") is not None or ann.get("keypoint") is not None):
        _line_or_point(path, b, ann, entry, item, annotator, label, kw)
    elif poly is not None:
        json_object(path, entry, poly, "polygon")
        if "paths" in poly:
            paths = poly["paths"]
            if not isinstance(paths, list) or not paths:
                raise reader_error(path, entry, "polygon.paths must be a non-empty list of paths")
        elif "path" in poly:  # Darwin 1.0 style: one path, or a list of paths (complex)
            paths = poly["path"]
            if not (isinstance(paths, list) and paths and isinstance(paths[0], list)):
                paths = [paths]
        else:
            raise reader_error(path, entry, "polygon has no 'paths'")
        names = [f"polygon.paths[{j}]" for j in range(len(paths))]
        rings = [_points(path, entry, p, names[j]) for j, p in enumerate(paths)]
        names = [n for n, r in zip(names, rings, strict=True) if len(r) >= 6]
        rings = [r for r in rings if len(r) >= 6]
        if not rings:
            why = "a polygon with no path of 3 or more points"
            b.drop(
                path, entry, "degenerate_polygon", why, item=item, annotator=annotator, record=ann
            )
            return
        if len(rings) == 1:
            b.add_polygon(item, annotator, label, [rings], **kw)
        else:
            b.add_geometry(item, annotator, label, _even_odd(path, entry, rings, names), **kw)
    elif ann.get("bounding_box") is not None:
        bb = ann["bounding_box"]
        json_object(path, entry, bb, "bounding_box")
        vals = []
        for key in ("x", "y", "w", "h"):
            v = bb.get(key)
            if not is_number(v) or not math.isfinite(v):
                raise reader_error(path, entry, f"bounding_box.{key} must be a number, got {v!r}")
            vals.append(float(v))
        x, y, bw, bh = vals
        b.add_box(item, annotator, label, x, y, x + bw, y + bh, **kw)
    else:
        kind = next((k for k in _OTHER if k in ann), None)
        detail = (
            f"a {kind!r} annotation (only polygons, boxes, lines and keypoints are read)"
            if kind
            else "an annotation with no polygon or bounding_box"
        )
        b.drop(path, entry, "unsupported_shape", detail, item=item, annotator=annotator, record=ann)


def _other_annotators(path, b, entry, item, ann, recorded):
    """The second and later of an annotation's ``annotators``, each counted as dropped
    (``other_annotator``): V7 lists everyone who worked on one annotation, which is one
    object, read once as the first's (:func:`read_darwin`)."""
    people = _people(ann)
    for other in people[1:]:
        why = (
            f"the annotation lists {len(people)} annotators ({', '.join(people)}): one "
            f"object, read once as the first's, {recorded!r}; {other!r} worked on it too "
            "(V7 lists everyone who edited an annotation), not drawn as another annotator's"
        )
        b.drop(path, entry, "other_annotator", why, item=item, annotator=other, record=ann)


def _line_or_point(path, b, ann, entry, item, annotator, label, kw):
    """A ``line`` as a ``polyline``, a ``keypoint`` as a ``point`` (:func:`read_darwin`)."""
    if ann.get("line") is not None:
        line = ann["line"]
        if not isinstance(line, dict) or "path" not in line:
            got = type(line).__name__ if not isinstance(line, dict) else "no 'path'"
            raise reader_error(
                path, entry, f"line must be a JSON object {{path: [{{x, y}}, ...]}}, got {got}"
            )
        xy = _points(path, entry, line["path"], "line.path", closed=False)
        if len(xy) < 4:
            b.drop(path, entry, "degenerate_polyline", "a line with fewer than 2 points",
                   item=item, annotator=annotator, record=ann)  # fmt: skip
            return
        params = polyline_params(POLYLINE, list(zip(xy[::2], xy[1::2], strict=True)))
        b.add_shape(item, annotator, label, POLYLINE.name, params, **kw)
        return
    pt = ann["keypoint"]
    xy = _points(path, entry, [pt], "keypoint") if isinstance(pt, dict) else None
    if xy is None:
        raise reader_error(
            path, entry, f"keypoint must be a JSON object {{x, y}}, got {type(pt).__name__}"
        )
    b.add_shape(item, annotator, label, POINT.name, xy, **kw)
