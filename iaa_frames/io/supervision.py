"""Bridge to ``supervision`` (Roboflow): ``sv.Detections`` in and out of the tidy frame.

:func:`from_supervision` turns one :class:`supervision.Detections` per (item, annotator)
into the tidy frame: boxes from ``xyxy``, labels from ``data["class_name"]`` or
``class_id`` (through ``class_names``), masks as their exact pixel polygons (see
:func:`iaa_frames.io.masks.mask_to_geometry`), oriented boxes (``data["xyxyxyxy"]``) as
polygons, ``confidence`` and ``tracker_id`` as extra columns, and an empty Detections as a
coverage row (the annotator reviewed the item and drew nothing). It reads any object
shaped like a Detections and never imports ``supervision``;
:func:`iaa_frames.io.supervision_export.to_supervision` goes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import (
    InvalidAnnotationError,
    ParameterError,
)
from iaa_frames.frame.schema import BOX_COLUMNS, INVALID_REASONS, check, validate

from .builder import unusable_message, warn_dropped
from .masks import masks_to_geometries

__all__ = ["CLASS_NAME", "ORIENTED", "from_supervision"]

#: supervision's ``data`` key of the class names (``supervision.config.CLASS_NAME_DATA_FIELD``)
CLASS_NAME = "class_name"
#: supervision's ``data`` key of oriented boxes, (n, 4, 2) corners
#: (``supervision.config.ORIENTED_BOX_COORDINATES``)
ORIENTED = "xyxyxyxy"
_CORE = ("item", "annotator", "label", "object_id", *BOX_COLUMNS, "geometry", "width", "height")
_REASONS = {
    "unknown_class": "the class_id is not in class_names",
    "no_class": "the detection has neither data['class_name'] nor a class_id",
    "bad_class_id": "the class_id is not an integer (a fraction, NaN)",
    "empty_mask": "the mask is empty (no pixel set)",
}


def _is_detections(v) -> bool:
    return hasattr(v, "xyxy") and hasattr(v, "class_id")


def _entries(detections, item):
    """The (key, item, annotator, Detections) of each input, in input order."""
    if not isinstance(detections, Mapping):
        raise ParameterError(
            "detections must be a dict {annotator: sv.Detections}, "
            "{(item, annotator): sv.Detections} or {annotator: {item: sv.Detections}}, "
            f"got {type(detections).__name__}"
        )
    out = []
    for key, value in detections.items():
        if isinstance(value, Mapping):
            for it, det in value.items():
                out.append(((key, it), it, key, det))
        elif isinstance(key, tuple):
            if len(key) != 2:
                raise ParameterError(f"a tuple key must be (item, annotator), got {key!r}")
            out.append((key, key[0], key[1], value))
        else:
            out.append((key, item, key, value))
    seen = set()
    for key, it, ann, det in out:
        if (it, ann) in seen:
            raise ParameterError(
                f"detections[{key!r}]: item {it!r}, annotator {ann!r} is given twice"
            )
        seen.add((it, ann))
        if not _is_detections(det):
            raise ParameterError(
                f"detections[{key!r}] is a {type(det).__name__}, not a supervision.Detections "
                "(an object with xyxy and class_id)"
            )
    return out


def _labels(det, n, class_names, where):
    """Labels of one Detections and a reason code per row ('' = fine)."""
    bad = np.full(n, "", dtype=object)
    data = getattr(det, "data", None) or {}
    names = data.get(CLASS_NAME)
    if names is not None:
        labels = np.asarray(names, dtype=object).reshape(-1)
        if len(labels) != n:
            raise ParameterError(
                f"{where}: data['class_name'] has {len(labels)} values for {n} boxes"
            )
        return np.array([None if v is None else str(v) for v in labels], dtype=object), bad
    if det.class_id is None:
        bad[:] = "no_class"
        return np.full(n, None, dtype=object), bad
    ids = np.asarray(det.class_id).reshape(-1)
    if len(ids) != n:
        raise ParameterError(f"{where}: class_id has {len(ids)} values for {n} boxes")
    if ids.dtype.kind not in "iu":  # floats (1.7 is no class, NaN none), objects, text
        try:
            values = ids.astype("float64")
        except (TypeError, ValueError):
            raise ParameterError(
                f"{where}: class_id must hold integers, got {ids.dtype} {ids[:3].tolist()!r}"
            ) from None
        whole = np.isfinite(values) & (values == np.round(values))
        bad[~whole] = "bad_class_id"
        ids = np.where(whole, values, 0).astype(np.int64)
    if class_names is None:
        labels = ids.astype(np.int64).astype(str).astype(object)
        return np.where(bad == "", labels, None).astype(object), bad
    if isinstance(class_names, Mapping):
        mapped = pd.Series(ids).map(dict(class_names)).to_numpy(dtype=object)
        missing = pd.isna(mapped)
    else:
        table = np.asarray(list(class_names), dtype=object)
        ids = ids.astype(np.int64)
        missing = (ids < 0) | (ids >= len(table))
        mapped = table[np.where(missing, 0, ids)] if len(table) else np.full(n, None, object)
    missing = missing & (bad == "")
    mapped = np.where(missing | (bad != ""), None, mapped).astype(object)
    bad[missing] = "unknown_class"
    return np.array([None if v is None else str(v) for v in mapped], dtype=object), bad


def _shapes(det, n, masks):
    """(box (n, 4), geometry (n,) object, empty-mask flags, (width, height) or None)."""
    box = np.asarray(det.xyxy, dtype="float64")
    if box.shape != (n, 4):
        raise ParameterError(f"xyxy must have shape (n, 4), got {box.shape}")
    geometry = np.full(n, None, dtype=object)
    empty = np.zeros(n, bool)
    size = None
    mask = getattr(det, "mask", None)
    data = getattr(det, "data", None) or {}
    if masks and mask is not None:
        shape = tuple(getattr(mask, "shape", ()))
        if len(shape) != 3 or shape[0] != n:
            raise ParameterError(f"mask must have shape (n, height, width), got {shape}")
        size = (float(shape[2]), float(shape[1]))
        kind = getattr(mask, "dtype", np.dtype(bool)).kind
        if kind == "f" and ((mask != 0) & (mask != 1)).any():
            raise ParameterError(
                "mask holds values other than 0 and 1 (scores, probabilities?): a mask is "
                "boolean; threshold it (mask > 0.5) first"
            )
        geometry[:] = masks_to_geometries(mask)  # the exact polygons, traced at once
        empty = np.equal(geometry, None)
    elif data.get(ORIENTED) is not None:
        corners = np.asarray(data[ORIENTED], dtype="float64")
        if corners.shape != (n, 4, 2):
            raise ParameterError(
                f"data['{ORIENTED}'] must have shape (n, 4, 2), got {corners.shape}"
            )
        geometry = shapely.polygons(corners)
    return box, geometry, empty, size


def _extras(det, n):
    """``confidence``, ``tracker_id`` and the other one-value-per-box ``data`` arrays."""
    out = {}
    for name in ("confidence", "tracker_id"):
        v = getattr(det, name, None)
        if v is not None:
            out[name] = np.asarray(v).reshape(-1)
    for key, v in (getattr(det, "data", None) or {}).items():
        if key in (CLASS_NAME, ORIENTED):
            continue
        arr = np.asarray(v)
        if arr.ndim == 1 and len(arr) == n:
            out[key if key not in _CORE and key not in out else f"data_{key}"] = arr
    return out


def from_supervision(
    detections,
    *,
    class_names=None,
    item="image",
    masks: bool = True,
    image_sizes=None,
    on_invalid: str = "raise",
) -> pd.DataFrame:
    """The tidy annotation frame of ``supervision.Detections``, one per (item, annotator).

    Parameters
    ----------
    detections : dict
        ``{(item, annotator): sv.Detections}``, ``{annotator: {item: sv.Detections}}``, or
        ``{annotator: sv.Detections}`` for one item (named ``item``). Every Detections
        given is a review: an empty one becomes a coverage row (the annotator saw the item
        and drew nothing), which detection agreement counts.
    class_names : sequence or dict, optional
        The name of each ``class_id`` (a list indexed by id, or a dict id -> name), used
        when a Detections has no ``data["class_name"]``. Without it, labels are the ids as
        text (``"0"``, ``"1"``, ...).
    item : str, default "image"
        The item of ``{annotator: sv.Detections}`` input.
    masks : bool, default True
        Whether a Detections' ``mask`` (``(n, H, W)`` booleans or a ``CompactMask``) is the
        shape: each mask becomes its exact pixel polygon (vector IoU = pixel IoU), the
        rows get ``width = W, height = H``, and ``xyxy`` is then replaced by the mask's
        bounds. ``False`` compares the boxes. Without masks, oriented boxes
        (``data["xyxyxyxy"]``) are polygons, else ``xyxy`` is the box.
    image_sizes : dict, optional
        ``{item: (width, height)}`` in pixels, used to normalize distances (masks give
        their own size).
    on_invalid : {"raise", "drop"}, default "raise"
        What to do with unusable detections (a ``class_id`` missing from ``class_names``
        or not an integer, an empty mask, an inverted or zero-area box): raise
        :class:`~iaa_frames.errors.InvalidAnnotationError` naming each as
        ``detections[key][i]``, or drop them with a
        :class:`~iaa_frames.errors.DroppedRowsWarning` counting them per reason (its
        ``dropped`` attribute lists them). An annotator whose detections on an item are
        all dropped keeps a coverage row there.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame (:func:`iaa_frames.validate`), in input order, with the
        extra columns ``confidence`` and ``tracker_id`` where given, and one per
        one-value-per-box ``data`` array (named ``data_<key>`` if the key is a column of
        the frame); other ``data`` (arrays of another shape) and ``metadata`` are not kept.

    Raises
    ------
    ParameterError
        When ``detections`` is not one of the shapes above, a Detections' arrays do not
        have one entry per box, or a float mask holds values other than 0 and 1.
    InvalidAnnotationError
        With ``on_invalid="raise"``, for the first unusable detections.

    Examples
    --------
    >>> import numpy as np
    >>> import supervision as sv  # doctest: +SKIP
    >>> ana = sv.Detections(xyxy=np.array([[10., 10, 50, 40]]), class_id=np.array([0]),
    ...                     confidence=np.array([0.9]))  # doctest: +SKIP
    >>> df = from_supervision({("img1", "ana"): ana, ("img1", "ben"): ana,
    ...                        ("img2", "ana"): sv.Detections.empty()},
    ...                       class_names=["car"])  # doctest: +SKIP
    >>> df[["item", "annotator", "label", "x0", "x1", "confidence"]]  # doctest: +SKIP
       item annotator label    x0    x1  confidence
    0  img1       ana   car  10.0  50.0         0.9
    1  img1       ben   car  10.0  50.0         0.9
    2  img2       ana   NaN   NaN   NaN         NaN
    """
    if on_invalid not in ("raise", "drop"):
        raise ParameterError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
    entries = _entries(detections, item)
    sizes = dict(image_sizes or {})
    # column pieces, one per non-empty Detections, concatenated once
    who, counts, boxes, geoms, labs, sizes_wh, keys, idx, code = ([] for _ in range(9))
    extras: dict[str, list] = {}
    coverage = []
    start = 0
    for pos, (key, it, ann, det) in enumerate(entries):
        n = len(np.asarray(det.xyxy).reshape(-1, 4)) if np.size(det.xyxy) else 0
        where = f"detections[{key!r}]"
        try:
            box, geometry, empty, size = _shapes(det, n, masks)
        except ParameterError as exc:
            raise ParameterError(f"{where}: {exc}") from None
        labels, bad = _labels(det, n, class_names, where)
        bad[empty & (bad == "")] = "empty_mask"
        w, h = size if size is not None else sizes.get(it, (math.nan, math.nan))
        coverage.append({"item": it, "annotator": ann, "width": w, "height": h, "_pos": pos})
        if not n:
            continue
        who.append((it, ann, pos))
        counts.append(n)
        boxes.append(box)
        geoms.append(geometry)
        labs.append(labels)
        sizes_wh.append((w, h))
        for name, arr in _extras(det, n).items():
            extras.setdefault(name, []).append((start, arr))
        keys += [key] * n
        idx.append(np.arange(n))
        code.append(bad)
        start += n
    objects = _objects(who, counts, boxes, geoms, labs, sizes_wh, extras, start)
    index = np.concatenate(idx) if idx else np.empty(0, int)
    own = np.concatenate(code) if code else np.empty(0, object)
    # geometry of rows this bridge refuses is blanked so that check() gives them no reason
    mine = own != ""
    res = check(objects.assign(label=np.where(mine, "-", objects["label"].to_numpy(object))))
    reason = np.where(mine, own, "")
    theirs = objects.index.isin(res.dropped.index) & ~mine
    reason[theirs] = res.dropped["reason"].reindex(objects.index[theirs]).to_numpy(object)
    dropped = _dropped(keys, index, objects, reason)
    if len(dropped) and on_invalid == "raise":
        raise InvalidAnnotationError(_message(dropped))
    kept = res.frame.loc[~res.frame.index.isin(objects.index[mine])]
    # as text, as validate() names items: an item 1 and "1" are one
    present = {(str(i), str(a)) for i, a in zip(kept["item"], kept["annotator"], strict=True)}
    cover = pd.DataFrame(
        [c for c in coverage if (str(c["item"]), str(c["annotator"])) not in present],
        columns=["item", "annotator", "width", "height", "_pos"],
    )
    cover = cover.assign(label=None, **{c: np.nan for c in BOX_COLUMNS})
    kept = kept.drop(columns="object_id")
    # (an empty piece would turn str columns into object)
    pieces = [p for p in (kept, cover) if len(p)] or [kept]
    frame = pd.concat(pieces, ignore_index=True)
    frame = frame.sort_values("_pos", kind="stable").drop(columns="_pos")
    frame = validate(frame.reset_index(drop=True))
    if len(dropped):
        counts = {str(k): int(v) for k, v in dropped["reason"].value_counts(sort=False).items()}
        summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
        message = f"supervision: dropped {len(dropped)} detection(s) ({summary}); the warning's .dropped attribute lists them"
        warn_dropped(message, counts, dropped, 2)
    return frame


def _extra_column(pieces, total: int):
    """One extra column from its (start, array) pieces: int64 when every row has an integer,
    float64 (NaN where missing) when numbers, else object (None where missing)."""
    kinds = {a.dtype.kind for _, a in pieces}
    covered = sum(len(a) for _, a in pieces) == total
    if kinds <= set("iu") and covered:
        out = np.empty(total, dtype="int64")
    elif kinds <= set("biuf"):
        out = np.full(total, np.nan)
    else:
        out = np.full(total, None, dtype=object)
    for s0, a in pieces:
        out[s0 : s0 + len(a)] = a
    return out


def _objects(who, counts, boxes, geoms, labs, sizes_wh, extras, total) -> pd.DataFrame:
    """The object rows of every Detections, each column built once."""
    if not total:
        return pd.DataFrame({c: [] for c in ("item", "annotator", "label", *BOX_COLUMNS, "_pos")})
    counts = np.asarray(counts)
    rep = lambda values: np.repeat(np.array(values + [None], dtype=object)[:-1], counts)
    box = np.concatenate(boxes)
    wh = np.repeat(np.asarray(sizes_wh, dtype="float64"), counts, axis=0)
    return pd.DataFrame(
        {
            "item": rep([w[0] for w in who]).tolist(),  # a list: str dtype for string items
            "annotator": rep([w[1] for w in who]).tolist(),
            "label": np.concatenate(labs),
            **{c: box[:, j] for j, c in enumerate(BOX_COLUMNS)},
            "geometry": np.concatenate(geoms),
            "width": wh[:, 0],
            "height": wh[:, 1],
            **{k: _extra_column(v, total) for k, v in extras.items()},
            "_pos": np.repeat([w[2] for w in who], counts),
        }
    )


def _dropped(keys, index, objects, reason) -> pd.DataFrame:
    bad = np.flatnonzero(reason != "")
    return pd.DataFrame(
        {
            "key": [keys[i] for i in bad],
            "index": index[bad],
            "item": objects["item"].to_numpy(object)[bad],
            "annotator": objects["annotator"].to_numpy(object)[bad],
            "reason": reason[bad],
            "detail": [_REASONS.get(r) or INVALID_REASONS.get(r, r) for r in reason[bad]],
        }
    )


def _message(dropped: pd.DataFrame) -> str:
    head = dropped.iloc[:5]
    lines = [
        f"detections[{k!r}][{i}]: {d}"
        for k, i, d in zip(head["key"], head["index"], head["detail"])
    ]
    return unusable_message(f"{len(dropped)} unusable detection(s)", lines, len(dropped))
