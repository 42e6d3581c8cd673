# Over 400 lines: one thin method per figure with its full keyword signature (for completion in
# Jupyter); no logic.
"""``res.iaa.plot`` and ``df.iaa.plot``: the figures of a result, of a frame.

:class:`ResultPlots` draws one agreement result with :mod:`iaa_frames.plot`; the figures
that need the pair tables (distributions, pairwise, items) take them from the cache
(:mod:`iaa_frames.api.memo`), so nothing is recomputed. :class:`FramePlots` first gets the
(cached) result of the frame with the engine parameters, then draws it: one
``df.iaa.agreement()`` followed by any number of ``df.iaa.plot.*`` calls with the same
parameters computes the pair tables once.

Annotator colors (:func:`~iaa_frames.plot.annotator_colors`) and label order
(:func:`~iaa_frames.plot.label_order`) are the same in every figure of one result.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.engine import DEFAULT_N_BOOT
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS
from iaa_frames.settings.thresholds import DEFAULT_SWEEP
from iaa_frames.tables.pairs import PairTables

__all__ = ["FramePlots", "ResultPlots"]

_FIGURES = {
    "forest()": "agreement per label (or per annotator), one panel per component",
    "decomposition()": "detection, classification, localization of each label",
    "annotators()": "each annotator's profile across the components",
    "pairwise()": "annotator x annotator heatmap of a component",
    "distributions()": "within-item vs chance distances, ECDFs and the KS gap",
    "items()": "the items that carry the most disagreement",
    "threshold_curve()": "every component against the match threshold τ (a sweep)",
}


def _repr(what: str) -> str:
    lines = [f"<{what}: figures, each returns a matplotlib Figure or Axes>"]
    lines += [f"  .{name:<16} {text}" for name, text in _FIGURES.items()]
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

    def __repr__(self) -> str:
        return _repr("res.iaa.plot")

    def _need_tables(self) -> PairTables:
        if self._tables is None:
            from iaa_frames.errors import IAAError

            raise IAAError(
                "this figure needs the pair tables of the result; compute it "
                "with df.iaa.agreement() or attach them with res.iaa.use_tables()"
            )
        return self._tables()

    def forest(
        self,
        *,
        components=None,
        label: str | None = None,
        annotator: str | None = None,
        top: int | None = 20,
        raw_iou: bool = True,
        width: float | None = None,
        height: float | None = None,
        axes=None,
    ):
        """Forest plot: :func:`iaa_frames.plot.agreement` (rows are labels; with
        ``label=``, rows are the annotators on that label).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from .agreement import agreement

        return agreement(
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

    agreement = forest

    def decomposition(
        self,
        *,
        components=("detection", "classification", "localization"),
        annotator: str = ALL,
        top: int | None = 15,
        width: float | None = None,
        ax=None,
    ):
        """:func:`iaa_frames.plot.decomposition` of this result.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from .decomposition import decomposition

        return decomposition(
            self._result, components=components, annotator=annotator, top=top, width=width, ax=ax
        )

    def annotators(
        self,
        *,
        components=("detection", "classification", "localization", "overall"),
        label: str = ALL,
        top: int | None = 10,
        width: float | None = None,
        ax=None,
    ):
        """:func:`iaa_frames.plot.annotators` of this result.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from .annotators import annotators

        return annotators(
            self._result, components=components, label=label, top=top, width=width, ax=ax
        )

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
        from iaa_frames.engine import pairwise_from_tables
        from iaa_frames.errors import IAAError

        from .pairwise import pairwise, pairwise_frame, undefined_reason

        def matrix_of(comp):
            try:
                return self._result.iaa.pairwise(component=comp, label=label)
            except IAAError:  # not cached: from the tables given
                return pairwise_from_tables(self._need_tables(), component=comp, label=label)

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

    def distributions(
        self,
        *,
        component: str = "localization",
        by: str | None = None,
        kind: str = "hist",
        top: int | None = 5,
        ncols: int | None = None,
        bins: int = 30,
        width: float | None = None,
    ):
        """:func:`iaa_frames.plot.distributions` of this result's pair tables.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from .distributions import distributions

        return distributions(
            self._need_tables(),
            component=component,
            by=by,
            kind=kind,
            top=top,
            ncols=ncols,
            bins=bins,
            width=width,
        )

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
        from iaa_frames.errors import IAAError
        from iaa_frames.explore.items import items as item_table

        from .items import items

        try:
            table = self._result.iaa.items(component=component, label=label, sort=sort)
        except IAAError:  # not cached: from the tables given
            table = item_table(self._need_tables(), component=component, label=label, sort=sort)
        return items(table, top=top, width=width, ax=ax)

    def threshold_curve(
        self,
        *,
        label: str = ALL,
        annotator: str = ALL,
        components=("detection", "classification", "localization", "overall"),
        width: float | None = None,
        ax=None,
    ):
        """:func:`iaa_frames.plot.threshold_curve` of this result, which must have a
        ``threshold`` dimension (computed with several ``match_threshold`` values).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import iaa_frames as iaf
        >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0,
        ...                     match_threshold=[0.3, 0.5, 0.7])
        >>> res.iaa.plot.threshold_curve(components=["localization"]).get_ylabel()
        'chance-corrected agreement'
        """
        from .threshold import threshold_curve

        return threshold_curve(
            self._result,
            label=label,
            annotator=annotator,
            components=components,
            width=width,
            ax=ax,
        )


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

    def __repr__(self) -> str:
        return _repr("df.iaa.plot")

    def _plots(
        self, distance, match_threshold, n_chance, n_boot, seed, overall, progress
    ) -> ResultPlots:
        res = self._df.iaa.agreement(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            n_boot=n_boot,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return res.iaa.plot

    def forest(
        self,
        *,
        components=None,
        label: str | None = None,
        annotator: str | None = None,
        top: int | None = 20,
        raw_iou: bool = True,
        width: float | None = None,
        height: float | None = None,
        axes=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """Forest plot of this frame's agreement: :meth:`ResultPlots.forest`.

        Returns
        -------
        matplotlib.figure.Figure
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).forest(
            components=components,
            label=label,
            annotator=annotator,
            top=top,
            raw_iou=raw_iou,
            width=width,
            height=height,
            axes=axes,
        )

    agreement = forest

    def decomposition(
        self,
        *,
        components=("detection", "classification", "localization"),
        annotator: str = ALL,
        top: int | None = 15,
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.decomposition` of this frame's result.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).decomposition(components=components, annotator=annotator, top=top, width=width, ax=ax)

    def annotators(
        self,
        *,
        components=("detection", "classification", "localization", "overall"),
        label: str = ALL,
        top: int | None = 10,
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.annotators` of this frame's result.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).annotators(components=components, label=label, top=top, width=width, ax=ax)

    def pairwise(
        self,
        *,
        component: str | None = None,
        label: str = ALL,
        top: int | None = 30,
        annot: bool | None = None,
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.pairwise` of this frame.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).pairwise(component=component, label=label, top=top, annot=annot, width=width, ax=ax)

    def distributions(
        self,
        *,
        component: str = "localization",
        by: str | None = None,
        kind: str = "hist",
        top: int | None = 5,
        ncols: int | None = None,
        bins: int = 30,
        width: float | None = None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.distributions` of this frame.

        Returns
        -------
        matplotlib.figure.Figure
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).distributions(
            component=component, by=by, kind=kind, top=top, ncols=ncols, bins=bins, width=width
        )

    def items(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        top: int | None = 15,
        sort: str = "excess",
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.items` of this frame.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).items(component=component, label=label, top=top, sort=sort, width=width, ax=ax)

    def threshold_curve(
        self,
        *,
        label: str = ALL,
        annotator: str = ALL,
        components=("detection", "classification", "localization", "overall"),
        width: float | None = None,
        ax=None,
        distance=DEFAULTS.distance,
        match_threshold=DEFAULT_SWEEP,
        n_chance: int = DEFAULTS.n_chance,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:meth:`ResultPlots.threshold_curve` of this frame's agreement at every threshold
        of ``match_threshold`` (by default 0.1, 0.2, ..., 0.9).

        Returns
        -------
        matplotlib.axes.Axes
        """
        return self._plots(
            distance, match_threshold, n_chance, n_boot, seed, overall, progress
        ).threshold_curve(
            label=label, annotator=annotator, components=components, width=width, ax=ax
        )

    # -- where they disagree ----------------------------------------------------------

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
        from .item import item as _plot_item

        return _plot_item(
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

    def worst_items(
        self,
        *,
        n: int = 6,
        component: str = "localization",
        ncols: int | None = None,
        images=None,
        reference: str | None = None,
        low_overlap: float | None = 0.8,
        width: float | None = None,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:func:`iaa_frames.plot.worst_items` of this frame (its cached pair tables)."""
        from .item import worst_items as _plot_worst

        tables = self._df.iaa.tables(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return _plot_worst(
            tables,
            n=n,
            component=component,
            ncols=ncols,
            images=images,
            reference=reference,
            low_overlap=low_overlap,
            width=width,
        )

    def confusion(
        self,
        *,
        reference: str | None = None,
        annotator: str | None = None,
        top: int | None = 12,
        width: float | None = None,
        ax=None,
        cmap: str = "Blues",
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ):
        """:func:`iaa_frames.plot.confusion` of this frame (its cached pair tables)."""
        from .confusion import confusion as _plot_confusion

        tables = self._df.iaa.tables(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return _plot_confusion(
            tables,
            reference=reference,
            annotator=annotator,
            top=top,
            width=width,
            ax=ax,
            cmap=cmap,
        )
