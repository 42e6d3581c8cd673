"""MOTChallenge text files (``gt/gt.txt``, tracker results): :func:`read_mot`.

One line per object and frame, comma-separated, no header::

    <frame>, <id>, <bb_left>, <bb_top>, <bb_width>, <bb_height>, <conf>, <x>, <y>, <z>

(MOTChallenge's instructions; frames count from 1). In ground-truth files ``conf`` is a
flag, 0 meaning the entry is ignored, and MOT16 and later, like CVAT's MOT export
(``frame_id, track_id, x, y, w, h, "not ignored", class_id, visibility``), put a class id
(from 1, names in ``labels.txt``) and a visibility ratio in columns 8 and 9. The file is
read in one vectorized pass (pandas' CSV parser).
"""

from __future__ import annotations

import configparser
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import GROUP, INVALID_REASONS, check

from .builder import warn_dropped
from .paths import check_file, reader_error
from .values import MAX_FRAMES, PLAIN_NUMBER, line_names, parse_float, parse_int

__all__ = ["read_mot"]

_NAMES = ["frame", "track_id", "left", "top", "w", "h", "conf", "c8", "c9", "c10"]


#: Byte order marks and their encodings (UTF-32 before UTF-16: FF FE begins both).
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _encoding(path: Path) -> str:
    """The encoding of a text file: the one its byte order mark names (UTF-8, UTF-16 or
    UTF-32, as Windows tools write them), else UTF-8; NUL bytes without a mark (UTF-16
    without a mark) are a ReaderError, an encoding is never guessed."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise reader_error(path, None, f"cannot open: {exc.strerror}") from None
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    if b"\x00" in head:
        why = "holds NUL bytes: UTF-16 or UTF-32 text without a byte order mark? Save it as UTF-8"
        raise reader_error(path, None, why)
    return "utf-8"


def _not_text(path: Path, enc: str, exc: UnicodeDecodeError):
    return reader_error(
        path,
        None,
        f"not {enc.removesuffix('-sig').upper()} text ({exc.reason}, byte "
        f"{exc.object[exc.start : exc.start + 1]!r}): a Latin-1 or other 8-bit encoding? "
        "Save it as UTF-8",
    )


def _read_text(path: Path) -> str:
    """A small text file (seqinfo.ini, labels.txt), decoded as :func:`_encoding` says."""
    enc = _encoding(path)
    try:
        return path.read_text(encoding=enc)
    except UnicodeDecodeError as exc:
        raise _not_text(path, enc, exc) from None
    except OSError as exc:
        raise reader_error(path, None, f"cannot read: {exc.strerror}") from None


def _seqinfo(path: Path) -> tuple[dict, Path]:
    """``[Sequence]`` of the seqinfo.ini of the sequence folder, if there is one, and
    the ini's path. Values are read as written (no ``%`` interpolation: ``name=50%`` is
    a name)."""
    for folder in (path.parent, path.parent.parent):
        ini = folder / "seqinfo.ini"
        if ini.is_file():
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(_read_text(ini), source=str(ini))
            except configparser.Error as exc:
                reason = str(exc).replace("\n", " ")[:200]
                raise reader_error(ini, None, f"not a valid seqinfo.ini ({reason})") from None
            return (dict(parser["Sequence"]) if "Sequence" in parser else {}), ini
    return {}, path.parent / "seqinfo.ini"


def _image_size(info: dict, ini: Path, key: str) -> float:
    """``imWidth``/``imHeight`` of seqinfo.ini: a positive plain number, NaN when absent
    or 0 (unknown); anything else is a ReaderError naming the file and the key."""
    text = (info.get(key.lower()) or "").strip()
    if not text:
        return float("nan")
    try:
        v = parse_float(text)
    except ValueError:
        v = -1.0
    if not (v >= 0 and v < float("inf")):
        raise reader_error(ini, key, f"{text!r} is not an image size (a number of pixels >= 0)")
    return v if v > 0 else float("nan")


def _labels(path: Path, labels):
    if labels is None:
        found = path.parent / "labels.txt"
        if not found.is_file():
            return None
        labels = found
    if isinstance(labels, (str, Path)):
        found = Path(labels)
        if not found.is_file():
            raise reader_error(found, None, "no such labels file")
        labels = line_names(found, _read_text(found))
    if isinstance(labels, Sequence) and labels and all(isinstance(x, str) for x in labels):
        return np.asarray(labels, dtype=object)
    raise ParameterError(f"labels must be a path to labels.txt or a list of names, got {labels!r}")


def _seq_length(ini, info, max_frames) -> int:
    """``seqLength`` of seqinfo.ini (0 when absent), an integer in 0..``max_frames``."""
    text = info.get("seqlength", "") or "0"
    try:
        n = parse_int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= max_frames:
        why = f"{text!r} is not a number of frames in 0..{max_frames:,} (max_frames)"
        raise reader_error(ini, "seqLength", why)
    return n


def _read_one(path, annotator, sequence, labels, label, ignored, max_frames):
    path = check_file(path, "read_mot")
    info, ini = _seqinfo(path)
    if sequence is None:
        sequence = info.get("name") or (
            path.parent.parent.name if path.parent.name == "gt" else path.stem
        )
    enc = _encoding(path)
    try:
        raw = pd.read_csv(
            path, header=None, skipinitialspace=True, dtype=str, comment="#", encoding=enc
        )
    except UnicodeDecodeError as exc:
        raise _not_text(path, enc, exc) from None
    except pd.errors.EmptyDataError:
        raw = pd.DataFrame(columns=range(6))
    except pd.errors.ParserError as exc:
        raise reader_error(path, None, f"not a MOT text file ({exc})") from None
    if raw.shape[1] < 6:
        raise reader_error(
            path,
            "line 1",
            f"{raw.shape[1]} values; a MOT line has at least 6 "
            "(frame, id, bb_left, bb_top, bb_width, bb_height)",
        )
    raw = raw.iloc[:, : len(_NAMES)]
    raw.columns = _NAMES[: raw.shape[1]]
    # plain ASCII numbers only (to_numeric would read other digits), else not a number
    plain = raw.apply(lambda c: c.str.fullmatch(PLAIN_NUMBER, na=False))
    num = raw.where(plain).apply(pd.to_numeric, errors="coerce")
    core = ["frame", "track_id", "left", "top", "w", "h"]
    bad = num[core].isna().any(axis=1).to_numpy() & raw[core].notna().all(axis=1).to_numpy()
    bad |= raw[core].isna().any(axis=1).to_numpy()
    frame = num["frame"].to_numpy(dtype=float)
    bad |= ~np.isnan(frame) & ((frame < 1) | (frame != np.round(frame)) | (frame > max_frames))
    track = num["track_id"].to_numpy(dtype=float)
    # an id is an integer: 1.2 and 1.7 are not both track 1, 1e30 no int64
    bad |= ~np.isnan(track) & ((track != np.round(track)) | (np.abs(track) > 2.0**53))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        why = (
            "frame, id and the box must be numbers (plain ASCII), the frame an integer >= 1 "
            f"and at most {max_frames:,} (max_frames), the id an integer: "
            f"{','.join(map(str, raw.iloc[k].dropna()))!r}"
        )
        raise reader_error(path, f"line {k + 1}", why)
    dropped = pd.DataFrame(columns=["file", "entry", "item", "annotator", "reason", "detail"])
    if "conf" in num and ignored == "drop":
        skip = (num["conf"] == 0).to_numpy()
        lines = np.flatnonzero(skip)
        dropped = pd.DataFrame(
            {
                "file": str(path),
                "entry": [f"line {k + 1}" for k in lines],
                "item": [f"{sequence}/frame_{int(f):06d}" for f in frame[lines]],
                "annotator": annotator,
                "reason": "ignored",
                "detail": "the entry's flag (7th value) is 0: ignored in MOTChallenge evaluation",
            }
        )
        num, raw = num.loc[~skip], raw.loc[~skip]
    names = _labels(path, labels)
    if names is not None:
        cls = num["c8"].to_numpy(dtype=float) if "c8" in num else np.full(len(num), np.nan)
        out_of = ~((cls >= 1) & (cls <= len(names)) & (cls == np.round(cls)))
        if out_of.any():
            k = int(np.flatnonzero(out_of)[0])
            why = (
                f"class id {raw['c8'].iloc[k] if 'c8' in raw else None!r} is not one of "
                f"1..{len(names)} ({len(names)} names in labels)"
            )
            raise reader_error(path, f"line {int(raw.index[k]) + 1}", why)
        obj_label = names[cls.astype(int) - 1]
    else:
        obj_label = np.full(len(num), label, dtype=object)
    n_frames = _seq_length(ini, info, max_frames) or int(num["frame"].max() if len(num) else 0)
    width, height = _image_size(info, ini, "imWidth"), _image_size(info, ini, "imHeight")
    fr = num["frame"].to_numpy(dtype=np.int64)
    objects = pd.DataFrame(
        {
            "frame": fr,
            "annotator": annotator,
            "label": obj_label,
            "x0": num["left"].to_numpy(dtype=float),
            "y0": num["top"].to_numpy(dtype=float),
            "x1": (num["left"] + num["w"]).to_numpy(dtype=float),
            "y1": (num["top"] + num["h"]).to_numpy(dtype=float),
            "track_id": num["track_id"].to_numpy(dtype=np.int64),
            "line": raw.index.to_numpy() + 1,
        }
    )
    if names is not None and "c9" in num:
        objects["visibility"] = num["c9"].to_numpy(dtype=float)
    tracked = objects[objects["track_id"].to_numpy() >= 0]  # -1: no track (detections)
    twice = tracked.duplicated(["frame", "track_id"]).to_numpy()
    if twice.any():
        again = tracked.iloc[int(np.flatnonzero(twice)[0])]
        same = (tracked["frame"] == again["frame"]) & (tracked["track_id"] == again["track_id"])
        why = (
            f"the id {int(again['track_id'])} is on frame {int(again['frame'])} already, on "
            f"line {int(tracked.loc[same, 'line'].iat[0])}: a track has one box per frame"
        )
        raise reader_error(path, f"line {int(again['line'])}", why)
    empty = np.setdiff1d(np.arange(1, max(n_frames, int(fr.max(initial=0))) + 1), fr)
    cover = pd.DataFrame({"frame": empty, "annotator": annotator})
    out = pd.concat([objects, cover], ignore_index=True)
    out.insert(0, "item", [f"{sequence}/frame_{f:06d}" for f in out["frame"]])
    out[GROUP] = str(sequence)
    out["width"], out["height"] = width, height
    return out, dropped, path, str(sequence)


def read_mot(
    path,
    *,
    annotator: str | None = None,
    sequence: str | None = None,
    labels=None,
    label: str = "object",
    ignored: str = "drop",
    return_dropped: bool = False,
    max_frames: int = MAX_FRAMES,
) -> pd.DataFrame:
    """Read MOTChallenge-style track files (``frame, id, x, y, w, h, ...``).

    Parameters
    ----------
    path : str, Path or dict {annotator: path}
        One file, or one file per annotator (the same sequence annotated by each).
    annotator : str, optional
        The annotator of a single file (required then).
    sequence : str, optional
        The sequence name (column ``group``, and the prefix of the items
        ``"<sequence>/frame_000001"``). Default: ``name`` of the ``seqinfo.ini`` next to
        the file or its ``gt/`` folder, else the folder holding ``gt/``, else the file name.
    labels : list of str or path, optional
        Class names of the class ids of column 8 (from 1); default: a ``labels.txt`` next
        to the file. Without names, column 8 is not read (it holds a world coordinate in
        MOT15 and tracker results) and every object gets ``label``.
    label : str, default "object"
        The class of every object when there are no class names.
    ignored : {"drop", "keep"}, default "drop"
        Entries whose 7th value is 0 (ignored by MOTChallenge's evaluation) are dropped
        with a :class:`~iaa_frames.errors.DroppedRowsWarning`, or kept.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning.
    max_frames : int, default 1,000,000
        The most frames a sequence may have (``seqLength``, a frame number): every frame
        is covered, one row each, so a larger one is a ReaderError.

    Returns
    -------
    pandas.DataFrame
        The tidy frame with ``group`` (the sequence), ``frame`` (from 1), ``track_id``
        and ``line`` (the line of the file), and ``visibility`` when the file has class
        ids; every frame from 1 to ``seqLength`` (seqinfo.ini) or the last frame of the
        file is covered. ``width``/``height`` come from seqinfo.ini (NaN without it).

    Raises
    ------
    ReaderError
        Missing file, fewer than 6 values, non-numeric values, a frame below 1, a class
        id without a name, an invalid box, an id (not negative) twice on one frame (the message
        names the file and the line); files of different sequences without ``sequence=``; a
        seqinfo.ini that is not an INI file or whose ``seqLength``, ``imWidth`` or
        ``imHeight`` is no number; a file that is not UTF-8 text (a byte order mark of
        UTF-8, UTF-16 or UTF-32 is read as it says).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("1,1,10,20,30,40,1,-1,-1,-1\\n2,1,12,20,30,40,1,-1,-1,-1\\n")
    >>> df = read_mot(d / "a.txt", annotator="ana", sequence="walk")
    >>> df[["item", "annotator", "x1", "track_id", "group"]]
                    item annotator    x1  track_id group
    0  walk/frame_000001       ana  40.0         1  walk
    1  walk/frame_000002       ana  42.0         1  walk
    """
    if ignored not in ("drop", "keep"):
        raise ParameterError(f"ignored must be 'drop' or 'keep', got {ignored!r}")
    if isinstance(path, Mapping):
        if annotator is not None:
            raise ParameterError("annotator is given by the keys of a dict of paths")
        files = [(str(k), v) for k, v in path.items()]
    else:
        if annotator is None:
            raise ParameterError("read_mot needs annotator= for a single file")
        files = [(str(annotator), path)]
    if isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1:
        raise ParameterError(f"max_frames must be a positive integer, got {max_frames!r}")
    parts = [_read_one(p, a, sequence, labels, label, ignored, max_frames) for a, p in files]
    sequences = {p[3]: p[2] for p in parts}
    if len(sequences) > 1:
        (s0, p0), (s1, p1) = list(sequences.items())[:2]
        raise reader_error(
            p1,
            None,
            f"its sequence is {s1!r}, that of {p0} is {s0!r}: the annotators' frames "
            "would be different items, none compared (read_mot reads one sequence "
            "annotated by each); pass sequence= to name the one sequence they annotated",
        )
    frame = pd.concat([p[0] for p in parts], ignore_index=True)
    some = [p[1] for p in parts if len(p[1])]
    dropped = pd.concat(some, ignore_index=True) if some else parts[0][1]
    res = check(frame)
    if res.counts:
        bad = frame.loc[~frame.index.isin(res.frame.index)]
        reasons = res.dropped["reason"].to_numpy()
        shown = "; ".join(
            f"{files[0][1] if len(files) == 1 else bad['annotator'].iloc[i]}: line "
            f"{int(bad['line'].iloc[i])}: {INVALID_REASONS.get(r, r)}"
            for i, r in enumerate(reasons[:5])
        )
        raise reader_error("read_mot", None, f"{len(bad)} unusable line(s): {shown}")
    out = res.frame.reset_index(drop=True)
    out["track_id"] = out["track_id"].astype("Int64")
    out["line"] = out["line"].astype("Int64")
    out["frame"] = out["frame"].astype(np.int64)
    out.attrs = {"iaa_reader": "mot", "iaa_reader_dropped": {"ignored": len(dropped)}}
    if return_dropped:
        return out, dropped
    if len(dropped):
        message = (
            f"read_mot: skipped {len(dropped)} ignored entr(ies) (flag 0); the warning's "
            ".dropped attribute holds them, or pass ignored='keep' or return_dropped=True"
        )
        warn_dropped(message, {"ignored": len(dropped)}, dropped, 2)
    return out
