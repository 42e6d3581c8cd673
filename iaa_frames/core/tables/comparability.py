"""Can a corpus give agreement at all? The check made before any pair is formed.

Chance-corrected agreement compares annotations of the *same* item by two annotators
(within) with annotations of *different* items by two annotators (chance). A corpus
with one annotator, with no item annotated by two annotators, with a single item, or
with no object at all gives no such comparison: every statistic would be NaN. Such a
corpus is an error, raised by :func:`require_comparable` with what is missing and how
to fix it, before any work is done (:func:`iaa_frames.core.tables.pairs.pair_tables`, and so
``agreement()`` and ``report()``, call it first).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import NotComparableError
from iaa_frames.frame.schema import require_unique_columns
from iaa_frames.geometry.kinds import available_kinds, get_kind
from iaa_frames.io.item_keys import base_name, labelstudio_file, stem

__all__ = ["require_comparable", "shared_items"]

_EXAMPLES = 3


def _coverage(df: pd.DataFrame) -> pd.DataFrame:
    """Distinct (item, annotator) pairs, annotators as strings."""
    pairs = df[["item", "annotator"]].dropna().drop_duplicates().reset_index(drop=True)
    return pairs.assign(annotator=pairs["annotator"].astype(str)).drop_duplicates()


def shared_items(df: pd.DataFrame) -> pd.DataFrame:
    """How many items each pair of annotators both annotated.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (coverage rows count as annotated).

    Returns
    -------
    pandas.DataFrame
        Annotators × annotators (sorted), the number of items both covered; the diagonal
        holds each annotator's number of items.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([{"item": "a", "annotator": "x"}, {"item": "a", "annotator": "y"},
    ...                        {"item": "b", "annotator": "y"}])
    >>> t = shared_items(df)
    >>> t.index.tolist(), t.to_numpy().tolist()
    (['x', 'y'], [[1, 1], [1, 2]])
    """
    cov = _coverage(df)
    table = pd.crosstab(cov["item"], cov["annotator"])
    m = table.to_numpy().T @ table.to_numpy()
    names = pd.Index(table.columns, name="annotator")
    return pd.DataFrame(m, index=names, columns=names)


def _aligning_key(cov: pd.DataFrame) -> tuple[str, str] | None:
    """An ``item_key`` under which two annotators would share an item, and an example."""
    items = cov["item"].astype(str)
    for key, func in (
        ("name", lambda s: base_name(labelstudio_file(s))),
        ("stem", lambda s: stem(labelstudio_file(s))),
    ):
        uniq = pd.unique(items.to_numpy())
        mapped = dict(zip(uniq, (func(s) for s in uniq)))
        keyed = cov.assign(key=items.map(mapped))
        per_key = keyed.groupby("key")["annotator"].nunique()
        shared = per_key.index[per_key.to_numpy() >= 2]
        if len(shared):
            k = shared[0]
            sources = keyed.loc[keyed["key"] == k, "item"].astype(str).unique()[:2]
            return key, f"{sources[0]!r} and {sources[1]!r} are both {k!r}"
    return None


def require_comparable(df: pd.DataFrame, *, min_items: int = 1, objects: bool = False) -> None:
    """Raise :class:`~iaa_frames.errors.NotComparableError` unless ``df`` can give agreement.

    The requirements, checked in this order: at least one row; at least two annotators;
    at least one item annotated (objects or a coverage row) by two annotators; at least
    ``min_items`` items; with ``objects=True``, at least one object drawn.
    :func:`~iaa_frames.core.tables.pairs.pair_tables` asks for the first three only, so that the
    within-item pairs of a single image, or the (empty) tables of a corpus where nobody
    drew anything, can still be listed (the chance-corrected figures are then NaN, with a
    note); ``report()`` asks for two items and an object, since the chance baseline pairs
    annotations of different items and a report of empty annotations has nothing to show. The message says which failed, with the counts, and how to fix it: when two
    annotators' items share no names but would after taking base names or stems (a Label
    Studio upload path and a CVAT file name, say), it names the ``item_key=`` to read the
    exports with.

    A frame without the ``item`` or ``annotator`` column is left to
    :func:`~iaa_frames.frame.schema.validate`, whose SchemaError is more precise.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated or not).
    min_items : int, default 1
        The fewest distinct items accepted.
    objects : bool, default False
        Require at least one object (a row with a shape).

    Raises
    ------
    NotComparableError

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.from_records([
    ...     {"item": "/data/upload/1/48c2f1a0-photo.jpg", "annotator": "ana", "label": "cat",
    ...      "x0": 0, "y0": 0, "x1": 5, "y1": 5},
    ...     {"item": "photo.jpg", "annotator": "ben", "label": "cat",
    ...      "x0": 0, "y0": 0, "x1": 5, "y1": 5}])
    >>> require_comparable(df)
    Traceback (most recent call last):
    ...
    iaa_frames.errors.NotComparableError: no item was annotated by two annotators ...
    """
    if not isinstance(df, pd.DataFrame) or not {"item", "annotator"} <= set(df.columns):
        return
    require_unique_columns(df)
    if len(df) == 0:
        raise NotComparableError("no annotations: the frame has no rows")
    cov = _coverage(df)
    annotators = pd.unique(cov["annotator"].to_numpy())
    n_items = cov["item"].nunique()
    if len(annotators) < 2:
        who = f"one ({annotators[0]!r}, {n_items} item(s))" if len(annotators) else "none"
        raise NotComparableError(
            f"agreement needs at least two annotators who annotated the same items; found {who}. "
            "If the export holds several people's work, check how the reader names annotators "
            "(annotator=, rater_key=, or one file or directory per annotator); to compare "
            "several exports, read each and pd.concat the frames"
        )
    per_item = cov.groupby("item", sort=False)["annotator"].nunique()
    if not (per_item.to_numpy() >= 2).any():
        counts = cov.groupby("annotator", sort=True)["item"].agg(["size", "first"])
        listed = "; ".join(
            f"{a!r}: {n} item(s), e.g. {str(first)!r}"
            for a, (n, first) in list(counts.iterrows())[:_EXAMPLES]
        )
        more = f"; and {len(counts) - _EXAMPLES} more annotators" if len(counts) > _EXAMPLES else ""
        hint = _aligning_key(cov)
        if hint is not None:
            fix = (
                f"the same images have different names in different exports ({hint[1]} "
                f"with item_key={hint[0]!r}): read the exports with item_key={hint[0]!r}"
            )
        else:
            fix = (
                "if the same images appear under different names, pass item_key= to the "
                "readers ('name', 'stem' or a function) so that they become the same item; "
                "if each annotator saw different images, agreement cannot be measured"
            )
        raise NotComparableError(f"no item was annotated by two annotators ({listed}{more}): {fix}")
    if n_items < min_items:
        raise NotComparableError(
            f"agreement needs at least {min_items} items: the chance baseline compares "
            f"annotations of different items, and only {n_items} item(s) were annotated "
            f"({', '.join(repr(v) for v in cov['item'].unique()[:_EXAMPLES])})"
        )
    if not objects:
        return
    has_object = np.zeros(len(df), bool)
    # a row holding any column of any geometry kind (box corners, a polygon, ...)
    for c in dict.fromkeys(c for name in available_kinds() for c in get_kind(name).columns):
        if c in df.columns:
            has_object |= df[c].notna().to_numpy()
    if not has_object.any():
        raise NotComparableError(
            f"no object was drawn: all {len(df)} rows are coverage rows (empty annotations), "
            "so there is nothing to compare"
        )
