"""``df.iaa``: the accessor of a tidy annotation frame, registered on every
:class:`pandas.DataFrame`.

:class:`IAAAccessor` holds only the frame; its methods are grouped by purpose in the
classes it is made of:

=============================================  ===============================================
:class:`~.statistics.AgreementMethods`         ``agreement``, ``sigma``, ``ks``, ``alpha``,
                                               ``pairwise``, ``rater_kind_agreement``
:class:`~.tables.TableMethods`                 ``tables``, ``within``, ``between``, ``items``
:class:`~.disagreement.DisagreementMethods`    ``conflicts``, ``conflict_counts``,
                                               ``confusion``, ``item_agreement``
:class:`~.measures.MeasureMethods`             ``accuracy``, ``annotator_quality``,
                                               ``kalpha``, ``attribute_agreement``
:class:`~.decisions.DecisionMethods`           ``consensus``, ``plan``, ``next_items``
:class:`~.temporal.TemporalMethods`            ``track_agreement``,
                                               ``agreement_over_time``,
                                               ``intra_agreement``
=============================================  ===============================================

and ``plot`` (:class:`iaa_frames.plot.FramePlots`). Each method has the name of the
function it equals; the former names ``annotators``, ``attributes``, ``tracks``,
``over_time`` and ``intra`` still work, with a :class:`FutureWarning` (:data:`RENAMED`). pandas 3 builds the accessor again on
every ``df.iaa``: ``__init__`` only stores the frame, nothing is validated or computed
until a method runs.
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api.methods import deprecated_name

from .decisions import DecisionMethods
from .disagreement import DisagreementMethods
from .measures import MeasureMethods
from .result import method_lines, method_table
from .statistics import AgreementMethods
from .tables import TableMethods
from .temporal import TemporalMethods

__all__ = ["RENAMED", "IAAAccessor"]

#: Former method names -> their names now (deprecated: a FutureWarning, then removed).
RENAMED = {
    "annotators": "annotator_quality",
    "attributes": "attribute_agreement",
    "tracks": "track_agreement",
    "over_time": "agreement_over_time",
    "intra": "intra_agreement",
}

_METHODS = {
    "agreement()": "xr.Dataset by component x label x annotator (explore it with res.iaa)",
    "sigma()": "sigma of a component (localization by default), (label, annotator)",
    "ks()": "KS statistic of a component (localization by default), (label, annotator)",
    "alpha()": "classification alpha (or presence alpha), (label, annotator)",
    "pairwise()": "annotator x annotator agreement of a component",
    "rater_kind_agreement()": "human-human, human-machine, ... agreement (rater_kind)",
    "items()": "per-item drilldown table, worst item first",
    "within()": "within-item matched pairs",
    "between()": "between-item (chance) matched pairs",
    "tables()": "every pair table (PairTables)",
    "kalpha()": "kalphacv's Krippendorff alpha (literature comparability)",
    "annotator_quality()": "per-annotator quality, corrected for partners' quality",
    "conflicts()": "one row per disagreement of the matching",
    "conflict_counts()": "conflicts per kind, class and annotator",
    "confusion()": "label confusion matrix of matched pairs",
    "accuracy()": "precision/recall/label accuracy against a reference annotator",
    "attribute_agreement()": "alpha of per-object attributes over the matched objects",
    "item_agreement()": "per-item agreement columns, indexed by item (join key)",
    "consensus()": "one object per matched cluster, weighted by annotator quality",
    "plan()": "items needed for a 95 % interval of a given half-width",
    "next_items()": "the items to send for one more annotation, ranked",
    "track_agreement()": "track identity: IDF1, ID switches, chance-corrected identity",
    "agreement_over_time()": "agreement per time window, with a re-calibration flag",
    "intra_agreement()": "agreement of annotators with their own earlier passes",
    "plot": "figures: df.iaa.plot.<name>(...)",
}


class IAAAccessor(
    AgreementMethods,
    TableMethods,
    DisagreementMethods,
    MeasureMethods,
    DecisionMethods,
    TemporalMethods,
):
    """Inter-annotator agreement of a tidy annotation frame: ``df.iaa``.

    Every method is a plain function of the package applied to the frame, with the same
    keyword-only parameters and defaults (``distance``, ``match_threshold``, ``n_chance``,
    ``n_boot``, ``seed``, ``overall``, ``progress`` where they apply). The pair tables are
    computed once per frame content and parameters and reused (:mod:`iaa_frames.core.engine.memo`);
    ``progress`` is not part of the key. :meth:`agreement`, :meth:`sigma`, :meth:`ks`,
    :meth:`alpha` and :meth:`pairwise` also take a sequence of ``match_threshold``
    values, which adds a ``threshold`` dimension.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated when a method runs).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, annotators={"ann": "good", "bob": "sloppy"}, seed=0)
    >>> res = df.iaa.agreement(n_chance=200)
    >>> res["annotator"].values.tolist()
    ['(all)', 'ann', 'bob']
    >>> df.iaa.sigma(n_chance=200).dims       # the cached result, sliced
    ('label', 'annotator')
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def __getattr__(self, name):
        return deprecated_name(self, name, RENAMED)

    def __repr__(self) -> str:
        lines = [f"<df.iaa: agreement of a frame with {len(self._df):,} rows>"]
        return "\n".join(lines + method_lines(_METHODS))

    def _repr_html_(self) -> str:
        return (
            f"<p><b>df.iaa</b>: agreement of a frame with {len(self._df):,} rows</p>"
            f"<table>{method_table(_METHODS)}</table>"
        )

    @property
    def plot(self):
        """Figures of this frame: ``df.iaa.plot.<name>(...)``
        (:class:`iaa_frames.plot.FramePlots`; matplotlib is imported on use).

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> type(simulate(n_items=2, seed=0).iaa.plot).__name__
        'FramePlots'
        """
        from iaa_frames.plot.accessor import FramePlots  # matplotlib is imported on use

        return FramePlots(self._df)
