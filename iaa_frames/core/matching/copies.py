"""Items that look like copies of one another: the same image annotated twice.

Video frames, burst photos and augmented copies of one image are common in annotation
corpora. A chance pairing of an item with its copy looks like agreement, so copies
deflate every chance-corrected score unless they are declared as one ``group`` (then
chance pairings never join them; see :func:`iaa_frames.validate`). Without a ``group``
column, the pair tables (:func:`iaa_frames.core.tables.pairs.pair_tables`) look for copies
(:func:`find_copies`) and issue a :class:`~iaa_frames.errors.CopiedItemsWarning` naming a
few of them (:func:`warn_copies`).

Two annotations *match* when they are drawn by the same annotator, hold the same number
of objects with the same classes, and every normalized box coordinate of one is within
``tolerance`` of the other (objects compared in the canonical order of the corpus: class,
then box). Two items are copies when the annotations of every annotator who drew
objects on both match, two annotators or more, and no annotator who covered both drew on
one only (one annotator's matching boxes are too weak a sign: an annotator who ignores
the image draws the same boxes everywhere, while the others do not), and, unless they are exact, two objects or more per annotation
(one box within the tolerance of another is too common in a large corpus). Limit: where
annotators draw the same boxes whatever the image (image-blind annotators) and the
others drew nothing on two items, those items look like copies.

The search is linear-ish in the number of annotations, never over all pairs of items:
every annotation gets a fingerprint (its number of objects, the mean and the extremes of
its box coordinates); annotations are sorted by annotator, count and fingerprint along
two coordinates, and each is compared with the next :data:`WINDOW` of each order (a
match has every fingerprint coordinate within ``tolerance``, so it sits nearby). Only the
candidates whose fingerprints agree are compared object by object.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from iaa_frames.arrays import stable_argsort
from iaa_frames.errors import CopiedItemsWarning, ParameterError

from .corpus import Corpus, prepare

__all__ = ["DEFAULT_TOLERANCE", "WINDOW", "find_copies", "warn_copies"]

#: Largest difference of a normalized box coordinate between an object and its copy.
DEFAULT_TOLERANCE = 0.005
#: Annotations each annotation is compared with, in each sorted order.
WINDOW = 8
#: Copies named in the warning.
_SHOWN = 5


def _distinct(values) -> np.ndarray:
    """Sorted distinct integers, by a sort (numpy's ``unique`` hashes, much slower on
    millions of keys)."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def _fingerprints(corpus, scale: float):
    """Per annotation slot with objects: (slot, count, 8 fingerprint coordinates)."""
    slots = corpus.annotations
    n = slots.empty
    count = slots.count[:n]
    slot = np.flatnonzero(count > 0)
    box = np.nan_to_num(corpus.shapes.boxes) / scale
    start = slots.start[slot]
    k = count[slot]
    mean = np.add.reduceat(box, start, axis=0) / k[:, None] if len(slot) else np.zeros((0, 4))
    low = np.minimum.reduceat(box[:, :2], start, axis=0) if len(slot) else np.zeros((0, 2))
    high = np.maximum.reduceat(box[:, 2:], start, axis=0) if len(slot) else np.zeros((0, 2))
    return slot, k, np.column_stack([mean, low, high])


def _candidates(slots, slot, k, fp, tolerance):
    """Pairs of fingerprinted slots (positions in ``slot``) close in every fingerprint
    coordinate, same annotator and count, different items."""
    ann, item = slots.annotator[slot], slots.item[slot]
    columns = [np.ascontiguousarray(fp[:, col]) for col in range(fp.shape[1])]
    parts = []
    group = ann * (k.max(initial=0) + 1) + k  # annotator, then count
    small = group.astype(np.uint16) if group.max(initial=0) < 2**16 else group  # radix sort
    for axis in (0, 1):  # two sorted orders, so that a dense run on one axis is not fatal
        # np.lexsort((fp[:, axis], k, ann)): by the coordinate, then (stably) by group
        by_x = stable_argsort(fp[:, axis])
        order = by_x[np.argsort(small[by_x], kind="stable")]
        key = group[order]
        x = fp[order, axis]
        for d in range(1, WINDOW + 1):  # a fixed number of offsets, not a loop over items
            near = np.flatnonzero((key[:-d] == key[d:]) & (x[d:] - x[:-d] <= tolerance))
            i, j = order[near], order[near + d]
            for column in columns:  # one coordinate at a time, on the survivors
                ok = np.abs(column.take(i) - column.take(j)) <= tolerance
                i, j = i[ok], j[ok]
            ok = item[i] != item[j]
            i, j = i[ok], j[ok]
            parts.append(np.minimum(i, j).astype(np.int64) * len(slot) + np.maximum(i, j))
    key = _distinct(np.concatenate(parts) if parts else np.zeros(0, np.int64))
    return np.column_stack([key // max(len(slot), 1), key % max(len(slot), 1)])


def _verify(corpus, s, t, scale):
    """Per pair of slots (s, t): the largest coordinate difference of their objects
    compared one by one (inf where the counts or a class differ)."""
    slots = corpus.annotations
    k = slots.count[s]
    owner = np.repeat(np.arange(len(s)), k)
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(k) - k, k)
    oa, ob = slots.start[s][owner] + rank, slots.start[t][owner] + rank
    same = k == slots.count[t]
    ob = np.where(same[owner], ob, oa)  # not compared where the counts differ
    box = np.nan_to_num(corpus.shapes.boxes) / scale
    diff = np.abs(box[oa] - box[ob]).max(axis=1, initial=0.0)
    diff = np.where(corpus.label[oa] == corpus.label[ob], diff, np.inf)
    worst = np.where(same, 0.0, np.inf)
    np.maximum.at(worst, owner, diff)
    return worst


def _partners(corpus, slot, a, b):
    """For item pairs (a, b): (pair, slot of a, slot of b) for every annotator who drew
    objects on ``a`` and covered ``b`` (the slot of b may be empty)."""
    slots = corpus.annotations
    n_ann = max(len(corpus.annotators), 1)
    drawn = slots.item[slot] * n_ann + slots.annotator[slot]  # sorted, as slots are
    covered = slots.item[:-1] * n_ann + slots.annotator[:-1]
    first = np.searchsorted(drawn, a * n_ann)
    k = np.searchsorted(drawn, (a + 1) * n_ann) - first
    pair = np.repeat(np.arange(len(a)), k)  # the annotators of a, pair by pair
    at = np.repeat(first, k) + np.arange(len(pair)) - np.repeat(np.cumsum(k) - k, k)
    want = b[pair] * n_ann + drawn[at] % n_ann
    pos = np.minimum(np.searchsorted(covered, want), max(len(covered) - 1, 0))
    hit = covered[pos] == want if len(covered) else np.zeros(len(want), bool)
    return pair[hit], slot[at[hit]], pos[hit]


def find_copies(corpus, *, tolerance: float = DEFAULT_TOLERANCE) -> pd.DataFrame:
    """Pairs of items that look like copies (see the module notes).

    Parameters
    ----------
    corpus : Corpus or pandas.DataFrame
        A prepared corpus (:func:`iaa_frames.core.matching.corpus.prepare`) or a tidy frame.
    tolerance : float, default 0.005
        Largest difference of a box coordinate, as a share of the image size (of the
        extent of the corpus's boxes where image sizes are unknown).

    Returns
    -------
    pandas.DataFrame
        One row per pair of copies: ``item``, ``copy`` (names; ``item`` is the one
        that comes first in the canonical order), ``n_annotators`` (the annotators
        whose annotations match: all who drew objects on both), ``max_difference`` (largest coordinate difference over
        them, normalized), ``exact`` (every coordinate equal), ``copy_set`` (a number
        shared by items that are copies of one another, directly or through others).
        Items of one group of the frame are not reported.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> copy = df[df["item"] == "img_00000"].assign(item="copy")
    >>> both = pd.concat([df, copy], ignore_index=True).drop(columns="object_id")
    >>> found = find_copies(both)
    >>> sorted(found[["item", "copy"]].iloc[0]), bool(found["exact"].iloc[0])
    (['copy', 'img_00000'], True)
    """
    if not (isinstance(tolerance, (int, float)) and np.isfinite(tolerance) and tolerance >= 0):
        raise ParameterError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    if not isinstance(corpus, Corpus):
        corpus = prepare(corpus)
    slots = corpus.annotations
    box = corpus.shapes.boxes
    scale = (
        1.0
        if corpus.normalization == "image size" or not len(box)
        else float(max(np.nanmax(np.abs(box)), 1e-12))
    )
    slot, k, fp = _fingerprints(corpus, scale)
    cand = _candidates(slots, slot, k, fp, tolerance)
    # candidate items: a pair of their annotations matched in fingerprint (one annotator
    # is enough to find them); then every annotator who drew on both is compared
    ia, ib = slots.item[slot[cand[:, 0]]], slots.item[slot[cand[:, 1]]]
    if corpus.group is not None:  # items of one group are not reported
        other = corpus.group[ia] != corpus.group[ib]
        ia, ib = ia[other], ib[other]
    n_items = len(corpus.items)
    key = _distinct(np.minimum(ia, ib) * n_items + np.maximum(ia, ib))
    a, b = key // n_items, key % n_items
    pair, s, t = _partners(corpus, slot, a, b)
    # an annotator who covered both items and drew on one only: not copies
    blank = np.bincount(pair[slots.count[t] == 0], minlength=len(a))
    back, _, t_back = _partners(corpus, slot, b, a)
    blank += np.bincount(back[slots.count[t_back] == 0], minlength=len(a))
    both = slots.count[t] > 0
    pair, s, t = pair[both], s[both], t[both]
    worst = _verify(corpus, s, t, scale)
    n_both = np.bincount(pair, minlength=len(a))
    n_match = np.bincount(pair, weights=worst <= tolerance, minlength=len(a))
    n_objects = np.bincount(pair, weights=slots.count[s], minlength=len(a))
    worst_pair = np.zeros(len(a))
    np.maximum.at(worst_pair, pair, worst)
    # near (not exact) copies of one object per annotation are too weak a sign: one box
    # falls within the tolerance of another often enough in a large corpus
    keep = (n_both >= 2) & (n_match == n_both) & (blank == 0)
    keep &= (worst_pair == 0) | (n_objects >= 2 * n_both)
    a, b, worst_pair, n_both = a[keep], b[keep], worst_pair[keep], n_both[keep]
    graph = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(n_items, n_items))
    _, component = connected_components(graph, directed=False)
    _, copy_set = np.unique(component[a], return_inverse=True)
    return pd.DataFrame(
        {
            "item": corpus.items[a],
            "copy": corpus.items[b],
            "n_annotators": n_both,
            "max_difference": worst_pair * 1.0,
            "exact": worst_pair == 0,
            "copy_set": copy_set.ravel().astype(np.int64),
        }
    )


def warn_copies(
    corpus, *, tolerance: float = DEFAULT_TOLERANCE, stacklevel: int = 3, found=None
) -> None:
    """Issue a :class:`~iaa_frames.errors.CopiedItemsWarning` if the corpus (which has no
    ``group`` column) holds items that look like copies; its ``copies`` attribute holds
    :func:`find_copies`'s table (``found``, when already computed with ``tolerance``)."""
    copies = find_copies(corpus, tolerance=tolerance) if found is None else found
    if not len(copies):
        return
    n_sets = int(copies["copy_set"].max()) + 1
    n_items = len(set(copies["item"]) | set(copies["copy"]))
    shown = ", ".join(
        f"{a!r} and {b!r}" for a, b in zip(copies["item"][:_SHOWN], copies["copy"][:_SHOWN])
    )
    more = f" and {len(copies) - _SHOWN} more pair(s)" if len(copies) > _SHOWN else ""
    # most of the corpus alike: more likely annotators who ignore the image than copies
    blind = (
        "most items look alike: if the annotators drew the same boxes whatever the image, "
        "sigma near 0 says so; "
        if 2 * n_items > len(corpus.items)
        else ""
    )
    warnings.warn(
        CopiedItemsWarning(
            f"{blind}{n_items} items look like copies of one another ({n_sets} set(s); their "
            f"annotators drew the same boxes, within {tolerance:g} of the image size): "
            f"{shown}{more}. A chance pairing of an item with its copy looks like "
            "agreement and lowers sigma. If they are frames of one video, one burst or "
            "copies of one image, give the frame a 'group' column naming it (chance "
            "pairings never join two items of one group); the warning's .copies "
            "attribute (or iaa_frames.find_copies(df)) lists them",
            copies=copies,
        ),
        stacklevel=stacklevel,
    )
