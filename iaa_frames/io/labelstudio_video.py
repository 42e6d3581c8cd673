"""Label Studio video object tracking (``VideoRectangle``): :func:`read_labelstudio_video`.

A ``videorectangle`` result is one track (its region ``id``); ``value.sequence`` lists its
keyframes (``frame`` from 1, ``x``, ``y``, ``width``, ``height`` in percent of the video,
``rotation``, ``enabled``), ``value.labels`` its class and ``value.framesCount`` the
frames of the video. Frames between keyframes are filled as Label Studio's own export with
``interpolate_key_frames`` does (``label_studio_sdk``'s ``extract_key_frames``): after an
enabled keyframe the box is interpolated linearly up to the next keyframe, or copied to
the last frame when it is the last keyframe; after a disabled keyframe (``enabled:
false``) the object is shown on that frame only, until the next keyframe.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.frame.schema import GROUP, INVALID_REASONS, check

from .builder import warn_dropped
from .json_stream import load_json
from .paths import check_file, reader_error
from .values import (
    MAX_FILLED_BOXES,
    MAX_FRAMES,
    FillBudget,
    json_list,
    number,
    on_canvas,
    parse_float,
)

__all__ = ["read_labelstudio_video"]

_COORDS = ("x", "y", "width", "height")


def _who(path, entry, completed_by) -> str:
    if isinstance(completed_by, dict):
        for key in ("email", "username", "id"):
            if completed_by.get(key) not in (None, ""):
                return str(completed_by[key])
    elif isinstance(completed_by, (int, str)) and not isinstance(completed_by, bool):
        if completed_by != "":
            return str(completed_by)
    raise reader_error(path, entry, f"completed_by names no annotator: {completed_by!r}")


def _video(task, to_name) -> str:
    data = task.get("data") if isinstance(task.get("data"), dict) else {}
    value = data.get(to_name) if to_name else None
    if not isinstance(value, str):
        strings = [v for v in data.values() if isinstance(v, str)]
        value = strings[0] if len(strings) == 1 else f"task_{task.get('id')}"
    return Path(value.split("?")[0]).name or f"task_{task.get('id')}"


def _frame_number(path, entry, v, name, max_frames) -> int:
    """A frame number or count written in the export: an integer in 0..``max_frames``
    (each frame is one covered item: a few bytes can declare any count)."""
    if isinstance(v, str):  # as some exports write it
        try:
            v = parse_float(v)
        except ValueError:
            raise reader_error(path, entry, f"{name} must be a number, got {v!r}") from None
    v = number(path, entry, v, name)
    if v != int(v) or not 0 <= v <= max_frames:
        raise reader_error(
            path,
            entry,
            f"{name} {v:g} is not a frame number in 0..max_frames={max_frames:,} (each frame "
            "is one covered item); pass a larger read_labelstudio_video(max_frames=) to read it",
        )
    return int(v)


def _coordinate(path, entry, k, c):
    if c not in k:
        raise reader_error(path, entry, f"a keyframe lacks a number ({c!r})")
    v = k[c]
    if isinstance(v, str):
        try:
            v = parse_float(v)
        except ValueError:
            raise reader_error(path, entry, f"{c} must be a number, got {v!r}") from None
    return number(path, entry, v, c)


def _keyframes(path, entry, value, max_frames, drop) -> pd.DataFrame:
    """The keyframes of a ``videorectangle``, sorted by frame; a frame given twice keeps
    its last keyframe and counts the others as dropped (``duplicate_keyframe``)."""
    seq = value.get("sequence")
    if not isinstance(seq, list) or not seq:
        raise reader_error(path, entry, "a videorectangle needs a non-empty value.sequence")
    cols: dict = {c: [] for c in ("frame", *_COORDS, "rotation", "enabled")}
    for n, k in enumerate(seq):
        where = f"{entry} sequence[{n}]"
        if not isinstance(k, dict):
            raise reader_error(path, where, f"a keyframe must be an object, got {k!r:.80}")
        if "frame" not in k:
            raise reader_error(path, where, "a keyframe lacks a number ('frame')")
        fr = _frame_number(path, where, k["frame"], "frame", max_frames)
        if fr < 1:
            raise reader_error(path, where, "keyframe frames count from 1")
        cols["frame"].append(fr)
        for c in _COORDS:
            cols[c].append(_coordinate(path, where, k, c))
        x, y, w, h = (cols[c][-1] for c in _COORDS)
        on_canvas(path, where, (x, x + w), (y, y + h), 100, "percent")
        rot = k.get("rotation")
        cols["rotation"].append(0.0 if rot is None else _coordinate(path, where, k, "rotation"))
        on = k.get("enabled", True)
        if on is None:
            on = True
        if not isinstance(on, (bool, int)) or on not in (0, 1):
            raise reader_error(path, where, f"enabled must be true or false, got {on!r:.80}")
        cols["enabled"].append(bool(on))
    kf = pd.DataFrame(cols).sort_values("frame", kind="stable")
    twice = kf["frame"].duplicated(keep="last")
    for n in kf.index[twice]:
        fr = int(kf.at[n, "frame"])
        drop(
            f"{entry} sequence[{n}]",
            "duplicate_keyframe",
            f"a second keyframe on frame {fr}; the last one written was kept",
        )
    return kf[~twice]


def _fill(kf: pd.DataFrame, n_frames: int, spend=None) -> pd.DataFrame:
    """Every frame the track is shown on, with its (interpolated) box; ``spend(n)``
    counts the boxes filled in beyond the keyframes before they are made."""
    f = kf["frame"].to_numpy()
    nxt = np.r_[f[1:], max(n_frames, f[-1]) + 1]
    enabled = kf["enabled"].to_numpy()
    span = np.where(enabled, nxt - f, 1)  # frames from this keyframe to the next
    if spend is not None:
        spend(int(span.sum()) - len(f))
    k = np.repeat(np.arange(len(f)), span)
    step = np.arange(len(k)) - np.repeat(np.cumsum(span) - span, span)
    out = {"frame": f[k] + step}
    last = np.arange(len(f)) == len(f) - 1
    frac = np.where(last[k], 0.0, step / np.maximum(nxt - f, 1)[k])
    for c in (*_COORDS, "rotation"):
        v = kf[c].to_numpy()
        after = np.r_[v[1:], v[-1]]
        out[c] = v[k] + frac * (after[k] - v[k])
    return pd.DataFrame(out)


def _task(path, i, task, to_name, time, limits, drop, objects, cover, seen) -> None:
    """Read one task: its tracks to ``objects``, the frames each annotation covers to
    ``cover``; ``seen`` maps (video, annotator) to the annotation that read it first;
    ``limits`` is ``(max_frames, the FillBudget of the boxes filled in)``."""
    max_frames, budget = limits
    tid = task.get("id")
    tentry = f"tasks[{i}]" + (f" (id={tid!r:.40})" if tid is not None else "")
    video = _video(task, to_name)
    anns = json_list(path, tentry, task.get("annotations"), "annotations")
    n_frames = 0  # the video's frames: the largest framesCount of its results
    for j, a in enumerate(anns):
        if not isinstance(a, dict):
            continue
        for k, r in enumerate(
            json_list(path, f"{tentry} annotations[{j}]", a.get("result"), "result")
        ):
            if isinstance(r, dict) and isinstance(r.get("value"), dict):
                count = r["value"].get("framesCount")
                if count is not None:
                    where = f"{tentry} annotations[{j}] result[{k}]"
                    count = _frame_number(path, where, count, "framesCount", max_frames)
                    n_frames = max(n_frames, count)
    for j, ann in enumerate(anns):
        entry = f"{tentry} annotations[{j}]"
        if not isinstance(ann, dict):
            raise reader_error(path, entry, "an annotation must be an object")
        if ann.get("was_cancelled"):
            drop(entry, "cancelled", "a cancelled annotation (no coverage either)")
            continue
        who = _who(path, entry, ann.get("completed_by"))
        first = seen.setdefault((video, who), entry)
        if first != entry:
            raise reader_error(
                path,
                entry,
                f"the annotator {who!r} has an annotation of the video {video!r} already "
                f"({first}): one annotator's work read twice would agree with itself; "
                "keep one annotation per annotator and video",
            )
        stamp = ann.get(time)
        if not isinstance(stamp, (str, int, float)) or isinstance(stamp, bool):
            stamp = None
        tracks = []
        track_ids: dict = {}  # track id -> the result that drew it
        for k, r in enumerate(json_list(path, entry, ann.get("result"), "result")):
            where = f"{entry} result[{k}]"
            kind = r.get("type") if isinstance(r, dict) else type(r).__name__
            if kind != "videorectangle":
                drop(where, "unsupported_result", f"a {kind!r:.80} result")
                continue
            value = r.get("value") if isinstance(r.get("value"), dict) else {}
            labels = value.get("labels") or []
            if not labels:
                drop(where, "missing_label", "a track without a label")
                continue
            if not isinstance(labels, list) or not isinstance(labels[0], (str, int)):
                raise reader_error(
                    path, where, f"value.labels must be a list of names, got {labels!r:.80}"
                )
            kf = _keyframes(path, where, value, max_frames, drop)
            if (kf["rotation"] != 0).any():
                drop(where, "rotated", "a rotated box (only axis-aligned tracks are read)")
                continue
            shown = _fill(kf, n_frames, lambda n, at=where: budget.spend(path, at, n))
            rid = r.get("id", k)
            track = str(rid) if isinstance(rid, (str, int)) else str(k)
            earlier = track_ids.setdefault(track, k)
            if earlier != k:
                raise reader_error(
                    path,
                    where,
                    f"the track {track!r} is result[{earlier}]'s id too: two tracks of one "
                    "id would be one object twice on a frame",
                )
            tracks.append(shown.assign(track_id=track, label=str(labels[0])))
        task_id = tid if isinstance(tid, (str, int)) and not isinstance(tid, bool) else None
        base = {"annotator": who, "task": task_id, "time": stamp, GROUP: video}
        if tracks:
            objects.append(pd.concat(tracks, ignore_index=True).assign(**base))
        last = max([n_frames, *(int(t["frame"].max()) for t in tracks)])
        cover.append(pd.DataFrame({"frame": np.arange(1, last + 1), **base}))


def read_labelstudio_video(
    path,
    *,
    to_name: str | None = "video",
    time: str = "updated_at",
    return_dropped=False,
    max_frames: int = MAX_FRAMES,
    max_boxes: int = MAX_FILLED_BOXES,
) -> pd.DataFrame:
    """Read a Label Studio JSON export of video object tracking (``VideoRectangle``).

    Parameters
    ----------
    path : str or Path
        The JSON export (a list of tasks with their ``annotations``).
    to_name : str or None, default "video"
        The ``data`` key of the video (its file name names the sequence); default the
        only string of ``data``, else ``task_<id>``.
    time : str, default "updated_at"
        The annotation timestamp written to the ``time`` column (``"created_at"``...).
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.
    max_frames : int, default 1,000,000
        The most frames a video may have (``framesCount``, a keyframe's ``frame``): every
        frame is covered, one row per annotation, and a few bytes can declare any count,
        so a larger one is a ReaderError.
    max_boxes : int, default 2,000,000
        The most boxes filled in on the frames between keyframes, over the export (a
        keyframe is held or interpolated to the next one, the last enabled one to the
        last frame): one keyframe of a few bytes can span every frame, so more is a
        ReaderError naming the track, raised before they are made.

    Returns
    -------
    pandas.DataFrame
        The tidy frame: items ``"<video>/frame_000001"``, ``group`` (the video),
        ``frame`` (from 1), ``track_id`` (the region id), ``task``, ``time``; coordinates
        in percent of the video, ``width``/``height`` 100. Every frame of the video
        (``framesCount``) is covered by every annotation of its task. ``attrs``
        ``["iaa_reader_dropped"]`` counts the records skipped, per reason.

    Raises
    ------
    ReaderError
        Malformed or too deeply nested JSON, a result without keyframes or with
        non-numeric ones, a keyframe more than a video size past its edge (pixels
        written as percent?; within, kept as written, not clipped), a ``framesCount`` or
        frame beyond ``max_frames``, a value of the wrong type, an annotation without
        ``completed_by``, a second annotation of one annotator on one video (in one task
        or two tasks of the same video file), two tracks of one region id; the message names the file and
        the record (``tasks[0] (id=1) annotations[0] result[2] sequence[1]``).

    Notes
    -----
    Skipped and counted (DroppedRowsWarning): cancelled annotations, results of other
    types, tracks without a label, rotated boxes (``rotation`` not 0), a second keyframe
    of one frame (``duplicate_keyframe``: the last one written is kept).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> box = lambda f, x, on=True: {"frame": f, "x": x, "y": 10, "width": 20, "height": 30,
    ...                             "rotation": 0, "enabled": on, "time": f / 25}
    >>> tasks = [{"id": 1, "data": {"video": "/data/upload/walk.mp4"}, "annotations": [
    ...     {"id": 7, "completed_by": 3, "updated_at": "2026-01-05T10:00:00Z", "result": [
    ...         {"id": "r1", "type": "videorectangle", "value": {"framesCount": 5,
    ...          "labels": ["person"], "sequence": [box(1, 0), box(3, 10, False)]}}]}]}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> _ = p.write_text(json.dumps(tasks))
    >>> read_labelstudio_video(p)[["item", "annotator", "x0", "track_id", "frame"]]
                        item annotator    x0 track_id  frame
    0  walk.mp4/frame_000001         3   0.0       r1      1
    1  walk.mp4/frame_000002         3   5.0       r1      2
    2  walk.mp4/frame_000003         3  10.0       r1      3
    3  walk.mp4/frame_000004         3   NaN      NaN      4
    4  walk.mp4/frame_000005         3   NaN      NaN      5
    """
    if not isinstance(time, str):
        raise ParameterError(f"time must be a key of the annotations, got {time!r}")
    if isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1:
        raise ParameterError(f"max_frames must be a positive integer, got {max_frames!r}")
    limits = (max_frames, FillBudget.checked(max_boxes, "read_labelstudio_video"))
    path = check_file(path, "read_labelstudio_video")
    tasks = load_json(path)  # ReaderErrors for truncated, invalid or too deeply nested JSON
    if not isinstance(tasks, list):
        raise reader_error(path, None, "a Label Studio export is a list of tasks")
    objects, cover, dropped = [], [], []
    seen: dict = {}

    def drop(entry, reason, detail):
        dropped.append({"file": str(path), "entry": entry, "reason": reason, "detail": detail})

    for i, task in enumerate(tasks):  # one record at a time (JSON records, not rows)
        entry = f"tasks[{i}]"
        if not isinstance(task, dict):
            raise reader_error(path, entry, "a task must be an object")
        try:
            _task(path, i, task, to_name, time, limits, drop, objects, cover, seen)
        except IAAError:
            raise
        except (
            TypeError,
            ValueError,
            AttributeError,
            KeyError,
            IndexError,
            OverflowError,
            RecursionError,
        ) as exc:  # a malformed value no check above foresaw
            raise reader_error(
                path, entry, f"a malformed value ({type(exc).__name__}: {str(exc)[:200]})"
            ) from None
    frames = pd.concat(objects, ignore_index=True) if objects else pd.DataFrame()
    if len(frames):
        frames = frames.assign(
            x0=frames["x"],
            y0=frames["y"],
            x1=frames["x"] + frames["width"],
            y1=frames["y"] + frames["height"],
        ).drop(columns=["x", "y", "width", "height", "rotation"])
    covered = pd.concat(cover, ignore_index=True) if cover else pd.DataFrame()
    if len(frames) and len(covered):
        seen = pd.MultiIndex.from_frame(frames[["annotator", GROUP, "frame"]].drop_duplicates())
        key = pd.MultiIndex.from_frame(covered[["annotator", GROUP, "frame"]])
        covered = covered.loc[~key.isin(seen)]
    out = pd.concat([frames, covered], ignore_index=True)
    if not len(out):
        raise reader_error(path, None, "no annotation of a video in the export")
    out.insert(0, "item", [f"{g}/frame_{int(f):06d}" for g, f in zip(out[GROUP], out["frame"])])
    out["width"], out["height"] = 100.0, 100.0
    out["time"] = pd.to_datetime(out["time"], errors="coerce", utc=True)
    res = check(out)
    if res.counts:
        bad = out.loc[~out.index.isin(res.frame.index)].iloc[0]
        reason = res.dropped["reason"].iloc[0]
        raise reader_error(
            path,
            f"track {bad.get('track_id')!r} of {bad['annotator']!r}, frame {int(bad['frame'])}",
            INVALID_REASONS.get(reason, reason),
        )
    frame = res.frame.sort_values(["item", "annotator"], kind="stable").reset_index(drop=True)
    frame["frame"] = frame["frame"].astype(np.int64)
    frame["track_id"] = frame["track_id"].astype("str")
    dropped = pd.DataFrame(dropped, columns=["file", "entry", "reason", "detail"])
    counts = {str(k): int(v) for k, v in dropped["reason"].value_counts(sort=False).items()}
    frame.attrs = {**frame.attrs, "iaa_reader": "labelstudio_video", "iaa_reader_dropped": counts}
    if return_dropped:
        return frame, dropped
    if len(dropped):
        message = (
            f"read_labelstudio_video: skipped {len(dropped)} record(s) ({counts}); the "
            "warning's .dropped attribute holds them, or pass return_dropped=True"
        )
        warn_dropped(message, counts, dropped, 2)
    return frame
