"""``df.iaa.tables()``, ``.within()``, ``.between()``, ``.items()``: the pair tables of a
frame and the per-item drilldown, cached (:mod:`iaa_frames.api.results`).

These take one threshold: a sequence of ``match_threshold`` values raises the error of
:meth:`~iaa_frames.settings.parameters.MatchSettings.single`.
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings
from iaa_frames.tables.pairs import PairTables, named

__all__ = ["TableMethods"]


class TableMethods:
    """The table methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    def items(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        top: int | None = None,
        sort: str = "excess",
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Per-item drilldown table, worst item first: :func:`iaa_frames.explore.items.items`,
        cached.

        Parameters
        ----------
        component : {"localization", "detection", "overall", "classification"}
        label : str, default "(all)"
            Restrict the drilldown to one class.
        top : int, optional
        sort : {"excess", "sigma"}, default "excess"

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> len(simulate(n_items=6, seed=0).iaa.items(n_chance=50, top=2, label="car"))
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
        return cached.items(
            self._df, settings, component=component, label=label, top=top, sort=sort
        )

    def within(
        self,
        *,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Matched within-item object pairs, names instead of codes:
        :func:`iaa_frames.tables.pairs.within`, cached.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> w = simulate(n_items=5, seed=0).iaa.within(n_chance=50)
        >>> bool((w["iou"] >= 0.5).all())
        True
        """
        t = self.tables(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return named(t, t.localization_within)

    def between(
        self,
        *,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Sampled between-item (chance) matched pairs: :func:`iaa_frames.tables.pairs.between`,
        cached.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> b = simulate(n_items=10, seed=0).iaa.between(n_chance=50)
        >>> bool((b["item_a"] != b["item_b"]).all())
        True
        """
        t = self.tables(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return named(t, t.localization_between)

    def tables(
        self,
        *,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> PairTables:
        """Every pair table: :func:`iaa_frames.tables.pairs.pair_tables`, cached.

        Returns
        -------
        PairTables

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> t = simulate(n_items=10, seed=0).iaa.tables(n_chance=50)
        >>> t.params["distance"]
        'giou'
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return cached.tables(self._df, settings)
