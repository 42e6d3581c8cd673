"""``df.iaa.consensus()``, ``.plan()``, ``.next_items()``: from agreement to decisions.

The functions of :mod:`iaa_frames.decisions` applied to the frame, their keywords
written out.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=10, seed=0)
>>> df.iaa.consensus().objects["annotator"].unique().tolist()
['consensus']
>>> df.iaa.next_items(budget=3)["rank"].tolist()
[1, 2, 3]
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api.methods import doc_from
from iaa_frames.decisions.consensus import consensus
from iaa_frames.decisions.next_items import next_items
from iaa_frames.decisions.plan import plan
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULT_N_BOOT

__all__ = ["DecisionMethods"]


class DecisionMethods:
    """The decisions of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(consensus)
    def consensus(
        self,
        *,
        min_support=1,
        quorum="auto",
        weights="quality",
        method="vote",
        box_fusion="robust",
        match_threshold=0.5,
        resolution=64,
        name="consensus",
        seed: int = 0,
    ):
        return consensus(
            self._df,
            min_support=min_support,
            quorum=quorum,
            weights=weights,
            method=method,
            box_fusion=box_fusion,
            match_threshold=match_threshold,
            resolution=resolution,
            name=name,
            seed=seed,
        )

    @doc_from(plan)
    def plan(
        self,
        *,
        target_halfwidth=0.05,
        component=None,
        label: str = ALL,
        annotators=2,
        n_boot: int = DEFAULT_N_BOOT,
        n_outer=50,
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
    ):
        return plan(
            self._df,
            target_halfwidth=target_halfwidth,
            component=component,
            label=label,
            annotators=annotators,
            n_boot=n_boot,
            n_outer=n_outer,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
        )

    @doc_from(next_items)
    def next_items(
        self,
        *,
        budget=10,
        goal="interval",
        component="localization",
        weights="quality",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
    ):
        return next_items(
            self._df,
            budget=budget,
            goal=goal,
            component=component,
            weights=weights,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
        )
