"""Items that look like copies of one another: the same image annotated twice.

Video frames, burst photos and augmented copies of one image are common in annotation
corpora. A chance pairing of an item with its copy looks like agreement, so copies
deflate every chance-corrected score unless they are declared as one ``group`` (then
chance pairings never join them; see :func:`iaa_frames.validate`). Without a ``group``
column, :func:`iaa_frames.corpus.prepare` looks for copies and issues a
:class:`~iaa_frames.errors.CopiedItemsWarning` naming a few of them.

Two annotations *match* when they are drawn by the same annotator, hold the same number
of objects with the same classes, and every normalized box coordinate of one is within
``tolerance`` of the other (objects compared in the canonical order of the corpus: class,
then box). Two items are copies when the annotations of every annotator who drew
objects on both match, two annotators or more (one annotator's matching boxes are too
weak a sign: an annotator who ignores the image draws the same boxes everywhere, while
the others do not), and, unless they are exact, two objects or more per annotation
(one box within the tolerance of another is too common in a large corpus).

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

from .errors import CopiedItemsWarning, ParameterError

__all__ = ["DEFAULT_TOLERANCE", "WINDOW", "find_copies", "warn_copies"]

#: Largest difference of a normalized box coordinate between an object and its copy.
DEFAULT_TOLERANCE = 0.005
#: Annotations each annotation is compared with, in each sorted order.
WINDOW = 8
#: Copies named in the warning.
_SHOWN = 5


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
    parts = []
    for axis in (0, 1):  # two sorted orders, so that a dense run on one axis is not fatal
        order = np.lexsort((fp[:, axis], k, ann))
        key = (ann * (k.max(initial=0) + 1) + k)[order]
        x = fp[order, axis]
        for d in range(1, WINDOW + 1):  # a fixed number of offsets, not a loop over items
            near = np.flatnonzero((key[:-d] == key[d:]) & (x[d:] - x[:-d] <= tolerance))
            i, j = order[near], order[near + d]
            for col in range(fp.shape[1]):  # one coordinate at a time, on the survivors
                ok = np.abs(fp[i, col] - fp[j, col]) <= tolerance
                i, j = i[ok], j[ok]
            ok = item[i] != item[j]
            parts.append(np.column_stack([np.minimum(i[ok], j[ok]), np.maximum(i[ok], j[ok])]))
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)
    return np.unique(pairs, axis=0) if len(pairs) else pairs


def _verify(corpus, slot, pairs, tolerance, scale):
    """Of the candidate pairs, those whose objects match one by one; with the largest
    coordinate difference of each."""
    slots = corpus.annotations
    s, t = slot[pairs[:, 0]], slot[pairs[:, 1]]
    k = slots.count[s]
    owner = np.repeat(np.arange(len(s)), k)
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(k) - k, k)
    oa, ob = slots.start[s][owner] + rank, slots.start[t][owner] + rank
    box = np.nan_to_num(corpus.shapes.boxes) / scale
    diff = np.abs(box[oa] - box[ob]).max(axis=1, initial=0.0)
    diff = np.where(corpus.label[oa] == corpus.label[ob], diff, np.inf)
    worst = np.full(len(s), 0.0)
    np.maximum.at(worst, owner, diff)
    ok = worst <= tolerance
    return s[ok], t[ok], worst[ok]


def _drawn_on_both(corpus, slot, a, b) -> np.ndarray:
    """Per pair of items (a, b), the annotators who drew objects on both."""
    slots = corpus.annotations
    n_ann = max(len(corpus.annotators), 1)
    key = np.sort(slots.item[slot] * n_ann + slots.annotator[slot])  # slots with objects
    first = np.searchsorted(key, a * n_ann)
    last = np.searchsorted(key, (a + 1) * n_ann)
    k = last - first
    pair = np.repeat(np.arange(len(a)), k)  # the annotators of a, pair by pair
    ann = key[np.repeat(first, k) + np.arange(len(pair)) - np.repeat(np.cumsum(k) - k, k)]
    want = b[pair] * n_ann + ann % n_ann
    pos = np.minimum(np.searchsorted(key, want), max(len(key) - 1, 0))
    hit = key[pos] == want if len(key) else np.zeros(len(want), bool)
    return np.bincount(pair[hit], minlength=len(a))


def find_copies(corpus, *, tolerance: float = DEFAULT_TOLERANCE) -> pd.DataFrame:
    """Pairs of items that look like copies (see the module notes).

    Parameters
    ----------
    corpus : Corpus or pandas.DataFrame
        A prepared corpus (:func:`iaa_frames.corpus.prepare`) or a tidy frame.
    tolerance : float, default 0.005
        Largest difference of a box coordinate, as a share of the image size (of the
        extent of the corpus's boxes where image sizes are unknown).

    Returns
    -------
    pandas.DataFrame
        One row per pair of copies: ``item``, ``copy`` (names; ``item`` is the one
        that comes first in the canonical order), ``annotators`` (annotators whose
        annotations match), ``max_difference`` (largest coordinate difference over
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
    from .corpus import Corpus, prepare

    if not (isinstance(tolerance, (int, float)) and np.isfinite(tolerance) and tolerance >= 0):
        raise ParameterError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    if not isinstance(corpus, Corpus):
        corpus = prepare(corpus, copies="ignore")
    slots = corpus.annotations
    box = corpus.shapes.boxes
    scale = (
        1.0
        if corpus.normalization == "image size" or not len(box)
        else float(max(np.nanmax(np.abs(box)), 1e-12))
    )
    slot, k, fp = _fingerprints(corpus, scale)
    pairs = _candidates(slots, slot, k, fp, tolerance)
    s, t, worst = _verify(corpus, slot, pairs, tolerance, scale)
    # items: a pair counts when half of each item's drawing annotators match
    ia, ib = slots.item[s], slots.item[t]
    if corpus.group is not None:
        other = corpus.group[ia] != corpus.group[ib]
        s, t, worst, ia, ib = s[other], t[other], worst[other], ia[other], ib[other]
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    n_items = len(corpus.items)
    key, inv = np.unique(lo * n_items + hi, return_inverse=True)
    inv = inv.ravel()
    n_slots = np.bincount(inv, minlength=len(key))
    n_objects = np.bincount(inv, weights=slots.count[s], minlength=len(key))
    a, b = key // n_items, key % n_items
    worst_pair = np.zeros(len(key))
    np.maximum.at(worst_pair, inv, worst)
    # near (not exact) copies of one object per annotation are too weak a sign: one box
    # falls within the tolerance of another often enough in a large corpus
    keep = (n_slots >= 2) & (n_slots == _drawn_on_both(corpus, slot, a, b))
    keep &= (worst_pair == 0) | (n_objects >= 2 * n_slots)
    a, b, worst_pair = a[keep], b[keep], worst_pair[keep]
    names = np.zeros(len(key), dtype=object)
    if keep.any():
        ann = (
            pd.Series(corpus.annotators[slots.annotator[s]].astype(str))
            .groupby(inv)
            .agg(lambda x: ", ".join(sorted(set(x))))
        )
        names = ann.reindex(np.arange(len(key))).to_numpy(dtype=object)[keep]
    graph = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(n_items, n_items))
    _, component = connected_components(graph, directed=False)
    _, copy_set = np.unique(component[a], return_inverse=True)
    return pd.DataFrame(
        {
            "item": corpus.items[a],
            "copy": corpus.items[b],
            "annotators": names if keep.any() else np.zeros(0, dtype=object),
            "max_difference": worst_pair * 1.0,
            "exact": worst_pair == 0,
            "copy_set": copy_set.ravel().astype(np.int64),
        }
    )


def warn_copies(corpus, *, tolerance: float = DEFAULT_TOLERANCE, stacklevel: int = 3) -> None:
    """Issue a :class:`~iaa_frames.errors.CopiedItemsWarning` if the corpus (which has no
    ``group`` column) holds items that look like copies; its ``copies`` attribute holds
    :func:`find_copies`'s table."""
    copies = find_copies(corpus, tolerance=tolerance)
    if not len(copies):
        return
    n_sets = int(copies["copy_set"].max()) + 1
    n_items = len(set(copies["item"]) | set(copies["copy"]))
    shown = ", ".join(
        f"{a!r} and {b!r}" for a, b in zip(copies["item"][:_SHOWN], copies["copy"][:_SHOWN])
    )
    more = f" and {len(copies) - _SHOWN} more pair(s)" if len(copies) > _SHOWN else ""
    warnings.warn(
        CopiedItemsWarning(
            f"{n_items} items look like copies of one another ({n_sets} set(s); their "
            f"annotators drew the same boxes, within {tolerance:g} of the image size): "
            f"{shown}{more}. A chance pairing of an item with its copy looks like "
            "agreement and lowers sigma. If they are frames of one video, one burst or "
            "copies of one image, give the frame a 'group' column naming it (chance "
            "pairings never join two items of one group); if every annotator drew the "
            "same boxes whatever the image, sigma near 0 says so; the warning's .copies "
            "attribute (or iaa_frames.copies.find_copies(df)) lists them",
            copies=copies,
        ),
        stacklevel=stacklevel,
    )
