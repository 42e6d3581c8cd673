"""Label Studio's timeline regions as time segments, for :func:`~iaa_frames.io.read_labelstudio`.

Two kinds of results of a Label Studio JSON export mark spans of one axis; each becomes an
object of the kind ``segment`` (:mod:`iaa_frames.geometry.kinds.segment`):

* **Video timelines** (the ``TimelineLabels`` tag on a ``Video``): a result of ``type``
  ``"timelinelabels"`` whose ``value`` holds ``ranges``, a list of ``{"start": s, "end":
  e}`` (frame numbers from 1, both frames included; Label Studio writes one range per
  region), and ``timelinelabels``, the region's label. A range is the segment
  ``[s - 1, e]`` in frames, so a region of one frame lasts one frame. A timeline result
  holds no length of the video: ``width`` is the ``framesCount`` of a ``videorectangle``
  result of the same annotation where there is one (``height`` 1), else NaN, and the
  times stay in frames.
* **Audio regions** (the ``Labels`` tag on an ``Audio`` tag): a result of ``type``
  ``"labels"`` whose ``value`` holds ``start`` and ``end`` in seconds and ``labels``, with
  the audio's length in seconds as the result's ``original_length``: the segment
  ``[start, end]``, ``width`` the length (times divided by it) and ``height`` 1. A
  ``labels`` result over text (its value has ``text`` or offsets) is no audio region and
  is not read here.

A region with several labels keeps the first (counted as ``extra_labels_ignored``), one
without a label is dropped (``unlabelled_region``); a range that is not two numbers is a
ReaderError naming the task, the annotation and the result.
"""

from __future__ import annotations

import math

from .paths import ENTRY_ERRORS, reader_error
from .values import is_number

__all__ = ["is_timeline_result", "read_timeline_result", "region_label"]

_TEXT_KEYS = ("text", "startOffset", "endOffset", "globalOffsets")


def is_timeline_result(r) -> bool:
    """Whether a result is a timeline region this module reads (a video
    ``timelinelabels`` range, or an audio ``labels`` region)."""
    value = r.get("value")
    if not isinstance(value, dict):
        return False
    if r.get("type") == "timelinelabels":
        return True
    return (
        r.get("type") == "labels"
        and "start" in value
        and "end" in value
        and not any(k in value for k in _TEXT_KEYS)
    )


def read_timeline_result(b, path, f, rentry, where, r, results=()) -> None:
    """Add the segments of one timeline result to the builder ``b`` (``where`` is ``(item,
    annotator, annotation id, task id)``, ``results`` the annotation's results, where a
    video's length is looked for); an unreadable result is
    :meth:`~iaa_frames.io.builder.FrameBuilder.entry_failed`."""
    item, annotator, aid, tid = where
    try:
        _read(b, path, f, rentry, where, r, results)
    except ENTRY_ERRORS as exc:
        b.entry_failed(exc, path, rentry, item=item, annotator=annotator, record=r)


def _time(path, entry, d, key, unit):
    v = d.get(key)
    if isinstance(v, bool) or not is_number(v) or not math.isfinite(v):
        raise reader_error(path, entry, f"{key} must be a number ({unit}), got {v!r:.80}")
    return float(v)


def _frames_count(results) -> float:
    """The ``framesCount`` of the first ``videorectangle`` result that has a positive one
    (the video's length in frames), else NaN."""
    for r in results:
        value = r.get("value") if isinstance(r, dict) else None
        if isinstance(value, dict) and r.get("type") == "videorectangle":
            n = value.get("framesCount")
            if is_number(n) and math.isfinite(n) and 0 < n <= 1e9:
                return float(n)
    return math.nan


def region_label(value, labels_key):
    """``(class, number of classes)`` of a Label Studio region's ``value``: its
    ``labels_key`` list (else ``labels``), the first class kept; ``(None, 0)`` when it has
    none that is a non-empty string.

    Examples
    --------
    >>> region_label({"timelinelabels": ["jump", "run"]}, "timelinelabels")
    ('jump', 2)
    >>> region_label({"labels": "car"}, "rectanglelabels"), region_label({}, None)
    (('car', 1), (None, 0))
    """
    labels = value.get(labels_key) if labels_key is not None else None
    if labels is None:
        labels = value.get("labels")
    if isinstance(labels, str):
        labels = [labels]
    if (
        not isinstance(labels, list)
        or not labels
        or not all(isinstance(x, str) and x for x in labels)
    ):
        return None, 0
    return labels[0], len(labels)


def _read(b, path, f, rentry, where, r, results) -> None:
    item, annotator, aid, tid = where
    value = r["value"]
    video = r.get("type") == "timelinelabels"
    label, n_labels = region_label(value, "timelinelabels" if video else "labels")
    if label is None:
        b.drop(path, rentry, "unlabelled_region", "a region without a label",
               item=item, annotator=annotator, record=r)  # fmt: skip
        return
    if n_labels > 1:
        why = f"a region with {n_labels} labels: the first ({label!r}) was kept"
        rec = value.get("timelinelabels" if video else "labels") or value.get("labels")
        b.drop(
            path, rentry, "extra_labels_ignored", why, item=item, annotator=annotator, record=rec
        )
    rid = r.get("id", rentry)
    if video:
        ranges = value.get("ranges")
        if not isinstance(ranges, list) or not ranges:
            raise reader_error(
                path, rentry, f"value.ranges must be a list of {{start, end}}, got {ranges!r:.80}"
            )
        spans = []
        for k, rg in enumerate(ranges):
            if not isinstance(rg, dict):
                raise reader_error(
                    path, f"{rentry} ranges[{k}]", f"a range must be an object, got {rg!r:.80}"
                )
            s = _time(path, f"{rentry} ranges[{k}]", rg, "start", "a frame number")
            e = _time(path, f"{rentry} ranges[{k}]", rg, "end", "a frame number")
            spans.append((s - 1.0, e))
        width = _frames_count(results)  # frames
    else:
        spans = [
            (
                _time(path, rentry, value, "start", "seconds"),
                _time(path, rentry, value, "end", "seconds"),
            )
        ]
        length = r.get("original_length")
        width = (
            float(length)
            if is_number(length) and math.isfinite(length) and length > 0
            else math.nan
        )
    height = 1.0 if math.isfinite(width) else math.nan
    extras = {"task": tid}
    if not video and is_number(value.get("channel")):
        extras["channel"] = value["channel"]
    kw = dict(width=width, height=height, file_idx=f, entry=rentry)
    for k, (s, e) in enumerate(spans):
        oid = f"{aid}/{rid}" if len(spans) == 1 else f"{aid}/{rid}/{k}"
        b.add_shape(
            item, annotator, label, "segment", [s, e], object_id=oid, extras=dict(extras), **kw
        )
