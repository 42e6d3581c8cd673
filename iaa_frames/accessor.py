"""The ``DataFrame.iaa`` accessor (DESIGN §6).

Importing this module registers ``df.iaa`` on every :class:`pandas.DataFrame`. Each method
equals a plain function (pingouin style): ``df.iaa.agreement(...)`` is
``iaa_frames.engine.agreement(df, ...)``, and so on. pandas does not cache accessors, so
the accessor only stores the frame; every call computes from scratch.

Examples
--------
>>> import iaa_frames.accessor  # noqa: F401  (``import iaa_frames`` does this)
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=20, annotators={"ann": "good", "bob": "sloppy"}, seed=0)
>>> ds = df.iaa.agreement(n_chance=200)
>>> sorted(ds["annotator"].values.tolist())
['(all)', 'ann', 'bob']
>>> df.iaa.sigma(n_chance=200).dims
('label', 'annotator')
"""

from __future__ import annotations

import html

import pandas as pd

from .engine import (
    agreement,
    component_alpha,
    component_ks,
    component_sigma,
    pairwise,
)
from .distances import DEFAULT_DISTANCE
from .frame import ALL
from .pairs import DEFAULT_N_CHANCE, between, pair_tables, within

__all__ = ["IAAAccessor"]

_METHODS = {
    "agreement()": "xr.Dataset by component x label x annotator",
    "sigma()": "localization sigma, (label, annotator)",
    "ks()": "localization KS statistic, (label, annotator)",
    "alpha()": "classification alpha, (label, annotator)",
    "pairwise()": "annotator x annotator agreement of a component",
    "within()": "within-item matched pairs",
    "between()": "between-item (chance) matched pairs",
    "tables()": "every pair table (PairTables)",
    "items()": "per-item drilldown table, worst item first",
    "kalpha()": "kalphacv's Krippendorff alpha (literature comparability)",
    "annotators()": "per-annotator quality, corrected for partners' quality",
    "plot": "figures: df.iaa.plot.<name>(...)",
}


@pd.api.extensions.register_dataframe_accessor("iaa")
class IAAAccessor:
    """Inter-annotator agreement of a tidy annotation frame: ``df.iaa``.

    Every method takes the keyword-only parameters of
    :func:`iaa_frames.engine.agreement` that apply to it: ``distance``,
    ``match_threshold``, ``n_chance``, ``n_boot``, ``seed``, ``overall``, ``progress``.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated when a method runs).
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def __repr__(self) -> str:
        lines = [f"<IAAAccessor of a frame with {len(self._df)} rows>"]
        lines += [f"  .{name:<12} {what}" for name, what in _METHODS.items()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td><code>.{html.escape(n)}</code></td><td>{html.escape(w)}</td></tr>"
                       for n, w in _METHODS.items())
        return (f"<p><b>df.iaa</b>: agreement of a frame with {len(self._df)} rows</p>"
                f"<table>{rows}</table>")

    def agreement(self, *, distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
                  n_chance: int = DEFAULT_N_CHANCE, n_boot: int = 0, seed: int = 0,
                  overall: str = "pooled", progress: bool | None = None):
        """Agreement by component, label and annotator: :func:`iaa_frames.engine.agreement`.

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> ds = simulate(n_items=20, seed=0).iaa.agreement(n_chance=200)
        >>> ds["component"].values.tolist()
        ['detection', 'classification', 'localization', 'overall']
        """
        return agreement(self._df, distance=distance, match_threshold=match_threshold,
                         n_chance=n_chance, n_boot=n_boot, seed=seed, overall=overall,
                         progress=progress)

    def sigma(self, *, component: str = "localization", distance=DEFAULT_DISTANCE,
              match_threshold: float = 0.5, n_chance: int = DEFAULT_N_CHANCE,
              n_boot: int = 0, seed: int = 0, overall: str = "pooled",
              progress: bool | None = None):
        """Sigma of a component (localization by default), dims (label, annotator):
        :func:`iaa_frames.engine.component_sigma`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> s = simulate(n_items=20, seed=0).iaa.sigma(n_chance=200)
        >>> bool(s.sel(label="(all)", annotator="(all)") > 0)
        True
        """
        return component_sigma(self._df, component=component, distance=distance,
                               match_threshold=match_threshold, n_chance=n_chance,
                               n_boot=n_boot, seed=seed, overall=overall, progress=progress)

    def ks(self, *, component: str = "localization", distance=DEFAULT_DISTANCE,
           match_threshold: float = 0.5, n_chance: int = DEFAULT_N_CHANCE, n_boot: int = 0,
           seed: int = 0, overall: str = "pooled", progress: bool | None = None):
        """KS statistic of a component (localization by default), dims (label, annotator):
        :func:`iaa_frames.engine.component_ks`.

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
        return component_ks(self._df, component=component, distance=distance,
                            match_threshold=match_threshold, n_chance=n_chance,
                            n_boot=n_boot, seed=seed, overall=overall, progress=progress)

    def alpha(self, *, component: str = "classification", distance=DEFAULT_DISTANCE,
              match_threshold: float = 0.5, n_chance: int = DEFAULT_N_CHANCE,
              n_boot: int = 0, seed: int = 0, overall: str = "pooled",
              progress: bool | None = None):
        """Classification alpha (or, with ``component="detection"``, presence alpha),
        dims (label, annotator): :func:`iaa_frames.engine.component_alpha`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> a = simulate(n_items=20, seed=0).iaa.alpha(n_chance=200)
        >>> a.name
        'alpha'
        """
        return component_alpha(self._df, component=component, distance=distance,
                               match_threshold=match_threshold, n_chance=n_chance,
                               n_boot=n_boot, seed=seed, overall=overall, progress=progress)

    def pairwise(self, *, component: str = "localization", label: str = ALL,
                 distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
                 n_chance: int = DEFAULT_N_CHANCE, seed: int = 0, overall: str = "pooled",
                 progress: bool | None = None):
        """Annotator x annotator agreement of a component:
        :func:`iaa_frames.engine.pairwise`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=20, seed=0).iaa.pairwise(n_chance=200).dims
        ('annotator_a', 'annotator_b')
        """
        return pairwise(self._df, component=component, label=label, distance=distance,
                        match_threshold=match_threshold, n_chance=n_chance, seed=seed,
                        overall=overall, progress=progress)

    def within(self, *, distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
               n_chance: int = DEFAULT_N_CHANCE, seed: int = 0, overall: str = "pooled",
               progress: bool | None = None) -> pd.DataFrame:
        """Matched within-item object pairs: :func:`iaa_frames.pairs.within`.

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
        return within(self._df, distance=distance, match_threshold=match_threshold,
                      n_chance=n_chance, seed=seed, overall=overall, progress=progress)

    def between(self, *, distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
                n_chance: int = DEFAULT_N_CHANCE, seed: int = 0, overall: str = "pooled",
                progress: bool | None = None) -> pd.DataFrame:
        """Sampled between-item (chance) matched pairs: :func:`iaa_frames.pairs.between`.

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
        return between(self._df, distance=distance, match_threshold=match_threshold,
                       n_chance=n_chance, seed=seed, overall=overall, progress=progress)

    def tables(self, *, distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
               n_chance: int = DEFAULT_N_CHANCE, seed: int = 0, overall: str = "pooled",
               progress: bool | None = None):
        """Every pair table: :func:`iaa_frames.pairs.pair_tables` (reuse them with
        :func:`iaa_frames.engine.agreement_from_tables`).

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
        return pair_tables(self._df, distance=distance, match_threshold=match_threshold,
                           n_chance=n_chance, seed=seed, overall=overall, progress=progress)

    def items(self, *, component: str = "localization", top: int | None = None,
              distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
              n_chance: int = DEFAULT_N_CHANCE, seed: int = 0,
              progress: bool | None = None) -> pd.DataFrame:
        """Per-item drilldown table, worst item first: :func:`iaa_frames.items.items`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> len(simulate(n_items=6, seed=0).iaa.items(n_chance=50, top=2))
        2
        """
        from .items import items  # imported on use: the accessor stays cheap

        return items(self._df, component=component, top=top, distance=distance,
                     match_threshold=match_threshold, n_chance=n_chance, seed=seed,
                     progress=progress)

    def kalpha(self, *, match_threshold: float = 0.5, kind: str = "bbox",
               average: str = "images", decimals: int | None = 4,
               progress: bool | None = None) -> float:
        """Krippendorff's α with IoU matching as kalphacv computes it:
        :func:`iaa_frames.kalpha.kalpha`.

        Returns
        -------
        float

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=5, annotators={"a": "perfect", "b": "perfect"}, seed=0).iaa.kalpha()
        1.0
        """
        from .kalpha import kalpha  # imported on use: the accessor stays cheap

        return kalpha(self._df, match_threshold=match_threshold, kind=kind, average=average,
                      decimals=decimals, progress=progress)

    def annotators(self, *, match_threshold: float = 0.5, n_boot: int = 0, seed: int = 0,
                   progress: bool | None = None) -> pd.DataFrame:
        """Per-annotator quality corrected for the partners' quality, one row per
        annotator: :func:`iaa_frames.ranking.annotator_quality`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> q = simulate(n_items=20, seed=0, annotators={"a": "good", "b": "good",
        ...                                              "c": "random"}).iaa.annotators()
        >>> q.loc[q["rank"].idxmax(), "annotator"]
        'c'
        """
        from .ranking import annotator_quality  # imported on use: the accessor stays cheap

        return annotator_quality(self._df, match_threshold=match_threshold, n_boot=n_boot,
                                 seed=seed, progress=progress)

    @property
    def plot(self):
        """Figures of this frame, ``df.iaa.plot.<name>(...)``: a
        :class:`iaa_frames.plot._accessor.PlotAccessor` (matplotlib is imported on use).

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> type(simulate(n_items=2, seed=0).iaa.plot).__name__
        'PlotAccessor'
        """
        from .plot._accessor import PlotAccessor

        return PlotAccessor(self._df)
