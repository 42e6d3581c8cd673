"""Which joints disagree, and whose: per-keypoint agreement of skeletons, per annotator.

:func:`keypoint_agreement` reads the matched object pairs of the normal pipeline (the
pairs whose OKS reached the threshold, within items and, for chance, between items:
:class:`~iaa_frames.core.tables.pairs.PairTables`) and splits them by joint and by annotator
(the sums: :mod:`iaa_frames.measures.keypoint_cells`):

* ``localization``: σ of the joint, ``1 - mean within / mean chance`` of ``1 - k_i``,
  ``k_i = exp(-e_i)`` the joint's term of OKS (:mod:`iaa_frames.geometry.kinds.keypoints`),
  over the matched pairs that label it on both sides (chance: the between-item matched
  pairs, as the localization component uses them); ``oks_term`` the mean ``k_i``
  within (raw);
* ``swapped``: of the matched pairs labelling the joint and its left/right mirror on both
  sides, the share where the joint lies nearer the other's mirror joint than the other's
  same joint (a left/right confusion shows here first);
* ``visibility_alpha``: Krippendorff's nominal α over the joint's visibility (absent 0,
  occluded 1, visible 2) on every matched pair (a pair is a unit of two values), and
  ``visibility_agreement`` the raw share of pairs giving the same visibility;
* ``labelled_by_both``: the share of matched pairs labelling the joint on both sides;
  ``n_pairs`` how many do.
* ``mirrored`` (per annotator, dims ``annotator`` only): the share of matched pairs that
  are mirror images of each other, the whole skeleton drawn left/right mirrored. A
  mirror-aware kind (the default, :mod:`iaa_frames.geometry.kinds.keypoints`) matches
  such a skeleton with its original instead of counting two misses, so the mirror shows
  here, and per joint as ``swapped`` (1 on every left/right joint of those pairs) and as
  a lower ``localization`` of the left/right joints, which compare joints by name.

Annotator "(all)" pools every pair; an annotator's column keeps the pairs that involve
it, within and chance (each annotator against the others, as
:func:`iaa_frames.agreement` does). ``localization``, ``swapped`` and ``visibility_alpha``
carry cluster-bootstrap intervals over items (``*_ci_low``, ``*_ci_high``: the engine's
interval, :mod:`iaa_frames.stats.cell_intervals`).

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
>>> swaps = KeypointProfile(swap=0.5, swap_joints=("left_knee",))
>>> df = simulate_keypoints(n_items=30, annotators={"a": KeypointProfile(), "b": swaps}, seed=0)
>>> ds = keypoint_agreement(df, n_boot=50)
>>> ds.swapped.sel(annotator="(all)", keypoint=["nose", "left_knee", "left_hip"]).round(1).values.tolist()
[nan, 0.5, 0.0]
>>> ds.swapped.dims
('keypoint', 'annotator')
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.engine.assemble import MIN_WITHIN_UNITS, name_order, names_in_order
from iaa_frames.core.engine.cells import NO_VARIATION, mean_of
from iaa_frames.core.engine.resolve import tables_of
from iaa_frames.core.engine.result import interval_notes, notes
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.geometry.kinds import KeypointsKind, get_kind
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    DEFAULTS,
    MatchSettings,
    check_int,
    checked_settings,
)
from iaa_frames.settings.validation import OneOf, validate_params
from iaa_frames.stats.cell_intervals import cell_intervals, interval_attrs
from iaa_frames.stats.intervals import CI_METHODS, MIN_CI_ITEMS

from .keypoint_cells import KeypointCells
from .keypoint_variables import MIRRORED, NOTE_DESCRIPTION, VARIABLES

__all__ = ["VARIABLES", "keypoint_agreement", "keypoint_agreement_from_tables"]


def _kind_of(tables, kind) -> KeypointsKind:
    present = [
        get_kind(n)
        for n, rows in tables.corpus.shapes.kind_rows().items()
        if isinstance(get_kind(n), KeypointsKind) and rows.any()
    ]
    if kind is not None:
        kind = get_kind(kind) if isinstance(kind, str) else kind
        if not isinstance(kind, KeypointsKind):
            raise ParameterError(f"kind must be a keypoints kind; got {kind!r}")
        if kind not in present:
            raise ParameterError(f"the frame holds no skeleton of the kind {kind.name!r}")
        return kind
    if len(present) != 1:
        raise ParameterError(
            "keypoint_agreement needs the frame's one keypoints kind; "
            + (
                "it holds none (no skeleton rows)"
                if not present
                else f"it holds {[k.name for k in present]}: pass kind="
            )
        )
    return present[0]


def _intervals(cells: KeypointCells, out: dict, corpus, *, n_boot, seed, ci_method) -> dict:
    """``*_ci_low``, ``*_ci_high`` of localization, swapped and visibility α."""
    items = {
        "localization": out["n_items"],
        "not_swapped": out["swap_items"],
        "visibility_alpha": out["visibility_items"],
    }
    pair = cells.localization.pair_variance()
    bounds = cell_intervals(
        cells.statistics,
        {"localization": out["localization"], "not_swapped": 1.0 - out["swapped"]}
        | {"visibility_alpha": out["visibility_alpha"]},
        n_items=len(corpus.items),
        cell_items=items,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        pair_variance={"localization": cells.grid(pair)},
        width=cells.localization.within.matrix.shape[1],
    )
    low, high = bounds.pop("not_swapped")
    bounds["swapped"] = (np.maximum(1.0 - high, 0.0), 1.0 - low)  # a share of pairs
    return {
        f"{name}_ci_{side}": value
        for name, pair_ in bounds.items()
        for side, value in zip(("low", "high"), pair_, strict=True)
    }


@validate_params({"ci_method": OneOf(CI_METHODS)})
def keypoint_agreement_from_tables(
    tables, *, kind=None, n_boot: int = DEFAULT_N_BOOT, seed: int = 0, ci_method: str = "bca"
) -> xr.Dataset:
    """:func:`keypoint_agreement` of pair tables already computed.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> df = simulate_keypoints(n_items=60, annotators={"a": KeypointProfile(),
    ...                                                 "b": KeypointProfile()}, seed=0)
    >>> ds = keypoint_agreement_from_tables(iaf.pair_tables(df), n_boot=0)
    >>> float(ds.localization.sel(keypoint="nose", annotator="a"))
    1.0
    """
    n_boot, seed = check_int(n_boot, "n_boot"), check_int(seed, "seed")
    kind = _kind_of(tables, kind)
    corpus = tables.corpus
    cells = KeypointCells.build(tables, kind)
    out = cells.point_values()
    stats = cells.statistics()
    # the rules of the main result's sigma cells: too few within or chance units, no
    # chance disagreement
    counts = {"n_units": out["n_pairs"], "n_chance_units": out["n_chance"]}
    limits = {"min_units": MIN_WITHIN_UNITS, "min_chance": MIN_CHANCE_UNITS}
    out["note"] = notes(expected=out["chance"], min_expected=NO_VARIATION, **counts, **limits)
    defined = out["note"] == ""
    out["localization"] = np.where(defined, stats["localization"], np.nan)
    out["swapped"] = 1.0 - stats["not_swapped"]
    out["visibility_alpha"] = stats["visibility_alpha"]
    out["visibility_agreement"] = stats["visibility_agreement"]
    out.update(_intervals(cells, out, corpus, n_boot=n_boot, seed=seed, ci_method=ci_method))
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    out["note"] = np.where(defined, few, out["note"]).astype(object)
    order = name_order(corpus.annotators)
    dims = ("keypoint", "annotator")
    data = {}
    for name, (long_name, description) in VARIABLES.items():
        value = out[name][:, order]
        if name.startswith("n_"):
            value = np.rint(np.nan_to_num(value)).astype(np.int64)
        data[name] = (dims, value, {"long_name": long_name, "description": description})
    data["mirrored"] = (
        ("annotator",),
        np.asarray(mean_of(cells.mirrored, cells.matched))[order],
        {"long_name": MIRRORED[0], "description": MIRRORED[1]},
    )
    data["n_mirrored"] = (
        ("annotator",),
        np.rint(cells.mirrored[order]).astype(np.int64),
        {
            "long_name": "mirrored pairs",
            "description": "The matched object pairs counted by mirrored: whole-skeleton "
            "mirror images of each other (an annotator's cell: those involving it).",
        },
    )
    data["note"] = (
        dims,
        out["note"][:, order],
        {"long_name": "reason localization is NaN", "description": NOTE_DESCRIPTION},
    )
    coords = {
        "keypoint": (
            "keypoint",
            np.asarray(kind.keypoints, dtype=object),
            {"long_name": "joint", "description": f"the joints of the skeleton {kind.name!r}"},
        ),
        "annotator": (
            "annotator",
            np.asarray(names_in_order(corpus.annotators, order), dtype=object),
            {
                "long_name": "annotator",
                "description": f"{ALL!r} pools every annotator; an annotator's cell keeps "
                "the matched pairs (within and chance) that involve it",
            },
        ),
    }
    attrs = {
        "title": "iaa_frames keypoint agreement",
        "kind": kind.name,
        **tables.params,
        "n_matched_pairs": int(cells.matched[0]),
        "n_chance_pairs": cells.n_chance_pairs,
        **interval_attrs(n_boot=n_boot, seed=seed, ci_method=ci_method),
        "min_within_units": MIN_WITHIN_UNITS,
        "min_chance_units": MIN_CHANCE_UNITS,
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


def _keypoint_agreement(
    data,
    *,
    kind=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`keypoint_agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return keypoint_agreement_from_tables(
        tables_of(data, settings),
        kind=kind,
        n_boot=n_boot,
        seed=settings.seed,
        ci_method=ci_method,
    )


@validate_params({"ci_method": OneOf(CI_METHODS)}, engine=False)
def keypoint_agreement(
    data,
    *,
    kind=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.Dataset:
    """Per-joint agreement of the skeletons of a frame, per annotator (module docstring).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy frame with skeletons (:mod:`iaa_frames.geometry.kinds.keypoints`), or its
        pair tables.
    kind : str or KeypointsKind, optional
        The skeleton, when the frame holds several.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items (groups of items with a ``group``
        column) for the ``*_ci_low`` / ``*_ci_high`` bounds (0: none).
    ci_method : {"bca", "percentile"}, default "bca"
        As in :func:`iaa_frames.agreement`.
    distance, match_threshold, n_chance, seed, overall, progress
        As for :func:`iaa_frames.agreement`, passed to
        :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame (the pair
        tables are shared with it); ``seed`` also seeds the bootstrap.

    Returns
    -------
    xarray.Dataset
        Dims ``keypoint`` (the joints, in the skeleton's order) and ``annotator``
        ("(all)" first, then by name); the variables of :data:`VARIABLES`
        (``localization`` with ``localization_ci_low`` / ``localization_ci_high``,
        ``within``, ``chance``, ``oks_term``, ``swapped`` with its bounds,
        ``visibility_alpha`` with its bounds, ``visibility_agreement``,
        ``labelled_by_both``, ``n_pairs``, ``n_chance``, ``n_items``), each with
        ``long_name`` and ``description``; ``mirrored`` and ``n_mirrored`` (dims
        ``annotator``: matched pairs that are whole-skeleton mirror images); and
        ``note`` (why ``localization`` is NaN,
        or its interval not reported); attrs ``kind``, the engine parameters,
        ``n_matched_pairs``, ``n_boot``, ``ci_method``, ...

    Raises
    ------
    ParameterError
        When the frame holds no skeleton, or several kinds and no ``kind``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> careless = KeypointProfile(joint_jitter={"left_wrist": 1.0})
    >>> df = simulate_keypoints(n_items=40, seed=0, annotators={
    ...     "a": KeypointProfile(jitter=0.1), "b": KeypointProfile(jitter=0.1), "c": careless})
    >>> ds = iaf.keypoint_agreement(df, n_boot=50)
    >>> wrist = ds.localization.sel(keypoint="left_wrist")
    >>> wrist.idxmin("annotator").item()
    'c'
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _keypoint_agreement(
        data, kind=kind, n_boot=n_boot, ci_method=ci_method, settings=settings
    )
