"""Krippendorff's alpha of set values with the MASI distance.

An answer that is a set of choices (tags of an object, the options ticked in a
multiple-choice question) agrees in part with another that shares some of them. MASI,
"Measuring Agreement on Set-valued Items" (Passonneau, LREC 2006), gives the distance::

    d(A, B) = 1 - J(A, B) * M(A, B)
    J = |A & B| / |A | B|                    (Jaccard)
    M = 1 if A == B, 2/3 if one is a subset of the other, 1/3 if they overlap otherwise,
        0 if they are disjoint

so equal sets are at 0, disjoint ones at 1, and {a, b} is nearer {a, b, c} (1 - 2/3 * 2/3)
than {a, c} (1 - 1/3 * 1/3). Two empty sets are equal (0); an empty set and another are
disjoint (1). Alpha takes the distance as its ``delta^2`` (Krippendorff 2011: any
distance of values): with ``n_c`` the pairable values of the distinct set ``c`` and
``o`` the coincidence mass of the distances within units::

    D_o = o / n
    D_e = sum_{c, k} n_c n_k d(c, k) / (n (n - 1))

(:func:`set_disagreements`). NLTK's ``masi_distance`` rounds M to 0.67 and 0.33; this
module keeps Passonneau's 2/3 and 1/3.

Examples
--------
>>> round(masi_distance({"a", "b"}, {"a", "b", "c"}), 6)
0.555556
>>> masi_distance({"a"}, {"b"}), masi_distance(set(), set())
(1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

__all__ = ["MAX_SETS", "as_set", "masi_distance", "masi_matrix", "set_disagreements"]

#: The most distinct sets an attribute may hold: their distances are a dense
#: ``MAX_SETS x MAX_SETS`` matrix (32 MB at 2,000).
MAX_SETS = 2000


def as_set(value) -> frozenset | None:
    """A value as a set of choices: lists, tuples and sets as the set of their items, a
    missing value (None, NaN) as None, and any other single value as the set holding it.

    Examples
    --------
    >>> sorted(as_set(["b", "a", "b"])), as_set(None), sorted(as_set("tail"))
    (['a', 'b'], None, ['tail'])
    """
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(value)
    if isinstance(value, (np.ndarray, pd.Series)):
        return frozenset(np.asarray(value, dtype=object).ravel().tolist())
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return frozenset([value])


def masi_distance(a: Iterable, b: Iterable) -> float:
    """The MASI distance of two sets (Passonneau 2006), in [0, 1].

    Examples
    --------
    >>> masi_distance(["a", "b"], ["a", "b"]), round(masi_distance(["a", "b"], ["a", "c"]), 6)
    (0.0, 0.888889)
    """
    a, b = frozenset(a), frozenset(b)
    if a == b:
        return 0.0
    inter, union = len(a & b), len(a | b)
    if inter == 0:
        return 1.0
    m = 2.0 / 3.0 if (a <= b or b <= a) else 1.0 / 3.0
    return 1.0 - inter / union * m


def masi_matrix(sets) -> np.ndarray:
    """The MASI distances of every two of ``sets`` (a sequence of frozensets), as a dense
    ``(C, C)`` array: one product of their membership matrix, no loop over pairs.

    Examples
    --------
    >>> d = masi_matrix([frozenset("ab"), frozenset("abc"), frozenset("c")])
    >>> np.round(d, 4).tolist()
    [[0.0, 0.5556, 1.0], [0.5556, 0.0, 0.7778], [1.0, 0.7778, 0.0]]
    """
    sets = list(sets)
    if len(sets) > MAX_SETS:
        raise ParameterError(
            f"an attribute of {len(sets)} distinct sets is too many for MASI (at most "
            f"{MAX_SETS}: their distances are a dense matrix); pass levels={{...: 'nominal'}}"
        )
    elements = pd.Index(sorted({x for s in sets for x in s}, key=repr))
    member = np.zeros((len(sets), len(elements)), dtype=np.float64)
    if len(elements):
        rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
        cols = elements.get_indexer([x for s in sets for x in s])
        member[rows, cols] = 1.0
    size = member.sum(axis=1)
    inter = member @ member.T
    union = size[:, None] + size[None, :] - inter
    smaller = np.minimum(size[:, None], size[None, :])
    equal = (inter == size[:, None]) & (inter == size[None, :])
    m = np.where(equal, 1.0, np.where(inter == smaller, 2.0 / 3.0, 1.0 / 3.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(union > 0, inter / union, 1.0)
    d = np.where(equal, 0.0, np.where(inter > 0, 1.0 - jaccard * m, 1.0))
    return d


def set_disagreements(n, n_c, o, delta):
    """Observed and expected disagreement of set values under a distance matrix.

    ``D_o = o / n`` and ``D_e = n_c . delta . n_c / (n (n - 1))``, where ``n`` is the
    number of pairable values, ``n_c`` their count per distinct set (last axis),
    ``delta`` the ``(C, C)`` distances (:func:`masi_matrix`) and ``o`` the coincidence
    mass of the distances within units (both orders of every pair, each weighing
    ``1 / (m_u - 1)``). NaN where ``n <= 1``. Leading axes broadcast.

    Examples
    --------
    Two units of two values, ({a}, {a}) and ({a}, {a, b}):

    >>> delta = masi_matrix([frozenset("a"), frozenset("ab")])
    >>> d_o, d_e = set_disagreements(4.0, np.array([3.0, 1.0]), 2 * delta[0, 1], delta)
    >>> round(float(d_o), 4), round(float(d_e), 4)
    (0.3333, 0.3333)
    """
    n = np.asarray(n, dtype=np.float64)
    n_c = np.asarray(n_c, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = np.asarray(o, dtype=np.float64) / n
        d_e = np.einsum("...c,ck,...k->...", n_c, delta, n_c) / (n * (n - 1.0))
    return np.where(n > 1, d_o, np.nan), np.where(n > 1, d_e, np.nan)
