"""``df.iaa.agreement()``, ``.sigma()``, ``.ks()``, ``.alpha()``, ``.pairwise()``,
``.rater_kind_agreement()``: the agreement of a frame, cached.

Each method is written out with the keywords of the function it equals (its docstring
by :func:`~iaa_frames.api.methods.doc_from`): the same keyword parameters, defaults and docstring as :func:`iaa_frames.agreement`,
:func:`iaa_frames.sigma`, :func:`iaa_frames.ks`, :func:`iaa_frames.alpha` and
:func:`iaa_frames.pairwise` (and :func:`iaa_frames.rater_kind_agreement`, one threshold). The parameters are checked once and the result taken from
:mod:`iaa_frames.api.results`, which computes the pair tables once per frame content and
parameters (``agreement`` and ``pairwise`` cache what they compute from them too; the
Dataset's attr ``tables_key`` names the cached tables, so that ``res.iaa`` reuses them).
Every method also takes a sequence of ``match_threshold`` values, which adds a
``threshold`` dimension.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=20, seed=0)
>>> ds = df.iaa.agreement(n_chance=200)
>>> ds["component"].values.tolist()
['detection', 'classification', 'localization', 'overall']
>>> bool(ds["ci_low"].notnull().any())     # n_boot=200 by default
True
>>> df.iaa.agreement(n_chance=200, match_threshold=[0.5, 0.7]).sizes["threshold"]
2
>>> str(df.iaa.sigma(n_chance=200)["component"].values)
'localization'
>>> df["rater_kind"] = df["annotator"].map({"A": "human", "B": "human", "C": "machine"})
>>> df.iaa.rater_kind_agreement(n_chance=200, n_boot=0)["cell"].unique().tolist()
['human-human', 'human-machine', 'machine-machine']
>>> df.iaa.pairwise(n_chance=200).dims
('annotator_a', 'annotator_b')
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api import shortcuts
from iaa_frames.api.methods import doc_from
from iaa_frames.core.engine import agreement as _agreement
from iaa_frames.core.engine import pairwise as _pairwise
from iaa_frames.core.engine import rater_kind_agreement as _rater_kind_agreement
from iaa_frames.core.engine.kind_pairs import annotator_kinds, rater_kind_agreement_from_tables
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, check_int, checked_settings
from iaa_frames.settings.validation import ANNOTATORS

__all__ = ["AgreementMethods"]


class AgreementMethods:
    """The agreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(_agreement)
    def agreement(
        self,
        *,
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        check_int(n_boot, "n_boot")
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return cached.agreement(self._df, settings, n_boot=n_boot)

    @doc_from(shortcuts.sigma)
    def sigma(
        self,
        *,
        component="localization",
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return shortcuts.sigma(
            self._df,
            component=component,
            n_boot=n_boot,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    @doc_from(shortcuts.ks)
    def ks(
        self,
        *,
        component="localization",
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return shortcuts.ks(
            self._df,
            component=component,
            n_boot=n_boot,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    @doc_from(shortcuts.alpha)
    def alpha(
        self,
        *,
        component="classification",
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return shortcuts.alpha(
            self._df,
            component=component,
            n_boot=n_boot,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    @doc_from(_pairwise)
    def pairwise(
        self,
        *,
        component="localization",
        label: str = ALL,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
        n_boot: int = DEFAULT_N_BOOT,
        annotators=None,
    ):
        check_int(n_boot, "n_boot")
        ANNOTATORS.check("annotators", annotators)
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return cached.pairwise(
            self._df,
            settings,
            component=component,
            label=label,
            n_boot=n_boot,
            annotators=annotators,
        )

    @doc_from(_rater_kind_agreement)
    def rater_kind_agreement(
        self,
        *,
        kinds="rater_kind",
        components=COMPONENTS,
        label: str = ALL,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
        n_boot: int = DEFAULT_N_BOOT,
    ):
        check_int(n_boot, "n_boot")
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        ).single()
        return rater_kind_agreement_from_tables(
            cached.tables(self._df, settings),
            annotator_kinds(self._df, kinds),
            components=components,
            label=label,
            n_boot=n_boot,
            seed=seed,
        )
