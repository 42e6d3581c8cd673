"""Which annotators of a big crowd a figure draws: the two ends of a ranking (the highest
and the lowest), or, for the pair heatmaps, annotators who share items."""

from __future__ import annotations

import numpy as np

from iaa_frames.explore.compact import natural_key

__all__ = ["ends_note", "shared_annotators", "sharing_order", "two_ends"]


def two_ends(order, top: int) -> tuple[list, list]:
    """The two ends of a ranking: the ``top - top // 2`` first and the ``top // 2`` last.

    Parameters
    ----------
    order : sequence
        The ranked names, highest first.
    top : int
        Most names kept in all.

    Returns
    -------
    (list, list)
        The highest names (in rank order) and the lowest (in rank order); together
        every name when there are at most ``top``.

    Examples
    --------
    >>> two_ends(["a", "b", "c", "d", "e"], 3)
    (['a', 'b'], ['e'])
    >>> two_ends(["a", "b"], 3)
    (['a', 'b'], [])
    """
    order = list(order)
    n_high = min(top - top // 2, len(order))
    high = order[:n_high]
    low = order[n_high:][-(top // 2) :] if top // 2 else []
    return high, low


def ends_note(
    n_hidden: int, n_high: int, n_low: int, by: str, *, where: str, what: str = "annotators"
) -> str:
    """The one footnote of a crowd drawn by its ends: how many are hidden and how ranked.

    Parameters
    ----------
    n_hidden : int
        Names not drawn (``""`` is returned when 0).
    n_high, n_low : int
        Names drawn at each end.
    by : str
        What ranks them ("overall σ", "quality").
    where : str
        Where the two ends part ("above and below the dotted line").
    what : str, default "annotators"

    Examples
    --------
    >>> ends_note(180, 10, 10, "quality", where="above and below the dotted line")
    '+ 180 more annotators not shown: drawn are the 10 of highest and the 10 of lowest quality (above and below the dotted line)'
    """
    if n_hidden <= 0:
        return ""
    return (
        f"+ {n_hidden:,} more {what} not shown: drawn are the {n_high} of highest"
        f" and the {n_low} of lowest {by} ({where})"
    )


def sharing_order(values, units, names, *, top: int | None) -> list[int]:
    """The annotators of a square pair matrix to show, chosen so that they share items.

    Greedy: the pair with most shared units (``units``) among the defined cells first;
    then, one at a time, the annotator with most defined cells with those already chosen
    (ties: most units shared with them, then most support, then name). When nobody left
    shares a defined cell with the chosen ones, the next pair of most shared units among
    those left starts a new group; when no pair is left, the rest by support.

    Parameters
    ----------
    values : numpy.ndarray
        The square matrix (NaN: undefined).
    units : numpy.ndarray or None
        Shared units of every pair (the ``n_units`` coordinate); None counts every
        defined cell as one.
    names : list of str
        The annotators, for the ties.
    top : int or None
        Most annotators chosen (None: all).

    Returns
    -------
    list of int
        Positions of the chosen annotators, in the order chosen.

    Examples
    --------
    >>> v = np.full((4, 4), np.nan)
    >>> v[0, 3] = v[3, 0] = v[1, 3] = v[3, 1] = 0.5
    >>> sharing_order(v, None, ["a", "b", "c", "d"], top=3)
    [0, 3, 1]
    """
    n = len(names)
    defined = np.isfinite(values)
    link = (defined | defined.T) & ~np.eye(n, dtype=bool)
    shared = np.ones((n, n)) if units is None else np.fmax(units, units.T)
    shared = np.where(link, np.nan_to_num(shared), 0.0)
    support = np.zeros(n) if units is None else units.sum(axis=0) + units.sum(axis=1)
    support = support + link.sum(axis=1)
    name_rank = np.empty(n, dtype=np.int64)
    name_rank[np.argsort(np.asarray(names, dtype=object), kind="stable")] = np.arange(n)
    k = n if top is None else min(top, n)
    if k == n:
        return list(range(n))
    ia, ib = np.triu_indices(n, k=1)
    pair_order = np.lexsort(
        (np.minimum(name_rank[ia], name_rank[ib]), -(support[ia] + support[ib]), -shared[ia, ib])
    )
    pair_order = pair_order[shared[ia[pair_order], ib[pair_order]] > 0]  # defined pairs
    left = np.ones(n, dtype=bool)
    chosen: list[int] = []
    while len(chosen) < k:  # at most top rounds, each O(n x top)
        cand = np.flatnonzero(left)
        cells = link[np.ix_(cand, chosen)].sum(axis=1)
        with_them = shared[np.ix_(cand, chosen)].sum(axis=1)
        pick = cand[np.lexsort((name_rank[cand], -support[cand], -with_them, -cells))]
        if chosen and cells.max() > 0:
            new = [int(pick[0])]
        else:  # nobody left meets the chosen ones: the next pair that shares most
            free = pair_order[left[ia[pair_order]] & left[ib[pair_order]]]
            if len(free) and k - len(chosen) >= 2:
                new = [int(ia[free[0]]), int(ib[free[0]])]
            else:  # no such pair (or one place left): the rest by support
                new = [int(i) for i in pick[: k - len(chosen)]]
        chosen += new
        left[new] = False
    return chosen


def shared_annotators(matrices, *, top: int | None) -> tuple[list[str], int]:
    """The annotators to show in every one of several pair matrices (one per component).

    Those of :func:`sharing_order` on the cells defined in any of the matrices (shared
    units: the largest of them), so that each panel of the same annotators shows what
    any of them has.

    Parameters
    ----------
    matrices : list of xarray.DataArray
        Square annotator x annotator matrices of one result (:func:`iaa_frames.pairwise`).
    top : int or None
        Most annotators.

    Returns
    -------
    (list of str, int)
        The annotators (values of the matrices' coordinate), in natural order of their
        names, and the number left out.

    Examples
    --------
    >>> import xarray as xr
    >>> names = ["a", "b", "c"]
    >>> m = xr.DataArray([[np.nan, np.nan, 0.5], [np.nan, np.nan, np.nan], [0.5, np.nan, np.nan]],
    ...                  dims=("annotator_a", "annotator_b"),
    ...                  coords={"annotator_a": names, "annotator_b": names})
    >>> shared_annotators([m], top=2)
    (['a', 'c'], 1)
    """
    first = matrices[0]
    rows, cols = first.dims
    names = [str(v) for v in first[rows].values]
    values, units = [], []
    for m in matrices:
        m = m.sel({m.dims[0]: first[rows].values, m.dims[1]: first[cols].values})
        values.append(np.asarray(m.values, dtype=float))
        if "n_units" in m.coords and m["n_units"].dims == m.dims:
            units.append(np.nan_to_num(np.asarray(m["n_units"].values, dtype=float)))
    defined = np.where(np.isfinite(np.stack(values)).any(axis=0), 1.0, np.nan)
    shared = np.max(np.stack(units), axis=0) if units else None
    kept = sharing_order(defined, shared, names, top=top)
    values_of = first[rows].values.tolist()  # the coordinate's own values (ids may be int)
    shown = sorted(kept, key=lambda i: natural_key(names[i]))
    return [values_of[i] for i in shown], len(names) - len(kept)
