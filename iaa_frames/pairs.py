"""Within-item and between-item pair tables (DESIGN §4-§5).

:func:`pair_tables` builds every table the statistics need, once:

* **localization**: one row per matched object pair, within items and between items;
* **sets**: one row per pairing of two annotations, with the detection distance
  (1 - F1 of their matching) and the set-level ``overall`` distance; for the whole
  annotations (``label == -1``) and for annotations restricted to each class;
* **units**: every object with its cluster, for classification α and presence α.

Between-item rows are *chance pairings*: the annotation of item i by annotator a and of
item j by annotator b, i != j and a != b, drawn at random (seeded) and sent through the
same pipeline, with the same threshold, as the within-item pairings.

Chance sampling
---------------
Sampling is stratified so that every reported cell has enough chance units. ``n_chance``
(default :data:`DEFAULT_N_CHANCE` = 2000) is the target per stratum:

* ``"(all)"``: pairings drawn uniformly, until every annotator is involved in at least
  ``n_chance`` matched chance pairs (localization) and ``n_chance`` pairings were drawn;
* per class, for localization: both annotations drawn among those containing the class,
  until ``n_chance`` matched pairs of two objects of that class are found;
* per class, for detection and overall: ``n_chance`` pairings drawn uniformly among the
  pairings in which at least one annotation contains the class (the within-item
  population is restricted the same way).

Each stratum stops after ``max(50 * n_chance, 50_000)`` drawn pairings even if the target
is not met (for example at a threshold so high that unrelated objects never match);
the counts actually used are reported as ``n_chance`` in the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .corpus import Corpus, Slices, prepare
from .distances import DEFAULT_DISTANCE, get_distance
from .errors import ParameterError
from .frame import ALL
from .matching import _starts, clusters
from .pipeline import IoUCache, Matched, run

__all__ = ["DEFAULT_N_CHANCE", "PairTables", "pair_tables", "within", "between"]

DEFAULT_N_CHANCE = 2000
_PROGRESS_MIN_PAIRS = 5_000_000
_OVERALL = ("pooled", "per_direction")


@dataclass(frozen=True, eq=False)
class PairTables:
    """Every table the statistics are computed from (integer codes; see ``corpus``).

    Attributes
    ----------
    corpus : Corpus
        Names of the codes: ``corpus.items[code]``, ``corpus.annotators[code]``,
        ``corpus.labels[code]``; a label code of -1 means "(all)".
    localization_within, localization_between : pandas.DataFrame
        Matched object pairs: items, annotators, labels, objects, ``iou``, ``distance``;
        between rows also carry ``stratum`` (-1 for the uniform stratum, else a class).
    sets_within, sets_between : pandas.DataFrame
        One row per pairing and ``label`` (-1 = whole annotations): ``n_a``, ``n_b``,
        ``n_matched``, ``detection`` (1 - F1) and ``overall`` (set distance).
    units : pandas.DataFrame
        One row per object: ``item``, ``annotator``, ``label``, ``cluster``.
    coverage : pandas.DataFrame
        One row per (item, annotator) that covered the item.
    params : dict
        The parameters used.
    """

    corpus: Corpus
    localization_within: pd.DataFrame
    localization_between: pd.DataFrame
    sets_within: pd.DataFrame
    sets_between: pd.DataFrame
    units: pd.DataFrame
    coverage: pd.DataFrame
    params: dict = field(default_factory=dict)


# -- pairings ------------------------------------------------------------------------------

def _within_pairings(slots: Slices):
    """Every pair of slots of the same item (slots are sorted by item)."""
    n = slots.empty
    item = slots.item[:n]
    new = np.r_[True, item[1:] != item[:-1]]
    group_start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    group_size = np.bincount(np.cumsum(new) - 1)[np.cumsum(new) - 1]
    later = group_start + group_size - np.arange(n) - 1  # slots after this one in its item
    a = np.repeat(np.arange(n), later)
    b = a + 1 + np.arange(len(a)) - _starts(later)[np.repeat(np.arange(n), later)]
    return a, b


def _labels_of_pairings(corpus: Corpus, a, b):
    """(pairing, label) for every class present in either annotation of each pairing."""
    bl = corpus.by_label
    owner = corpus.annotation_of(bl.item[:-1], bl.annotator[:-1])  # annotation of each slot
    first = np.searchsorted(owner, np.arange(corpus.annotations.empty))
    n_lab = np.diff(np.r_[first, len(owner)])
    rows = []
    for side in (a, b):
        pairing = np.repeat(np.arange(len(side)), n_lab[side])
        k = np.arange(len(pairing)) - _starts(n_lab[side])[pairing]
        rows.append(pairing * len(corpus.labels) + bl.label[first[side][pairing] + k])
    both = np.unique(np.concatenate(rows))
    return both // len(corpus.labels), both % len(corpus.labels)


def _to_label_slots(corpus: Corpus, a, b, label):
    ann = corpus.annotations
    return (corpus.by_label_of(ann.item[a], ann.annotator[a], label),
            corpus.by_label_of(ann.item[b], ann.annotator[b], label))


# -- chance sampling -------------------------------------------------------------------------

def _draw(rng, slots: Slices, n, pool, pool_start, pool_count, other_pool=None):
    """Draw ``n[g]`` pairings per group g: side a from group g's pool, side b from the same
    pool (or from ``other_pool``), rejecting same-item and same-annotator pairings."""
    out_a, out_b, out_g = [], [], []
    need = np.asarray(n, dtype=np.int64).copy()
    need[pool_count == 0] = 0
    for _ in range(50):  # rejection rounds; almost always 1-2
        if need.sum() == 0:
            break
        m = np.ceil(need * 1.3).astype(np.int64) + (need > 0) * 8
        g = np.repeat(np.arange(len(need)), m)
        a = pool[pool_start[g] + rng.integers(0, pool_count[g])]
        if other_pool is None:
            b = pool[pool_start[g] + rng.integers(0, pool_count[g])]
        else:
            b = other_pool[rng.integers(0, len(other_pool), size=len(g))]
        ok = (slots.item[a] != slots.item[b]) & (slots.annotator[a] != slots.annotator[b])
        # keep the first need[g] accepted draws of each group
        keep = ok & (_rank_within(g, ok) < need[g])
        out_a.append(a[keep]), out_b.append(b[keep]), out_g.append(g[keep])
        need -= np.bincount(g[keep], minlength=len(need))
    cat = lambda x: np.concatenate(x) if x else np.zeros(0, np.int64)  # noqa: E731
    return cat(out_a), cat(out_b), cat(out_g)


def _rank_within(group, flag):
    """0, 1, 2, ... counting flagged entries within each (contiguous) group."""
    c = np.cumsum(flag)
    starts = np.r_[True, group[1:] != group[:-1]]
    base = np.maximum.accumulate(np.where(starts, np.arange(len(group)), 0))
    return c - c[base] + flag[base] - 1


def _annotator_counts(slots: Slices, m: Matched, a, b, n_ann):
    pa, pb = a[m.pair_pairing], b[m.pair_pairing]
    return (np.bincount(slots.annotator[pa], minlength=n_ann)
            + np.bincount(slots.annotator[pb], minlength=n_ann))


def _uniform_stratum(rng, corpus, target, cap, match):
    """Uniform chance pairings until every annotator has ``target`` matched pairs."""
    slots = corpus.annotations
    pool = np.arange(slots.empty)
    n_ann = len(corpus.annotators)
    counts = np.zeros(n_ann, dtype=np.int64)
    parts, drawn, batch = [], 0, target
    while batch > 0:
        a, b, _ = _draw(rng, slots, [batch], pool, np.array([0]), np.array([len(pool)]))
        if len(a) == 0:
            break
        m = match(slots, a, b, sets=not parts)  # the first n_chance pairings serve the sets
        parts.append((a, b, m))
        drawn += len(a)
        counts += _annotator_counts(slots, m, a, b, n_ann)
        deficit = target - counts.min()
        if deficit <= 0 or drawn >= cap:
            break
        rate = max(counts.min(), 1) / drawn
        batch = int(min(cap - drawn, max(target, np.ceil(deficit / rate * 1.2))))
    return parts


def _label_pools(corpus: Corpus):
    """Annotation slots containing each class, grouped by class (CSR)."""
    bl = corpus.by_label
    owner = corpus.annotation_of(bl.item[:-1], bl.annotator[:-1])
    order = np.argsort(bl.label[:-1], kind="stable")
    count = np.bincount(bl.label[:-1], minlength=len(corpus.labels))
    return owner[order], _starts(count), count


def _label_localization_strata(rng, corpus, target, cap, match):
    """Per class: pairings of two annotations containing it, until ``target`` pairs of two
    objects of that class are matched."""
    slots = corpus.annotations
    pool, start, count = _label_pools(corpus)
    n_lab = len(corpus.labels)
    have = np.zeros(n_lab, dtype=np.int64)
    drawn = np.zeros(n_lab, dtype=np.int64)
    parts = []
    need = np.where(count > 0, target, 0)
    while need.sum() > 0:
        a, b, g = _draw(rng, slots, need, pool, start, count)
        if len(a) == 0:
            break
        m = match(slots, a, b, sets=False)
        la, lb = corpus.label[m.pair_a], corpus.label[m.pair_b]
        keep = (la == lb) & (la == g[m.pair_pairing])
        parts.append((a, b, g, m, keep))
        drawn += np.bincount(g, minlength=n_lab)
        have += np.bincount(la[keep], minlength=n_lab)
        deficit = np.maximum(target - have, 0)
        rate = np.maximum(have, 1) / np.maximum(drawn, 1)
        need = np.where((deficit > 0) & (drawn < cap),
                        np.minimum(cap - drawn, np.maximum(target, np.ceil(deficit / rate * 1.2))),
                        0).astype(np.int64)
    return parts


def _label_detection_strata(rng, corpus, target):
    """Per class: pairings uniform over those where at least one side contains the class.

    Side a is drawn among annotations containing the class and side b among all; when b
    contains the class too the pairing is kept with probability 1/2, which makes the kept
    pairings uniform over the union (such a pairing could have been drawn either way).
    """
    slots = corpus.annotations
    pool, start, count = _label_pools(corpus)
    out_a, out_b, out_g = [], [], []
    need = np.where(count > 0, target, 0).astype(np.int64)
    for _ in range(50):
        if need.sum() == 0:
            break
        a, b, g = _draw(rng, slots, need, pool, start, count, other_pool=np.arange(slots.empty))
        both = corpus.by_label_of(slots.item[b], slots.annotator[b], g) != corpus.by_label.empty
        keep = ~both | (rng.random(len(a)) < 0.5)
        a, b, g = a[keep], b[keep], g[keep]
        keep = _rank_within(g, np.ones(len(g), bool)) < need[g]
        out_a.append(a[keep]), out_b.append(b[keep]), out_g.append(g[keep])
        need -= np.bincount(g[keep], minlength=len(need))
    cat = lambda x: np.concatenate(x) if x else np.zeros(0, np.int64)  # noqa: E731
    return cat(out_a), cat(out_b), cat(out_g)


# -- tables -------------------------------------------------------------------------------------

def _localization_frame(corpus, m: Matched, a, b, slots, **extra):
    pa, pb = a[m.pair_pairing], b[m.pair_pairing]
    out = {
        "item_a": slots.item[pa], "item_b": slots.item[pb],
        "annotator_a": slots.annotator[pa], "annotator_b": slots.annotator[pb],
        "label_a": corpus.label[m.pair_a], "label_b": corpus.label[m.pair_b],
        "object_a": m.pair_a, "object_b": m.pair_b,
        "iou": m.pair_iou, "distance": m.pair_distance,
    }
    out.update({k: (v[m.pair_pairing] if isinstance(v, np.ndarray) else v)
                for k, v in extra.items()})
    return pd.DataFrame(out)


def _sets_frame(m: Matched, a, b, slots, label):
    return pd.DataFrame({
        "item_a": slots.item[a], "item_b": slots.item[b],
        "annotator_a": slots.annotator[a], "annotator_b": slots.annotator[b],
        "label": label, "n_a": m.set_n_a, "n_b": m.set_n_b, "n_matched": m.set_matched,
        "detection": m.set_detection, "overall": m.set_overall,
    })


def _check_params(match_threshold, n_chance, overall, seed):
    if isinstance(match_threshold, bool) or not isinstance(match_threshold, (int, float)) \
            or not 0 <= match_threshold <= 1:
        raise ParameterError(f"match_threshold must be a number in [0, 1]; got {match_threshold!r}")
    if isinstance(n_chance, bool) or not isinstance(n_chance, (int, np.integer)) or n_chance < 1:
        raise ParameterError(f"n_chance must be a positive integer; got {n_chance!r}")
    if overall not in _OVERALL:
        raise ParameterError(f"overall must be one of {_OVERALL}; got {overall!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer; got {seed!r}")


def pair_tables(df: pd.DataFrame, *, distance=DEFAULT_DISTANCE, match_threshold: float = 0.5,
                n_chance: int = DEFAULT_N_CHANCE, overall: str = "pooled", seed: int = 0,
                progress: bool | None = None) -> PairTables:
    """Build every within-item and between-item table the statistics need.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated here; invalid rows raise).
    distance : str or callable, default "giou"
        Distance between matched objects (see :func:`iaa_frames.distances.get_distance`).
    match_threshold : float, default 0.5
        τ: an assigned object pair is kept when its IoU >= τ.
    n_chance : int, default 2000
        Target number of chance units per stratum (see the module docstring).
    overall : {"pooled", "per_direction"}, default "pooled"
        How the set-level distance averages best matches (Braylan et al.).
    seed : int, default 0
        Seed of the chance sample.
    progress : bool, optional
        Show a progress bar; by default only for large corpora.

    Returns
    -------
    PairTables

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = pair_tables(iaf.simulate(n_items=20, seed=0), n_chance=200)
    >>> sorted(t.localization_within.columns)[:4]
    ['annotator_a', 'annotator_b', 'distance', 'iou']
    """
    _check_params(match_threshold, n_chance, overall, seed)
    dist = get_distance(distance)
    corpus = prepare(df)
    tau = float(match_threshold)
    ann = corpus.annotations
    a, b = _within_pairings(ann)
    work = int((ann.count[a] * ann.count[b]).sum())
    bar = tqdm(total=work, unit="pairs", unit_scale=True, desc="matching",
               disable=(work < _PROGRESS_MIN_PAIRS) if progress is None else not progress)

    def match(slots, pa, pb, sets=True, cache=None):
        return run(corpus, slots, pa, pb, tau=tau, distance=dist, overall=overall, sets=sets,
                   cache=cache, progress=bar.update)

    with bar:
        cache = IoUCache()  # the per-class run meets the same polygon pairs again
        whole = match(ann, a, b, cache=cache)
        pl, ll = _labels_of_pairings(corpus, a, b)
        la, lb = _to_label_slots(corpus, a[pl], b[pl], ll)
        by_label = match(corpus.by_label, la, lb, cache=cache)
        del cache

        rng = np.random.default_rng(seed)
        cap = max(50 * n_chance, 50_000)
        uniform = _uniform_stratum(rng, corpus, n_chance, cap, match)
        loc_strata = _label_localization_strata(rng, corpus, n_chance, cap, match)
        da, db, dg = _label_detection_strata(rng, corpus, n_chance)
        dla, dlb = _to_label_slots(corpus, da, db, dg)
        det_strata = match(corpus.by_label, dla, dlb)

    loc_within = _localization_frame(corpus, whole, a, b, ann).drop(columns="item_b") \
        .rename(columns={"item_a": "item"})
    loc_between = pd.concat(
        [_localization_frame(corpus, m, pa, pb, ann, stratum=-1) for pa, pb, m in uniform]
        + [_localization_frame(corpus, m, pa, pb, ann, stratum=g)[keep]
           for pa, pb, g, m, keep in loc_strata],
        ignore_index=True,
    ) if uniform or loc_strata else _localization_frame(corpus, Matched.empty(), a[:0], b[:0],
                                                        ann, stratum=-1)
    sets_within = pd.concat([
        _sets_frame(whole, a, b, ann, -1),
        _sets_frame(by_label, a[pl], b[pl], ann, ll),
    ], ignore_index=True).drop(columns="item_b").rename(columns={"item_a": "item"})
    sets_between = pd.concat(
        [_sets_frame(m, pa, pb, ann, -1) for pa, pb, m in uniform[:1]]
        + [_sets_frame(det_strata, da, db, ann, dg)],
        ignore_index=True,
    )
    cluster = clusters(len(corpus.objects), whole.pair_a, whole.pair_b, whole.pair_iou,
                       corpus.annotator)
    units = pd.DataFrame({"item": corpus.item, "annotator": corpus.annotator,
                          "label": corpus.label, "cluster": cluster})
    coverage = pd.DataFrame({"item": ann.item[:-1], "annotator": ann.annotator[:-1]})
    params = dict(distance=dist.name, match_threshold=tau, n_chance_target=int(n_chance),
                  overall=overall, seed=int(seed), normalization=corpus.normalization)
    return PairTables(corpus=corpus, localization_within=loc_within,
                      localization_between=loc_between, sets_within=sets_within,
                      sets_between=sets_between, units=units, coverage=coverage, params=params)


def _named(tables: PairTables, frame: pd.DataFrame) -> pd.DataFrame:
    """Replace codes by names, object indices by object ids."""
    c = tables.corpus
    labels = np.append(c.labels, ALL)  # code -1 -> "(all)"
    ids = c.objects["object_id"].to_numpy()
    out = {}
    for col in frame.columns:
        v = frame[col].to_numpy()
        if col.startswith("item"):
            out[col] = c.items[v]
        elif col.startswith("annotator"):
            out[col] = c.annotators[v]
        elif col.startswith("label") or col == "stratum":
            out[col] = labels[v]
        elif col.startswith("object"):
            out[col.replace("object", "object_id")] = ids[v]
        else:
            out[col] = v
    return pd.DataFrame(out)


def within(df: pd.DataFrame, **kwargs) -> pd.DataFrame:
    """Matched within-item object pairs, one row per pair.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    **kwargs
        Keyword-only parameters of :func:`pair_tables` (``distance``,
        ``match_threshold``, ...).

    Returns
    -------
    pandas.DataFrame
        Columns ``item, annotator_a, annotator_b, label_a, label_b, object_id_a,
        object_id_b, iou, distance``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> w = within(iaf.simulate(n_items=5, seed=0), n_chance=50)
    >>> list(w.columns)
    ['item', 'annotator_a', 'annotator_b', 'label_a', 'label_b', 'object_id_a', 'object_id_b', 'iou', 'distance']
    """
    t = pair_tables(df, **kwargs)
    return _named(t, t.localization_within)


def between(df: pd.DataFrame, **kwargs) -> pd.DataFrame:
    """The sampled between-item (chance) object pairs, one row per matched pair.

    Built by the same matcher, with the same threshold, as :func:`within`, on pairings of
    the annotation of item i by annotator a and of item j by annotator b (i != j,
    a != b). ``stratum`` says which stratum of the chance sample the row belongs to:
    ``"(all)"`` for the uniform sample, or a class.

    Parameters
    ----------
    df : pandas.DataFrame
    **kwargs
        Keyword-only parameters of :func:`pair_tables`.

    Returns
    -------
    pandas.DataFrame
        Columns ``item_a, item_b, annotator_a, annotator_b, label_a, label_b,
        object_id_a, object_id_b, iou, distance, stratum``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> b = between(iaf.simulate(n_items=10, seed=0), n_chance=50)
    >>> bool((b["item_a"] != b["item_b"]).all())
    True
    """
    t = pair_tables(df, **kwargs)
    return _named(t, t.localization_between)
