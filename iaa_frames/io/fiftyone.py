"""Bridge to FiftyOne (Voxel51): label fields of a dataset in, per-sample agreement out.

:func:`from_fiftyone` reads ``Detections`` (relative ``[x, y, w, h]`` boxes, instance
masks), closed or filled ``Polylines`` (polygons) and open ones (lines of the kind
``polyline``) of one field per annotator, or of fields whose
labels carry an annotator attribute, into the tidy frame, with pixel coordinates where the
sample's ``metadata`` has the image size. :func:`iaa_frames.io.fiftyone_export.to_fiftyone`
writes the per-item agreement of :func:`iaa_frames.item_agreement` back as sample fields,
to sort, filter and look at in the FiftyOne App.

Neither imports ``fiftyone``: they read and write through the documented attributes
(``sample.filepath``, ``sample.metadata.width``, ``label.detections``,
``detection.bounding_box``, ``detection.mask``, ``polyline.points``, ...;
``dataset.values`` / ``dataset.set_values`` where the dataset has them), so a Dataset, a
DatasetView or a plain list of ``fo.Sample`` all work.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import IAAError, IAAWarning, ParameterError, ReaderError
from iaa_frames.geometry.kinds import POLYLINE, polyline_params

from .builder import FrameBuilder, finish
from .masks import mask_to_geometry
from .paths import reader_error
from .values import is_number, on_canvas

__all__ = ["from_fiftyone"]


def _fields(fields, annotator_attribute):
    """{field: annotator name (or None: taken from the attribute)}."""
    if isinstance(fields, str):
        fields = [fields]
    if isinstance(fields, Mapping):
        out = {str(k): v for k, v in fields.items()}
    else:
        out = {str(f): f for f in fields}
    if not out:
        raise ParameterError("fields must name at least one label field")
    if annotator_attribute is not None:
        return dict.fromkeys(out)
    unnamed = [k for k, v in out.items() if v is None]
    if unnamed:
        raise ParameterError(
            f"field {unnamed[0]!r} names no annotator: give one ({{field: annotator}}), or "
            "pass annotator_attribute= for fields whose labels name their annotator"
        )
    return out


def _annotator(who, spellings: dict):
    """An annotator name as text, as every reader names annotators: an integer id becomes
    its decimal string, so ``3`` and ``"3"`` are one annotator ``"3"``; ``spellings``
    collects, per name, the values that gave it (for :func:`_warn_merged`)."""
    if isinstance(who, (int, np.integer)) and not isinstance(who, (bool, np.bool_)):
        text = str(int(who))
    elif isinstance(who, str):
        text = who
    else:
        return who  # validate() reads it as text or refuses it
    spellings.setdefault(text, {}).setdefault(isinstance(who, str), who)
    return text


def _warn_merged(spellings: dict) -> None:
    """An :class:`~iaa_frames.errors.IAAWarning` naming the annotators given both as a
    number and as text (``3`` and ``"3"``): they are read as one annotator."""
    both = [(v[False], v[True]) for v in spellings.values() if len(v) == 2]
    if both:
        shown = ", ".join(f"{n!r} and {t!r}" for n, t in both[:5])
        more = f" (and {len(both) - 5} more)" if len(both) > 5 else ""
        message = (
            f"fiftyone: the annotator names {shown}{more} read the same: they name one "
            f"annotator, {both[0][1]!r} (identifiers are text: integer ids become strings, "
            "as in every reader); rename one of them to keep them apart"
        )
        warnings.warn(IAAWarning(message), stacklevel=3)


def _size(sample):
    meta = getattr(sample, "metadata", None)
    w = getattr(meta, "width", None) if meta is not None else None
    h = getattr(meta, "height", None) if meta is not None else None
    if w and h:
        return float(w), float(h), True
    return 1.0, 1.0, False  # relative coordinates: the image is the unit square


def value_of(obj, name):
    """``obj.name``, or None when it has none (a FiftyOne label or sample)."""
    try:
        return getattr(obj, name, None)
    except (KeyError, AttributeError):
        return None


def _labels(value, field, where):
    """('box' | 'polyline', list of labels) of a field value."""
    if hasattr(value, "detections"):
        return "box", list(value.detections or [])
    if hasattr(value, "polylines"):
        return "polyline", list(value.polylines or [])
    raise ReaderError(
        f"{where}: field {field!r} holds a {type(value).__name__}: from_fiftyone reads "
        "Detections and Polylines"
    )


def _mask_geometry(det, x0, y0, bw, bh):
    """The instance mask of a detection (``mask``, or the image at ``mask_path``) as its
    exact polygon in the frame's coordinates; None without a mask, "empty" for an empty
    one."""
    mask = value_of(det, "mask")
    if mask is None and value_of(det, "mask_path"):
        try:
            from PIL import Image
        except ImportError:
            raise IAAError(
                "reading mask_path needs Pillow, which is not installed "
                "(pip install 'iaa-frames[image]'), or pass masks=False"
            ) from None
        with Image.open(det.mask_path) as im:
            mask = np.asarray(im)
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.ndim == 3:
        mask = mask[..., 0]
    geom = mask_to_geometry(mask > 0)
    if geom is None:
        return "empty"
    # mask pixel (r, c) covers [c, c + 1] x [r, r + 1] of the mask, which spans the box
    sx, sy = bw / mask.shape[1], bh / mask.shape[0]
    return shapely.affinity.affine_transform(geom, [sx, 0, 0, sy, x0, y0])


def from_fiftyone(
    dataset,
    *,
    fields,
    annotator_attribute: str | None = None,
    annotators=None,
    item: str = "filepath",
    masks: bool = True,
    on_invalid: str = "raise",
) -> pd.DataFrame:
    """The tidy annotation frame of FiftyOne label fields.

    Parameters
    ----------
    dataset : fiftyone Dataset, DatasetView or iterable of samples
        The samples (anything iterable whose elements have the label fields as attributes).
    fields : str, sequence of str or dict
        The label fields (``Detections`` or ``Polylines``). Each field is one annotator,
        named after the field, or as a dict ``{field: annotator}`` says; with
        ``annotator_attribute`` the annotator of each label is that attribute instead.
    annotator_attribute : str, optional
        The label attribute naming its annotator (one field holding every annotator's
        labels). Each annotator of ``annotators`` (by default: every annotator found) is
        then taken to have reviewed every sample whose field is set.
    annotators : sequence of str, optional
        With ``annotator_attribute``: the annotators who reviewed every sample.
    item : str, default "filepath"
        The sample attribute that names the item (``"filepath"``, ``"id"``, ``"filename"``
        for the file's name, or a field of your own).
    masks : bool, default True
        Whether a detection's instance mask (``mask``, or ``mask_path`` read with Pillow)
        is the shape, as its exact pixel polygon stretched over the box; ``False``
        compares the boxes.
    on_invalid : {"raise", "drop"}, default "raise"
        What to do with unusable labels (a polygon of fewer than 3 points, an open
        polyline of fewer than 2 or of several lines, an empty mask, a label without an
        annotator attribute, a zero-area box, a ``bounding_box`` or ``confidence`` that
        is not numbers, relative coordinates more than one image size past an edge:
        ``off_canvas``, pixels written where fractions belong; within, they are kept as
        written, not clipped):
        raise a :class:`~iaa_frames.errors.ReaderError` naming the sample, the field and
        the label, or drop them with a :class:`~iaa_frames.errors.DroppedRowsWarning`
        counting them per reason.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame: one row per label, a coverage row for a field that is
        set but empty (the annotator reviewed the sample and drew nothing); a sample where
        a field is ``None`` was not reviewed by that annotator. Coordinates are pixels
        (``bounding_box`` times the image size) where the sample's ``metadata`` has
        ``width`` and ``height``, else relative with ``width = height = 1`` (an
        :class:`~iaa_frames.errors.IAAWarning` counts those samples; run
        ``dataset.compute_metadata()`` first to get pixels). ``object_id`` is the label's
        ``id``; ``confidence`` is kept as a column when labels have it. Annotator names are
        text, as in every reader: an integer name (of ``fields``, ``annotators`` or the
        ``annotator_attribute``) becomes its decimal string, so ``3`` and ``"3"`` are one
        annotator ``"3"``, and an :class:`~iaa_frames.errors.IAAWarning` names the two
        when both occur.

    Raises
    ------
    ReaderError
        For a field holding another label type, a field set on no sample (misspelt?),
        two samples naming one item, or (``on_invalid="raise"``) an unusable label.

    Examples
    --------
    >>> import fiftyone as fo  # doctest: +SKIP
    >>> s = fo.Sample(filepath="/data/a.jpg",
    ...               metadata=fo.ImageMetadata(width=200, height=100))  # doctest: +SKIP
    >>> s["ana"] = fo.Detections(detections=[
    ...     fo.Detection(label="car", bounding_box=[0.1, 0.2, 0.5, 0.5])])  # doctest: +SKIP
    >>> s["ben"] = fo.Detections(detections=[])  # doctest: +SKIP
    >>> df = from_fiftyone([s], fields=["ana", "ben"])  # doctest: +SKIP
    >>> df[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]  # doctest: +SKIP
              item annotator label    x0    y0     x1    y1
    0  /data/a.jpg       ana   car  20.0  20.0  120.0  70.0
    1  /data/a.jpg       ben   NaN   NaN   NaN    NaN   NaN
    """
    spellings: dict = {}  # annotator name -> {is text: value read}
    fields = {k: _annotator(v, spellings) for k, v in _fields(fields, annotator_attribute).items()}
    name = str(getattr(dataset, "name", None) or "fiftyone")
    b = FrameBuilder("fiftyone", on_invalid=on_invalid)
    f = b.add_file(name)
    relative = 0
    found: set = set()
    reviewed = []  # with annotator_attribute: (item, width, height, entry) of set fields
    items: dict = {}  # item -> the first sample that names it
    set_fields: set = set()
    for s_idx, sample in enumerate(dataset):
        key = value_of(sample, item) if item != "filename" else None
        if item == "filename":
            key = str(value_of(sample, "filepath")).replace("\\", "/").rsplit("/", 1)[-1]
        if key is None:
            raise ReaderError(f"{name}: sample {s_idx} has no {item!r} to name its item")
        first = items.setdefault(key, s_idx)
        if first != s_idx:
            raise ReaderError(
                f"{name}: sample {s_idx} names the item {key!r} as sample {first} does "
                f"(item={item!r}): their labels would be one annotator's twice on one item; "
                "pass an item= that tells the samples apart (item='id')"
            )
        w, h, pixels = _size(sample)
        relative += not pixels
        for field, ann in fields.items():
            value = value_of(sample, field)
            if value is None:
                continue
            set_fields.add(field)
            where = f"sample {key!r}"
            kind, labels = _labels(value, field, f"{name}: {where}")
            if ann is not None:
                b.cover(key, ann, width=w, height=h, file_idx=f, entry=f"{where}, {field!r}")
            else:
                reviewed.append((key, w, h, f"{where}, {field!r}"))
            for i, lab in enumerate(labels):
                entry = f"{where}, {field}.{kind == 'box' and 'detections' or 'polylines'}[{i}]"
                who = ann if ann is not None else value_of(lab, annotator_attribute)
                if who is None:
                    why = f"the label has no {annotator_attribute!r} attribute"
                    _refuse(b, name, entry, "no_annotator", why, item=key)
                    continue
                who = _annotator(who, spellings)
                found.add(who)
                _add(b, kind, lab, key, who, w, h, f, entry, masks, name)
    unset = [f for f in fields if f not in set_fields]
    if unset:
        raise ReaderError(
            f"{name}: the field(s) {', '.join(map(repr, unset))} are set on no sample "
            f"({len(items)} read): no review to read (a misspelt field? a frame-level field "
            "of a video dataset, which from_fiftyone does not read?)"
        )
    if annotator_attribute is not None:
        if annotators is not None:
            annotators = list(dict.fromkeys(_annotator(a, spellings) for a in annotators))
        for who in annotators if annotators is not None else sorted(found, key=str):
            for key, w, h, entry in reviewed:
                b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
    _warn_merged(spellings)
    if relative:
        message = (
            f"fiftyone: {relative} sample(s) have no metadata.width/height: their "
            "coordinates are relative (width = height = 1); run "
            "dataset.compute_metadata() first for pixel coordinates"
        )
        warnings.warn(IAAWarning(message), stacklevel=2)
    return finish(b, on_invalid=on_invalid)


def _add(b, kind, lab, key, who, w, h, f, entry, masks, name):
    label = value_of(lab, "label")
    oid = value_of(lab, "id")
    oid = None if oid is None else str(oid)
    conf = value_of(lab, "confidence")
    if conf is not None and not is_number(conf):
        why = f"confidence is {conf!r}, not a number"
        _refuse(b, name, entry, "bad_confidence", why, item=key, annotator=who)
        b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
        return
    extras = None if conf is None else {"confidence": float(conf)}
    common = dict(object_id=oid, width=w, height=h, file_idx=f, entry=entry, extras=extras)
    if kind == "box":
        box = value_of(lab, "bounding_box")
        try:
            x, y, bw, bh = box
        except (TypeError, ValueError):
            x = None
        if x is None or not all(is_number(v) for v in (x, y, bw, bh)):
            why = f"bounding_box is {box!r}, not [x, y, w, h] numbers"
            _refuse(b, name, entry, "bad_bounding_box", why, item=key, annotator=who)
            b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
            return
        x, y, bw, bh = (float(v) for v in (x, y, bw, bh))
        try:
            on_canvas(name, entry, (x, x + bw), (y, y + bh))
        except ReaderError as exc:
            _refuse(b, name, entry, "off_canvas", exc, item=key, annotator=who)
            b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
            return
        x0, y0, x1, y1 = x * w, y * h, (x + bw) * w, (y + bh) * h
        geom = _mask_geometry(lab, x0, y0, x1 - x0, y1 - y0) if masks else None
        if isinstance(geom, str):
            why = "the mask is empty (no pixel set)"
            _refuse(b, name, entry, "empty_mask", why, item=key, annotator=who)
            b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
        elif geom is None:
            b.add_box(key, who, label, x0, y0, x1, y1, **common)
        else:
            b.add_geometry(key, who, label, geom, **common)
        return
    closed = bool(value_of(lab, "closed") or value_of(lab, "filled"))
    parts = _polyline_parts(lab, w, h, closed)
    if not isinstance(parts, tuple):
        xy = np.concatenate(parts) / (w, h)
        try:
            on_canvas(name, entry, xy[:, 0], xy[:, 1])
        except ReaderError as exc:
            parts = ("off_canvas", exc)
    if isinstance(parts, tuple):  # (reason, detail): not a shape
        _refuse(b, name, entry, *parts, item=key, annotator=who)
        b.cover(key, who, width=w, height=h, file_idx=f, entry=entry)
    elif closed:
        b.add_polygon(key, who, label, [[p.reshape(-1).tolist()] for p in parts], **common)
    else:
        b.add_shape(key, who, label, POLYLINE.name, polyline_params(POLYLINE, parts[0]), **common)


def _polyline_parts(lab, w, h, closed):
    """The shapes of a ``Polyline`` (``(n, 2)`` pixel arrays): the rings of a closed or
    filled one (at least 3 points each), the one line of an open one (at least 2 points);
    else ``(reason, detail)``."""
    parts = []
    for shape in value_of(lab, "points") or []:
        try:
            pts = np.asarray(shape, dtype="float64").reshape(-1, 2) * (w, h)
        except (TypeError, ValueError, OverflowError):
            return "bad_points", f"points are not (x, y) pairs: {shape!r}"
        if len(pts) < (3 if closed else 2):
            return "too_few_points", f"a shape of {len(pts)} point(s)"
        parts.append(pts)
    if not parts:
        return "too_few_points", "the polyline has no points"
    if not closed and len(parts) > 1:
        return (
            "multipart_polyline",
            f"an open polyline of {len(parts)} lines (one line per object is read)",
        )
    return parts


def _refuse(b, name, entry, reason, detail, *, item=None, annotator=None):
    """An unusable label: a ReaderError naming the sample, field and label (``detail``
    is its reason, or that error itself), or dropped."""
    if not b.dropping:
        raise detail if isinstance(detail, ReaderError) else reader_error(name, entry, detail)
    b.drop(name, entry, reason, str(detail), item=item, annotator=annotator)
