"""``df.iaa.plot.*``: the plotting functions bound to an annotation frame.

The ``DataFrame.iaa`` accessor (:mod:`iaa_frames.accessor`) exposes
``df.iaa.plot`` as ``PlotAccessor(df)`` and ``df.iaa.items(...)`` as :func:`items`.
Each method equals the plain function with the frame as data:
``df.iaa.plot.agreement(n_boot=200)`` draws ``iaa_frames.plot.agreement`` of
``iaa_frames.engine.agreement(df, n_boot=200)``.
"""

from __future__ import annotations

import pandas as pd

from ..items import items as _items
from .agreement import agreement as _plot_agreement
from .annotators import annotators as _plot_annotators
from .decomposition import decomposition as _plot_decomposition
from .distributions import distributions as _plot_distributions
from .items import items as _plot_items
from .pairwise import pairwise as _plot_pairwise

__all__ = ["PlotAccessor", "items"]

#: Keywords of :func:`iaa_frames.engine.agreement` that the accessor passes to the engine.
ENGINE_KEYWORDS = ("distance", "match_threshold", "n_chance", "n_boot", "seed", "overall",
                   "progress")


def _split(kwargs: dict):
    engine = {k: kwargs.pop(k) for k in ENGINE_KEYWORDS if k in kwargs}
    return engine, kwargs


def items(df: pd.DataFrame, **kwargs) -> pd.DataFrame:
    """``df.iaa.items(...)``: the per-item drilldown table of :func:`iaa_frames.items.items`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> items(df, n_chance=50, top=2)["item"].size
    2
    """
    return _items(df, **kwargs)


class PlotAccessor:
    """Plots of an annotation frame: ``df.iaa.plot.<name>(...)``.

    Methods drawing a result (:meth:`agreement`, :meth:`annotators`,
    :meth:`decomposition`) compute it with :func:`iaa_frames.engine.agreement` and the
    engine keywords (``distance``, ``match_threshold``, ``n_chance``, ``n_boot``,
    ``seed``, ``overall``, ``progress``), unless ``result=`` is given; every other keyword
    goes to the plotting function. To draw several figures of one corpus, compute the
    result (or :func:`~iaa_frames.pairs.pair_tables`) once and call
    :mod:`iaa_frames.plot` directly.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=8, seed=0)
    >>> fig = PlotAccessor(df).distributions(n_chance=50)
    >>> len(fig.axes)
    2
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def _result(self, result, engine):
        if result is not None:
            return result
        from ..engine import agreement as _engine

        return _engine(self._df, **engine)

    def distributions(self, **kwargs):
        """:func:`iaa_frames.plot.distributions` of this frame."""
        return _plot_distributions(self._df, **kwargs)

    def agreement(self, *, result=None, **kwargs):
        """:func:`iaa_frames.plot.agreement` of this frame's result."""
        engine, rest = _split(kwargs)
        return _plot_agreement(self._result(result, engine), **rest)

    def annotators(self, *, result=None, **kwargs):
        """:func:`iaa_frames.plot.annotators` of this frame's result."""
        engine, rest = _split(kwargs)
        return _plot_annotators(self._result(result, engine), **rest)

    def decomposition(self, *, result=None, **kwargs):
        """:func:`iaa_frames.plot.decomposition` of this frame's result."""
        engine, rest = _split(kwargs)
        return _plot_decomposition(self._result(result, engine), **rest)

    def pairwise(self, **kwargs):
        """:func:`iaa_frames.plot.pairwise` of this frame (``label=`` and engine keywords
        go to :func:`iaa_frames.engine.pairwise`)."""
        return _plot_pairwise(self._df, **kwargs)

    def items(self, **kwargs):
        """:func:`iaa_frames.plot.items` of this frame."""
        return _plot_items(self._df, **kwargs)

    # -- where they disagree ----------------------------------------------------------

    def item(self, item, *, image=None, **kwargs):
        """:func:`iaa_frames.plot.item`: every annotator's objects on ``item`` (over
        ``image``, a path or an array, when given), matched pairs linked, conflicts
        marked. Only the item's rows are matched; colours follow every annotator of the
        frame."""
        from .item import item as _plot_item

        return _plot_item(self._df, item, image=image, **kwargs)

    def worst_items(self, **kwargs):
        """:func:`iaa_frames.plot.worst_items` of this frame."""
        from .item import worst_items as _plot_worst

        return _plot_worst(self._df, **kwargs)

    def confusion(self, **kwargs):
        """:func:`iaa_frames.plot.confusion` of this frame (``reference=``,
        ``annotator=`` and engine keywords go to :func:`iaa_frames.confusion.confusion`)."""
        from .confusion import confusion as _plot_confusion

        return _plot_confusion(self._df, **kwargs)
