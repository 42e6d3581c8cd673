"""Reader for ActivityNet-style temporal annotations: :func:`read_activitynet`.

The ActivityNet JSON (its ``activity_net.v1-3.min.json``, and the many action and audio
event sets written after it) holds one entry per video under ``database``::

    {"version": "VERSION 1.3",
     "database": {"v_QOlSCBRmfWY": {"duration": 82.73, "subset": "training",
                                    "annotations": [{"segment": [6.19, 77.9],
                                                     "label": "Ballet"}]}}}

``segment`` is ``[start, end]`` in seconds, ``duration`` the video's length in seconds.
Detection results of the ActivityNet challenge have ``results`` instead:
``{"results": {video_id: [{"segment": [s, e], "label": ..., "score": ...}]}}`` (read the
same way; a ``score`` becomes a column). Each video is an item, each segment an object of
the kind ``segment`` (:mod:`iaa_frames.geometry.kinds.segment`), and every video of an
annotator's file is covered by that annotator (a video with no segment is a coverage row).
"""

from __future__ import annotations

import math

from .builder import FrameBuilder, finish
from .json_stream import load_json
from .paths import ENTRY_ERRORS, files_and_annotators, reader_error
from .values import is_number, json_list, number

__all__ = ["read_activitynet"]


def read_activitynet(
    path_or_paths,
    *,
    annotator=None,
    on_invalid: str = "raise",
    return_dropped: bool = False,
):
    """Read ActivityNet-style JSON files (one per annotator) into the tidy frame.

    Parameters
    ----------
    path_or_paths : path, list of paths or mapping {annotator: path}
        One file per annotator.
    annotator : str or list of str, optional
        The annotator of each file (by default the file's stem).
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable entries (a segment that is not two numbers, an end not after the start, a
        video entry that is not an object): raise a ReaderError naming the file and the
        entry, or drop them, counted, with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.

    Returns
    -------
    pandas.DataFrame
        One row per segment (``seg_start``, ``seg_end`` in seconds; ``x0, y0, x1, y1``
        their box ``start, 0, end, 1``), ``width`` the video's ``duration`` (NaN when the
        file gives none) and ``height`` 1, so that times are divided by the duration; a
        ``subset`` and a ``score`` column where the file has them; coverage rows for
        videos an annotator left without segments.

    Raises
    ------
    ReaderError
        A file that is not such a JSON object, a ``duration`` that is not a positive
        number, a segment that is not ``[start, end]`` (naming the file and the entry,
        ``database['v1'] annotations[2]``).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> db = {"v1": {"duration": 60.0, "annotations": [
    ...     {"segment": [6.0, 30.0], "label": "Ballet"}]}, "v2": {"duration": 20.0,
    ...     "annotations": []}}
    >>> _ = (d / "ana.json").write_text(json.dumps({"database": db}))
    >>> df = read_activitynet(d / "ana.json")
    >>> df[["item", "annotator", "label", "seg_start", "seg_end", "width"]].values.tolist()
    [['v1', 'ana', 'Ballet', 6.0, 30.0, 60.0], ['v2', 'ana', nan, nan, nan, 20.0]]
    """
    builder = FrameBuilder("activitynet", on_invalid=on_invalid)
    for path, name in files_and_annotators(path_or_paths, annotator, reader="read_activitynet"):
        name = name if name is not None else path.stem
        f = builder.add_file(path)
        _file(builder, path, f, name)
    return finish(builder, on_invalid=on_invalid, return_dropped=return_dropped)


def _file(b: FrameBuilder, path, f, name) -> None:
    doc = load_json(path)
    if not isinstance(doc, dict):
        raise reader_error(path, None, "not an ActivityNet JSON: expected an object")
    key = "database" if "database" in doc else "results" if "results" in doc else None
    if key is None:
        why = f"not an ActivityNet JSON: no 'database' (nor 'results') key; found {sorted(doc)[:8]}"
        raise reader_error(path, None, why)
    videos = doc[key]
    if not isinstance(videos, dict):
        raise reader_error(path, key, f"must map video ids to entries, got {type(videos).__name__}")
    for vid, entry in videos.items():
        where = f"{key}[{vid!r}]"
        try:
            _video(b, path, f, name, key, where, str(vid), entry)
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, where, item=str(vid), record=entry)


def _video(b, path, f, name, key, where, item, entry) -> None:
    if key == "results":  # {video: [segments]}
        if not isinstance(entry, list):
            raise reader_error(path, where, f"must be a list of segments, got {entry!r:.80}")
        duration, segments, extras = math.nan, entry, {}
    else:
        if not isinstance(entry, dict):
            raise reader_error(path, where, f"a video entry must be an object, got {entry!r:.80}")
        duration = entry.get("duration")
        if duration is None:
            duration = math.nan
        else:
            duration = number(path, where, duration, "duration")
            if not duration > 0:
                raise reader_error(path, where, f"duration must be positive, got {duration!r}")
        segments = json_list(path, where, entry.get("annotations", []), "'annotations'")
        extras = {"subset": entry["subset"]} if isinstance(entry.get("subset"), str) else {}
    height = 1.0 if math.isfinite(duration) else math.nan
    b.cover(item, name, width=duration, height=height, file_idx=f, entry=where)
    for k, seg in enumerate(segments):
        sentry = f"{where} annotations[{k}]" if key == "database" else f"{where}[{k}]"
        try:
            _segment(b, path, f, name, item, sentry, seg, (duration, height), extras)
        except ENTRY_ERRORS as exc:
            b.entry_failed(exc, path, sentry, item=item, annotator=name, record=seg)


def _segment(b, path, f, name, item, entry, seg, size, extras) -> None:
    if not isinstance(seg, dict):
        raise reader_error(path, entry, f"a segment entry must be an object, got {seg!r:.80}")
    times = seg.get("segment")
    if not isinstance(times, list) or len(times) != 2 or not all(is_number(t) for t in times):
        raise reader_error(path, entry, f"'segment' must be [start, end] in seconds, got {times!r}")
    start, end = (number(path, entry, t, "segment") for t in times)
    label = seg.get("label")
    if label is None or label == "":
        why = "a segment without a label"
        b.drop(path, entry, "unlabelled_segment", why, item=item, annotator=name, record=seg)
        return
    if not isinstance(label, (str, int)) or isinstance(label, bool):
        raise reader_error(path, entry, f"label must be a string, got {label!r:.80}")
    row_extras = dict(extras)
    if "score" in seg:
        row_extras["score"] = number(path, entry, seg["score"], "score")
    b.add_shape(
        item,
        name,
        str(label),
        "segment",
        [start, end],
        width=size[0],
        height=size[1],
        file_idx=f,
        entry=entry,
        extras=row_extras,
    )
