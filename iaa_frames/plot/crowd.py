"""A big crowd drawn by its two ends: the highest and the lowest of a ranking."""

from __future__ import annotations

__all__ = ["ends_note", "two_ends"]


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
