"""Synthetic video tracks with injected identity errors, and corpora that drift in time.

:func:`simulate_tracks` draws objects that move through the frames of several sequences,
each in a lane of its own (so that no two objects of a frame overlap and the per-frame
matching is never ambiguous), and lets every annotator redraw them with localization noise
and misses, and *identity errors*: ``swaps`` (two of the annotator's tracks exchange their
ids from a random frame on, the error of an annotator who confuses two pedestrians where
they cross) or ``random_ids`` (on every frame the ids of the objects present are shuffled:
the boxes are right, the identities carry no information). Localization and detection do
not depend on the identity errors: the same seed gives the same boxes with and without
them.

:func:`simulate_drift` is a corpus of images with a ``time`` column whose annotators
change profile after a given share of the items (a drift), for the agreement over time.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.settings.validation import ANNOTATORS, MAX_SEED, Integer

from .generate import check_classes, simulate
from .limits import check_counts, check_names, check_number, check_size, corpus_rows
from .profiles import as_profile

__all__ = ["simulate_drift", "simulate_tracks"]

_STREAM_TRUTH, _STREAM_NOISE, _STREAM_MISS, _STREAM_ID = 0x7A, 0x7B, 0x7C, 0x7D
_TRACK_FIELDS = {"jitter": 0.0, "miss": 0.0, "swaps": 0, "random_ids": False}
_DRIFT_SEED_STEP = 7919  # the items from k on are drawn with the seed seed + 7919 * k


#: The most identity swaps per sequence of a track profile: each is one pass over the
#: annotator's rows.
MAX_SWAPS = 1_000
_SWAPS = Integer(0, high=MAX_SWAPS, why="each swap is one pass over the annotator's rows")


def _profile(name, spec) -> dict:
    if not isinstance(spec, Mapping):
        raise ParameterError(
            f"annotator {name!r}: a track profile is a dict of {sorted(_TRACK_FIELDS)}, "
            f"got {spec!r}"
        )
    unknown = set(spec) - set(_TRACK_FIELDS)
    if unknown:
        raise ParameterError(f"annotator {name!r}: unknown track profile fields {sorted(unknown)}")
    out = {**_TRACK_FIELDS, **spec}
    for field in ("jitter", "miss"):
        out[field] = check_number(out[field], f"annotator {name!r}: {field}", high=1.0, below=True)
    out["swaps"] = _SWAPS.check(f"annotator {name!r}: swaps", out["swaps"])
    if not isinstance(out["random_ids"], (bool, np.bool_)):
        raise ParameterError(
            f"annotator {name!r}: random_ids must be True or False; got {out['random_ids']!r}"
        )
    return out


def _name_key(name: str) -> int:
    return int.from_bytes(str(name).encode()[:16].ljust(16, b"\0"), "little") % (2**63)


def _truth(n_sequences, n_frames, n_tracks, classes, rng):
    """One row per (sequence, track, frame) on which the true object is visible."""
    seq = np.repeat(np.arange(n_sequences), n_tracks)
    track = np.tile(np.arange(n_tracks), n_sequences)
    n = len(seq)
    length = rng.integers(max(2, n_frames // 2), n_frames + 1, size=n)
    start = rng.integers(0, n_frames - length + 1)
    label = np.asarray(classes, dtype=object)[rng.integers(0, len(classes), size=n)]
    w = rng.uniform(40, 90, size=n)
    h = rng.uniform(0.5, 0.8, size=n) * (1000 / n_tracks)
    x_start = rng.uniform(0, 1000 - w)
    speed = rng.uniform(-8, 8, size=n)
    # rows: every visible frame of every track
    rows = np.repeat(np.arange(n), length)
    frame = start[rows] + (np.arange(len(rows)) - np.repeat(np.cumsum(length) - length, length))
    x0 = np.clip(x_start[rows] + speed[rows] * (frame - start[rows]), 0, 1000 - w[rows])
    y0 = track[rows] * (1000 / n_tracks) + 0.1 * (1000 / n_tracks)
    return pd.DataFrame(
        {
            "sequence": seq[rows],
            "truth_track": track[rows],
            "frame": frame,
            "label": label[rows],
            "x0": x0,
            "y0": y0,
            "x1": x0 + w[rows],
            "y1": y0 + h[rows],
        }
    )


def _identities(truth: pd.DataFrame, spec: dict, n_tracks: int, n_frames: int, rng) -> np.ndarray:
    """The track id the annotator gives each true row."""
    seq = truth["sequence"].to_numpy()
    frame = truth["frame"].to_numpy()
    ids = truth["truth_track"].to_numpy().copy()
    n_seq = int(seq.max(initial=-1)) + 1
    # swaps: in each sequence, from a random frame on two tracks exchange their ids
    for _ in range(int(spec["swaps"])):  # a few per annotator, not per row
        at = rng.integers(1, n_frames, size=n_seq)
        pair = np.stack([rng.permutation(n_tracks)[:2] for _ in range(n_seq)])
        after = frame >= at[seq]
        first, second = pair[seq, 0], pair[seq, 1]
        ids = np.where(
            after & (ids == first), second, np.where(after & (ids == second), first, ids)
        )
    if spec["random_ids"]:
        # shuffle the ids of each (sequence, frame) among its objects
        key = seq * n_frames + frame
        order = np.lexsort((rng.random(len(ids)), key))
        by_key = np.argsort(key, kind="stable")
        shuffled = ids.copy()
        shuffled[by_key] = ids[order]
        ids = shuffled
    return ids


def simulate_tracks(
    *,
    n_sequences: int = 10,
    n_frames: int = 40,
    n_tracks: int = 4,
    annotators: Mapping[str, Mapping] | None = None,
    classes=("person", "car"),
    seed: int = 0,
) -> pd.DataFrame:
    """Simulate video tracks annotated by several annotators.

    Parameters
    ----------
    n_sequences : int, default 10
        Number of sequences (videos), the ``group`` of their frames.
    n_frames : int, default 40
        Frames per sequence; items are named ``"seq003/frame_0012"``.
    n_tracks : int, default 4
        True objects per sequence; each is visible on a random interval of at least half
        the frames, moving horizontally in a lane of its own.
    annotators : dict {str: dict}, optional
        Annotator name to a track profile, a dict of ``jitter`` (localization noise as
        in :class:`~iaa_frames.simulate.Profile`), ``miss`` (probability of skipping an
        object on a frame), ``swaps`` (identity swaps per sequence) and ``random_ids``
        (shuffle the ids of the true objects of every frame, missed ones included). Default: ``"A"`` and ``"B"`` with jitter 0.05.
    classes : sequence of str, default ("person", "car")
        Classes of the tracks (one per track).
    seed : int, default 0
        Seed of every draw; an annotator's boxes and misses depend only on the seed and
        its name, not on its identity errors.

    Returns
    -------
    pandas.DataFrame
        A tidy frame with columns ``item``, ``annotator``, ``label``, the box, ``width``,
        ``height`` (1000), ``group`` (the sequence), ``frame``, ``track_id`` and
        ``truth_track``, plus a coverage row for every frame an annotator left empty.

    Raises
    ------
    ParameterError
        For a count or seed that is not an integer (:mod:`iaa_frames.simulate.limits`), no
        annotator, a bad annotator name or profile field (``swaps`` at most
        :data:`MAX_SWAPS`), no class, or more rows than
        :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS`.

    Examples
    --------
    >>> df = simulate_tracks(n_sequences=2, n_frames=5, n_tracks=2, seed=1)
    >>> sorted(df["annotator"].unique()), df["group"].nunique(), int(df["frame"].max())
    (['A', 'B'], 2, 4)
    >>> swapped = simulate_tracks(n_sequences=2, n_frames=5, n_tracks=2, seed=1,
    ...     annotators={"A": {"jitter": 0.05}, "B": {"jitter": 0.05, "swaps": 1}})
    >>> bool(np.array_equal(swapped["x0"], df["x0"], equal_nan=True))
    True
    """
    n_sequences, n_frames, n_tracks, seed = check_counts(
        n_sequences=(n_sequences, 1), n_frames=(n_frames, 2), n_tracks=(n_tracks, 1), seed=(seed, 0)
    )
    if annotators is None:
        annotators = {"A": {"jitter": 0.05}, "B": {"jitter": 0.05}}
    if not isinstance(annotators, Mapping) or not annotators:
        raise ParameterError(
            "annotators must be None or a non-empty dict {name: track profile} (e.g. "
            f"{{'A': {{'jitter': 0.05}}}}); got {annotators!r}"
        )
    check_names(annotators)
    specs = {k: _profile(k, v) for k, v in annotators.items()}
    classes, _ = check_classes(classes, None)
    frames = float(n_sequences) * n_frames
    check_size(
        "simulate_tracks",
        frames * n_tracks + frames * len(specs) * (n_tracks + 1),
        n_sequences=n_sequences,
        n_frames=n_frames,
        n_tracks=n_tracks,
        **{"len(annotators)": len(specs)},
    )
    truth = _truth(n_sequences, n_frames, n_tracks, classes, np.random.default_rng([seed, 1]))
    size = np.stack([truth["x1"] - truth["x0"], truth["y1"] - truth["y0"]] * 2, axis=1).astype(
        float
    )
    parts = []
    for name, spec in specs.items():  # one pass per annotator
        key = _name_key(name)
        noise = np.random.default_rng([seed, key, _STREAM_NOISE]).standard_normal(size.shape)
        keep = np.random.default_rng([seed, key, _STREAM_MISS]).random(len(truth)) >= spec["miss"]
        ids = _identities(
            truth, spec, n_tracks, n_frames, np.random.default_rng([seed, key, _STREAM_ID])
        )
        box = truth[["x0", "y0", "x1", "y1"]].to_numpy() + spec["jitter"] * size * noise
        lo = np.minimum(box[:, :2], box[:, 2:] - 1)
        box = np.concatenate([lo, np.maximum(box[:, 2:], lo + 1)], axis=1)
        part = truth.assign(
            annotator=name, x0=box[:, 0], y0=box[:, 1], x1=box[:, 2], y1=box[:, 3], track_id=ids
        )
        part = part.loc[keep]
        cover = pd.MultiIndex.from_product([range(n_sequences), range(n_frames)])
        drawn = pd.MultiIndex.from_arrays([part["sequence"], part["frame"]])
        empty = cover.difference(drawn).to_frame(index=False, name=["sequence", "frame"])
        parts += [part, empty.assign(annotator=name)]
    out = pd.concat(parts, ignore_index=True)
    out["item"] = [f"seq{s:03d}/frame_{f:04d}" for s, f in zip(out["sequence"], out["frame"])]
    out["group"] = [f"seq{s:03d}" for s in out["sequence"]]
    out = out.assign(width=1000.0, height=1000.0).drop(columns="sequence")
    out["track_id"] = out["track_id"].astype("Int64")
    out["truth_track"] = out["truth_track"].astype("Int64")
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    cols += ["group", "frame", "track_id", "truth_track"]
    return out[cols].sort_values(["item", "annotator"], kind="stable").reset_index(drop=True)


def simulate_drift(
    *,
    n_items: int = 200,
    annotators=("A", "B", "C"),
    before="good",
    after="sloppy",
    drift_at: float = 0.5,
    start: str = "2026-01-01",
    freq: str = "1h",
    seed: int = 0,
) -> pd.DataFrame:
    """A corpus of images annotated one after the other, whose annotators change profile.

    Items ``0 .. n_items - 1`` are annotated in that order, ``freq`` apart (column
    ``time``); the items from ``drift_at · n_items`` on are drawn with the profile
    ``after`` instead of ``before`` (:func:`~iaa_frames.simulate.simulate` presets or
    profiles). ``before == after`` is a stationary corpus.

    Raises
    ------
    ParameterError
        For a count or seed that is not an integer (or a seed whose last block's seed,
        ``seed + 7919 * n_items``, leaves the 64-bit range), no annotator, ``drift_at``
        outside [0, 1], ``start`` and ``freq`` that give no time, or more rows than
        :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS`.

    Examples
    --------
    >>> df = simulate_drift(n_items=10, seed=0)
    >>> df["time"].min(), df["item"].nunique()
    (Timestamp('2026-01-01 00:00:00'), 10)
    """
    n_items, seed = check_counts(n_items=(n_items, 1), seed=(seed, 0))
    drift_at = check_number(drift_at, "drift_at", high=1.0)
    annotators = ANNOTATORS.check("annotators", annotators)
    if annotators is None or len(annotators) == 0:
        raise ParameterError(f"annotators must name at least one annotator; got {annotators!r}")
    check_names(annotators)
    profiles = [as_profile(a, p) for a in annotators for p in (before, after)]
    check_size(  # at most every item with the profile of more rows
        "simulate_drift",
        max(
            corpus_rows(n_items, profiles[::2], 4, "random"),
            corpus_rows(n_items, profiles[1::2], 4, "random"),
        ),
        n_items=n_items,
        **{"len(annotators)": len(annotators)},
    )
    if seed > MAX_SEED - _DRIFT_SEED_STEP * n_items:
        raise ParameterError(
            f"seed must be at most {MAX_SEED - _DRIFT_SEED_STEP * n_items:,} with "
            f"n_items={n_items} (the items from k on are drawn with the seed "
            f"seed + {_DRIFT_SEED_STEP} * k, kept as a signed 64-bit integer); got {seed!r}"
        )
    try:
        times = pd.Timestamp(start) + np.array([0, n_items - 1]) * pd.Timedelta(freq)
    except (ValueError, TypeError, OverflowError) as error:
        raise ParameterError(
            f"start and freq must give a time for every item (a date such as '2026-01-01' "
            f"and a duration such as '1h'); got start={start!r}, freq={freq!r}: {error}"
        ) from None
    if pd.isna(times).any():
        raise ParameterError(f"start must be a date; got {start!r}")
    cut = int(round(drift_at * n_items))
    parts = []
    for profile, lo, hi in ((before, 0, cut), (after, cut, n_items)):
        if hi <= lo:
            continue
        df = simulate(
            n_items=hi - lo,
            annotators=dict.fromkeys(annotators, profile),
            seed=seed + _DRIFT_SEED_STEP * lo,
        )
        number = df["item"].str.slice(4).astype(int) + lo
        ids = df["object_id"].astype("str")
        df = df.assign(object_id=ids.where(df["object_id"].isna(), f"p{lo}_" + ids))
        parts.append(df.assign(item=[f"img_{k:05d}" for k in number], order=number))
    out = pd.concat(parts, ignore_index=True)
    out["time"] = pd.Timestamp(start) + out["order"] * pd.Timedelta(freq)
    return out.drop(columns="order")
