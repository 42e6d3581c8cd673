"""Which annotators the report's pair heatmaps draw: all of up to :data:`PAIRS`; beyond, the
two ends of a dense crowd ranked by mean agreement with the others, or those who share
items in a sparse one; and the note saying what is left out.

Before them, whose pairs the report computes at all (:func:`pair_section_annotators`):
every annotator of up to :data:`~iaa_frames.report.formatting.MAX_ANNOTATORS`; beyond,
those of most pairings with other annotators, so that a crowd of 10,000 annotators makes
no table of 10,000 x 10,000 pairs.
"""

from __future__ import annotations

from .formatting import MAX_ANNOTATORS, listing, plural

__all__ = ["PAIRS", "pair_annotators", "pair_section_annotators"]

#: How the report's pair heatmaps choose the annotators of a sparse crowd.
_SHARING = "items shared with each other in any panel"

#: Annotators the pair heatmaps draw (three panels in a row at 7 in: cells of about 0.11 in,
#: names of 6 pt); a bigger crowd by its two ends, or by who shares items when sparse.
PAIRS = 16

#: Share of pairs defined (in any panel) from which a crowd is drawn by its two ends.
_DENSE = 0.5

_MEAN_PAIR = "mean agreement with the others over the panels"

#: Left-out annotators named in the report's note (the rest counted).
_NAMED = 20


def pair_section_annotators(tables, *, top: int = MAX_ANNOTATORS):
    """The annotators whose pairs the report computes, and the note saying who is left out.

    Every annotator of up to ``top``; beyond, the ``top`` taking part in most pairings
    (an item two annotators both annotated; ties by name), counted from the pair tables in
    one pass over their pairings, never over pairs of annotators.

    Parameters
    ----------
    tables : PairTables
    top : int, default :data:`~iaa_frames.report.formatting.MAX_ANNOTATORS`

    Returns
    -------
    (list of str or None, str)
        The annotators (None: all) and the note (``""``: nobody left out).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(iaf.simulate(n_items=6, seed=0), n_chance=50)
    >>> pair_section_annotators(t)
    (None, '')
    >>> names, note = pair_section_annotators(t, top=2)
    >>> len(names), note.startswith("Pairs of the 2 annotators")
    (2, True)
    """
    import numpy as np

    from iaa_frames.core.engine.assemble import name_order

    names = np.asarray([str(a) for a in tables.corpus.annotators], dtype=object)
    n = len(names)
    if n <= top:
        return None, ""
    whole = tables.sets_within
    whole = whole[whole["label"].to_numpy() == -1]  # one row per pairing
    pairings = np.bincount(whole["annotator_a"].to_numpy(), minlength=n) + np.bincount(
        whole["annotator_b"].to_numpy(), minlength=n
    )
    rank = np.empty(n, dtype=np.int64)
    rank[name_order(names)[1:] - 1] = np.arange(n)
    ranked = np.lexsort((rank, -pairings))
    kept, out = ranked[:top], ranked[top:]
    left = [names[i] for i in sorted(out, key=rank.__getitem__)]
    note = (
        f"Pairs of the {top} annotators taking part in most pairings (items shared with "
        f"another annotator; ties by name) of {n:,}: the {plural(len(left), 'other')} "
        f"({listing(left, _NAMED)}) are left out of these heatmaps and pairwise.csv, "
        f"whose table of every pair would hold {n * (n - 1) // 2:,} pairs."
    )
    return [names[i] for i in kept], note


def pair_annotators(matrices, *, top: int = PAIRS):
    """The annotators the report's pair heatmaps draw, in order, and what is left out.

    Every annotator when there are at most ``top``. Beyond, when at least half of the
    pairs are defined (in any panel), the two ends of the annotators ranked by their mean
    agreement with the others (over the panels' defined cells): the ``top - top // 2``
    highest then the ``top // 2`` lowest, apart at the dotted lines; in a sparser crowd,
    annotators who share items (:func:`~iaa_frames.plot.crowd.shared_annotators`).

    Parameters
    ----------
    matrices : list of xarray.DataArray
        Square annotator x annotator matrices (one per panel).
    top : int, default 16

    Returns
    -------
    (list, int or None, str)
        The annotators (coordinate values, in the order drawn), the position where the
        lowest end starts (None: one group), and the note saying what is left out
        (``""``: nothing).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> names = ["a", "b", "c", "d"]
    >>> v = np.array([[np.nan, .9, .8, .1], [.9, np.nan, .7, .2], [.8, .7, np.nan, .3],
    ...               [.1, .2, .3, np.nan]])
    >>> m = xr.DataArray(v, dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": names, "annotator_b": names})
    >>> pair_annotators([m], top=2)[:2]
    (['a', 'd'], 1)
    """
    import numpy as np

    from iaa_frames.plot.crowd import ends_note, shared_annotators, two_ends
    from iaa_frames.plot.style import hidden_note

    first = matrices[0]
    rows, cols = first.dims
    values_of = first[rows].values.tolist()
    n = len(values_of)
    if n <= top:
        return values_of, None, ""
    stack = np.stack(
        [
            np.asarray(m.sel({m.dims[0]: first[rows].values, m.dims[1]: first[cols].values}))
            for m in matrices
        ]
    ).astype(float)
    off = ~np.eye(n, dtype=bool)
    stack[:, ~off] = np.nan
    defined = np.isfinite(stack).any(axis=0)
    if defined[off].mean() < _DENSE:
        names, hidden = shared_annotators(matrices, top=top)
        return names, None, hidden_note(hidden, "annotators", top, by=_SHARING)
    finite = np.isfinite(stack)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, stack, 0.0).sum(axis=(0, 2)) / finite.sum(axis=(0, 2))
    ranked = [i for i in np.argsort(-mean, kind="stable") if np.isfinite(mean[i])]
    high, low = two_ends(ranked, top)
    names = [values_of[i] for i in high + low]
    note = ends_note(n - len(names), len(high), len(low), _MEAN_PAIR,
                     where="apart at the dotted lines")  # fmt: skip
    return names, (len(high) if low else None), note
