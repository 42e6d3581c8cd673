# Over 400 lines: one format; JSON and JSON-MIN share the region parsing; 87 are documentation.
"""Reader for Label Studio JSON exports: the full "JSON" export (a list of tasks with their
annotations) and "JSON-MIN" (one flat record per annotation)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from iaa_frames.errors import AnnotatorNameWarning, ParameterError, ReaderError
from iaa_frames.geometry.ellipse import ellipse_ring
from iaa_frames.geometry.kinds import KEYPOINTS, POLYLINE, KeypointsKind, polyline_params

from .builder import FrameBuilder, finish
from .item_keys import ItemKeys, labelstudio_file
from .json_stream import JSONStream
from .keypoints import coco_name, keypoint_params, skeleton_kind
from .labelstudio_timeline import is_timeline_result, read_timeline_result, region_label
from .paths import ENTRY_ERRORS, check_file, reader_error
from .shapes import rotated_rectangle
from .values import is_number, json_list, json_object, on_canvas

__all__ = ["read_labelstudio"]

_RECT = {"rectanglelabels": "rectanglelabels", "rectangle": None}
_POLY = {"polygonlabels": "polygonlabels", "polygon": None}
_ELLIPSE = {"ellipselabels": "ellipselabels", "ellipse": None}
_KEYPOINT = {"keypointlabels", "keypoint"}
# JSON-MIN: keys of a record that are neither data nor regions
_MIN_META = set(
    "id annotator annotation_id created_at updated_at lead_time agreement history drafts "
    "predictions meta".split()
)
_REGION_KEYS = ("rectanglelabels", "polygonlabels", "labels", "points", "width", "height")
# results that describe a region drawn by another result (same "id"): kept as columns
_PER_REGION = {"choices", "textarea", "number", "rating", "datetime", "taxonomy"}


def _annotator(path, entry, completed_by):
    if isinstance(completed_by, dict):
        for key in ("email", "username", "id"):
            v = completed_by.get(key)
            if v not in (None, ""):
                if not isinstance(v, (str, int)) or isinstance(v, bool):
                    raise reader_error(
                        path, entry, f"completed_by.{key} must be a string or integer, got {v!r}"
                    )
                return str(v)
        raise reader_error(path, entry, "completed_by has no email, username or id")
    if (
        isinstance(completed_by, (int, str))
        and not isinstance(completed_by, bool)
        and completed_by != ""
    ):
        return str(completed_by)
    raise reader_error(
        path, entry, f"completed_by must be a user id or a dict with email/id, got {completed_by!r}"
    )


def _pct(path, entry, value, key):
    v = value.get(key)
    if not is_number(v) or not math.isfinite(v):
        raise reader_error(path, entry, f"value.{key} must be a number (percent), got {v!r}")
    return float(v)


def _size(path, entry, result, key):
    v = result.get(key)
    if v is None:
        return math.nan
    if not is_number(v) or not v > 0 or not math.isfinite(v):
        raise reader_error(path, entry, f"{key} must be a positive number, got {v!r}")
    return float(v)


def _rect(path, entry, value, w, h):
    """``(x0, y0, x1, y1)`` in pixels of a rectangle's ``x, y, width, height`` (percent)."""
    x, y, dx, dy = (_pct(path, entry, value, k) for k in ("x", "y", "width", "height"))
    on_canvas(path, entry, (x, x + dx), (y, y + dy), 100, "percent")
    x, y = x * w / 100, y * h / 100
    return x, y, x + dx * w / 100, y + dy * h / 100


def _task_size(results) -> tuple[float, float]:
    """The image size the first of ``results`` gives (NaN, NaN when none does)."""
    for r in results:
        if not isinstance(r, dict):
            continue
        w, h = r.get("original_width"), r.get("original_height")
        if is_number(w) and is_number(h):
            return float(w), float(h)
    return math.nan, math.nan


def _image_size(path, entry, result):
    """A result's ``original_width, original_height``; 100 x 100 (percent units) when
    either is missing."""
    w = _size(path, entry, result, "original_width")
    h = _size(path, entry, result, "original_height")
    return (100.0, 100.0) if math.isnan(w) or math.isnan(h) else (w, h)


def read_labelstudio(
    path,
    *,
    item: str = "image",
    item_key="name",
    data_key: str | None = None,
    annotator: str | None = None,
    on_invalid: str = "raise",
    return_dropped: bool = False,
    skeleton=None,
    open_polygons: str = "polygon",
    predictions: bool = False,
):
    """Read a Label Studio JSON or JSON-MIN export.

    Parameters
    ----------
    path : path
        The ``.json`` export: "JSON" (a list of tasks, each with ``data`` and
        ``annotations``) or "JSON-MIN" (a list of flat records, one per annotation: the
        ``data`` fields, one key per control tag holding its regions, ``annotator``,
        ``annotation_id``, ...). The kind is recognized from the content.
    item : {"image", "task"}, default "image"
        What identifies an item: the image in the task ``data`` (so that exports of
        several projects, or other tools' exports, line up on the same images), or the
        task ``id`` (as text).
    item_key : {"name", "stem", "path"} or callable, default "name"
        How the image source becomes the ``item`` (see :mod:`iaa_frames.io.item_keys`).
        With ``"name"`` and ``"stem"`` the source is first reduced to the file it points at:
        the 8-hex-digit prefix Label Studio adds on upload is removed
        (``/data/upload/1/48c2f1a0-photo.jpg`` -> ``photo.jpg``) and local storage URLs
        (``/data/local-files/?d=dir/photo.jpg``) give their file, so that the item is the
        one CVAT, COCO or VOC exports name. ``"path"`` keeps the source as written.
    data_key : str, optional
        The key of ``data`` holding the image (``$image`` in the labeling config). By
        default ``"image"``, else the only string value of ``data``.
    annotator : str, optional
        The annotator of JSON-MIN records that carry no ``annotator`` (by default the file
        name stem, with an :class:`~iaa_frames.errors.AnnotatorNameWarning`). The full
        JSON always names its annotators (``completed_by``): there ``annotator`` is an
        error, not ignored.
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable entries (zero-area regions, a result or a task that cannot be read, ...):
        raise a ReaderError naming task, annotation and result, or drop them, counted,
        with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.
    skeleton : KeypointsKind, optional
        The skeleton of ``keypointlabels`` results (see Notes).
    open_polygons : {"polygon", "polyline"}, default "polygon"
        What a ``polygonlabels`` (or ``polygon``) result left open is (``"closed":
        false`` in its value, see Notes): a polygon, closed from its last point to its
        first, or an open line of the kind ``polyline``
        (:mod:`iaa_frames.geometry.kinds.polyline`).
    predictions : bool, default False
        Also read the tasks' ``predictions`` (a model's pre-annotations, beside the
        ``annotations`` of the full JSON export), each model a rater named by its
        ``model_version`` (``"prediction"`` when it has none), and add the column
        ``rater_kind``: ``"machine"`` for predictions, ``"human"`` for annotations, for
        :func:`iaa_frames.rater_kind_agreement` (human-human and human-machine cells). A
        prediction with an empty ``result`` covers its task (the model found nothing).

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. The annotator is ``completed_by``: its ``email`` when it
        is a dict, else the user id as a string (JSON-MIN: ``annotator``). Every
        (non-cancelled) annotation covers its task; an annotation with an empty ``result``
        is a coverage row. ``rectanglelabels`` results become boxes, converted from
        percent of ``original_width``/``original_height`` to pixels (a nonzero
        ``rotation``, in degrees clockwise about the top-left corner, gives a polygon);
        ``polygonlabels`` become polygons. ``width``/``height`` are
        ``original_width``/``original_height``. ``object_id`` is ``"{annotation id}/{result
        id}"``, ``task`` the task id, and per-region ``choices``/``textarea``/... results
        (same result ``id`` as the region) are columns named after their ``from_name``:
        the frame's attributes, listed in ``attrs["iaa_attributes"]`` for
        :func:`iaa_frames.attribute_agreement` (a single choice is a string, several a
        list, a rating or number a number).

    Raises
    ------
    ReaderError
        Missing, empty, truncated or malformed file, wrong types, missing keys; the
        message names the file and the entry (``tasks[3] (id=12) annotations[1] result[0]``).

    Notes
    -----
    **Keypoints.** ``keypointlabels`` results (one joint each, labelled with the joint's
    name) are skeletons: the joints whose ``parentID`` is a rectangle region form that
    rectangle's object (its label; its area is the scale of OKS), the other joints of an
    annotation one object labelled by the control tag's ``from_name``. Every joint placed
    is visible (``v = 2``; Label Studio has no visibility), the others not labelled. The
    skeleton is ``skeleton`` when given, else COCO's person (the kind ``keypoints``) when
    every joint is one of its keypoints (``Left Eye`` is ``left_eye``), else the kind of
    every joint name in the file
    (:mod:`iaa_frames.io.keypoints`). (JSON-MIN keypoints are not read.) Label Studio's
    points are joints of skeletons, not point sets.

    **Polylines.** Label Studio has no polyline tool (its feature request "Unclosed polygon
    labeling", HumanSignal/label-studio#3655, is open): lines (lanes, edges) are drawn with
    ``PolygonLabels`` and left unfinished, which the export says with ``"closed": false``
    in the result's value. With ``open_polygons="polyline"`` such results are read as
    lines, their points in the order drawn (up to 32 as written, more resampled at equal
    arc length); results without ``closed``, or closed, stay polygons.

    ``ellipselabels`` regions (centre ``x``, ``y``, radii ``radiusX``, ``radiusY`` in
    percent, ``rotation`` clockwise in degrees) become polygons of 64 vertices with the
    ellipse's area, whose IoU is the ellipses' to 1e-4
    (:mod:`iaa_frames.geometry.ellipse`).
    Video ``timelinelabels`` and audio ``labels`` regions are time segments (the kind
    ``segment``; :mod:`iaa_frames.io.labelstudio_timeline`).

    Skipped and counted (DroppedRowsWarning): cancelled annotations (``was_cancelled``;
    they give no coverage either), results of other types (brushes, image-level
    choices, ...), regions without a label, and regions with several labels
    (the first is kept and the case is counted). Predictions are not annotations and are
    ignored unless ``predictions=True``. Without ``original_width``/``original_height`` coordinates stay in percent
    and ``width``/``height`` are 100. The export is streamed task by task.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> tasks = [{"id": 1, "data": {"image": "/data/upload/1/48c2f1a0-a.jpg"}, "annotations": [
    ...     {"id": 10, "completed_by": {"id": 3, "email": "ana@example.org"}, "result": [
    ...         {"id": "r1", "type": "rectanglelabels", "from_name": "label", "to_name": "image",
    ...          "original_width": 200, "original_height": 100,
    ...          "value": {"x": 10, "y": 20, "width": 25, "height": 50, "rotation": 0,
    ...                    "rectanglelabels": ["cat"]}}]},
    ...     {"id": 11, "completed_by": 4, "result": []}]}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> _ = p.write_text(json.dumps(tasks))
    >>> read_labelstudio(p)[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
        item        annotator label    x0    y0    x1    y1
    0  a.jpg  ana@example.org   cat  20.0  20.0  70.0  70.0
    1  a.jpg                4   NaN   NaN   NaN   NaN   NaN
    """
    if item not in ("image", "task"):
        raise ParameterError(f"item must be 'image' or 'task', got {item!r}")
    if annotator is not None and (not isinstance(annotator, str) or not annotator):
        raise ParameterError(f"annotator must be a non-empty string, got {annotator!r}")
    if skeleton is not None and not isinstance(skeleton, KeypointsKind):
        raise ParameterError(
            f"skeleton must be a KeypointsKind (iaa_frames.geometry.kinds), got {skeleton!r}"
        )
    if open_polygons not in ("polygon", "polyline"):
        raise ParameterError(
            f"open_polygons must be 'polygon' or 'polyline', got {open_polygons!r}"
        )
    if not isinstance(predictions, bool):
        raise ParameterError(f"predictions must be True or False, got {predictions!r}")
    path = check_file(path, "read_labelstudio")
    b = FrameBuilder("labelstudio", on_invalid=on_invalid)
    keys = ItemKeys(item_key, pre=labelstudio_file)
    f = b.add_file(path)
    stream = JSONStream(path, top_name="tasks")
    n = 0
    ctx = {
        "item": item,
        "data_key": data_key,
        "keys": keys,
        "annotator": annotator,
        "warned": False,
        "skeletons": [],
        "open_polygons": open_polygons,
        "annotated": {},
        "predictions": predictions,
        "raters": {},  # rater -> "human" / "machine" (with predictions=True)
    }
    for _kind, _key, i, task in stream:
        if stream.top != "array":
            raise reader_error(
                path,
                None,
                "not a Label Studio JSON export: expected a list of tasks, "
                "found a JSON object (is this a COCO export?)",
            )
        entry = f"tasks[{i}]"
        is_min = isinstance(task, dict) and not (
            "annotations" in task or "completions" in task or "data" in task
        )
        if not is_min and annotator is not None:
            raise ParameterError(
                f"{path}: annotator={annotator!r} names the annotator of JSON-MIN records, "
                f"but {entry} is a task of a full JSON export, whose annotations name their "
                "annotators (completed_by); read it without annotator= and rename them after "
                "reading, e.g. df['annotator'] = df['annotator'].replace({'1': 'ana'})"
            )
        try:
            if is_min:
                _min_record(path, f, b, i, task, ctx)
            else:
                _task(path, f, b, i, task, ctx)
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, entry, record=task)
        n += 1
    if n == 0:
        raise reader_error(path, None, "an empty list: no tasks and no annotations")
    _skeletons(b, ctx["skeletons"], skeleton)
    out = finish(b, on_invalid=on_invalid, return_dropped=return_dropped)
    if predictions:
        frame = out[0] if return_dropped else out
        frame["rater_kind"] = frame["annotator"].astype(str).map(ctx["raters"]).fillna("human")
    return out


def _item_of(path, tentry, task, data, ctx):
    """The item of a task (full JSON: ``data`` is the task's data; JSON-MIN: the record)."""
    tid = task.get("id")
    if ctx["item"] == "task":
        if tid is None:
            raise reader_error(path, tentry, "missing key 'id' (needed with item='task')")
        return str(tid)  # an item is text, whatever the id
    if not isinstance(data, dict):
        raise reader_error(
            path, tentry, f"missing or invalid 'data' (a dict holding the image), got {data!r}"
        )
    key = ctx["data_key"]
    if key is None:
        if "image" in data:
            key = "image"
        else:
            strings = [k for k, v in data.items() if isinstance(v, str) and k not in _MIN_META]
            if len(strings) != 1:
                raise reader_error(
                    path,
                    tentry,
                    f"cannot tell which key of data {sorted(data)} holds the image; "
                    "pass data_key= or item='task'",
                )
            key = strings[0]
    source = data.get(key)
    if not isinstance(source, str) or not source:
        raise reader_error(path, tentry, f"data[{key!r}] must be the image path, got {source!r}")
    return ctx["keys"](source, path=path, entry=tentry)


def _first_annotation(b, ctx, path, entry, item, annotator, record) -> bool:
    """Whether this is the annotator's first annotation of the item in the export; a
    second one (one user's two annotations of a task, or of two tasks of one image) is a
    ReaderError, or dropped with ``on_invalid="drop"`` (the first is kept): counted
    twice, the annotator would agree with itself."""
    first = ctx["annotated"].setdefault((item, annotator), entry)
    if first == entry:
        return True
    b.entry_failed(
        reader_error(
            path,
            entry,
            f"the annotator {annotator!r} annotated the item {item!r} already in {first}: "
            "one annotator's two annotations of one image are not two annotators; delete "
            "one in Label Studio, or pass on_invalid='drop' to keep the first",
        ),
        path,
        entry,
        item=item,
        annotator=annotator,
        record=record,
    )
    return False


def _task(path, f, b: FrameBuilder, i, task, ctx):
    tentry = f"tasks[{i}]"
    json_object(path, tentry, task, "a task")
    tid = task.get("id")
    if tid is not None:
        tentry = f"tasks[{i}] (id={tid})"
    item = _item_of(path, tentry, task, task.get("data"), ctx)
    anns = json_list(
        path, tentry, task.get("annotations", task.get("completions")), "'annotations'"
    )
    preds = _predictions(path, tentry, task) if ctx["predictions"] else []
    # the image size of the task, from any of its results (for coverage rows); a
    # ``result`` that is not a list is passed over here and reported with its annotation
    results = (a.get("result") for a in anns + [p for _, p, _ in preds] if isinstance(a, dict))
    tw, th = _task_size(r for rs in results if isinstance(rs, list) for r in rs)
    for j, ann in enumerate(anns):
        aentry = f"{tentry} annotations[{j}]"
        json_object(path, aentry, ann, "an annotation")
        aid = ann.get("id")
        if aid is not None:
            aentry += f" (id={aid})"
        try:
            if "completed_by" not in ann:
                raise reader_error(path, aentry, "missing key 'completed_by'")
            annotator = _annotator(path, aentry, ann["completed_by"])
            _rater(path, aentry, ctx, annotator, "human")
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, aentry, item=item, record=ann)
            continue
        if ann.get("was_cancelled"):
            skipped = "the annotator skipped (cancelled) the task"
            b.drop(path, aentry, "cancelled_annotation", skipped, item=item, annotator=annotator)
            continue
        try:
            result = json_list(path, aentry, ann.get("result"), "'result'")
        except ReaderError as exc:
            b.entry_failed(exc, path, aentry, item=item, annotator=annotator, record=ann)
            continue
        if not _first_annotation(b, ctx, path, aentry, item, annotator, ann):
            continue
        b.cover(item, annotator, width=tw, height=th, file_idx=f, entry=aentry)
        oid = aid if aid is not None else f"{tid}.{j}"
        _results(path, f, b, aentry, item, annotator, oid, tid, result, ctx)
    for pentry, pred, model in preds:
        try:
            _rater(path, pentry, ctx, model, "machine")
            result = [] if pred.get("result") is None else pred["result"]
            if not isinstance(result, list):
                raise reader_error(path, pentry, f"'result' must be a list, got {result!r:.40}")
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, pentry, item=item, record=pred)
            continue
        if not _first_annotation(b, ctx, path, pentry, item, model, pred):
            continue
        b.cover(item, model, width=tw, height=th, file_idx=f, entry=pentry)
        pid = pred.get("id")
        pid = f"p{pid}" if pid is not None else f"p{tid}.{model}"
        _results(path, f, b, pentry, item, model, pid, tid, result, ctx)


def _predictions(path, tentry, task) -> list:
    """``(entry, prediction, model)`` of a task's ``predictions`` (the model: its
    ``model_version``, else ``"prediction"``)."""
    preds = json_list(path, tentry, task.get("predictions"), "'predictions'")
    out = []
    for j, pred in enumerate(preds):
        pentry = f"{tentry} predictions[{j}]"
        if not isinstance(pred, dict):
            raise reader_error(
                path,
                pentry,
                f"a prediction must be a JSON object, got {pred!r:.40} (an export that "
                "lists prediction ids holds no predictions: export the full JSON)",
            )
        model = pred.get("model_version")
        if model is None or model == "":
            model = "prediction"
        if not isinstance(model, (str, int)) or isinstance(model, bool):
            raise reader_error(path, pentry, f"model_version must be a string, got {model!r}")
        out.append((pentry, pred, str(model)))
    return out


def _rater(path, entry, ctx, name, kind) -> None:
    """Record a rater's kind (with ``predictions=True``): a model named like a person is
    refused."""
    if not ctx["predictions"]:
        return
    seen = ctx["raters"].setdefault(name, kind)
    if seen != kind:
        raise reader_error(
            path,
            entry,
            f"{name!r} names both an annotator and a model (model_version): rename one "
            "in the export",
        )


def _results(path, f, b, aentry, item, annotator, aid, tid, result, ctx):
    skeletons = ctx.get("skeletons")
    regions = {}
    per_region = []
    keypoints = []  # (k, result) of keypointlabels results
    for k, r in enumerate(result):
        rentry = f"{aentry} result[{k}]"
        try:
            json_object(path, rentry, r, "a result")
            rtype = r.get("type")
            if not isinstance(rtype, str):
                raise reader_error(path, rentry, f"missing or invalid 'type', got {rtype!r}")
            rid = r.get("id")
            if rid is not None and (not isinstance(rid, (str, int)) or isinstance(rid, bool)):
                raise reader_error(path, rentry, f"the region id must be a string, got {rid!r}")
            value = r.get("value")
            region = rtype in _RECT or rtype in _POLY or rtype in _ELLIPSE
            if region or (rtype in _KEYPOINT and skeletons is not None):
                if not isinstance(value, dict):
                    raise reader_error(
                        path, rentry, f"missing or invalid 'value' (a JSON object), got {value!r}"
                    )
                if region:
                    regions.setdefault(r.get("id", f"#{k}"), []).append((k, r))
                else:
                    keypoints.append((k, r))
            else:
                per_region.append((k, r))  # relations, choices, ...: value may be absent
        except ENTRY_ERRORS as exc:
            _failed(b, exc, path, rentry, item, annotator, r)
    if keypoints:
        _keypoints(path, f, b, aentry, item, annotator, aid, tid, keypoints, regions, skeletons)
    extras_by_region: dict = {}
    labels_by_region: dict = {}
    for k, r in per_region:
        rid = r.get("id")
        value = r.get("value")
        if rid is not None and rid in regions and r["type"] == "labels" and isinstance(value, dict):
            labels_by_region[rid] = value  # a Rectangle/Polygon tag labelled by a Labels tag
        elif rid is not None and rid in regions and isinstance(value, dict):
            name = str(r.get("from_name", r["type"]))
            v = value.get(r["type"], value)
            if isinstance(v, list) and len(v) == 1:
                v = v[0]
            extras_by_region.setdefault(rid, {})[name] = v
            b.attributes[name] = None  # a per-region choice, rating, number, text...
        elif is_timeline_result(r):  # video timeline and audio regions: time segments
            where = (item, annotator, aid, tid)
            read_timeline_result(b, path, f, f"{aentry} result[{k}]", where, r, result)
        else:
            why = f"a {r['type']!r} result (only rectanglelabels, polygonlabels and ellipselabels regions are read)"
            rentry = f"{aentry} result[{k}]"
            _skip(b, path, rentry, item, annotator, r, "unsupported_result", why)
    for rid, parts in regions.items():
        for k, r in parts:
            rentry = f"{aentry} result[{k}]"
            try:
                where = (item, annotator, aid, tid)
                by_region = (labels_by_region, extras_by_region)
                _region(path, f, b, rentry, where, (rid, len(parts), k, r), by_region, ctx)
            except ENTRY_ERRORS as exc:
                _failed(b, exc, path, rentry, item, annotator, r)


def _add_ellipse(b, path, rentry, who, value, r, kw) -> None:
    """An ``ellipselabels`` region: centre ``x, y`` and radii ``radiusX`` (percent of the
    width), ``radiusY`` (of the height), ``rotation`` clockwise in degrees about the
    centre, as a polygon whose IoU is the ellipse's to 1e-4
    (:func:`~iaa_frames.geometry.ellipse.ellipse_ring`)."""
    item, annotator, label = who
    w, h = kw["width"], kw["height"]
    cx, cy, rx, ry = (_pct(path, rentry, value, k) for k in ("x", "y", "radiusX", "radiusY"))
    xs, ys = (cx - abs(rx), cx + abs(rx)), (cy - abs(ry), cy + abs(ry))
    on_canvas(path, rentry, xs, ys, 100, "percent")
    cx, cy, rx, ry = cx * w / 100, cy * h / 100, rx * w / 100, ry * h / 100
    rot = value.get("rotation", 0) or 0
    if not is_number(rot) or not math.isfinite(rot):
        raise reader_error(path, rentry, f"rotation must be a number, got {rot!r}")
    if not (rx > 0 and ry > 0):
        why = f"an ellipse with radii {rx:g} and {ry:g}"
        _skip(b, path, rentry, item, annotator, r, "degenerate_ellipse", why)
        return
    if rot % 360:
        kw["extras"]["rotation"] = float(rot)
    ring = ellipse_ring(cx, cy, rx, ry, float(rot)).ravel().tolist()
    b.add_polygon(item, annotator, label, [[ring]], **kw)


def _failed(b, exc, path, entry, item, annotator, record) -> None:
    """A result that could not be read: :meth:`FrameBuilder.entry_failed` of its
    ReaderError (:func:`~iaa_frames.io.paths.entry_error`)."""
    b.entry_failed(exc, path, entry, item=item, annotator=annotator, record=record)


def _skip(b, path, entry, item, annotator, record, reason, detail) -> None:
    b.drop(path, entry, reason, detail, item=item, annotator=annotator, record=record)


def _region(path, f, b, rentry, where, region, by_region, ctx):
    """One rectangle or polygon result: ``where`` is ``(item, annotator, annotation id,
    task id)``, ``region`` ``(region id, its number of results, this result's index,
    the result)``, ``by_region`` the labels and extras of the regions by id; an open
    polygon is a polyline with ``ctx["open_polygons"] == "polyline"``."""
    item, annotator, aid, tid = where
    rid, n_parts, k, r = region
    labels_by_region, extras_by_region = by_region
    open_polygons = ctx["open_polygons"]
    rtype, value = r["type"], r["value"]
    labels_key = _RECT.get(rtype, _POLY.get(rtype, _ELLIPSE.get(rtype)))
    label, n_labels = region_label(value, labels_key)
    if label is None and rid in labels_by_region:
        label, n_labels = region_label(labels_by_region[rid], None)
    if label is None:
        _skip(b, path, rentry, item, annotator, r, "unlabelled_region", "a region without a label")
        return
    if n_labels > 1:
        why = f"a region with {n_labels} labels: the first ({label!r}) was kept"
        labels = value.get(labels_key or "labels")
        _skip(b, path, rentry, item, annotator, labels, "extra_labels_ignored", why)
    w, h = _image_size(path, rentry, r)
    extras = {"task": tid, **extras_by_region.get(rid, {})}
    oid = f"{aid}/{rid}" if n_parts == 1 else f"{aid}/{rid}/{k}"
    kw = dict(object_id=oid, width=w, height=h, file_idx=f, entry=rentry, extras=extras)
    if rtype in _RECT:
        x, y, x1, y1 = _rect(path, rentry, value, w, h)
        rot = value.get("rotation", r.get("rotation", 0)) or 0
        if not is_number(rot) or not math.isfinite(rot):
            raise reader_error(path, rentry, f"rotation must be a number, got {rot!r}")
        if rot % 360:
            extras["rotation"] = float(rot)
            b.add_polygon(
                item,
                annotator,
                label,
                [[rotated_rectangle(x, y, x1, y1, rot, about="top-left")]],
                **kw,
            )
        else:
            b.add_box(item, annotator, label, x, y, x1, y1, **kw)
    elif rtype in _ELLIPSE:
        _add_ellipse(b, path, rentry, (item, annotator, label), value, r, kw)
    else:
        pts = value.get("points")
        if not isinstance(pts, list):
            raise reader_error(
                path, rentry, f"value.points must be a list of [x, y] (percent), got {pts!r}"
            )
        ring = []
        for p in pts:
            if (
                not isinstance(p, list)
                or len(p) != 2
                or not is_number(p[0])
                or not is_number(p[1])
                or not math.isfinite(p[0])
                or not math.isfinite(p[1])
            ):
                raise reader_error(
                    path, rentry, f"value.points holds {p!r}, not an [x, y] pair of numbers"
                )
            on_canvas(path, rentry, p[:1], p[1:], 100, "percent")
            ring += [p[0] * w / 100, p[1] * h / 100]
        if open_polygons == "polyline" and value.get("closed") in (False, "false"):
            _add_line(b, path, rentry, item, annotator, label, ring, r, kw)
            return
        if len(ring) >= 4 and ring[:2] == ring[-2:]:
            ring = ring[:-2]
        if len(ring) < 6:
            why = "a polygon with fewer than 3 points"
            _skip(b, path, rentry, item, annotator, r, "degenerate_polygon", why)
            return
        b.add_polygon(item, annotator, label, [[ring]], **kw)


def _add_line(b, path, rentry, item, annotator, label, coords, r, kw):
    """An open polygon as a line of the kind ``polyline``, or dropped with fewer than 2
    points."""
    if len(coords) < 4:
        why = "an open polygon (a line) with fewer than 2 points"
        _skip(b, path, rentry, item, annotator, r, "degenerate_polyline", why)
        return
    b.add_shape(item, annotator, label, POLYLINE.name, polyline_params(POLYLINE, coords), **kw)


def _keypoints(path, f, b, aentry, item, annotator, aid, tid, keypoints, regions, skeletons):
    """``keypointlabels`` results (one joint each, its label the joint's name) as
    skeletons: the joints whose ``parentID`` is a rectangle region form that rectangle's
    object (its label, its area as the scale; the rectangle is not read as a box); the
    others of the annotation form one object, labelled by their control tag's
    ``from_name``. The rows are added as boxes and become skeletons once every file is
    read (:func:`_skeletons`), when the joints are known."""
    groups: dict = {}
    for k, r in keypoints:
        rentry = f"{aentry} result[{k}]"
        try:
            value = r["value"]
            joint, n_labels = region_label(value, "keypointlabels")
            if joint is None:
                raise reader_error(path, rentry, "a keypoint without a label (its joint's name)")
            w, h = _image_size(path, rentry, r)
            x, y = _pct(path, rentry, value, "x"), _pct(path, rentry, value, "y")
            on_canvas(path, rentry, (x,), (y,), 100, "percent")
            x, y = x * w / 100, y * h / 100
            parent = r.get("parentID")
            if parent is not None and type(parent) not in (str, int):
                why = f"parentID must be a region id (a string), got {parent!r:.60}"
                raise reader_error(path, rentry, why)
        except ENTRY_ERRORS as exc:
            _failed(b, exc, path, rentry, item, annotator, r)
            continue
        key = parent if parent in regions else (None, str(r.get("from_name", "keypoints")))
        group = groups.setdefault(key, {"joints": {}, "size": (w, h), "k": k})
        if joint in group["joints"]:
            why = f"the joint {joint!r} is placed twice on one object; the first was kept"
            _skip(b, path, rentry, item, annotator, r, "duplicate_joint", why)
            continue
        group["joints"][joint] = (x, y)
    for key, group in groups.items():
        w, h = group["size"]
        xy = np.array(list(group["joints"].values()))
        box, area, label, oid = None, None, None, f"{aid}/keypoints/{group['k']}"
        if not isinstance(key, tuple):  # the joints of a rectangle region
            k, rect = regions.pop(key)[0]
            value = rect["value"]
            label, _ = region_label(value, _RECT.get(rect["type"], "rectanglelabels"))
            rect_entry = f"{aentry} result[{k}]"
            try:
                box = _rect(path, rect_entry, value, w, h)
                area = (box[2] - box[0]) * (box[3] - box[1])
            except ENTRY_ERRORS as exc:  # the joints kept without it; the rectangle said
                _failed(b, exc, path, rect_entry, item, annotator, rect)
                box = None
            oid = f"{aid}/{key}"
        label = label or key[1] if isinstance(key, tuple) else label or "keypoints"
        rentry = f"{aentry} result[{group['k']}]"
        kw = dict(object_id=oid, width=w, height=h, file_idx=f, entry=rentry, extras={"task": tid})
        row = b.add_box(item, annotator, label, *xy.min(axis=0), *xy.max(axis=0), **kw)
        skeletons.append((row, group["joints"], area, box))


def _skeletons(b: FrameBuilder, skeletons, kind) -> None:
    """Turn the rows of :func:`_keypoints` into skeletons of one keypoints kind: ``kind``,
    else COCO's person when every joint is one of its keypoints, else the kind of every
    joint name read, sorted (:func:`iaa_frames.io.keypoints.skeleton_kind`)."""
    if not skeletons:
        return
    if kind is None:
        names = sorted({j for _, joints, _, _ in skeletons for j in joints})
        coco = {coco_name(n) for n in names} <= set(KEYPOINTS.keypoints)
        if coco:  # "Left Eye" and "left_eye" alike
            skeletons = [
                (r, {coco_name(j): xy for j, xy in joints.items()}, a, bx)
                for r, joints, a, bx in skeletons
            ]
        kind = KEYPOINTS if coco else skeleton_kind(names, "skeleton")
    for row, joints, area, box in skeletons:
        x = np.zeros(kind.n_keypoints)
        y = np.zeros(kind.n_keypoints)
        v = np.zeros(kind.n_keypoints)
        for i, name in enumerate(kind.keypoints):
            if name in joints:
                x[i], y[i] = joints[name]
                v[i] = 2.0  # Label Studio has no visibility: a placed joint is visible
        if set(joints) - set(kind.keypoints):
            path, entry = b.describe_row(row)
            why = (
                f"joints {sorted(set(joints) - set(kind.keypoints))} are not in the "
                f"skeleton {kind.name!r} ({', '.join(kind.keypoints)})"
            )
            b.void(row, reader_error(path, entry, why), path, entry)
            continue
        b.reshape_row(row, kind.name, keypoint_params(x, y, v, area, box))


def _is_region(v) -> bool:
    return isinstance(v, dict) and any(k in v for k in _REGION_KEYS)


def _min_record(path, f, b: FrameBuilder, i, rec, ctx):
    """One JSON-MIN record: the task's data fields, one key per control tag holding its
    region values (a list, or one value), and the annotation's ``annotator``."""
    tid = rec.get("id")
    tentry = f"tasks[{i}]" + (f" (id={tid})" if tid is not None else "")
    region_keys = [
        k
        for k, v in rec.items()
        if k not in _MIN_META
        and (_is_region(v) or (isinstance(v, list) and v and all(_is_region(x) for x in v)))
    ]
    data = {k: v for k, v in rec.items() if k not in region_keys}
    item = _item_of(path, tentry, rec, data, ctx)
    who = rec.get("annotator")
    if who in (None, ""):
        annotator = ctx["annotator"]
        if annotator is None:
            annotator = path.stem
            if not ctx["warned"]:
                ctx["warned"] = True
                message = (
                    f"{path}: JSON-MIN records without 'annotator'; their annotator is the file "
                    f"name {annotator!r}: pass annotator= to name it"
                )
                warnings.warn(AnnotatorNameWarning(message), stacklevel=4)
    else:
        annotator = _annotator(path, tentry, who)
    aid = rec.get("annotation_id", f"{tid}.{i}")
    regions = []
    for key in region_keys:
        values = rec[key] if isinstance(rec[key], list) else [rec[key]]
        for j, v in enumerate(values):
            rtype = "polygonlabels" if "points" in v else "rectanglelabels"
            r = {"id": f"{key}{j}", "type": rtype, "from_name": key, "value": v}
            for size in ("original_width", "original_height"):
                if size in v:
                    r[size] = v[size]
            regions.append((f"{tentry} {key}[{j}]", r))
    tw, th = _task_size(r for _, r in regions)
    if not _first_annotation(b, ctx, path, tentry, item, annotator, rec):
        return
    b.cover(item, annotator, width=tw, height=th, file_idx=f, entry=tentry)
    for rentry, r in regions:
        try:
            where = (item, annotator, aid, tid)
            _region(path, f, b, rentry, where, (r["id"], 1, 0, r), ({}, {}), ctx)
        except ENTRY_ERRORS as exc:
            _failed(b, exc, path, rentry, item, annotator, r)
