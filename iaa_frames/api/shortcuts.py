"""One statistic of one component, by label and annotator: ``iaf.sigma``, ``iaf.ks`` and
``iaf.alpha``.

Each is a slice of the agreement result (:func:`iaa_frames.agreement`), with the variables
that qualify the number (interval, unit counts, note) kept as coordinates:

==========================  =================================================================
:func:`sigma_of`            σ of the detection, localization (default) or overall component
:func:`ks_of`               the KS statistic of the same components, with its sign and p-value
:func:`alpha_of`            Krippendorff's α of the labels, or the presence α of detection
:func:`sigma`, :func:`ks`,  the same of an annotation frame, through the cached result of
:func:`alpha`               ``df.iaa.agreement()`` (:func:`iaa_frames.api.results.agreement`)
==========================  =================================================================

``df.iaa.sigma()`` is :func:`sigma`, ``res.iaa.sigma()`` is :func:`sigma_of`, and so on.

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate(n_items=10, seed=0)
>>> res = iaf.agreement(df, n_chance=100, n_boot=0)
>>> sigma_of(res).equals(iaf.sigma(df, n_chance=100, n_boot=0))
True
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from iaa_frames.core.engine.cells import SIGMA_COMPONENTS
from iaa_frames.explore.views import check_choice, check_dataset
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, checked_settings
from iaa_frames.settings.validation import OneOf, validate_params

from . import results as cached

__all__ = [
    "ALPHA_COMPONENTS",
    "SIGMA_COMPONENTS",
    "alpha",
    "alpha_of",
    "ks",
    "ks_of",
    "sigma",
    "sigma_of",
]

#: The components with an α: the labels' (classification), presence (detection).
ALPHA_COMPONENTS = ("classification", "detection")


def _with_coords(da: xr.DataArray, ds: xr.Dataset, component: str, names) -> xr.DataArray:
    """``da`` with the variables ``names`` of ``ds`` (at ``component``) as coordinates."""
    extra = {n: ds[n].sel(component=component) for n in names if n in ds}
    return da.assign_coords({n: (v.dims, v.values, v.attrs) for n, v in extra.items()})


# ------------------------------------------------------------------- slices of a result


def sigma_of(result: xr.Dataset, *, component: str = "localization") -> xr.DataArray:
    """σ of one component of an agreement result, by label and annotator.

    ``σ = 1 - mean within-item distance / mean chance distance``: 1 perfect agreement, 0
    no better than chance, below 0 systematic disagreement (annotators further apart on
    the same item than on unrelated items); no conventional cut-offs: read it against 0
    and against the other components (:func:`iaa_frames.agreement` says more).

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`iaa_frames.agreement` (a ``threshold`` dimension, if any, is
        kept).
    component : {"localization", "detection", "overall"}, default "localization"
        Localization unless said otherwise: matched objects drawn in the same place.

    Returns
    -------
    xarray.DataArray
        Named ``sigma``, dims ``(label, annotator)``, with ``component``, ``ci_low``,
        ``ci_high``, ``n_units``, ``n_chance`` and ``note`` as coordinates.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> s = sigma_of(res, component="detection")
    >>> s.name, str(s["component"].values), s.dims
    ('sigma', 'detection', ('label', 'annotator'))
    """
    check_choice("component", component, SIGMA_COMPONENTS)
    ds = check_dataset(result, ("agreement",), sweep=True)
    da = ds["agreement"].sel(component=component).rename("sigma")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "n_chance", "note"))


def ks_of(result: xr.Dataset, *, component: str = "localization") -> xr.DataArray:
    """The KS statistic of one component of an agreement result, by label and annotator.

    The Kolmogorov-Smirnov statistic of the within-item against the chance distances: 0
    when they are alike (agreement at chance), up to 1 when they do not overlap; ``ks_sign``
    says which side is closer (+1: within closer than chance, as agreement should be).

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`iaa_frames.agreement`.
    component : {"localization", "detection", "overall"}, default "localization"

    Returns
    -------
    xarray.DataArray
        Named ``ks``, dims ``(label, annotator)``, with ``ks_sign``, ``ks_pvalue`` and
        ``note`` as coordinates.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> sorted(set(ks_of(res).coords) - set(res["ks"].coords))
    ['ks_pvalue', 'ks_sign', 'note']
    """
    check_choice("component", component, SIGMA_COMPONENTS)
    ds = check_dataset(result, ("ks",), sweep=True)
    return _with_coords(
        ds["ks"].sel(component=component), ds, component, ("ks_sign", "ks_pvalue", "note")
    )


def alpha_of(result: xr.Dataset, *, component: str = "classification") -> xr.DataArray:
    """The α of an agreement result, by label and annotator.

    α = 1 - observed / expected disagreement: 1 perfect agreement, 0 chance, below 0
    systematic disagreement; Krippendorff's conventional thresholds are α ≥ 0.8 to rely on
    the data and α ≥ 0.667 for tentative conclusions. For classification the expected
    disagreement is that of matched chance pairs of unrelated items
    (:mod:`iaa_frames.core.engine.labels`); Krippendorff's own, from the label marginals, is the
    result's ``label_alpha``.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`iaa_frames.agreement`.
    component : {"classification", "detection"}, default "classification"
        "classification": the α of the labels (the component's agreement, chance pairs
        as the expected disagreement);
        "detection": the presence α, reported only for comparison with tools that show
        it (it is about 0 whatever the miss rate; see the variable's description).

    Returns
    -------
    xarray.DataArray
        Named ``alpha``, dims ``(label, annotator)``; classification carries ``ci_low``,
        ``ci_high``, ``n_units`` and ``note`` as coordinates.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> alpha_of(res, component="detection").name
    'alpha'
    """
    check_choice("component", component, ALPHA_COMPONENTS)
    ds = check_dataset(result, ("agreement", "presence_alpha"), sweep=True)
    if component == "detection":
        return ds["presence_alpha"].sel(component="detection").rename("alpha")
    da = ds["agreement"].sel(component="classification").rename("alpha")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "note"))


# ------------------------------------------------------------------- of a frame, cached


@validate_params({"component": OneOf(SIGMA_COMPONENTS)}, engine=False)
def sigma(
    df: pd.DataFrame,
    *,
    component: str = "localization",
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.DataArray:
    """σ of one component of a frame by label and annotator; **localization by default**
    (``df.iaa.sigma()``).

    The slice :func:`sigma_of` of the frame's agreement result, which is computed once per
    frame content and parameters (:mod:`iaa_frames.core.engine.memo`). σ of two samples of distances
    is :func:`iaa_frames.stats.samples.sigma`; :func:`sigma_of` says how to read σ (1
    perfect, 0 chance, below 0 systematic disagreement).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    component : {"localization", "detection", "overall"}, default "localization"
        Localization (matched objects drawn in the same place) unless said otherwise;
        the DataArray's ``component`` coordinate says which.
    distance, match_threshold, n_chance, n_boot, seed, overall, progress
        As in :func:`iaa_frames.agreement`; a sequence of ``match_threshold`` values adds
        a ``threshold`` dimension.

    Returns
    -------
    xarray.DataArray
        See :func:`sigma_of`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> s = iaf.sigma(iaf.simulate(n_items=20, seed=0), n_chance=200)
    >>> str(s["component"].values), bool(s.sel(label="(all)", annotator="(all)") > 0)
    ('localization', True)
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return sigma_of(cached.agreement(df, settings, n_boot=n_boot), component=component)


@validate_params({"component": OneOf(SIGMA_COMPONENTS)}, engine=False)
def ks(
    df: pd.DataFrame,
    *,
    component: str = "localization",
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.DataArray:
    """The KS statistic of one component of a frame by label and annotator; localization
    by default (``df.iaa.ks()``).

    The slice :func:`ks_of` of the frame's cached agreement result. The KS test of two
    samples of distances is :func:`iaa_frames.stats.samples.ks`.

    The Kolmogorov-Smirnov statistic of the within-item against the chance distances: 0
    when they are alike (agreement at chance), up to 1 when they do not overlap; ``ks_sign``
    says which side is closer (+1: within closer than chance, as agreement should be).

    Parameters
    ----------
    df, component, distance, match_threshold, n_chance, n_boot, seed, overall, progress
        As in :func:`sigma`.

    Returns
    -------
    xarray.DataArray
        See :func:`ks_of`: ``ks`` with ``ks_sign``, ``ks_pvalue`` and ``note`` as coordinates.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> k = iaf.ks(iaf.simulate(n_items=20, seed=0), n_chance=200)
    >>> k.name, 0 <= float(k.sel(label="(all)", annotator="(all)")) <= 1
    ('ks', True)
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return ks_of(cached.agreement(df, settings, n_boot=n_boot), component=component)


@validate_params({"component": OneOf(ALPHA_COMPONENTS)}, engine=False)
def alpha(
    df: pd.DataFrame,
    *,
    component: str = "classification",
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.DataArray:
    """Classification α of a frame (or, with ``component="detection"``, presence α) by
    label and annotator (``df.iaa.alpha()``).

    The slice :func:`alpha_of` of the frame's cached agreement result. Krippendorff's α of
    any reliability data is :func:`iaa_frames.nominal_alpha`.

    Krippendorff's α: 1 perfect agreement, 0 chance, below 0 systematic disagreement;
    his conventional thresholds are α ≥ 0.8 to rely on the data and α ≥ 0.667 for
    tentative conclusions.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    component : {"classification", "detection"}, default "classification"
        The labels' α, or the presence α of detection (whether each annotator drew the
        object at all).
    distance, match_threshold, n_chance, n_boot, seed, overall, progress
        As in :func:`sigma`.

    Returns
    -------
    xarray.DataArray
        See :func:`alpha_of`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> iaf.alpha(iaf.simulate(n_items=20, seed=0), n_chance=200).dims
    ('label', 'annotator')
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return alpha_of(cached.agreement(df, settings, n_boot=n_boot), component=component)
