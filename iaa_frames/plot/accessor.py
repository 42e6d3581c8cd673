"""``res.iaa.plot`` and ``df.iaa.plot``: the figures of a result, of a frame.

Over 400 lines: each figure method writes out its keywords (and, on a frame, the engine
parameters), so that ``help()``, jedi and mypy see them.

:class:`ResultPlots` draws one agreement result with :mod:`iaa_frames.plot`; the figures
that need the pair tables (distributions, pairwise, items) take them from the cache
(:mod:`iaa_frames.core.engine.memo`), so nothing is recomputed. :class:`FramePlots` first gets the
(cached) result of the frame with the engine parameters, then draws it: one
``df.iaa.agreement()`` followed by any number of ``df.iaa.plot.*`` calls with the same
parameters computes the pair tables once.

The methods are written out with the keywords of the functions they draw with: a
``res.iaa.plot`` method has the keywords of its :mod:`iaa_frames.plot` function, a
``df.iaa.plot`` method those of the ``res.iaa.plot`` method followed by the engine
parameters of :func:`iaa_frames.agreement`.

Annotator colors (:func:`~iaa_frames.plot.annotator_colors`) and label order
(:func:`~iaa_frames.plot.label_order`) are the same in every figure of one result.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.api import results
from iaa_frames.api.methods import deprecated_name, doc_from, keywords_checked
from iaa_frames.core.engine import memo, resolve
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    DEFAULTS,
    MatchSettings,
    check_int,
    checked_settings,
)
from iaa_frames.settings.thresholds import DEFAULT_SWEEP

from .agreement import forest as _forest
from .annotators import annotators as _annotators
from .confusion import confusion as _confusion
from .decomposition import decomposition as _decomposition
from .distributions import distributions as _distributions
from .item import item as _item
from .item import worst_items as _worst_items
from .threshold import threshold_curve as _threshold_curve

__all__ = ["RENAMED", "FramePlots", "ResultPlots"]

#: Former figure names -> their names now (deprecated: a FutureWarning, then removed).
RENAMED = {"agreement": "forest"}

_FIGURES = {
    "forest()": "agreement per label (or per annotator), one panel per component",
    "decomposition()": "detection, classification, localization of each label",
    "annotators()": "each annotator's profile across the components",
    "pairwise()": "annotator x annotator heatmap of a component",
    "distributions()": "within-item vs chance distances, ECDFs and the KS gap",
    "items()": "the items that carry the most disagreement",
    "threshold_curve()": "every component against the match threshold τ (a sweep)",
}

#: The figures a frame draws besides those of its result (they need the annotations).
_FRAME_FIGURES = {
    "confusion()": "label confusion of matched pairs, α per class",
    "item()": "one item: every annotator's shapes, pairs and conflicts",
    "worst_items()": "a grid of the items that carry the most disagreement",
}


def _repr(what: str, frame: bool = False) -> str:
    lines = [f"<{what}: figures, each returns a matplotlib Figure or Axes>"]
    figures = {**_FIGURES, **(_FRAME_FIGURES if frame else {})}
    lines += [f"  .{name:<16} {text}" for name, text in figures.items()]
    return "\n".join(lines)


class ResultPlots:
    """Figures of one agreement result: ``res.iaa.plot.<name>(...)``.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    tables : callable, optional
        Returns the result's pair tables (called only by the figures that need them).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.simulate(n_items=10, seed=0).iaa.agreement(n_chance=100, n_boot=0)
    >>> fig = res.iaa.plot.forest(components=["localization"])
    >>> [ax.get_title() for ax in fig.axes]
    ['localization σ', 'raw IoU']
    """

    def __init__(self, result: xr.Dataset, *, tables: Callable[[], PairTables] | None = None):
        self._result = result
        self._tables = tables

    def __getattr__(self, name):
        return deprecated_name(self, name, RENAMED)

    def __repr__(self) -> str:
        return _repr("res.iaa.plot")

    def _entry(self) -> memo.Entry:
        """The result's tables (given by ``tables``: pair tables or their cache entry)."""
        if self._tables is None:
            from iaa_frames.errors import IAAError

            raise IAAError(
                "this figure needs the pair tables of the result; compute it "
                "with df.iaa.agreement() or attach them with res.iaa.use_tables()"
            )
        return resolve.entry_of(self._tables())

    def _need_tables(self) -> PairTables:
        return self._entry().tables

    @doc_from(_forest)
    def forest(
        self,
        *,
        components=None,
        label=None,
        annotator=None,
        top=20,
        raw_iou=True,
        width=None,
        height=None,
        axes=None,
    ):
        return _forest(
            self._result,
            components=components,
            label=label,
            annotator=annotator,
            top=top,
            raw_iou=raw_iou,
            width=width,
            height=height,
            axes=axes,
        )

    @doc_from(_decomposition)
    def decomposition(
        self,
        *,
        components=("detection", "classification", "localization"),
        annotator: str = ALL,
        top=15,
        width=None,
        ax=None,
    ):
        return _decomposition(
            self._result, components=components, annotator=annotator, top=top, width=width, ax=ax
        )

    @doc_from(_annotators)
    def annotators(
        self,
        *,
        components=("detection", "classification", "localization", "overall"),
        label: str = ALL,
        top=10,
        rank_by=None,
        width=None,
        ax=None,
    ):
        return _annotators(
            self._result,
            components=components,
            label=label,
            top=top,
            rank_by=rank_by,
            width=width,
            ax=ax,
        )

    @doc_from(_threshold_curve)
    def threshold_curve(
        self,
        *,
        label: str = ALL,
        annotator: str = ALL,
        components=("detection", "classification", "localization", "overall"),
        width=None,
        ax=None,
    ):
        return _threshold_curve(
            self._result,
            label=label,
            annotator=annotator,
            components=components,
            width=width,
            ax=ax,
        )

    @doc_from(_distributions)
    def distributions(
        self,
        *,
        component="localization",
        by=None,
        kind="hist",
        top=5,
        ncols=None,
        bins=30,
        width=None,
    ):
        return _distributions(
            self._need_tables(),
            component=component,
            by=by,
            kind=kind,
            top=top,
            ncols=ncols,
            bins=bins,
            width=width,
        )

    @keywords_checked
    def pairwise(
        self,
        *,
        component: str | None = None,
        label: str = ALL,
        top: int | None = 30,
        annot: bool | None = None,
        width: float | None = None,
        ax=None,
    ):
        """:func:`iaa_frames.plot.pairwise` of this result's annotator pairs.

        Parameters
        ----------
        component : str, optional
            Default: localization when some pair has a localization value, else the
            first of detection, overall, classification that has one (a note under the
            panel says why localization is not shown). A component whose every pair is
            undefined draws the reason in the panel.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from .pairwise import pairwise, pairwise_frame, undefined_reason

        entry = self._entry()

        def matrix_of(comp):
            return entry.pairwise_of(component=comp, label=label)

        skipped = ""
        if component is None:
            order = ["localization", "detection", "overall", "classification"]
            comps = [c for c in order if c in [str(v) for v in self._result["component"].values]]
            component = comps[0]
            first = matrix_of(component)
            for comp in comps:
                m = first if comp == component else matrix_of(comp)
                values = np.asarray(m.values, dtype=float)
                if np.isfinite(values[~np.eye(*values.shape, dtype=bool)]).any():
                    if comp != comps[0]:
                        reason = undefined_reason(pairwise_frame(first, top=top))
                        skipped = (
                            f"{comps[0]} is not shown: no pair has a value "
                            f"({reason.split(chr(10))[0][len('n/a: ') :].split(':')[0]}); "
                            f"pass component= to choose"
                        )
                    component = comp
                    break
        return pairwise(
            matrix_of(component), top=top, annot=annot, width=width, ax=ax, caption=skipped
        )

    @keywords_checked
    def items(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        top: int | None = 15,
        sort: str = "excess",
        width: float | None = None,
        ax=None,
    ):
        """:func:`iaa_frames.plot.items` of this result's item drilldown.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from .items import items

        table = results.items_of(self._entry(), component=component, label=label, sort=sort)
        return items(table, top=top, width=width, ax=ax)


class FramePlots:
    """Figures of an annotation frame: ``df.iaa.plot.<name>(...)``.

    Every method takes the engine parameters of :func:`iaa_frames.agreement` and the
    figure's own; the (cached) result of ``df.iaa.agreement(...)`` with those parameters
    is drawn by :class:`ResultPlots`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=8, seed=0)
    >>> fig = df.iaa.plot.distributions(n_chance=50)
    >>> len(fig.axes)
    2
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def __getattr__(self, name):
        return deprecated_name(self, name, RENAMED)

    def __repr__(self) -> str:
        return _repr("df.iaa.plot", frame=True)

    def _drawn(self, name: str, settings: MatchSettings, n_boot: int) -> ResultPlots:
        """The figures of this frame's (cached) agreement result."""
        res = results.agreement(self._df, settings, n_boot=n_boot)
        return ResultPlots(res, tables=lambda: resolve.entry_of(res, view=f"plot.{name}()"))

    @doc_from(ResultPlots.forest)
    def forest(
        self,
        *,
        components=None,
        label=None,
        annotator=None,
        top=20,
        raw_iou=True,
        width=None,
        height=None,
        axes=None,
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
        return self._drawn("forest", settings, n_boot).forest(
            components=components,
            label=label,
            annotator=annotator,
            top=top,
            raw_iou=raw_iou,
            width=width,
            height=height,
            axes=axes,
        )

    @doc_from(ResultPlots.decomposition)
    def decomposition(
        self,
        *,
        components=("detection", "classification", "localization"),
        annotator: str = ALL,
        top=15,
        width=None,
        ax=None,
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
        return self._drawn("decomposition", settings, n_boot).decomposition(
            components=components, annotator=annotator, top=top, width=width, ax=ax
        )

    @doc_from(ResultPlots.annotators)
    def annotators(
        self,
        *,
        components=("detection", "classification", "localization", "overall"),
        label: str = ALL,
        top=10,
        rank_by=None,
        width=None,
        ax=None,
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
        return self._drawn("annotators", settings, n_boot).annotators(
            components=components,
            label=label,
            top=top,
            rank_by=rank_by,
            width=width,
            ax=ax,
        )

    @doc_from(ResultPlots.pairwise)
    def pairwise(
        self,
        *,
        component=None,
        label: str = ALL,
        top=30,
        annot=None,
        width=None,
        ax=None,
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
        return self._drawn("pairwise", settings, n_boot).pairwise(
            component=component,
            label=label,
            top=top,
            annot=annot,
            width=width,
            ax=ax,
        )

    @doc_from(ResultPlots.distributions)
    def distributions(
        self,
        *,
        component="localization",
        by=None,
        kind="hist",
        top=5,
        ncols=None,
        bins=30,
        width=None,
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
        return self._drawn("distributions", settings, n_boot).distributions(
            component=component,
            by=by,
            kind=kind,
            top=top,
            ncols=ncols,
            bins=bins,
            width=width,
        )

    @doc_from(ResultPlots.items)
    def items(
        self,
        *,
        component="localization",
        label: str = ALL,
        top=15,
        sort="excess",
        width=None,
        ax=None,
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
        return self._drawn("items", settings, n_boot).items(
            component=component, label=label, top=top, sort=sort, width=width, ax=ax
        )

    @doc_from(ResultPlots.threshold_curve)
    def threshold_curve(
        self,
        *,
        label: str = ALL,
        annotator: str = ALL,
        components=("detection", "classification", "localization", "overall"),
        width=None,
        ax=None,
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=DEFAULT_SWEEP,
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
        return self._drawn("threshold_curve", settings, n_boot).threshold_curve(
            label=label,
            annotator=annotator,
            components=components,
            width=width,
            ax=ax,
        )

    # -- where they disagree ----------------------------------------------------------

    @keywords_checked
    def item(
        self,
        item,
        *,
        image=None,
        reference: str | None = None,
        low_overlap: float | None = 0.8,
        labels: bool = True,
        legend: bool = True,
        colors=None,
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
    ):
        """:func:`iaa_frames.plot.item`: every annotator's objects on ``item`` (over
        ``image``, a path or an array, when given), matched pairs linked, conflicts
        marked. Only the item's rows are matched; colours follow every annotator of the
        frame."""
        return _item(
            self._df,
            item,
            image=image,
            reference=reference,
            low_overlap=low_overlap,
            labels=labels,
            legend=legend,
            colors=colors,
            width=width,
            ax=ax,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
        )

    @doc_from(_worst_items)
    def worst_items(
        self,
        *,
        n=6,
        component="localization",
        ncols=None,
        images=None,
        reference=None,
        low_overlap=0.8,
        width=None,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return _worst_items(
            resolve.tables_of(self._df, settings),
            n=n,
            component=component,
            ncols=ncols,
            images=images,
            reference=reference,
            low_overlap=low_overlap,
            width=width,
        )

    @doc_from(_confusion)
    def confusion(
        self,
        *,
        reference=None,
        annotator=None,
        top=12,
        width=None,
        ax=None,
        cmap="Blues",
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return _confusion(
            resolve.tables_of(self._df, settings),
            reference=reference,
            annotator=annotator,
            top=top,
            width=width,
            ax=ax,
            cmap=cmap,
        )
