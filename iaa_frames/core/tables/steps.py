"""The steps of :func:`iaa_frames.core.tables.pairs.pair_tables`: which pairings are within items,
the per-class slots of a pairing, and the frames of within and chance rows built from the
pipeline's output (:class:`iaa_frames.core.matching.pipeline.Matched`). :mod:`iaa_frames.dask` runs
the same steps on the partitions of a dask DataFrame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core import chance
from iaa_frames.core.chance import ChanceSample, WithinCounts
from iaa_frames.core.chance.population import labels_of_pairings
from iaa_frames.core.chance.sampling import sort_with_order
from iaa_frames.core.chance.sizing import noise_sums, within_noise
from iaa_frames.core.chance.store import PairCounts
from iaa_frames.core.matching.assignment import run_starts
from iaa_frames.core.matching.corpus import Corpus, Slices
from iaa_frames.core.matching.pipeline import Matched

#: The columns of a sets table, in order (strata flags follow in the chance table).
SETS_COLUMNS = (
    "item_a",
    "item_b",
    "annotator_a",
    "annotator_b",
    "label",
    "n_a",
    "n_b",
    "n_matched",
    "detection",
    "overall",
)

__all__ = [
    "between_frames",
    "class_detection",
    "labels_of_pairings",
    "localization_frame",
    "sets_frame",
    "to_label_slots",
    "within_counts",
    "within_frames",
    "within_pairings",
]


def within_pairings(slots: Slices):
    """Every pair of slots of the same item (slots are sorted by item)."""
    n = slots.empty
    item = slots.item[:n]
    new = np.r_[True, item[1:] != item[:-1]]
    group_start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    group_size = np.bincount(np.cumsum(new) - 1)[np.cumsum(new) - 1]
    later = group_start + group_size - np.arange(n) - 1  # slots after this one in its item
    a = np.repeat(np.arange(n), later)
    b = a + 1 + np.arange(len(a)) - run_starts(later)[np.repeat(np.arange(n), later)]
    return a, b


def to_label_slots(corpus: Corpus, a, b, label):
    """The slots in ``corpus.by_label`` of the annotations (slots) ``a`` and ``b`` restricted
    to ``label`` (the empty slot where they have nothing of it)."""
    return corpus.label_slots(a, label), corpus.label_slots(b, label)


def localization_frame(corpus, m: Matched, a, b, slots, **extra):
    return pd.DataFrame(localization_columns(corpus, m, a, b, slots, **extra))


def localization_columns(corpus, m: Matched, a, b, slots, one_item=False, **extra) -> dict:
    """The columns of :func:`localization_frame` as arrays; with ``one_item`` (within
    pairings) one ``item`` column for both sides."""
    pa, pb = a[m.pair_pairing], b[m.pair_pairing]
    items = (
        {"item": slots.item[pa]}
        if one_item
        else {
            "item_a": slots.item[pa],
            "item_b": slots.item[pb],
        }
    )
    out = {
        **items,
        "annotator_a": slots.annotator[pa],
        "annotator_b": slots.annotator[pb],
        "label_a": corpus.label[m.pair_a],
        "label_b": corpus.label[m.pair_b],
        "object_a": m.pair_a,
        "object_b": m.pair_b,
        "iou": m.pair_iou,
        "distance": m.pair_distance,
    }
    out.update(
        {k: (v[m.pair_pairing] if isinstance(v, np.ndarray) else v) for k, v in extra.items()}
    )
    return out


def sets_frame(m: Matched, a, b, slots, label, **replace):
    """One row per pairing; ``replace`` overrides columns (per-class detection)."""
    return pd.DataFrame(sets_columns(m, a, b, slots, label, **replace))


def sets_columns(m: Matched, a, b, slots, label, rows=None, **replace) -> dict:
    """The columns of :func:`sets_frame` as arrays: the pairings (a, b) are the pairings
    ``rows`` of ``m`` (all of them when ``rows`` is None); ``label`` an array or one code."""
    columns = {
        "item_a": slots.item[a],
        "item_b": slots.item[b],
        "annotator_a": slots.annotator[a],
        "annotator_b": slots.annotator[b],
        "label": np.full(len(a), label, dtype=np.int64) if np.ndim(label) == 0 else label,
    }
    for name, field in (
        ("n_a", "set_n_a"),
        ("n_b", "set_n_b"),
        ("n_matched", "set_matched"),
        ("detection", "set_detection"),
        ("overall", "set_overall"),
    ):
        if name not in replace:
            v = getattr(m, field)
            columns[name] = v if rows is None else v[rows]
    columns.update(replace)
    return {name: columns[name] for name in SETS_COLUMNS}


def count_by_key(keys, query) -> np.ndarray:
    """How many times each ``query`` value occurs in ``keys`` (integer codes): by counting
    when the codes are non-negative and their range is small, else by a sort.

    Examples
    --------
    >>> count_by_key(np.array([3, 1, 3, 3]), np.array([3, 2, 1])).tolist()
    [3, 0, 1]
    """
    keys, query = np.asarray(keys, dtype=np.int64), np.asarray(query, dtype=np.int64)
    if not len(keys) or not len(query):
        return np.zeros(len(query), dtype=np.int64)
    top = int(keys.max())
    if keys.min() >= 0 and top < 4 * (len(keys) + len(query)):
        counts = np.bincount(keys, minlength=top + 2).astype(np.int64, copy=False)
        return counts[np.where((query >= 0) & (query <= top), query, top + 1)]
    keys = np.sort(keys)
    return np.searchsorted(keys, query, side="right") - np.searchsorted(keys, query, side="left")


def objects_of(slots: Slices, s):
    """(position in ``s``, object) for every object of the slots ``s``."""
    n = slots.count[s]
    owner = np.repeat(np.arange(len(s)), n)
    return owner, slots.start[s][owner] + np.arange(len(owner)) - run_starts(n)[owner]


def class_detection(corpus: Corpus, slots: Slices, a, b, m: Matched, pl, ll):
    """Per-class detection from the label-agnostic matching of the pairings (a, b).

    For class L of pairing p: ``n_a``, ``n_b`` objects of class L on each side; a matched
    pair counts as found for L when either member carries L (``n_matched``); each
    unmatched object counts against its own class. Detection distance =
    ``(u_a + u_b) / (2 n_matched + u_a + u_b)`` with ``u`` the unmatched objects of L
    (0 when the pairing has nothing of L).
    """
    L = max(len(corpus.labels), 1)
    query = pl * L + ll
    la, lb = corpus.label[m.pair_a], corpus.label[m.pair_b]
    pp = m.pair_pairing
    found = count_by_key(np.concatenate([pp * L + la, (pp * L + lb)[lb != la]]), query)
    out = {"n_matched": found}
    for side, s, lab in (("a", a, la), ("b", b, lb)):
        if slots is corpus.annotations:
            # the objects of class L in an annotation are those of its class slot
            n = corpus.by_label.count[corpus.label_slots(s[pl], ll)]
        else:  # the objects of each class in each distinct slot (a slot is in many pairings)
            held, inverse = np.unique(s, return_inverse=True)
            owner, obj = objects_of(slots, held)
            n = count_by_key(owner * L + corpus.label[obj], inverse.ravel()[pl] * L + ll)
        out[f"n_{side}"] = n
        out[f"u_{side}"] = n - count_by_key(pp * L + lab, query)
    unmatched = out.pop("u_a") + out.pop("u_b")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["detection"] = np.where(
            unmatched + found > 0, unmatched / (2.0 * found + unmatched), 0.0
        )
    return out


def within_counts(corpus: Corpus, a, b, whole: Matched, ll, label_sums=None) -> WithinCounts:
    """The within units of every narrower cell (:class:`WithinCounts`); with
    ``label_sums`` (the :func:`~iaa_frames.core.chance.sizing.noise_sums` by class of the
    (pairing, class) rows ``ll``, or a future of them: :func:`label_noise`), also the
    within distances that size the detection and overall strata by their noise
    (:func:`iaa_frames.core.chance.sizing.within_noise`)."""
    A, L = len(corpus.annotators), len(corpus.labels)
    ann = corpus.annotations
    aa, ab = ann.annotator[a], ann.annotator[b]
    pair = PairCounts.of(np.minimum(aa, ab), np.maximum(aa, ab), A)  # sparse, not A x A
    oa, ob = corpus.annotator[whole.pair_a], corpus.annotator[whole.pair_b]
    la, lb = corpus.label[whole.pair_a], corpus.label[whole.pair_b]
    noise = None
    if label_sums is not None:
        noise = within_noise(
            aa, ab, (whole.set_detection, whole.set_overall), label_sums, n_annotators=A
        )
    return WithinCounts(
        sets_annotator=np.bincount(aa, minlength=A) + np.bincount(ab, minlength=A),
        sets_pair=pair,
        sets_label=np.bincount(ll, minlength=L),
        loc_annotator=np.bincount(oa, minlength=A) + np.bincount(ob, minlength=A),
        loc_label=np.bincount(la[la == lb], minlength=L),
        noise=noise,
    )


def label_noise(corpus: Corpus, detection, overall, ll) -> np.ndarray:
    """The :func:`~iaa_frames.core.chance.sizing.noise_sums` by class of the within (pairing,
    class) rows ``ll``: their detection distances (of :func:`class_detection`) and
    overall ones (of the matching by class)."""
    return noise_sums(detection, overall, ll, len(corpus.labels))


def within_frames(
    corpus: Corpus, whole: Matched, by_label: Matched, a, b, slots, pl, ll, detection=None
):
    """The within-item rows of the pair tables: localization (one row per matched pair)
    and detection/overall (one row per pairing, then per pairing and class), with the
    item in ``item`` (both sides of a within pairing are one item). ``detection``: the
    :func:`class_detection` of the pairings, if already computed."""
    loc = pd.DataFrame(localization_columns(corpus, whole, a, b, slots, one_item=True))
    whole_rows = sets_columns(whole, a, b, slots, -1)
    if detection is None:
        detection = class_detection(corpus, slots, a, b, whole, pl, ll)
    class_rows = sets_columns(by_label, a[pl], b[pl], slots, ll, **detection)
    # the two parts' columns joined once (a new array each: the frame may own them)
    sets = {
        ("item" if c == "item_a" else c): np.concatenate([whole_rows.pop(c), class_rows.pop(c)])
        for c in SETS_COLUMNS
        if c != "item_b"
    }
    return loc, pd.DataFrame(sets, copy=False)


def between_frames(corpus: Corpus, sample: ChanceSample, d_idx, d_group, d_restricted):
    """The chance tables: one row per distinct pairing (sets) and matched pair.

    The sets table (one row per chance pairing, and per pairing and class) is the largest
    table of a big crowd: its columns are built as arrays and joined once, never as two
    frames concatenated."""
    ann = corpus.annotations
    A = len(corpus.annotators)
    m = sample.matched
    d = sample.draws
    s = np.flatnonzero(sample.has_sets)
    aa, ab = ann.annotator[sample.a[s]], ann.annotator[sample.b[s]]
    # the flags before the columns: their lookups' temporaries never meet the columns
    flags = drawn_by(
        d,
        sample.key[s],
        {
            "in_uniform": ((chance.SETS_UNIFORM,), 0),
            "in_annotator_a": ((chance.SETS_ANNOTATOR,), aa),
            "in_annotator_b": ((chance.SETS_ANNOTATOR,), ab),
            "in_pair": ((chance.SETS_PAIR,), np.minimum(aa, ab) * A + np.maximum(aa, ab)),
        },
    )
    del aa, ab
    whole = sets_columns(m, sample.a[s], sample.b[s], ann, -1, rows=s) | flags
    del flags, s
    da, db = sample.a[d_idx], sample.b[d_idx]
    det = class_detection(corpus, ann, da, db, subset(m, d_idx), np.arange(len(d_idx)), d_group)
    by_class = sets_columns(d_restricted, da, db, ann, d_group, **det)
    for flag in ("in_uniform", "in_annotator_a", "in_annotator_b", "in_pair"):
        by_class[flag] = np.full(len(d_idx), flag == "in_uniform")
    # column by column, each part's column released once joined
    sets_between = pd.DataFrame(
        {c: np.concatenate([whole.pop(c), by_class.pop(c)]) for c in list(whole)}, copy=False
    )

    loc = localization_frame(corpus, m, sample.a, sample.b, ann)
    key = sample.key[m.pair_pairing]
    aa, ab = loc["annotator_a"].to_numpy(), loc["annotator_b"].to_numpy()
    la, lb = loc["label_a"].to_numpy(), loc["label_b"].to_numpy()
    uni = (chance.SETS_UNIFORM, chance.LOC_UNIFORM)
    own = (chance.SETS_ANNOTATOR, chance.LOC_ANNOTATOR)
    flags = drawn_by(
        d,
        key,
        {
            "in_uniform": (uni, 0),
            "in_annotator_a": (own, aa),
            "in_annotator_b": (own, ab),
            "in_pair": ((chance.SETS_PAIR,), np.minimum(aa, ab) * A + np.maximum(aa, ab)),
            "in_label": ((chance.SETS_LABEL, chance.LOC_LABEL), la),
        },
    )
    flags["in_label"] &= la == lb
    keep = np.logical_or.reduce(list(flags.values()))
    loc = loc.assign(**flags)[keep].reset_index(drop=True)
    return sets_between, loc


def drawn_by(draws, key, strata: dict) -> dict:
    """Per name of ``strata`` (``name: (kinds, group)``), whether each ``(group, key)`` was
    drawn by a stratum of one of ``kinds`` (:meth:`iaa_frames.core.chance.store.Draws.contains`),
    the keys put in order once for every lookup."""
    in_order, order = sort_with_order(key)
    out = {}
    for name, (kinds, group) in strata.items():
        flag = np.empty(len(key), dtype=bool)
        flag[order] = draws.contains(kinds, group[order] if np.ndim(group) else group, in_order)
        out[name] = flag
    return out


def subset(m: Matched, idx) -> Matched:
    """The matching of the pairings ``idx`` only (renumbered 0..len(idx)-1)."""
    idx = np.asarray(idx, dtype=np.int64)
    # a pairing may be listed several times (one per class): repeat its matched pairs
    order = np.argsort(m.pair_pairing, kind="stable")
    starts = np.searchsorted(m.pair_pairing[order], np.arange(len(m.set_n_a)))
    count = np.bincount(m.pair_pairing, minlength=len(m.set_n_a))
    n = count[idx]
    owner = np.repeat(np.arange(len(idx)), n)
    rows = order[starts[idx][owner] + np.arange(len(owner)) - run_starts(n)[owner]]
    return Matched(
        owner,
        m.pair_a[rows],
        m.pair_b[rows],
        m.pair_iou[rows],
        m.pair_distance[rows],
        m.set_n_a[idx],
        m.set_n_b[idx],
        m.set_matched[idx],
        m.set_detection[idx],
        m.set_overall[idx],
    )
