"""``df.iaa.agreement()``, ``.sigma()``, ``.ks()``, ``.alpha()``, ``.pairwise()``: the
agreement of a frame, cached.

Each method builds one :class:`~iaa_frames.settings.parameters.MatchSettings` from its keywords
(validating them once) and takes the result from :mod:`iaa_frames.api.results`, which computes
the pair tables once per frame content and parameters. Every method also takes a sequence
of ``match_threshold`` values, which adds a ``threshold`` dimension.
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from iaa_frames.api import results as cached
from iaa_frames.api import shortcuts
from iaa_frames.engine import DEFAULT_N_BOOT
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings

__all__ = ["AgreementMethods"]


class AgreementMethods:
    """The agreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    def agreement(
        self,
        *,
        distance=DEFAULTS.distance,
        match_threshold=DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.Dataset:
        """Agreement by component, label and annotator: :func:`iaa_frames.agreement`,
        cached.

        The Dataset's attr ``tables_key`` names the cached pair tables, so that
        ``res.iaa.pairwise()``, ``res.iaa.items()`` and ``res.iaa.plot.distributions()``
        reuse them. With a sequence of ``match_threshold`` values the result has a
        ``threshold`` dimension; every threshold's tables are cached as if computed alone
        (the missing ones together, see :func:`iaa_frames.api.memo.entries_for`), and
        ``res.sel(threshold=τ).iaa`` finds τ's tables while they are cached.

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> ds = simulate(n_items=20, seed=0).iaa.agreement(n_chance=200)
        >>> ds["component"].values.tolist()
        ['detection', 'classification', 'localization', 'overall']
        >>> bool(ds["ci_low"].notnull().any())     # n_boot=200 by default
        True
        >>> sweep = simulate(n_items=20, seed=0).iaa.agreement(n_chance=200,
        ...                                                    match_threshold=[0.5, 0.7])
        >>> sweep.sizes["threshold"]
        2
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return cached.agreement(self._df, settings, n_boot=n_boot)

    def sigma(
        self,
        *,
        component: str = "localization",
        distance=DEFAULTS.distance,
        match_threshold=DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.DataArray:
        """σ of one component, dims (label, annotator); **localization by default**:
        :func:`iaa_frames.sigma`.

        Parameters
        ----------
        component : {"localization", "detection", "overall"}, default "localization"
            Localization (matched objects drawn in the same place) unless said otherwise;
            the DataArray's ``component`` coordinate says which.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> s = simulate(n_items=20, seed=0).iaa.sigma(n_chance=200)
        >>> str(s["component"].values), bool(s.sel(label="(all)", annotator="(all)") > 0)
        ('localization', True)
        """
        return shortcuts.sigma(
            self._df,
            component=component,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            n_boot=n_boot,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    def ks(
        self,
        *,
        component: str = "localization",
        distance=DEFAULTS.distance,
        match_threshold=DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.DataArray:
        """KS statistic of one component, dims (label, annotator); localization by
        default: :func:`iaa_frames.ks`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> k = simulate(n_items=20, seed=0).iaa.ks(n_chance=200)
        >>> 0 <= float(k.sel(label="(all)", annotator="(all)")) <= 1
        True
        """
        return shortcuts.ks(
            self._df,
            component=component,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            n_boot=n_boot,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    def alpha(
        self,
        *,
        component: str = "classification",
        distance=DEFAULTS.distance,
        match_threshold=DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.DataArray:
        """Classification α (or, with ``component="detection"``, presence α), dims
        (label, annotator): :func:`iaa_frames.alpha`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=20, seed=0).iaa.alpha(n_chance=200).name
        'alpha'
        """
        return shortcuts.alpha(
            self._df,
            component=component,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            n_boot=n_boot,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    def pairwise(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        distance=DEFAULTS.distance,
        match_threshold=DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.DataArray:
        """Annotator x annotator agreement of a component: :func:`iaa_frames.pairwise`,
        cached.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=20, seed=0).iaa.pairwise(n_chance=200).dims
        ('annotator_a', 'annotator_b')
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return cached.pairwise(self._df, settings, component=component, label=label)
