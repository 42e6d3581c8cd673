"""``df.iaa.conflicts()``, ``.conflict_counts()``, ``.confusion()``,
``.item_agreement()``: where the annotators of a frame disagree.

Each method is the function of the same name (:mod:`iaa_frames.explore.conflicts`,
:mod:`iaa_frames.explore.confusion`, :mod:`iaa_frames.explore.item_agreement`), built
from it (:mod:`iaa_frames.api.methods`: its keywords, then the six engine parameters) and
applied to the frame's cached pair tables (:func:`iaa_frames.api.results.tables`): after
``df.iaa.agreement()`` with the same parameters nothing is matched again.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
>>> set(df.iaa.conflicts(reference="g", n_chance=20)["kind"]) <= {"missed"}
True
>>> list(df.iaa.conflict_counts(reference="g", n_chance=20).columns)
['kind', 'label', 'annotator', 'count']
>>> df.iaa.confusion(reference="g", n_chance=20).index.name
'g'
>>> df.iaa.item_agreement(n_chance=20).index.name
'item'
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api.methods import engine_method, with_engine
from iaa_frames.explore.conflicts import conflict_counts, conflicts
from iaa_frames.explore.confusion import confusion
from iaa_frames.explore.item_agreement import item_agreement
from iaa_frames.settings.validation import SINGLE_THRESHOLD

__all__ = ["DisagreementMethods", "on_tables"]


def on_tables(func):
    """The ``df.iaa`` method of ``func(tables, **own)``: its own keywords, then the engine
    parameters, applied to the frame's cached tables."""

    def run(df, settings, **own):
        return func(cached.tables(df, settings), **own)

    return engine_method(
        with_engine(func),
        run,
        name=func.__name__,
        doc=func.__doc__,
        constraints=SINGLE_THRESHOLD,
    )


class DisagreementMethods:
    """The disagreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    conflicts = on_tables(conflicts)
    conflict_counts = on_tables(conflict_counts)
    confusion = on_tables(confusion)
    item_agreement = on_tables(item_agreement)
