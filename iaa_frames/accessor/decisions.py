"""``df.iaa.consensus()``, ``.plan()``, ``.next_items()``: from agreement to decisions.

The functions of :mod:`iaa_frames.decisions` applied to the frame (built with
:func:`iaa_frames.api.methods.method`).

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

from iaa_frames.api.methods import method
from iaa_frames.decisions.consensus import consensus
from iaa_frames.decisions.next_items import next_items
from iaa_frames.decisions.plan import plan

__all__ = ["DecisionMethods"]


class DecisionMethods:
    """The decisions of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    consensus = method(consensus, name="consensus")
    plan = method(plan, name="plan")
    next_items = method(next_items, name="next_items")
