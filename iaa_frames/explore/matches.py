"""Who matched whom: the within-item matching of the pair tables, object by object.

The views of disagreement and accuracy (:mod:`iaa_frames.explore.conflicts`,
:mod:`iaa_frames.explore.confusion`, :mod:`iaa_frames.measures.reference`, :mod:`iaa_frames.explore.item_agreement`,
:func:`iaa_frames.plot.item`) all start here: :func:`tables_of` takes a frame or its pair
tables, :func:`reference_code` turns an annotator's name into its code, and
:func:`partners` lists every object against every other annotator who covered its item,
with whether the matching paired it with one of that annotator's objects.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine import resolve
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, settings_of
from iaa_frames.settings.validation import below_boundary

__all__ = ["partners", "reference_code", "tables_of"]


def tables_of(data, **engine) -> PairTables:
    """``data`` itself when it is :class:`~iaa_frames.core.tables.pairs.PairTables`, else the pair
    tables of the annotation frame ``data``, from the memo
    (:func:`iaa_frames.core.engine.resolve.tables_of`:
    computed once per frame content and parameters, shared with ``iaf.sigma``,
    ``df.iaa.*`` and the other views).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
    **engine
        The engine parameters of :func:`~iaa_frames.core.tables.pairs.pair_tables` (``distance``,
        ``match_threshold``, ``n_chance``, ``seed``, ``overall``, ``progress``; defaults
        :data:`iaa_frames.settings.parameters.DEFAULTS`), checked once (at the boundary
        when one is above); ignored for tables.

    Returns
    -------
    PairTables
        ``data`` itself, or the frame's tables from the memo.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=3, seed=0)
    >>> t = tables_of(df, n_chance=20)  # a frame: its tables, from the memo
    >>> t.params["n_chance_target"], tables_of(t, n_chance=5) is t  # tables: as given
    (20, True)
    """
    settings = DEFAULTS  # the keywords apply to a frame only
    if isinstance(data, pd.DataFrame):  # checked by the entry point above, or here
        settings = settings_of(engine, strict=True) if below_boundary() else MatchSettings(**engine)
    return resolve.tables_of(data, settings)


def reference_code(tables: PairTables, reference) -> int | None:
    """The annotator code of ``reference`` (None for None); a clear error when it is not
    one of the corpus's annotators.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=3, annotators={"a": "good", "b": "good"},
    ...                                  seed=0), n_chance=20)
    >>> str(t.corpus.annotators[reference_code(t, "b")])
    'b'
    """
    if reference is None:
        return None
    names = [str(a) for a in tables.corpus.annotators]
    if not isinstance(reference, str) or reference not in names:
        raise ParameterError(
            f"reference must be one of the annotators {sorted(names)}; got {reference!r}"
        )
    return names.index(reference)


def partners(tables: PairTables) -> pd.DataFrame:
    """Every object against every other annotator who covered its item, with whether the
    matching paired it with one of that annotator's objects.

    Parameters
    ----------
    tables : PairTables

    Returns
    -------
    pandas.DataFrame
        Integer codes (see ``tables.corpus``), one row per (object, other annotator):
        ``object`` (index into ``tables.corpus.objects``), ``item``, ``owner`` (the
        annotator who drew it), ``other`` and ``matched`` (bool).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=4, annotators={"a": "perfect",
    ...                                                         "b": "perfect"}, seed=0),
    ...                     n_chance=20)
    >>> bool(partners(t)["matched"].all())
    True
    """
    n_ann = len(tables.corpus.annotators)
    u = tables.units
    obj = pd.DataFrame(
        {
            "object": np.arange(len(u), dtype=np.int64),
            "item": u["item"].to_numpy(np.int64),
            "owner": u["annotator"].to_numpy(np.int64),
        }
    )
    cov = pd.DataFrame(
        {
            "item": tables.coverage["item"].to_numpy(np.int64),
            "other": tables.coverage["annotator"].to_numpy(np.int64),
        }
    )
    rows = obj.merge(cov, on="item", how="inner", sort=False)
    rows = rows[rows["owner"].to_numpy() != rows["other"].to_numpy()].reset_index(drop=True)
    w = tables.localization_within
    matched = np.concatenate(
        [
            w["object_a"].to_numpy(np.int64) * n_ann + w["annotator_b"].to_numpy(np.int64),
            w["object_b"].to_numpy(np.int64) * n_ann + w["annotator_a"].to_numpy(np.int64),
        ]
    )
    key = rows["object"].to_numpy(np.int64) * n_ann + rows["other"].to_numpy(np.int64)
    rows["matched"] = np.isin(key, matched)
    return rows
