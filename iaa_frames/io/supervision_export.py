"""The tidy frame as ``supervision.Detections``: :func:`to_supervision`, the way back of
:func:`iaa_frames.io.supervision.from_supervision`.

It needs the ``supervision`` extra (``pip install 'iaa-frames[supervision]'``), imported
when it is called.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import shapely

from iaa_frames.errors import IAAError, IAAWarning, ParameterError
from iaa_frames.frame.schema import BOX_COLUMNS, validate

from .supervision import CLASS_NAME

__all__ = ["rasterize", "to_supervision"]

_MAX_LISTED = 5


def _import_supervision():
    try:
        with warnings.catch_warnings():  # "OpenCV is not installed; ... NumPy fallback"
            warnings.simplefilter("ignore", UserWarning)
            import supervision
    except ImportError:
        raise IAAError(
            "to_supervision needs the supervision package, which is not installed "
            "(pip install 'iaa-frames[supervision]')"
        ) from None
    return supervision


def rasterize(geoms, box, width: int, height: int) -> np.ndarray:
    """(n, height, width) masks: the pixels whose centre lies inside each shape (``geoms``,
    or the box where it is None); a mask read as its pixel polygon comes back exactly.

    Examples
    --------
    >>> import numpy as np, shapely
    >>> rasterize(np.array([None, shapely.box(0, 0, 2, 1)]),
    ...           np.array([[1.0, 0, 3, 2], [0, 0, 2, 1]]), 4, 2).astype(int)
    array([[[0, 1, 1, 0],
            [0, 1, 1, 0]],
    <BLANKLINE>
           [[1, 1, 0, 0],
            [0, 0, 0, 0]]])
    """
    out = np.zeros((len(box), height, width), dtype=bool)
    for i in range(len(box)):
        c0 = max(int(math.floor(box[i, 0])), 0)
        c1 = min(int(math.ceil(box[i, 2])), width)
        r0 = max(int(math.floor(box[i, 1])), 0)
        r1 = min(int(math.ceil(box[i, 3])), height)
        if c1 <= c0 or r1 <= r0:
            continue
        xs = np.arange(c0, c1) + 0.5
        ys = np.arange(r0, r1) + 0.5
        if geoms[i] is None:
            inside = ((xs > box[i, 0]) & (xs < box[i, 2]))[None, :] & (
                (ys > box[i, 1]) & (ys < box[i, 3])
            )[:, None]
        else:
            gx, gy = np.meshgrid(xs, ys)
            inside = shapely.contains_xy(geoms[i], gx, gy)
        out[i, r0:r1, c0:c1] = inside
    return out


def to_supervision(frame: pd.DataFrame, *, class_names=None, masks: bool = False) -> dict:
    """One ``supervision.Detections`` per (item, annotator) of a tidy frame.

    Parameters
    ----------
    frame : pandas.DataFrame
        A tidy annotation frame (validated first).
    class_names : sequence of str, optional
        The classes, in ``class_id`` order; by default the frame's labels, sorted. A label
        not in the list is a :class:`~iaa_frames.errors.ParameterError`.
    masks : bool, default False
        Also write ``mask``: every object rasterized at its item's ``width`` x ``height``
        (a pixel is set when its centre is inside the shape, so the masks read by
        :func:`from_supervision` come back exactly). Needs ``width`` and ``height``. With
        ``False``, a polygon is written as its bounding box, with an
        :class:`~iaa_frames.errors.IAAWarning` counting them.

    Returns
    -------
    dict
        ``{(item, annotator): sv.Detections}`` in frame order, with ``xyxy``,
        ``class_id``, ``data["class_name"]``, and ``confidence`` / ``tracker_id`` from
        those columns when the frame has them; a coverage row gives an empty Detections.

    Raises
    ------
    IAAError
        When supervision is not installed (the ``supervision`` extra).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([
    ...     {"item": "img1", "annotator": "ana", "label": "car", "x0": 1, "y0": 2, "x1": 5, "y1": 6},
    ...     {"item": "img1", "annotator": "ben"},
    ... ])
    >>> dets = to_supervision(df)  # doctest: +SKIP
    >>> dets["img1", "ana"].xyxy, dets["img1", "ana"].data["class_name"]  # doctest: +SKIP
    (array([[1., 2., 5., 6.]]), array(['car'], dtype='<U3'))
    >>> len(dets["img1", "ben"])  # doctest: +SKIP
    0
    """
    sv = _import_supervision()
    frame = validate(frame)
    objects = frame["x0"].notna().to_numpy()
    labels = frame["label"].to_numpy(object)
    if class_names is None:
        class_names = sorted({str(v) for v in labels[objects]})
    class_names = [str(c) for c in class_names]
    lookup = {c: i for i, c in enumerate(class_names)}
    unknown = sorted({str(v) for v in labels[objects]} - set(lookup))
    if unknown:
        raise ParameterError(f"labels {unknown[:_MAX_LISTED]} are not in class_names")
    has_geom = ~np.equal(frame["geometry"].to_numpy(object), None)
    if not masks and has_geom.any():
        message = (
            f"to_supervision: {int(has_geom.sum())} polygon(s) written as their bounding "
            "boxes (pass masks=True to write them as masks)"
        )
        warnings.warn(IAAWarning(message), stacklevel=2)
    box = frame[list(BOX_COLUMNS)].to_numpy("float64")
    geoms = frame["geometry"].to_numpy(object)
    width = frame["width"].to_numpy("float64")
    height = frame["height"].to_numpy("float64")
    conf = frame["confidence"].to_numpy("float64") if "confidence" in frame else None
    track = frame["tracker_id"] if "tracker_id" in frame else None
    codes, uniques = pd.factorize(
        pd.MultiIndex.from_arrays([frame["item"], frame["annotator"]]), sort=False
    )
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    out = {}
    for g, key in enumerate(uniques):
        rows = order[bounds[g] : bounds[g + 1]]
        rows = rows[objects[rows]]
        if not len(rows):
            empty = sv.Detections.empty()
            empty.data = {CLASS_NAME: np.empty(0, dtype=str)}  # as supervision's readers do
            out[key] = empty
            continue
        kw = {
            "xyxy": box[rows],
            "class_id": np.array([lookup[str(v)] for v in labels[rows]], dtype=int),
            "data": {CLASS_NAME: np.array([str(v) for v in labels[rows]])},
        }
        if conf is not None:
            kw["confidence"] = conf[rows]
        if track is not None and track.iloc[rows].notna().all():
            kw["tracker_id"] = track.iloc[rows].to_numpy().astype(int)
        if masks:
            w, h = width[rows[0]], height[rows[0]]
            if not (np.isfinite(w) and np.isfinite(h)):
                raise ParameterError(
                    f"masks=True needs the image size: item {key[0]!r} has no width/height"
                )
            kw["mask"] = rasterize(geoms[rows], box[rows], int(w), int(h))
        out[key] = sv.Detections(**kw)
    return out
