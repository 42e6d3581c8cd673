"""The frames of two annotators' tracks, matched frame by frame by the one matching pipeline.

A *unit* is one sequence (the ``group`` of its frames) annotated by two annotators, on
the frames both covered, for every class together (label code -1: the objects are matched
whatever their class, as for ``label="(all)"`` elsewhere) or for one class (objects of
that class only, matched among themselves). :func:`match_frames` lists, per unit, every
object of either annotator on those frames (:attr:`FrameMatches.present`), every pair
the per-frame matching kept (IoU >= τ, :func:`iaa_frames.core.matching.pipeline.run`), with the
track of each side, and every object pair within τ, matched or not
(:attr:`FrameMatches.near`, the candidate pairs of the same run with their IoU: CLEAR MOT
and IDF1 are computed from them, :mod:`iaa_frames.temporal.clear_mot`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.core.matching.assignment import pairs_within_runs
from iaa_frames.core.matching.checked import engine_distance
from iaa_frames.core.matching.corpus import Corpus, prepare
from iaa_frames.core.matching.pipeline import run
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.frame.schema import GROUP, validate
from iaa_frames.settings.validation import Constraint

__all__ = ["ColumnName", "FrameMatches", "match_frames", "required_column"]


@dataclass(frozen=True, eq=False)
class FrameMatches:
    """Per-frame matches of every unit.

    Attributes
    ----------
    units : pandas.DataFrame
        One row per unit: ``unit`` (its code, the row position), ``sequence``,
        ``annotator``, ``partner`` (codes: ``annotator < partner``), ``label`` (code, -1
        for every class together), ``frames`` (frames both covered).
    present : pandas.DataFrame
        Every object of either side of a unit on its frames: ``unit``, ``side`` (0: the
        unit's annotator, 1: its partner), ``object`` (position in ``corpus.objects``),
        ``track`` (code, unique per sequence and annotator), ``frame`` (order key),
        ``item`` (code).
    matched : pandas.DataFrame
        Every matched pair: ``unit``, ``object_a``, ``object_b``, ``track_a``, ``track_b``,
        ``frame``, ``item``.
    near : pandas.DataFrame
        Every object pair within the threshold (IoU >= τ) on a frame of a unit, matched
        or not: the columns of ``matched`` and ``iou``.
    corpus : Corpus
    sequences, tracks : ndarray
        Names of the sequence codes, and the (annotator name, track id) of the track codes.
    """

    units: pd.DataFrame
    present: pd.DataFrame
    matched: pd.DataFrame
    near: pd.DataFrame
    corpus: Corpus
    sequences: np.ndarray
    tracks: np.ndarray


def _frame_keys(corpus: Corpus, frame: str | None, seq_obj: np.ndarray) -> np.ndarray:
    """Per object, the order of its frame within its sequence (``seq_obj``: per object,
    its sequence code)."""
    objects = corpus.objects
    if frame is None and "frame" in objects.columns:
        frame = "frame"
    elif frame is not None and frame not in objects.columns:
        raise SchemaError(f"no {frame!r} column (frame=None: the item names order the frames)")
    if frame is not None:
        key = pd.to_numeric(objects[frame], errors="coerce").to_numpy(dtype=float)
        if np.isnan(key).any():
            bad = objects.loc[np.isnan(key), "item"].iloc[0]
            raise SchemaError(f"column {frame!r} is not a number on item {bad!r}")
        _one_frame_per_item(objects, frame, key, seq_obj)
        return key
    rank = np.empty(len(corpus.items), dtype=float)
    rank[pd.Index(corpus.items.astype(str)).argsort()] = np.arange(len(corpus.items))
    return rank[corpus.item]  # item names in string order (CVAT's frame_000123)


def _one_frame_per_item(objects, frame: str, key, seq_obj) -> None:
    """A SchemaError when an item's rows give it two frame numbers, or two items of one
    sequence share a frame number: the frames are keyed by number, and either silently
    put two items' objects in one frame (a track with two objects on it)."""
    pairs = pd.DataFrame({"item": objects["item"].to_numpy(), "key": key, "seq": seq_obj})
    pairs = pairs.drop_duplicates()
    twice = pairs["item"].duplicated(keep=False).to_numpy()
    if twice.any():
        name = pairs["item"].to_numpy()[twice][0]
        found = ", ".join(f"{k:g}" for k in sorted(pairs.loc[pairs["item"] == name, "key"]))
        raise SchemaError(
            f"item {name!r} has two or more values of {frame!r} ({found}): an item is one "
            "frame, with one number on every annotator's rows"
        )
    shared = pairs.duplicated(["seq", "key"], keep=False).to_numpy()
    if shared.any():
        seq, at = pairs.loc[shared, ["seq", "key"]].iloc[0]
        same = pairs.loc[(pairs["seq"] == seq) & (pairs["key"] == at), "item"].to_numpy()
        raise SchemaError(
            f"items {', '.join(map(repr, same[:3]))} of one sequence share {frame!r} {at:g}: "
            "every frame of a sequence has a number of its own"
        )


class ColumnName(Constraint):
    """A parameter naming a column of the frame (``repeat="round"``, ``track="track_id"``):
    anything pandas can look a column up by (a string, a number), not a list; None too
    when ``none``.

    >>> ColumnName().check("track", ["track_id"])
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: track must be the name of a column; got ['track_id']
    """

    def __init__(self, *, none: bool = False):
        self.none = none
        self.expected = ("None or " if none else "") + "the name of a column"

    def accepts(self, value) -> bool:
        if value is None:
            return self.none
        return pd.api.types.is_hashable(value)


def required_column(frame: pd.DataFrame, column: str, *, need: str, rows: str) -> pd.Series:
    """``frame[column]``; a :class:`~iaa_frames.errors.SchemaError` saying what the column
    is needed for (``need``) when it is missing, or how many ``rows`` lack a value and
    the first of them (item and annotator).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a"], "annotator": ["x"], "round": [None]})
    >>> required_column(df, "round", need="the pass of every row", rows="rows")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.SchemaError: 1 rows have no 'round', e.g. on item 'a' by 'x'
    """
    if column not in frame.columns:
        raise SchemaError(f"no {column!r} column: {need}")
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        first = frame.loc[missing, ["item", "annotator"]].iloc[0]
        raise SchemaError(
            f"{int(missing.sum())} {rows} have no {column!r}, e.g. on item "
            f"{first['item']!r} by {first['annotator']!r}"
        )
    return values


def _track_codes(corpus: Corpus, seq_of_obj: np.ndarray, track: str):
    objects = corpus.objects
    need = (
        "track agreement needs the track id of every object "
        "(read_cvat, read_mot and read_labelstudio_video write 'track_id')"
    )
    values = required_column(objects, track, need=need, rows="objects")
    codes, names = pd.factorize(
        pd.MultiIndex.from_arrays([seq_of_obj, corpus.annotator, values.astype(str).to_numpy()])
    )
    dup = pd.Series(codes.astype(np.int64) * len(corpus.items) + corpus.item).duplicated()
    dup = dup.to_numpy()
    if dup.any():
        row = objects.iloc[int(np.flatnonzero(dup)[0])]
        raise SchemaError(
            f"track {row[track]!r} of {row['annotator']!r} has two objects on item "
            f"{row['item']!r}: a track has one object per frame"
        )
    tracks = np.c_[
        corpus.annotators[names.get_level_values(1).to_numpy(dtype=np.int64)],
        names.get_level_values(2).to_numpy(dtype=object),
    ]
    return codes.astype(np.int64), tracks


def _pairings(slots, by_label: bool):
    """Slot pairs (a, b), a's annotator before b's, of two annotators on one item (and
    one class)."""
    n = len(slots.start) - 1
    key = slots.item[:n]
    if by_label:  # slots are sorted by item, annotator, class: bring each class together
        key = key * (int(slots.label[:n].max(initial=0)) + 1) + slots.label[:n]
    order = np.argsort(key, kind="stable")
    i, j = pairs_within_runs(key[order])
    return order[i], order[j]


def match_frames(
    df: pd.DataFrame, *, track: str, frame: str | None, tau: float, distance, classes: bool
) -> FrameMatches:
    """Match every frame of every pair of annotators and list the units.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame with a ``group`` column (the sequence of every frame) and ``track``.
    track, frame : str
        Columns of the track id and of the frame number (None: ``frame`` if there is
        one, else the item names in string order give the order of the frames).
    tau : float
        Match threshold.
    distance
        Distance of the matching pipeline (its IoU decides the matches).
    classes : bool
        Also list the units of each class.

    Returns
    -------
    FrameMatches
    """
    if GROUP not in df.columns:
        raise ParameterError(
            f"track agreement needs a {GROUP!r} column naming the sequence (video) of every "
            "frame (read_cvat and read_mot write it)"
        )
    df = validate(df)
    corpus = prepare(df)
    seq_codes = corpus.group_codes()
    first_item = corpus.items[np.unique(corpus.group)]  # a sequence's smallest item code
    group_of = df.drop_duplicates("item").set_index("item")[GROUP]
    sequences = np.asarray(group_of.reindex(pd.Index(first_item)), dtype=object)
    seq_obj = seq_codes[corpus.item]
    frame_obj = _frame_keys(corpus, frame, seq_obj)
    track_obj, tracks = _track_codes(corpus, seq_obj, track)
    dist = engine_distance(distance)
    n_ann = len(corpus.annotators)

    s = corpus.annotations
    ia, ib = _pairings(s, False)  # annotation pairings: frames both covered
    pair_unit_key = (seq_codes[s.item[ia]] * n_ann + s.annotator[ia]) * n_ann + s.annotator[ib]
    # every object of either side, per pairing
    side_slot = np.concatenate([ia, ib])
    side = np.repeat([0, 1], len(ia))
    pairing = np.tile(np.arange(len(ia)), 2)
    count = s.count[side_slot]
    obj = np.repeat(s.start[side_slot] - np.cumsum(count) + count, count) + np.arange(count.sum())
    present_key = np.repeat(pair_unit_key[pairing], count)
    present_side = np.repeat(side, count)

    m, n = run(corpus, s, ia, ib, tau=tau, distance=dist, sets=False, near=True)
    parts = [(pair_unit_key[m.pair_pairing], -1, m.pair_a, m.pair_b)]
    near_parts = [(pair_unit_key[n.pairing], -1, n.a, n.b, n.iou)]
    label_parts = [(present_key, -1, obj, present_side)]
    if classes and len(corpus.labels):
        lab = corpus.by_label
        la, lb = _pairings(lab, True)
        key = (seq_codes[lab.item[la]] * n_ann + lab.annotator[la]) * n_ann + lab.annotator[lb]
        mc, nc = run(corpus, lab, la, lb, tau=tau, distance=dist, sets=False, near=True)
        parts.append((key[mc.pair_pairing], corpus.label[mc.pair_a], mc.pair_a, mc.pair_b))
        near_parts.append((key[nc.pairing], corpus.label[nc.a], nc.a, nc.b, nc.iou))
        label_parts.append((present_key, corpus.label[obj], obj, present_side))
    # units: (sequence, annotator, partner, label); a class unit exists where the two
    # annotators shared frames, whether or not both drew the class there
    frames_per_key = pd.Series(1, index=pair_unit_key).groupby(level=0).sum()
    labels = [-1] + (list(range(len(corpus.labels))) if classes else [])
    keys = frames_per_key.index.to_numpy()
    units = pd.DataFrame(
        {
            "key": np.tile(keys, len(labels)),
            "label": np.repeat(labels, len(keys)),
            "frames": np.tile(frames_per_key.to_numpy(), len(labels)),
        }
    )
    units["sequence"] = units["key"] // n_ann // n_ann
    units["annotator"] = units["key"] // n_ann % n_ann
    units["partner"] = units["key"] % n_ann
    units["unit"] = np.arange(len(units))
    lookup = pd.Series(
        units["unit"].to_numpy(), index=pd.MultiIndex.from_frame(units[["key", "label"]])
    )

    def unit_of(key, label):
        return lookup.reindex(pd.MultiIndex.from_arrays([key, label])).to_numpy(dtype=np.int64)

    present = pd.concat(
        [
            pd.DataFrame(
                {"unit": unit_of(key, np.broadcast_to(label, len(o))), "side": sd, "object": o}
            )
            for key, label, o, sd in label_parts
        ],
        ignore_index=True,
    )
    present["track"] = track_obj[present["object"]]
    present["frame"] = frame_obj[present["object"]]
    present["item"] = corpus.item[present["object"]]

    def object_pairs(parts):
        out = pd.concat(
            [
                pd.DataFrame(
                    {
                        "unit": unit_of(key, np.broadcast_to(label, len(a))),
                        "object_a": a,
                        "object_b": b,
                        **({"iou": rest[0]} if rest else {}),
                    }
                )
                for key, label, a, b, *rest in parts
            ],
            ignore_index=True,
        )
        out["track_a"] = track_obj[out["object_a"]]
        out["track_b"] = track_obj[out["object_b"]]
        out["frame"] = frame_obj[out["object_a"]]
        out["item"] = corpus.item[out["object_a"]]
        return out

    return FrameMatches(
        units=units.drop(columns="key"),
        present=present,
        matched=object_pairs(parts),
        near=object_pairs(near_parts),
        corpus=corpus,
        sequences=sequences,
        tracks=tracks,
    )
