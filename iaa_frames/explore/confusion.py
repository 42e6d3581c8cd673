"""Label confusion over matched object pairs, and the classification α per class.

:func:`confusion` counts, over the matched within-item object pairs of the pair tables
(the matching behind every agreement figure; matching ignores labels), how often one
annotator's label meets the other's. :func:`label_alpha` gives Krippendorff's α beside
it: the nominal α of the labels of the clusters with at least two members, and per class
the binary α of {class, other}, exactly as the agreement result's ``label_alpha`` on the
classification row (annotator "(all)"; the headline ``classification`` takes its expected
disagreement from matched chance pairs instead).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import engine_kwargs
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.krippendorff import binary_alpha_per_category, nominal_alpha_from_codes

from .conflicts import reference_code, tables_of

__all__ = ["confusion", "label_alpha"]


def _sorted_labels(corpus):
    order = np.argsort([str(x) for x in corpus.labels], kind="stable")
    return order, [str(x) for x in np.asarray(corpus.labels, dtype=object)[order]]


def _annotator_code(t, annotator):
    if annotator is None:
        return None
    names = [str(a) for a in t.corpus.annotators]
    if not isinstance(annotator, str) or annotator not in names:
        raise ParameterError(f"annotator must be one of {sorted(names)}; got {annotator!r}")
    return names.index(annotator)


@validate_params()
def confusion(
    data,
    *,
    reference: str | None = None,
    annotator: str | None = None,
    normalize: bool = False,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Label confusion matrix over matched within-item object pairs.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame, or its pair tables (reused as they are).
    reference : str, optional
        Rows are the reference's labels, columns the other annotator's, over the pairs
        that involve the reference.
    annotator : str, optional
        Keep only the pairs involving this annotator: its labels in the columns when a
        reference is given, else in the rows (the other member's label in the columns).
    normalize : bool, default False
        Divide each row by its total (rows of a class never seen on the row side are
        NaN): row-normalized shares. The return type is the same.
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    pandas.DataFrame
        Square, every class of the corpus on both axes (sorted by name; the index is
        named after the row side, the columns after the column side). Without
        ``reference`` or ``annotator``, each matched pair counts once in each direction
        (a symmetric matrix, like Krippendorff's coincidence matrix, summing to twice
        the number of pairs). ``attrs``: ``n_pairs`` (matched pairs used), ``reference``,
        ``annotator``, ``normalize``, ``alpha`` (the pooled classification α of
        :func:`label_alpha`), ``alpha_by_label`` (class -> binary α) and ``alpha_notes``
        (why an α is NaN, by ``"(all)"`` or class).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, annotators={"gold": "perfect", "bob": "mislabeler"},
    ...                   seed=0)
    >>> m = confusion(df, reference="gold", annotator="bob", n_chance=50)
    >>> m.index.name, m.columns.name
    ('gold', 'bob')
    >>> int(m.to_numpy().sum()) == m.attrs["n_pairs"]
    True
    >>> shares = confusion(df, reference="gold", normalize=True, n_chance=50)
    >>> bool((shares.sum(axis=1).round(9) == 1).all())
    True
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise ParameterError(f"normalize must be True or False; got {normalize!r}")
    t = tables_of(data, **engine_kwargs(locals()))
    ref = reference_code(t, reference)
    ann = _annotator_code(t, annotator)
    if ref is not None and ann == ref:
        raise ParameterError("annotator must differ from the reference")
    c = t.corpus
    w = t.localization_within
    a, b = w["annotator_a"].to_numpy(np.int64), w["annotator_b"].to_numpy(np.int64)
    la = c.label[w["object_a"].to_numpy(np.int64)]
    lb = c.label[w["object_b"].to_numpy(np.int64)]
    if ref is not None:
        keep = (a == ref) | (b == ref)
        if ann is not None:
            keep &= (a == ann) | (b == ann)
        swap = b[keep] == ref
        rows = np.where(swap, lb[keep], la[keep])
        cols = np.where(swap, la[keep], lb[keep])
        n_pairs = int(keep.sum())
        row_name, col_name = (
            str(reference),
            (str(annotator) if ann is not None else "other annotators"),
        )
    elif ann is not None:
        keep = (a == ann) | (b == ann)
        swap = b[keep] == ann
        rows = np.where(swap, lb[keep], la[keep])
        cols = np.where(swap, la[keep], lb[keep])
        n_pairs = int(keep.sum())
        row_name, col_name = str(annotator), "other annotator"
    else:
        rows, cols = np.r_[la, lb], np.r_[lb, la]
        n_pairs = len(la)
        row_name, col_name = "one annotator", "the other"
    n_lab = len(c.labels)
    counts = np.bincount(rows * n_lab + cols, minlength=n_lab * n_lab).reshape(n_lab, n_lab)
    order, names = _sorted_labels(c)
    counts = counts[np.ix_(order, order)]
    values = counts.astype(np.int64)
    if normalize:
        total = counts.sum(axis=1, keepdims=True).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(total > 0, counts / np.where(total > 0, total, 1), np.nan)
    out = pd.DataFrame(
        values,
        index=pd.Index(names, name=row_name, dtype=object),
        columns=pd.Index(names, name=col_name, dtype=object),
    )
    alpha = label_alpha(t)
    out.attrs = {
        "n_pairs": n_pairs,
        "reference": reference,
        "annotator": annotator,
        "normalize": bool(normalize),
        "alpha": float(alpha[ALL]),
        "alpha_by_label": {k: float(v) for k, v in alpha.iloc[1:].items()},
        "alpha_notes": alpha.attrs["notes"],
        "match_threshold": float(t.params.get("match_threshold", np.nan)),
    }
    return out


@validate_params()
def label_alpha(
    data,
    *,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.Series:
    """Classification α: nominal α of all labels, and the binary α of each class.

    Units are the clusters of the within-item matching with at least two members; values
    their members' labels. For a class, labels are recoded to {class, other}
    (Krippendorff's assessment of a single category). These are the ``label_alpha``
    values of :func:`iaa_frames.agreement` for annotator "(all)": α takes its expected
    disagreement from the label marginals, for comparison with other tools; the headline
    ``classification`` agreement takes it from matched chance pairs
    (:mod:`iaa_frames.core.engine.labels`).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    pandas.Series
        Indexed by ``"(all)"`` then the classes by name; NaN where α is undefined (too few
        pairable values, or no expected disagreement). ``attrs``: ``long_name``,
        ``n_units`` (pairable clusters) and ``notes`` (label -> why its α is NaN, for
        the NaN ones).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, annotators={"a": "good", "b": "mislabeler"}, seed=0)
    >>> a = label_alpha(df, n_chance=50)
    >>> a.index[0]
    '(all)'
    >>> bool(a["(all)"] < 1)
    True
    """
    t = tables_of(data, **engine_kwargs(locals()))
    u = t.units
    cluster = u["cluster"].to_numpy(np.int64)
    label = u["label"].to_numpy(np.int64)
    size = np.bincount(cluster) if len(cluster) else np.zeros(0, np.int64)
    pairable = size[cluster] >= 2 if len(cluster) else np.zeros(0, bool)
    units, _ = pd.factorize(cluster[pairable])
    values = label[pairable]
    n_lab = len(t.corpus.labels)
    if len(values) >= 2:
        pooled = float(nominal_alpha_from_codes(units, values))
        per = np.asarray(binary_alpha_per_category(units, values, n_categories=n_lab), dtype=float)
    else:
        pooled, per = np.nan, np.full(n_lab, np.nan)
    order, names = _sorted_labels(t.corpus)
    out = pd.Series(
        np.r_[pooled, per[order]],
        index=pd.Index([ALL, *names], dtype=object, name="label"),
        name="alpha",
    )
    out.attrs = {
        "long_name": "classification α (Krippendorff)",
        "n_units": len(np.unique(units)),
        "notes": _alpha_notes(out, values, n_lab, order),
    }
    return out


def _alpha_notes(alpha: pd.Series, values: np.ndarray, n_lab: int, order) -> dict:
    """Why each NaN of :func:`label_alpha` is NaN, by label (only the NaN ones)."""
    if len(values) < 2:
        why = "no matched pair of objects: no unit to compare labels on"
        return {name: why for name in alpha.index[np.isnan(alpha.to_numpy())]}
    count = np.bincount(values, minlength=n_lab)[np.asarray(order, dtype=np.int64)]
    reasons = [
        "every matched object carries one label: no expected disagreement",
        *(
            "no matched object of the class"
            if c == 0
            else "every matched object is of the class: no expected disagreement"
            if c == len(values)
            else "α undefined"
            for c in count
        ),
    ]
    nan = np.isnan(alpha.to_numpy())
    return {name: why for name, why, bad in zip(alpha.index, reasons, nan, strict=True) if bad}
