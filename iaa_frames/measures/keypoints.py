"""Which joints disagree: per-keypoint localization and visibility agreement of skeletons.

:func:`keypoint_agreement` reads the matched object pairs of the normal pipeline (the
pairs whose OKS reached the threshold, within items and, for chance, between items:
:class:`~iaa_frames.tables.pairs.PairTables`) and splits them by joint:

* ``localization``: σ of the joint, ``1 - mean within / mean chance`` of ``1 - k_i``,
  ``k_i = exp(-e_i)`` the joint's term of OKS (:mod:`iaa_frames.geometry.kinds.keypoints`),
  over the matched pairs that label it on both sides (chance: the uniform stratum's
  between-item matched pairs, as the localization component uses them); ``oks_term`` the
  mean ``k_i`` within (raw);
* ``swapped``: of the matched pairs labelling the joint and its left/right mirror on both
  sides, the share where the joint lies nearer the other's mirror joint than the other's
  same joint (a left/right confusion shows here first);
* ``visibility_alpha``: Krippendorff's nominal α over the joint's visibility (absent 0,
  occluded 1, visible 2) on every matched pair (a pair is a unit of two values), and
  ``visibility_agreement`` the raw share of pairs giving the same visibility;
* ``labelled_by_both``: the share of matched pairs labelling the joint on both sides;
  ``n_pairs`` how many do.

Point estimates (no bootstrap intervals yet).

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
>>> swaps = KeypointProfile(swap=0.5, swap_joints=("left_knee",))
>>> df = simulate_keypoints(n_items=30, annotators={"a": KeypointProfile(), "b": swaps}, seed=0)
>>> ds = keypoint_agreement(df)
>>> ds.swapped.sel(keypoint=["nose", "left_knee", "left_hip"]).round(1).values.tolist()
[nan, 0.5, 0.0]
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from iaa_frames.errors import ParameterError
from iaa_frames.explore.matches import tables_of
from iaa_frames.geometry.kinds import KeypointsKind, get_kind
from iaa_frames.stats.krippendorff import nominal_alpha_from_codes

__all__ = ["keypoint_agreement"]


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


def _pairs(tables, frame, kind):
    """Parameters of both sides of the matched pairs of ``frame`` whose two objects are
    skeletons of ``kind``."""
    shapes = tables.corpus.shapes
    rows = shapes.kind_rows()[kind.name]
    a, b = frame["object_a"].to_numpy(), frame["object_b"].to_numpy()
    keep = rows[a] & rows[b]
    p = shapes.params[kind.name]
    return p[a[keep]], p[b[keep]]


def _swapped(kind, pa, pb):
    """Per joint: the share of pairs where it lies nearer the other's mirror joint."""
    xa, ya, va, _ = kind.split(pa)
    xb, yb, vb, _ = kind.split(pb)
    mirror = np.arange(kind.n_keypoints)
    for left, right in kind.flip:
        mirror[left], mirror[right] = right, left
    paired = mirror != np.arange(kind.n_keypoints)
    own = (xa - xb) ** 2 + (ya - yb) ** 2
    cross = (xa - xb[:, mirror]) ** 2 + (ya - yb[:, mirror]) ** 2
    ok = (va > 0) & (vb > 0) & (va[:, mirror] > 0) & (vb[:, mirror] > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = ((cross < own) & ok).sum(axis=0) / ok.sum(axis=0)
    return np.where(paired, out, np.nan)


def _visibility(va, vb):
    """Per joint: nominal α and the raw agreement of the visibilities of the pairs."""
    n, k = va.shape
    units = np.repeat(np.arange(n), 2)
    alpha = np.full(k, np.nan)
    for j in range(k):  # one α per joint (K is small)
        if n:
            values = np.column_stack([va[:, j], vb[:, j]]).ravel().astype(np.int64)
            alpha[j] = nominal_alpha_from_codes(units, values)
    with np.errstate(invalid="ignore"):
        raw = (va == vb).mean(axis=0) if n else np.full(k, np.nan)
    return alpha, raw


def keypoint_agreement(data, *, kind=None, **engine) -> xr.Dataset:
    """Per-joint agreement of the skeletons of a frame (module docstring).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy frame with skeletons (:mod:`iaa_frames.geometry.kinds.keypoints`), or its
        pair tables.
    kind : str or KeypointsKind, optional
        The skeleton, when the frame holds several.
    **engine
        ``match_threshold``, ``n_chance``, ``seed``, ... as for :func:`iaa_frames.agreement`
        (the pair tables are shared with it).

    Returns
    -------
    xarray.Dataset
        Dimension ``keypoint`` (the joints, in the skeleton's order); variables
        ``localization``, ``within``, ``chance``, ``oks_term``, ``swapped``,
        ``visibility_alpha``, ``visibility_agreement``, ``labelled_by_both``,
        ``n_pairs``; attributes ``kind``, ``match_threshold``, ``n_matched_pairs``,
        ``n_chance_pairs``.

    Raises
    ------
    ParameterError
        When the frame holds no skeleton, or several kinds and no ``kind``.
    """
    tables = tables_of(data, **engine)
    kind = _kind_of(tables, kind)
    pa, pb = _pairs(tables, tables.localization_within, kind)
    between = tables.localization_between
    if "in_uniform" in between.columns:
        between = between[between["in_uniform"].to_numpy(dtype=bool)]
    ca, cb = _pairs(tables, between, kind)
    ks, both = kind.point_similarity(pa, pb)
    cks, cboth = kind.point_similarity(ca, cb)
    n_both = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(both, 1 - ks, 0).sum(axis=0) / n_both
        chance = np.where(cboth, 1 - cks, 0).sum(axis=0) / cboth.sum(axis=0)
        term = np.where(both, ks, 0).sum(axis=0) / n_both
        sigma = np.where(chance > 0, 1 - within / chance, np.nan)
        labelled = n_both / len(pa) if len(pa) else np.full(kind.n_keypoints, np.nan)
    _, _, va, _ = kind.split(pa)
    _, _, vb, _ = kind.split(pb)
    alpha, raw = _visibility(va, vb)
    coords = {"keypoint": list(kind.keypoints)}
    dims = ("keypoint",)
    return xr.Dataset(
        {
            "localization": (dims, sigma),
            "within": (dims, within),
            "chance": (dims, chance),
            "oks_term": (dims, term),
            "swapped": (dims, _swapped(kind, pa, pb)),
            "visibility_alpha": (dims, alpha),
            "visibility_agreement": (dims, raw),
            "labelled_by_both": (dims, labelled),
            "n_pairs": (dims, n_both.astype(np.int64)),
        },
        coords=coords,
        attrs={
            "title": "iaa_frames keypoint agreement",
            "kind": kind.name,
            "match_threshold": tables.params.get("match_threshold"),
            "n_matched_pairs": len(pa),
            "n_chance_pairs": len(ca),
        },
    )
