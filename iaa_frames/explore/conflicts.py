# Over 400 lines: one table (conflicts) and its counts, with the rules of each kind of conflict
# documented in full.
"""Object-level disagreements: one row per conflict of the engine's matching.

:func:`conflicts` lists *where and how* annotators disagree, from the same within-item
matching that every agreement figure is computed from (the pair tables of
:func:`iaa_frames.core.tables.pairs.pair_tables`; nothing is matched again). Two annotators who both
covered an item had their objects paired by an optimal assignment, and a pair was kept when
its IoU reached the matching threshold τ. Against that matching, a conflict is:

``unmatched`` (no reference)
    an object of annotator *a* that has no partner among the objects of annotator *b*,
    who covered the same item: *b* missed it, or *a* drew something spurious. One row per
    (object, other annotator), so an object nobody else drew appears once per other
    annotator. Per pairing of two annotations, the ``unmatched`` rows number
    ``n_a + n_b - 2 * n_matched``: exactly the objects the detection distance
    (1 - F1) counts.
``missed`` (with ``reference=``)
    an object of the reference that annotator *b* left unmatched;
``extra`` (with ``reference=``)
    an object of annotator *b* that matches nothing of the reference;
``label``
    a matched pair whose two labels differ;
``low_overlap``
    a matched pair whose IoU is below ``low_overlap`` (default
    :data:`DEFAULT_LOW_OVERLAP` = 0.8, the default low-overlap threshold of CVAT's quality
    control): the objects were matched (IoU >= τ) but drawn noticeably differently.

A matched pair can be both a ``label`` and a ``low_overlap`` conflict: it then has one row
of each kind. Only items covered by both annotators of a pair are compared: an item that
one of them never reviewed is neither a miss nor an extra.

:func:`conflict_counts` counts them per kind, class and annotator in one call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine import resolve
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import (
    DEFAULTS,
    MatchSettings,
    checked_settings,
    engine_kwargs,
    not_default,
)
from iaa_frames.settings.validation import validate_params

from .matches import partners, reference_code, tables_of

# partners, reference_code and tables_of live in iaa_frames.explore.matches; importable from here
__all__ = [
    "CONFLICT_COLUMNS",
    "DEFAULT_LOW_OVERLAP",
    "KINDS",
    "conflict_counts",
    "conflicts",
    "partners",
    "reference_code",
    "tables_of",
]

#: Kinds of conflict, in display order.
KINDS = ("missed", "extra", "unmatched", "label", "low_overlap")

#: Default IoU below which a matched pair is a ``low_overlap`` conflict (CVAT's quality
#: control uses the same default low-overlap threshold, 0.8).
DEFAULT_LOW_OVERLAP = 0.8

#: Columns of :func:`conflicts` with their meaning.
CONFLICT_COLUMNS = {
    "kind": "missed / extra (against a reference), unmatched, label or low_overlap",
    "item": "the item",
    "annotator_a": "the reference (reference mode); else the annotator whose object is "
    "unmatched, or the first annotator of the pair by name",
    "annotator_b": "the annotator compared with annotator_a (the one scored in reference "
    "mode; the one with no matching object for an unmatched object)",
    "object_id_a": "object_id of annotator_a's object (NA for an extra object)",
    "object_id_b": "object_id of annotator_b's object (NA for a missed or unmatched object)",
    "label_a": "label of annotator_a's object",
    "label_b": "label of annotator_b's object",
    "iou": "IoU of the matched pair (NaN for an unmatched object)",
    "distance": "distance of the matched pair, as chosen (NaN for an unmatched object)",
}


def _check_low_overlap(low_overlap):
    if low_overlap is None:
        return None
    if (
        isinstance(low_overlap, bool)
        or not isinstance(low_overlap, (int, float, np.number))
        or not 0 <= float(low_overlap) <= 1
    ):
        raise ParameterError(f"low_overlap must be None or a number in [0, 1]; got {low_overlap!r}")
    return float(low_overlap)


def _unmatched(tables: PairTables):
    """(object, owner, other, item) code arrays of the unmatched (object, other) rows."""
    rows = partners(tables)
    rows = rows[~rows["matched"].to_numpy()]
    return tuple(rows[c].to_numpy(np.int64) for c in ("object", "owner", "other", "item"))


def _name_rank(names) -> np.ndarray:
    """Rank of each code by name (str)."""
    order = np.argsort(np.asarray([str(x) for x in names], dtype=object), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _codes(tables: PairTables, ref, low_overlap):
    """Conflicts as code arrays: kind, item, annotator a/b, object a/b (-1 = none), iou,
    distance."""
    parts = []
    obj, owner, other, item = _unmatched(tables)
    nan = np.full(len(obj), np.nan)
    none = np.full(len(obj), -1, np.int64)
    if ref is None:
        parts.append(
            (np.full(len(obj), KINDS.index("unmatched")), item, owner, other, obj, none, nan, nan)
        )
    else:
        missed = owner == ref
        parts.append(
            (
                np.full(int(missed.sum()), KINDS.index("missed")),
                item[missed],
                owner[missed],
                other[missed],
                obj[missed],
                none[missed],
                nan[missed],
                nan[missed],
            )
        )
        extra = other == ref
        parts.append(
            (
                np.full(int(extra.sum()), KINDS.index("extra")),
                item[extra],
                other[extra],
                owner[extra],
                none[extra],
                obj[extra],
                nan[extra],
                nan[extra],
            )
        )
    w = tables.localization_within
    a, b = w["annotator_a"].to_numpy(np.int64), w["annotator_b"].to_numpy(np.int64)
    oa, ob = w["object_a"].to_numpy(np.int64), w["object_b"].to_numpy(np.int64)
    iou, dist = w["iou"].to_numpy(float), w["distance"].to_numpy(float)
    witem = w["item"].to_numpy(np.int64)
    if ref is None:
        rank = _name_rank(tables.corpus.annotators)
        swap = rank[a] > rank[b]
    else:
        keep = (a == ref) | (b == ref)
        a, b, oa, ob, iou, dist, witem = (x[keep] for x in (a, b, oa, ob, iou, dist, witem))
        swap = b == ref
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    oa, ob = np.where(swap, ob, oa), np.where(swap, oa, ob)
    label = tables.corpus.label
    for kind, mask in (
        ("label", label[oa] != label[ob]),
        (
            "low_overlap",
            (iou < low_overlap) if low_overlap is not None else np.zeros(len(iou), bool),
        ),
    ):
        parts.append(
            (
                np.full(int(mask.sum()), KINDS.index(kind)),
                witem[mask],
                a[mask],
                b[mask],
                oa[mask],
                ob[mask],
                iou[mask],
                dist[mask],
            )
        )
    return [np.concatenate(col) for col in zip(*parts)]


def _take(values: np.ndarray, index: np.ndarray, fill=None) -> np.ndarray:
    out = np.asarray(values, dtype=object)[np.maximum(index, 0)]
    out[index < 0] = fill
    return out


def _conflicts(
    data,
    *,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`conflicts` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    t = resolve.tables_of(data, settings)
    tau = float(t.params.get("match_threshold", settings.match_threshold))
    low = _check_low_overlap(low_overlap)
    ref = reference_code(t, reference)
    kind, item, a, b, oa, ob, iou, dist = _codes(t, ref, low)
    c = t.corpus
    rank_ann = _name_rank(c.annotators)
    rank_item = _name_rank(c.items)
    order = np.lexsort((ob, oa, rank_ann[b], rank_ann[a], kind, rank_item[item]))
    kind, item, a, b, oa, ob, iou, dist = (x[order] for x in (kind, item, a, b, oa, ob, iou, dist))
    ids = c.objects["object_id"].array
    if ids.dtype.kind in "iub":  # numpy integers: nullable, so that "no object" is <NA>
        ids = pd.array(ids, dtype="Int64")
    labels = np.asarray(c.labels, dtype=object)
    out = pd.DataFrame(
        {
            "kind": pd.Series(np.asarray(KINDS, dtype=object)[kind], dtype="str"),
            "item": pd.Series(_take(c.items, item), dtype=c.objects["item"].dtype),
            "annotator_a": pd.Series(_take(c.annotators, a), dtype="str"),
            "annotator_b": pd.Series(_take(c.annotators, b), dtype="str"),
            "object_id_a": ids.take(oa, allow_fill=True),
            "object_id_b": ids.take(ob, allow_fill=True),
            "label_a": pd.Series(
                _take(labels, _take(c.label, oa, fill=-1).astype(np.int64), fill=np.nan),
                dtype="str",
            ),
            "label_b": pd.Series(
                _take(labels, _take(c.label, ob, fill=-1).astype(np.int64), fill=np.nan),
                dtype="str",
            ),
            "iou": iou.astype(float),
            "distance": dist.astype(float),
        }
    )
    out.attrs = {
        "reference": reference,
        "low_overlap": low,
        "match_threshold": tau,
        "distance": str(t.params.get("distance", "")),
        "long_names": dict(CONFLICT_COLUMNS),
    }
    return out


@validate_params(engine=False)
def conflicts(
    data,
    *,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Every disagreement of the within-item matching, one row per conflict.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame, or the tables of :func:`iaa_frames.core.tables.pairs.pair_tables`
        (reused as they are: pass them to list the conflicts of the matching behind an
        agreement result).
    reference : str, optional
        An annotator taken as the reference (ground truth): only pairs involving it are
        compared, unmatched objects become ``missed`` (the reference's object, unmatched
        by ``annotator_b``) or ``extra`` (``annotator_b``'s object, matching nothing of
        the reference), and ``annotator_a`` is always the reference.
    low_overlap : float or None, default 0.8
        Matched pairs with IoU below it are ``low_overlap`` conflicts (None: none are).
        Below the matching threshold τ it flags nothing (every matched pair has IoU >= τ).
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame
        (ignored for tables). Only the within-item matching is used here.

    Returns
    -------
    pandas.DataFrame
        Columns (see :data:`CONFLICT_COLUMNS`):

        ``kind``
            ``"missed"`` or ``"extra"`` (with a reference), ``"unmatched"`` (without),
            ``"label"``, ``"low_overlap"``;
        ``item``
            the item;
        ``annotator_a``, ``annotator_b``
            the two annotators compared: for ``unmatched``, *a* drew the object and *b*
            has nothing matching it; for ``label`` / ``low_overlap`` without a
            reference, ordered by name; with a reference, *a* is the reference;
        ``object_id_a``, ``object_id_b``
            their objects' ``object_id`` (NA where that side has no object), the key to
            join back to the annotation frame;
        ``label_a``, ``label_b``
            the objects' labels (NA where that side has no object);
        ``iou``, ``distance``
            of the matched pair (NaN for unmatched, missed and extra objects).

        Sorted by item (by name), kind (in :data:`KINDS` order), annotators (by name)
        and objects. ``attrs`` holds ``reference``, ``low_overlap``, ``match_threshold``,
        ``distance`` and ``long_names`` (column -> meaning).

    See Also
    --------
    conflict_counts : counts per kind, class and annotator.
    iaa_frames.accuracy : precision, recall and label accuracy against a reference.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=10, annotators={"gold": "perfect", "bob": "misser"},
    ...                   seed=0)
    >>> c = conflicts(df, reference="gold", n_chance=50)
    >>> sorted(c["kind"].unique())
    ['missed']
    >>> (c["annotator_a"] == "gold").all()
    np.True_
    >>> c.groupby("kind").size().to_dict()  # doctest: +SKIP
    {'missed': 9}
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _conflicts(data, reference=reference, low_overlap=low_overlap, settings=settings)


def _is_conflicts(data) -> bool:
    return isinstance(data, pd.DataFrame) and set(CONFLICT_COLUMNS) <= set(data.columns)


@validate_params()
def conflict_counts(
    data,
    *,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Conflicts counted per kind, class and annotator, with ``"(all)"`` margins.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        The table of :func:`conflicts`, or an annotation frame / pair tables from which it
        is computed (with ``reference``, ``low_overlap`` and ``**kwargs``).
    reference, low_overlap, distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`conflicts` when it is computed here.

    Returns
    -------
    pandas.DataFrame
        Long form, columns ``kind, label, annotator, count``: one row per kind and
        (class or "(all)") and (annotator or "(all)") that has at least one conflict.
        A conflict counts under every class and every annotator it involves, once:

        * class: the class of the reference's object (``missed``, and ``label`` /
          ``low_overlap`` with a reference), of the annotator's object (``extra``), of
          the unmatched object (``unmatched``), or both classes of the pair (``label`` /
          ``low_overlap`` without a reference: a car/person conflict counts for car and
          for person);
        * annotator: the annotator scored against the reference (reference mode, never
          the reference itself), else both annotators of the pair.

        ``"(all)"`` rows count each conflict once, so they are not the sum of the rows
        above them. Pivot for a table: ``counts.pivot_table(index=["label",
        "annotator"], columns="kind", values="count", fill_value=0)``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=10, annotators={"gold": "perfect", "bob": "misser"},
    ...                   seed=0)
    >>> counts = conflict_counts(df, reference="gold", n_chance=50)
    >>> list(counts.columns)
    ['kind', 'label', 'annotator', 'count']
    >>> total = counts.query("label == '(all)' and annotator == '(all)'")
    >>> int(total["count"].sum()) == len(conflicts(df, reference="gold", n_chance=50))
    True
    """
    if _is_conflicts(data):
        given = not_default(locals())
        if given:
            raise ParameterError(
                f"unexpected keyword(s) {sorted(given)}: they only apply "
                "when the conflicts are computed here"
            )
        table = data
        reference = table.attrs.get("reference", reference)
    else:
        table = conflicts(
            data, reference=reference, low_overlap=low_overlap, **engine_kwargs(locals())
        )
    n = len(table)
    row = np.arange(n)
    kind = table["kind"].to_numpy(dtype=object)
    la = table["label_a"].to_numpy(dtype=object)
    lb = table["label_b"].to_numpy(dtype=object)
    aa = table["annotator_a"].to_numpy(dtype=object)
    ab = table["annotator_b"].to_numpy(dtype=object)
    if reference is not None:
        label_first = np.where(kind == "extra", lb, la)
        labels = (row, label_first)
        annotators = (row, ab)
    else:
        pair = np.isin(kind, ["label", "low_overlap"])
        labels = (np.concatenate([row, row[pair]]), np.concatenate([la, lb[pair]]))
        annotators = (np.concatenate([row, row]), np.concatenate([aa, ab]))
    lab = pd.DataFrame({"row": labels[0], "label": labels[1]}).drop_duplicates()
    ann = pd.DataFrame({"row": annotators[0], "annotator": annotators[1]}).drop_duplicates()
    both = lab.merge(ann, on="row")
    both["kind"] = kind[both["row"].to_numpy()]
    lab["annotator"] = ALL
    ann["label"] = ALL
    whole = pd.DataFrame({"row": row, "label": ALL, "annotator": ALL})
    lab["kind"] = kind[lab["row"].to_numpy()]
    ann["kind"] = kind[ann["row"].to_numpy()]
    whole["kind"] = kind
    long = pd.concat([whole, lab, ann, both], ignore_index=True)
    counts = (
        long.groupby(["kind", "label", "annotator"], sort=False)["row"]
        .nunique()
        .rename("count")
        .reset_index()
    )
    korder = {k: i for i, k in enumerate(KINDS)}

    def key(col):
        s = counts[col].astype(str)
        return np.where(s == ALL, "", s)  # "(all)" first

    order = np.lexsort((key("annotator"), key("label"), counts["kind"].map(korder).to_numpy()))
    counts = counts.iloc[order].reset_index(drop=True)
    counts["count"] = counts["count"].astype(np.int64)
    for col in ("kind", "label", "annotator"):
        counts[col] = counts[col].astype("str")
    counts.attrs = {"reference": reference}
    return counts[["kind", "label", "annotator", "count"]]
