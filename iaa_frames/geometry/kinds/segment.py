"""The segment kind: time segments ``[start, end]`` on one axis (video actions, audio
events, speaker turns), compared by their temporal IoU.

Frame representation
--------------------
One segment per row, in the columns ``seg_start, seg_end`` (seconds, or frames: any unit
of the item's timeline), ``seg_start < seg_end``. The item's ``width`` is the length of its
timeline (the video's or audio's duration, in the same unit) and its ``height`` 1: a
segment is drawn as the rectangle ``[start, end] x [0, 1]`` of a timeline one unit high,
so its bounding box (the ``x0, y0, x1, y1`` of the frame) is ``start, 0, end, 1`` and
normalization divides the times by the duration (:meth:`SegmentKind.normalize`; the
height is not read). Without a known duration (``width`` NaN) the times stay in their
unit, as pixels do without an image size.

Measures
--------
The "area" of a segment is its length, the area two segments share the length of their
overlap, and their IoU the temporal IoU::

    tIoU([s1, e1], [s2, e2]) = max(0, min(e1, e2) - max(s1, s2)) / (max(e1, e2) - min(s1, s2))

when they overlap (the union is the sum of the lengths less the overlap). It is the box
IoU of their rectangles, so the matcher's box bounds and sweeps hold exactly; GIoU's
enclosing measure is the span from the earlier start to the later end
(:meth:`SegmentKind.giou_terms`). Segments are matched like boxes (one-to-one, gated
at τ on tIoU), and every figure (detection, classification, localization, the chance
baseline of unrelated items, the intervals) follows from that.

Examples
--------
A tutorial in a few lines: two annotators mark the actions of two videos (seconds), the
width of each row is its video's duration.

>>> import numpy as np, pandas as pd
>>> a = np.array([[2.0, 6.0]])
>>> b = np.array([[4.0, 10.0]])
>>> SEGMENT.intersection(a, b).tolist(), SEGMENT.similarity(a, b).tolist()  # 2 / 8
([2.0], [0.25])
>>> rows = [("v1", "ana", "jump", 2.0, 6.0), ("v1", "ben", "jump", 2.5, 6.0),
...         ("v2", "ana", "run", 10.0, 30.0), ("v2", "ben", "run", 11.0, 29.0)]
>>> df = pd.DataFrame(rows, columns=["item", "annotator", "label", "seg_start", "seg_end"])
>>> df["width"], df["height"] = df["item"].map({"v1": 20.0, "v2": 60.0}), 1.0
>>> import iaa_frames as iaf
>>> from iaa_frames.geometry.kinds import kind_of_rows
>>> kind_of_rows(iaf.validate(df)).tolist()
['segment', 'segment', 'segment', 'segment']
>>> iaf.validate(df)[["x0", "y0", "x1", "y1"]].iloc[0].tolist()
[2.0, 0.0, 6.0, 1.0]

A corpus to measure: 40 videos, two annotators who mark the same actions, each moving
every start and end by a noise of 5 % of the action's length. They find the same actions
with the same classes (detection and classification 1); where they put them agrees well
beyond what two unrelated videos' actions would (localization, 1 - tIoU against the chance
pairs of different videos):

>>> rng = np.random.default_rng(0)
>>> rows = []
>>> for i in range(40):
...     duration = rng.uniform(30, 300)
...     for _ in range(rng.integers(1, 4)):
...         s = rng.uniform(0, 0.8) * duration
...         e = s + rng.uniform(0.05, 0.2) * duration
...         label = rng.choice(["jump", "run"])
...         for who in ("ana", "ben"):
...             ds, de = rng.normal(0, 0.05 * (e - s), 2)
...             rows.append((f"v{i}", who, label, s + ds, e + de, duration))
>>> df = pd.DataFrame(rows, columns=["item", "annotator", "label", "seg_start", "seg_end",
...                                  "width"]).assign(height=1.0)
>>> res = iaf.agreement(df, distance="iou", n_chance=300, n_boot=0, seed=0)
>>> res["agreement"].sel(label="(all)", annotator="(all)").round(2).to_series().to_dict()
{'detection': 1.0, 'classification': 1.0, 'localization': 0.68, 'overall': 0.87}
"""

from __future__ import annotations

import numpy as np

from .registry import Kind, register_kind

__all__ = ["SEGMENT", "SEGMENT_COLUMNS", "SegmentKind", "temporal_iou"]

SEGMENT_COLUMNS = ("seg_start", "seg_end")


def temporal_iou(a, b) -> np.ndarray:
    """``(m,)`` temporal IoU of pairs of segments ``a[i]``, ``b[i]`` (``(m, 2)`` arrays of
    start, end): the length of their overlap over that of their union.

    Examples
    --------
    >>> temporal_iou([[0.0, 4.0], [0.0, 1.0]], [[2.0, 6.0], [3.0, 5.0]]).tolist()
    [0.3333333333333333, 0.0]
    """
    a, b = np.asarray(a, np.float64).reshape(-1, 2), np.asarray(b, np.float64).reshape(-1, 2)
    inter = np.maximum(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0.0)
    union = (a[:, 1] - a[:, 0]) + (b[:, 1] - b[:, 0]) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / union


class SegmentKind(Kind):
    """Time segments ``(start, end)``; the data of ``m`` segments is an ``(m, 2)`` float64
    array (module docstring)."""

    name = "segment"
    columns = SEGMENT_COLUMNS
    description = "time segments [start, end] on the item's timeline, temporal IoU"
    # Aligned chance units move a shape in x and y; a segment has no y to move in (its
    # box is always 0..1 high), so it gets none: segments on one axis meet unrelated
    # segments often, and the empirical chance population is rarely thin.
    chance_alignment = None

    def normalize(self, data, sx, sy):
        """Times divided by the timeline's length ``sx`` (the ``width``); ``sy`` (the
        ``height``, 1 by convention) is not read."""
        return np.asarray(data, np.float64) / np.asarray(sx, np.float64)[:, None]

    def invalid(self, data):
        """Segments with a non-finite time or an end not after the start."""
        data = np.asarray(data, np.float64)
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(data).all(axis=1) | ~(data[:, 1] > data[:, 0])

    def bounds(self, data):
        """``start, 0, end, 1``: the rectangle of the segment on a timeline one unit high."""
        data = np.asarray(data, np.float64)
        m = len(data)
        return np.column_stack([data[:, 0], np.zeros(m), data[:, 1], np.ones(m)])

    def areas(self, data):
        """Lengths, ``end - start``."""
        data = np.asarray(data, np.float64)
        return data[:, 1] - data[:, 0]

    def intersection(self, data_a, data_b):
        """The length of each pair's overlap (0 when apart)."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        return np.maximum(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0.0)

    def giou_terms(self, data_a, data_b, union):
        """GIoU on the timeline: the enclosing measure is the span from the earlier start
        to the later end, the union the segments' own."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        enclosing = np.maximum(a[:, 1], b[:, 1]) - np.minimum(a[:, 0], b[:, 0])
        return enclosing, np.asarray(union, dtype=np.float64)

    def to_polygons(self, data):
        """The rectangles ``[start, end] x [0, 1]`` (for figures, centroids and the
        distances that need outlines)."""
        import shapely

        b = self.bounds(data)
        return shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])

    def centroids(self, data):
        """``(mid-time, 0.5)``."""
        data = np.asarray(data, np.float64)
        return np.column_stack([data.mean(axis=1), np.full(len(data), 0.5)])


#: Time segments, columns ``seg_start``, ``seg_end``.
SEGMENT = register_kind(SegmentKind())
