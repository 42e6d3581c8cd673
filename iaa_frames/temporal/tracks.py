"""Track identity agreement between annotators: :func:`track_agreement` and
:func:`track_figures`.

Per-frame agreement cannot see an identity error: annotator A follows two pedestrians, B
swaps their ids where they cross, and every frame still matches. The figures here are those
of :mod:`iaa_frames.temporal.identity` (IDF1, and CLEAR MOT's ID switches,
fragmentations, MOTA and MOTP as ``motmetrics`` computes them, with the chance-corrected
identity agreement), per sequence and annotator pair (:func:`track_figures`), pooled per
class and per annotator with intervals from a bootstrap over sequences
(:func:`track_agreement`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import scipy.sparse as sp
import xarray as xr

from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.bootstrap import multiplicity_blocks
from iaa_frames.stats.intervals import MIN_CI_ITEMS
from iaa_frames.stats.samples import percentile_ci

from .frames import ColumnName, match_frames
from .identity import unit_figures
from .track_variables import VARIABLES, identity_notes, interval_notes

__all__ = ["VARIABLES", "track_agreement", "track_figures"]

#: Most chance draws per unit.
MAX_DRAWS = 100
_SUMS = (
    "n_ref",
    "n_other",
    "matched",
    "idtp",
    "switches",
    "fragmentations",
    "distance",
    "pairs",
    "kept",
    "chance_kept",
)
#: The count columns of :func:`track_figures` (integers there; float in the Dataset of
#: :func:`track_agreement`, where NaN marks "no sequence pair").
_COUNTS = ("n_annotator", "n_partner", "matched", "idtp", "id_switches", "fragmentations")
#: The engine keywords of a track comparison (frames are matched at one threshold).
KEYWORDS = ("distance", "match_threshold", "n_chance", "seed")


def _compute(df, track, frame, settings: MatchSettings, classes=True):
    fm = match_frames(
        df,
        track=track,
        frame=frame,
        tau=float(settings.match_threshold),
        distance=settings.distance,
        classes=classes,
    )
    n_all = max(int((fm.units["label"] == -1).sum()), 1)
    draws = int(min(MAX_DRAWS, max(1, math.ceil(settings.n_chance / n_all))))
    return fm, unit_figures(fm, n_draws=draws, seed=settings.seed), draws


def _entries(units: pd.DataFrame, fig: pd.DataFrame) -> pd.DataFrame:
    """One row per (unit, role): role 0 takes the unit's annotator as the reference, role
    1 its partner; the directional sums of that reference."""
    out = []
    for ref, other, suffix_ref, suffix_other in (
        ("annotator", "partner", "a", "b"),
        ("partner", "annotator", "b", "a"),
    ):
        out.append(
            pd.DataFrame(
                {
                    "unit": units["unit"].to_numpy(),
                    "sequence": units["sequence"].to_numpy(),
                    "label": units["label"].to_numpy(),
                    "frames": units["frames"].to_numpy(),
                    "ref": units[ref].to_numpy(),
                    "other": units[other].to_numpy(),
                    "n_ref": fig[f"n_{suffix_ref}"].to_numpy(),
                    "n_other": fig[f"n_{suffix_other}"].to_numpy(),
                    "matched": fig[f"matched_{suffix_ref}"].to_numpy(),
                    "idtp": fig["idtp"].to_numpy(),
                    "switches": fig[f"switches_{suffix_ref}"].to_numpy(),
                    "fragmentations": fig[f"fragmentations_{suffix_ref}"].to_numpy(),
                    "distance": fig[f"distance_{suffix_ref}"].to_numpy(),
                    "pairs": fig["matched"].to_numpy(),
                    "kept": fig["kept"].to_numpy(),
                    "chance_kept": fig["chance_kept"].to_numpy(),
                }
            )
        )
    return pd.concat(out, ignore_index=True)


def _figures(s: dict) -> dict:
    """The statistics of a dict of sums (arrays)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (s["pairs"] - s["kept"]) / s["pairs"]
        expected = (s["pairs"] - s["chance_kept"]) / s["pairs"]
        errors = (s["n_ref"] - s["matched"]) + (s["n_other"] - s["matched"]) + s["switches"]
        return {
            "identity": 1 - observed / expected,
            "observed": observed,
            "expected": expected,
            "idf1": 2 * s["idtp"] / (s["n_ref"] + s["n_other"]),
            "idr": s["idtp"] / s["n_ref"],
            "idp": s["idtp"] / s["n_other"],
            "mota": 1 - errors / s["n_ref"],
            "motp": s["distance"] / s["matched"],
        }


def _track_figures(
    df: pd.DataFrame,
    *,
    track: str = "track_id",
    frame: str | None = None,
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`track_figures` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    fm, fig, _ = _compute(df, track, frame, settings)
    e = _entries(fm.units, fig)
    names = fm.corpus.annotators
    labels = np.append(fm.corpus.labels, ALL)
    stats = _figures({k: e[k].to_numpy() for k in _SUMS})
    out = pd.DataFrame(
        {
            "sequence": fm.sequences[e["sequence"].to_numpy()],
            "label": labels[e["label"].to_numpy()],
            "annotator": names[e["ref"].to_numpy()],
            "partner": names[e["other"].to_numpy()],
            "frames": e["frames"].to_numpy(),
            "n_annotator": e["n_ref"].to_numpy(),
            "n_partner": e["n_other"].to_numpy(),
            "matched": e["matched"].to_numpy(),
            "idtp": e["idtp"].to_numpy(),
            **{k: stats[k] for k in ("idf1", "idr", "idp")},
            "id_switches": e["switches"].to_numpy(),
            "fragmentations": e["fragmentations"].to_numpy(),
            "mota": stats["mota"],
            "motp": stats["motp"],
            "observed": stats["observed"],
            "expected": stats["expected"],
        }
    )
    for col in ("sequence", "label", "annotator", "partner"):
        out[col] = out[col].astype(str)
    # every row is a sequence pair, so no count is missing: integers (the sums are whole
    # numbers kept as floats by the bincounts)
    for col in _COUNTS:
        out[col] = np.rint(out[col].to_numpy(dtype=float)).astype(np.int64)
    order = ["label", "annotator", "partner", "sequence"]
    return out.sort_values(order, kind="stable").reset_index(drop=True)


@validate_params({"track": ColumnName(), "frame": ColumnName(none=True)}, engine=False)
def track_figures(
    df: pd.DataFrame,
    *,
    track: str = "track_id",
    frame: str | None = None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Identity figures of every sequence, annotator, partner and class.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame of video frames: one item per frame, a ``group`` column naming the
        sequence of every frame (:func:`~iaa_frames.read_cvat`,
        :func:`~iaa_frames.read_mot` write it) and a ``track`` column.
    track : str, default "track_id"
        Column of the track id of every object (unique per annotator and sequence).
    frame : str, optional
        Column of the frame number. Default: ``"frame"`` if the frame has it (read_mot,
        read_labelstudio_video), else the item names in string order (CVAT's
        ``frame_000123``) give the order of the frames.
    match_threshold, distance, n_chance, seed
        As in :func:`~iaa_frames.agreement`: frames are matched by the same pipeline
        (IoU >= τ); ``n_chance`` sequence pairs of chance (the draws of the shuffled ids)
        are drawn, ``seed`` seeds them.

    Returns
    -------
    pandas.DataFrame
        One row per (sequence, label, annotator, partner) in both orders (the
        ``annotator`` is the ground truth of the CLEAR MOT figures, the partner the
        tracker); ``label`` is ``"(all)"`` for every class together. Columns ``frames``
        (frames both covered), ``n_annotator``, ``n_partner`` (objects), ``matched``
        (object pairs the CLEAR MOT correspondence matched), ``idtp``, ``idf1``,
        ``idr``, ``idp``, ``id_switches``, ``fragmentations``, ``mota``, ``motp``
        (as ``motmetrics``: :data:`VARIABLES`), ``observed`` and ``expected`` (the
        identity distance within and under chance, see
        :mod:`iaa_frames.temporal.identity`). The counts (``n_annotator`` to ``idtp``,
        ``id_switches``, ``fragmentations``) are int64.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate_tracks(n_sequences=2, seed=0, annotators={
    ...     "A": {"jitter": 0.05}, "B": {"jitter": 0.05, "swaps": 1}})
    >>> t = iaf.track_figures(df, n_chance=20)
    >>> t.loc[t["label"] == "(all)", ["sequence", "annotator", "idf1", "id_switches"]]
      sequence annotator      idf1  id_switches
    0   seq000         A  0.755396            2
    1   seq001         A  0.944444            1
    2   seq000         B  0.755396            2
    3   seq001         B  0.944444            1
    """
    settings = checked_settings(
        distance=distance, match_threshold=match_threshold, n_chance=n_chance, seed=seed
    ).single()
    return _track_figures(df, track=track, frame=frame, settings=settings)


def _cells(e: pd.DataFrame, n_ann: int, n_lab: int):
    """Sparse (cell x entry) weights: cell ``(label, annotator, partner)`` with
    ``annotator``/``partner`` codes ``0 .. n_ann`` (``n_ann``: every annotator)."""
    ref, other = e["ref"].to_numpy(), e["other"].to_numpy()
    label = np.where(e["label"].to_numpy() < 0, n_lab, e["label"].to_numpy())
    rows = np.arange(len(e))
    parts = [
        (ref, other, rows, np.ones(len(e))),  # the pair, with this reference
        (ref, np.full(len(e), n_ann), rows, np.ones(len(e))),  # the reference, any partner
        (np.full(len(e), n_ann), other, rows, np.ones(len(e))),  # any reference, the partner
        (np.full(len(e), n_ann), np.full(len(e), n_ann), rows, np.full(len(e), 0.5)),
    ]
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    col = np.concatenate([p[2] for p in parts])
    w = np.concatenate([p[3] for p in parts])
    lab = np.tile(label, len(parts))
    cell = (lab * (n_ann + 1) + a) * (n_ann + 1) + b
    n_cells = (n_lab + 1) * (n_ann + 1) ** 2
    return sp.csr_matrix((w, (cell, col)), shape=(n_cells, len(e)))


def _track_agreement(
    df: pd.DataFrame,
    *,
    track: str = "track_id",
    frame: str | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    level: float = 0.95,
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`track_agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    fm, fig, draws = _compute(df, track, frame, settings)
    e = _entries(fm.units, fig)
    names = np.append(fm.corpus.annotators.astype(str), ALL)
    labels = np.append(fm.corpus.labels.astype(str), ALL)
    n_ann, n_lab = len(names) - 1, len(labels) - 1
    W = _cells(e, n_ann, n_lab)
    V = e[list(_SUMS)].to_numpy(dtype=float)
    shape = (n_lab + 1, n_ann + 1, n_ann + 1)
    sums = {k: v.reshape(shape) for k, v in zip(_SUMS, (W @ V).T)}
    n_units = W @ np.where(V[:, 0] + V[:, 1] > 0, 1.0, 0.0)
    point = _figures(sums)
    names_ = ("identity", "observed", "expected", "idf1", "idr", "idp", "mota", "motp")
    data = {k: point[k] for k in names_}
    data["id_switches"] = sums["switches"]
    data["fragmentations"] = sums["fragmentations"]
    data["matched"] = sums["matched"]
    data["sequences"] = n_units.reshape(shape)
    for name in ("id_switches", "fragmentations", "matched"):  # no sequence pair: no count
        data[name] = np.where(data["sequences"] > 0, data[name], np.nan)
    n_seq = len(fm.sequences)
    reps = {"identity": [], "idf1": [], "mota": []}
    if n_boot:
        seq = e["sequence"].to_numpy()
        for block in multiplicity_blocks(n_seq, n_boot, seed=settings.seed):
            for k in block:  # one sparse product per replicate
                s = {n: v.reshape(shape) for n, v in zip(_SUMS, (W @ (V * k[seq, None])).T)}
                f = _figures(s)
                for name, values in reps.items():
                    values.append(f[name])
    few = data["sequences"] < MIN_CI_ITEMS  # resampling 1-3 sequences: a zero-width interval
    for name in reps:
        bounds = percentile_ci(np.stack(reps[name]), level=level) if n_boot else (np.nan,) * 2
        data[f"{name}_ci_low"], data[f"{name}_ci_high"] = (np.where(few, np.nan, b) for b in bounds)
    notes = identity_notes(sums)  # why an identity is NaN, and (n_boot) why an interval is
    data["note"] = interval_notes(notes, sequences=data["sequences"]) if n_boot else notes
    dims = ("label", "annotator", "partner")
    ds = xr.Dataset(
        {
            k: (
                dims,
                np.asarray(v, dtype=object if k == "note" else float),
                dict(zip(("long_name", "description"), VARIABLES[k])),
            )
            for k, v in data.items()
        },
        coords={"label": labels, "annotator": names, "partner": names},
    )
    who = [ALL, *sorted(names[:-1])]  # "(all)" first, then by name
    ds = ds.sel(label=[ALL, *sorted(labels[:-1])], annotator=who, partner=who)
    ds.attrs.update(
        title="iaa_frames track agreement",
        match_threshold=float(settings.match_threshold),
        distance=str(settings.distance),
        track=track,
        n_sequences=n_seq,
        chance_draws=draws,
        n_boot=int(n_boot),
        seed=int(settings.seed),
        level=float(level),
    )
    return ds


@validate_params({"track": ColumnName(), "frame": ColumnName(none=True)}, engine=False)
def track_agreement(
    df: pd.DataFrame,
    *,
    track: str = "track_id",
    frame: str | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    level: float = 0.95,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
) -> xr.Dataset:
    """Track identity agreement: IDF1, MOTA, MOTP, ID switches, fragmentations and the
    chance-corrected identity agreement, per class and annotator pair, with intervals over
    sequences.

    IDF1 and the CLEAR MOT figures are those of ``motmetrics`` with the annotator as the
    ground truth and the partner as the tracker (IoU >= τ; the correspondence of a frame
    keeps that of the last frame while it stays within τ, so boxes that cross do not
    switch ids: :mod:`iaa_frames.temporal.clear_mot`). Every figure pools the sequences
    (sums of identity true positives, objects, matched pairs, errors, switches over the
    sequences, as ``motmetrics`` pools a benchmark). The
    identity agreement is ``1 - mean(within) / mean(chance)`` of the identity distance,
    the share of matched objects outside the one-to-one track correspondence
    (:mod:`iaa_frames.temporal.identity`); its chance is the same computation on
    unrelated sequences: the partner's ids shuffled among the matched objects of every
    frame. So consistent identities give 1, and annotators who assign ids at random on
    every frame give ≈ 0 however well they draw the boxes (the per-frame localization
    is that of :func:`~iaa_frames.agreement` on the frames, which ids do not change).
    Where no frame has two matched objects there is no identity to confuse: the chance
    distance is 0 and the identity agreement NaN (IDF1 and the counts are still given).

    Parameters
    ----------
    df : pandas.DataFrame
        Video frames with ``group`` (sequence) and ``track`` columns (see
        :func:`track_figures`).
    track, frame, match_threshold, distance, n_chance, seed
        As in :func:`track_figures`.
    n_boot : int, default 200
        Bootstrap replicates over sequences (0: no intervals; none either, as ``note`` says,
        for a cell on fewer than 4 sequences, :data:`~iaa_frames.stats.intervals.MIN_CI_ITEMS`).
    level : float, default 0.95
        Coverage of the percentile intervals.

    Returns
    -------
    xarray.Dataset
        Dimensions ``label`` (``"(all)"`` and each class), ``annotator`` and ``partner``
        (``"(all)"``: pooled over the annotators; ``annotator`` is the reference of the
        directional figures). Variables ``identity`` (σ of the identity distance),
        ``observed``, ``expected``, ``idf1``, ``idr``, ``idp``, ``mota``, ``motp``,
        ``id_switches``, ``fragmentations``, ``matched``, ``sequences`` (sequence pairs
        pooled), and ``identity_ci_low``/``_high``, ``idf1_ci_low``/``_high``,
        ``mota_ci_low``/``_high``; each with its ``long_name`` and ``description``
        attrs (:data:`VARIABLES`). The pooled cell ``(all, all)`` averages both
        directions.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate_tracks(n_sequences=6, seed=0, annotators={
    ...     "A": {"jitter": 0.05}, "B": {"jitter": 0.05, "random_ids": True}})
    >>> res = iaf.track_agreement(df, n_chance=100, n_boot=50)
    >>> cell = res.sel(label="(all)", annotator="(all)", partner="(all)")
    >>> bool(abs(cell["identity"]) < 0.1), bool(cell["idf1"] < 0.6)
    (True, True)
    >>> res["mota"].attrs["long_name"]
    'MOTA'
    """
    settings = checked_settings(
        distance=distance, match_threshold=match_threshold, n_chance=n_chance, seed=seed
    ).single()
    return _track_agreement(
        df, track=track, frame=frame, n_boot=n_boot, level=level, settings=settings
    )
