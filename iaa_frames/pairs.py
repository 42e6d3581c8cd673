"""Within-item and between-item pair tables.

:func:`pair_tables` builds every table the statistics need, once:

* **localization**: one row per matched object pair, within items and between items;
* **sets**: one row per pairing of two annotations, with the detection distance
  (1 - F1 of their matching) and the set-level ``overall`` distance; for the whole
  annotations (``label == -1``) and for annotations restricted to each class;
* **units**: every object with its cluster, for classification α and presence α.

Between-item rows are *chance pairings*: the annotation of item i by annotator a and of
item j by annotator b, i != j and a != b, drawn at random (seeded) and sent through the
same pipeline, with the same threshold, as the within-item pairings.

The chance sample is drawn by :mod:`iaa_frames.chance`, whose docstring documents the
strata and the default target ``n_chance``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from .progress import DELAY, tqdm

from . import chance
from .chance import DEFAULT_N_CHANCE, MIN_CHANCE_UNITS, POOL_NEIGHBOURS, ChanceSample, WithinCounts
from .comparability import require_comparable
from .corpus import Corpus, Slices, prepare
from .distances import get_distance
from .frame import ALL
from .matching import clusters, run_starts
from .pipeline import IoUCache, Matched, can_match, run
from .thresholds import check_thresholds
from .settings import DEFAULTS, MatchSettings

__all__ = ["DEFAULT_N_CHANCE", "PairTables", "iter_pair_tables", "pair_tables",
           "pair_tables_by_threshold", "within", "between"]

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
        between rows are distinct and carry the flags of the strata that drew them
        (``in_uniform``, ``in_annotator_a``, ``in_annotator_b``, ``in_pair``,
        ``in_label``; see docs/CONTRACTS.md).
    sets_within, sets_between : pandas.DataFrame
        One row per pairing and ``label`` (-1 = whole annotations): ``n_a``, ``n_b``,
        ``n_matched``, ``detection`` (1 - F1; per class from the label-agnostic matching)
        and ``overall`` (set distance); between rows carry strata flags too.
    units : pandas.DataFrame
        One row per object: ``item``, ``annotator``, ``label``, ``cluster``.
    coverage : pandas.DataFrame
        One row per (item, annotator) that covered the item.
    localization_pooled : pandas.DataFrame
        ``label, row, weight``: the uniform chance rows a class borrows (with weights) when
        its own chance population is too small.
    label_source : numpy.ndarray of str
        Per class: how its localization chance units were formed ("enumerated",
        "sampled", "pooled").
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
    localization_pooled: pd.DataFrame = None
    label_source: np.ndarray = None
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        c = self.corpus
        rows = ", ".join(f"{name} {len(getattr(self, name)):,}" for name in (
            "localization_within", "localization_between", "sets_within", "sets_between",
            "units"))
        return (f"<PairTables: {len(c.items):,} items, {len(c.annotators):,} annotators, "
                f"{len(c.labels):,} classes; chance population "
                f"{self.params.get('chance_population', '?')}; rows: {rows}>")


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
    b = a + 1 + np.arange(len(a)) - run_starts(later)[np.repeat(np.arange(n), later)]
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
        k = np.arange(len(pairing)) - run_starts(n_lab[side])[pairing]
        rows.append(pairing * len(corpus.labels) + bl.label[first[side][pairing] + k])
    both = np.unique(np.concatenate(rows))
    return both // len(corpus.labels), both % len(corpus.labels)


def _to_label_slots(corpus: Corpus, a, b, label):
    ann = corpus.annotations
    return (corpus.by_label_of(ann.item[a], ann.annotator[a], label),
            corpus.by_label_of(ann.item[b], ann.annotator[b], label))


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


def _sets_frame(m: Matched, a, b, slots, label, **replace):
    """One row per pairing; ``replace`` overrides columns (per-class detection)."""
    columns = {
        "item_a": slots.item[a], "item_b": slots.item[b],
        "annotator_a": slots.annotator[a], "annotator_b": slots.annotator[b],
        "label": label, "n_a": m.set_n_a, "n_b": m.set_n_b, "n_matched": m.set_matched,
        "detection": m.set_detection, "overall": m.set_overall,
    }
    columns.update(replace)
    return pd.DataFrame(columns)


def _count_by_key(keys, query) -> np.ndarray:
    """How many times each ``query`` value occurs in ``keys``."""
    values, counts = np.unique(keys, return_counts=True)
    if not len(values):
        return np.zeros(len(query), dtype=np.int64)
    pos = np.minimum(np.searchsorted(values, query), len(values) - 1)
    return np.where(values[pos] == query, counts[pos], 0)


def _objects_of(slots: Slices, s):
    """(position in ``s``, object) for every object of the slots ``s``."""
    n = slots.count[s]
    owner = np.repeat(np.arange(len(s)), n)
    return owner, slots.start[s][owner] + np.arange(len(owner)) - run_starts(n)[owner]


def _class_detection(corpus: Corpus, slots: Slices, a, b, m: Matched, pl, ll):
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
    found = _count_by_key(np.concatenate([pp * L + la, (pp * L + lb)[lb != la]]), query)
    out = {"n_matched": found}
    for side, s, lab in (("a", a, la), ("b", b, lb)):
        owner, obj = _objects_of(slots, s)
        n = _count_by_key(owner * L + corpus.label[obj], query)
        out[f"n_{side}"] = n
        out[f"u_{side}"] = n - _count_by_key(pp * L + lab, query)
    unmatched = out.pop("u_a") + out.pop("u_b")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["detection"] = np.where(unmatched + found > 0,
                                    unmatched / (2.0 * found + unmatched), 0.0)
    return out


def _within_counts(corpus: Corpus, a, b, whole: Matched, ll) -> WithinCounts:
    A, L = len(corpus.annotators), len(corpus.labels)
    ann = corpus.annotations
    aa, ab = ann.annotator[a], ann.annotator[b]
    pair = np.zeros((A, A), dtype=np.int64)
    np.add.at(pair, (np.minimum(aa, ab), np.maximum(aa, ab)), 1)
    oa, ob = corpus.annotator[whole.pair_a], corpus.annotator[whole.pair_b]
    la, lb = corpus.label[whole.pair_a], corpus.label[whole.pair_b]
    return WithinCounts(
        sets_annotator=np.bincount(aa, minlength=A) + np.bincount(ab, minlength=A),
        sets_pair=pair,
        sets_label=np.bincount(ll, minlength=L),
        loc_annotator=np.bincount(oa, minlength=A) + np.bincount(ob, minlength=A),
        loc_label=np.bincount(la[la == lb], minlength=L),
    )


def pair_tables(df: pd.DataFrame, *, distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
                n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall, seed: int = DEFAULTS.seed,
                progress: bool | None = DEFAULTS.progress) -> PairTables:
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
        Target number of chance units of the uniform stratum (see
        :mod:`iaa_frames.chance`, which also says when the chance population is
        enumerated instead of sampled).
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
    require_comparable(df)
    MatchSettings(distance=distance, match_threshold=match_threshold, n_chance=n_chance,
                  seed=seed, overall=overall, progress=progress).single()
    return _tables(prepare(df), float(match_threshold), get_distance(distance), n_chance,
                   overall, seed, progress, IoUCache())


def pair_tables_by_threshold(df: pd.DataFrame, *, thresholds, distance=DEFAULTS.distance,
                             n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall,
                             seed: int = DEFAULTS.seed, progress: bool | None = DEFAULTS.progress) -> list[PairTables]:
    """The pair tables at each of several match thresholds, sharing what τ does not change.

    The frame is validated and prepared once, and the exact IoU, distance and similarity
    of an object pair involving a polygon, computed at one threshold, are reused at the
    others (one :class:`~iaa_frames.pair_cache.IoUCache` for every run). The matching, the
    chance sample
    (drawn with the same ``seed`` at every threshold) and everything computed from them
    depend on τ and are computed for each: the tables at τ are exactly those of
    ``pair_tables(df, match_threshold=τ, ...)``.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    thresholds : float or sequence of float
        The thresholds τ, each in [0, 1]; sorted and made unique
        (:func:`iaa_frames.thresholds.check_thresholds`).
    distance, n_chance, overall, seed, progress
        As in :func:`pair_tables`; ``progress`` also shows a bar over the thresholds.

    Returns
    -------
    list of PairTables
        One per threshold, in increasing order of τ (``tables.params["match_threshold"]``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> ts = pair_tables_by_threshold(iaf.simulate(n_items=10, seed=0),
    ...                               thresholds=[0.7, 0.3], n_chance=100)
    >>> [t.params["match_threshold"] for t in ts]
    [0.3, 0.7]
    >>> len(ts[0].localization_within) >= len(ts[1].localization_within)
    True
    """
    return list(iter_pair_tables(df, thresholds=thresholds, distance=distance,
                                 n_chance=n_chance, overall=overall, seed=seed,
                                 progress=progress))


def iter_pair_tables(df: pd.DataFrame, *, thresholds, distance=DEFAULTS.distance,
                     n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall, seed: int = DEFAULTS.seed,
                     progress: bool | None = DEFAULTS.progress):
    """The tables of :func:`pair_tables_by_threshold`, one threshold at a time (a
    generator: only one threshold's tables need to be in memory).

    The parameters are checked and the frame prepared on the first ``next()``.

    Yields
    ------
    PairTables
        In increasing order of τ.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> for t in iter_pair_tables(iaf.simulate(n_items=6, seed=0), thresholds=[0.5, 0.2],
    ...                           n_chance=50):
    ...     print(t.params["match_threshold"], len(t.localization_within) > 0)
    0.2 True
    0.5 True
    """
    taus, _ = check_thresholds(thresholds)
    require_comparable(df)
    MatchSettings(distance=distance, match_threshold=taus[0], n_chance=n_chance,
                  seed=seed, overall=overall, progress=progress)
    dist = get_distance(distance)
    corpus = prepare(df)
    cache = IoUCache()  # a pair's IoU, distance and similarity do not depend on τ
    ann = corpus.annotations
    a, b = _within_pairings(ann)
    work = int((ann.count[a] * ann.count[b]).sum()) * len(taus)
    with tqdm(taus, unit="threshold", desc="thresholds",
              disable=(work < _PROGRESS_MIN_PAIRS) if progress is None else not progress,
              delay=0 if progress else DELAY) as bar:
        for tau in bar:
            bar.set_postfix_str(f"τ = {tau:g}", refresh=False)
            yield _tables(corpus, tau, dist, n_chance, overall, seed, progress, cache)


def _tables(corpus: Corpus, tau: float, dist, n_chance, overall, seed, progress,
            cache: IoUCache) -> PairTables:
    """The tables of :func:`pair_tables` at threshold ``tau`` of a prepared corpus.

    ``cache`` serves every run (whole annotations, by class, chance); a pair's IoU,
    distance and similarity do not depend on τ, so it may be shared with runs at other
    thresholds.
    """
    ann = corpus.annotations
    a, b = _within_pairings(ann)
    work = int((ann.count[a] * ann.count[b]).sum())
    bar = tqdm(total=work, unit="pairs", unit_scale=True, desc="matching",
               disable=(work < _PROGRESS_MIN_PAIRS) if progress is None else not progress,
               delay=0 if progress else DELAY)

    def match(slots, pa, pb, sets=True, counted=True):
        if not counted:  # chance work is only known once drawn: grow the total
            bar.total += int((slots.count[pa] * slots.count[pb]).sum())
            bar.refresh()
        return run(corpus, slots, pa, pb, tau=tau, distance=dist, overall=overall, sets=sets,
                   cache=cache, advance=bar.update)

    with bar:
        whole = match(ann, a, b)
        pl, ll = _labels_of_pairings(corpus, a, b)
        la, lb = _to_label_slots(corpus, a[pl], b[pl], ll)
        bar.total += int((corpus.by_label.count[la] * corpus.by_label.count[lb]).sum())
        by_label = match(corpus.by_label, la, lb)
        sample = chance.draw(
            corpus, lambda pa, pb, sets: match(ann, pa, pb, sets=sets, counted=False),
            _within_counts(corpus, a, b, whole, ll), n_chance=int(n_chance), seed=int(seed),
            tau=tau,
            reachable=lambda pa, pb: can_match(corpus, ann, pa, pb, tau=tau),
            label_reachable=lambda pa, pb, lab: can_match(
                corpus, corpus.by_label, *_to_label_slots(corpus, pa, pb, lab), tau=tau))
        # per-class chance rows of detection and overall
        if sample.exact:  # every pairing, for every class either side contains
            d_idx, d_group = _labels_of_pairings(corpus, sample.a, sample.b)
        else:
            d_group, d_key = sample.draws.keys(chance.SETS_LABEL)
            by_key = np.argsort(sample.key)
            d_idx = by_key[np.searchsorted(sample.key, d_key, sorter=by_key)]
        dla, dlb = _to_label_slots(corpus, sample.a[d_idx], sample.b[d_idx], d_group)
        bar.total += int((corpus.by_label.count[dla] * corpus.by_label.count[dlb]).sum())
        d_restricted = match(corpus.by_label, dla, dlb)

    loc_within = _localization_frame(corpus, whole, a, b, ann).drop(columns="item_b") \
        .rename(columns={"item_a": "item"})
    sets_within = pd.concat([
        _sets_frame(whole, a, b, ann, -1),
        _sets_frame(by_label, a[pl], b[pl], ann, ll,
                    **_class_detection(corpus, ann, a, b, whole, pl, ll)),
    ], ignore_index=True).drop(columns="item_b").rename(columns={"item_a": "item"})
    sets_between, loc_between = _between_frames(corpus, sample, d_idx, d_group, d_restricted)
    pooled, source = _pooled_baseline(corpus, loc_within, loc_between, sample)
    cluster = clusters(len(corpus.objects), whole.pair_a, whole.pair_b, whole.pair_iou,
                       corpus.annotator)
    units = pd.DataFrame({"item": corpus.item, "annotator": corpus.annotator,
                          "label": corpus.label, "cluster": cluster})
    coverage = pd.DataFrame({"item": ann.item[:-1], "annotator": ann.annotator[:-1]})
    params = dict(distance=dist.name, match_threshold=tau, n_chance_target=int(n_chance),
                  overall=overall, seed=int(seed), normalization=corpus.normalization,
                  chance_population="enumerated" if sample.exact else "sampled")
    return PairTables(corpus=corpus, localization_within=loc_within,
                      localization_between=loc_between, sets_within=sets_within,
                      sets_between=sets_between, units=units, coverage=coverage,
                      localization_pooled=pooled, label_source=source, params=params)


def _between_frames(corpus: Corpus, sample: ChanceSample, d_idx, d_group, d_restricted):
    """The chance tables: one row per distinct pairing (sets) and matched pair."""
    ann = corpus.annotations
    A = len(corpus.annotators)
    n_groups = max(A * A, len(corpus.labels), 1)
    m = sample.matched
    s = np.flatnonzero(sample.has_sets)
    sets = _sets_frame_rows(m, s, sample.a[s], sample.b[s], ann)
    key = sample.key[s]
    aa, ab = ann.annotator[sample.a[s]], ann.annotator[sample.b[s]]
    d = sample.draws
    lo, hi = np.minimum(aa, ab), np.maximum(aa, ab)
    sets["in_uniform"] = d.contains((chance.SETS_UNIFORM,), 0, key, n_groups)
    sets["in_annotator_a"] = d.contains((chance.SETS_ANNOTATOR,), aa, key, n_groups)
    sets["in_annotator_b"] = d.contains((chance.SETS_ANNOTATOR,), ab, key, n_groups)
    sets["in_pair"] = d.contains((chance.SETS_PAIR,), lo * A + hi, key, n_groups)
    det = _class_detection(corpus, ann, sample.a[d_idx], sample.b[d_idx], _subset(m, d_idx),
                           np.arange(len(d_idx)), d_group)
    by_class = _sets_frame(d_restricted, sample.a[d_idx], sample.b[d_idx], ann, d_group, **det)
    for flag in ("in_uniform", "in_annotator_a", "in_annotator_b", "in_pair"):
        by_class[flag] = flag == "in_uniform"
    sets_between = pd.concat([sets, by_class], ignore_index=True)

    loc = _localization_frame(corpus, m, sample.a, sample.b, ann)
    key = sample.key[m.pair_pairing]
    aa, ab = loc["annotator_a"].to_numpy(), loc["annotator_b"].to_numpy()
    la, lb = loc["label_a"].to_numpy(), loc["label_b"].to_numpy()
    lo, hi = np.minimum(aa, ab), np.maximum(aa, ab)
    uni = (chance.SETS_UNIFORM, chance.LOC_UNIFORM)
    own = (chance.SETS_ANNOTATOR, chance.LOC_ANNOTATOR)
    loc["in_uniform"] = d.contains(uni, 0, key, n_groups)
    loc["in_annotator_a"] = d.contains(own, aa, key, n_groups)
    loc["in_annotator_b"] = d.contains(own, ab, key, n_groups)
    loc["in_pair"] = d.contains((chance.SETS_PAIR,), lo * A + hi, key, n_groups)
    loc["in_label"] = (la == lb) & d.contains((chance.SETS_LABEL, chance.LOC_LABEL), la, key,
                                              n_groups)
    flags = ["in_uniform", "in_annotator_a", "in_annotator_b", "in_pair", "in_label"]
    loc = loc[loc[flags].any(axis=1).to_numpy()].reset_index(drop=True)
    return sets_between, loc


def _subset(m: Matched, idx) -> Matched:
    """The matching of the pairings ``idx`` only (renumbered 0..len(idx)-1)."""
    idx = np.asarray(idx, dtype=np.int64)
    # a pairing may be listed several times (one per class): repeat its matched pairs
    order = np.argsort(m.pair_pairing, kind="stable")
    starts = np.searchsorted(m.pair_pairing[order], np.arange(len(m.set_n_a)))
    count = np.bincount(m.pair_pairing, minlength=len(m.set_n_a))
    n = count[idx]
    owner = np.repeat(np.arange(len(idx)), n)
    rows = order[starts[idx][owner] + np.arange(len(owner)) - run_starts(n)[owner]]
    return Matched(owner, m.pair_a[rows], m.pair_b[rows], m.pair_iou[rows],
                   m.pair_distance[rows], m.set_n_a[idx], m.set_n_b[idx], m.set_matched[idx],
                   m.set_detection[idx], m.set_overall[idx])


def _sets_frame_rows(m: Matched, rows, a, b, slots):
    """The sets frame of the pairings ``rows`` of a Matched (label -1)."""
    return pd.DataFrame({
        "item_a": slots.item[a], "item_b": slots.item[b],
        "annotator_a": slots.annotator[a], "annotator_b": slots.annotator[b],
        "label": -1, "n_a": m.set_n_a[rows], "n_b": m.set_n_b[rows],
        "n_matched": m.set_matched[rows], "detection": m.set_detection[rows],
        "overall": m.set_overall[rows],
    })


def _object_features(corpus: Corpus, objects) -> np.ndarray:
    """Shape features of objects: log size, log aspect ratio, fill of the box."""
    box = corpus.shapes.boxes[objects]
    w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    area = corpus.area[objects]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack([0.5 * np.log(np.maximum(area, 1e-12)),
                                np.log(np.maximum(w, 1e-12) / np.maximum(h, 1e-12)),
                                np.clip(area / np.maximum(w * h, 1e-24), 0, 1)])


def _pooled_baseline(corpus: Corpus, loc_within, loc_between, sample: ChanceSample):
    """Chance units of classes whose own localization population is too small.

    A class with at least two within pairs but fewer than ``MIN_CHANCE_UNITS`` chance
    pairs of its own borrows the uniform stratum's chance pairs (any classes), weighted
    by shape: each of the class's within pairs takes its ``POOL_NEIGHBOURS`` nearest
    uniform chance pairs in (log size, log aspect ratio, fill) of the pair's two objects,
    standardized (with every pair tied with the last one, sharing the within pair's unit
    weight), and a chance pair's weight is the share of the class's within pairs that
    took it. Under the match threshold, the overlap two unrelated shapes reach by
    coincidence depends on their relative shapes and sizes, not on their class.

    Returns
    -------
    pooled : DataFrame (label, row, weight)
    source : ndarray of str, per class: "enumerated", "sampled", "pooled" or ""
    """
    L = len(corpus.labels)
    source = sample.label_source.copy()
    wa, wb = loc_within["label_a"].to_numpy(), loc_within["label_b"].to_numpy()
    within_n = np.bincount(wa[wa == wb], minlength=L)
    ba, bb = loc_between["label_a"].to_numpy(), loc_between["label_b"].to_numpy()
    own = (ba == bb) & (loc_between["in_uniform"].to_numpy() | loc_between["in_label"].to_numpy())
    own_n = np.bincount(ba[own], minlength=L)
    source = np.where((own_n > 0) & (source == ""), "sampled", source)
    need = (within_n >= 2) & (own_n < MIN_CHANCE_UNITS)
    empty = pd.DataFrame({"label": np.zeros(0, np.int64), "row": np.zeros(0, np.int64),
                          "weight": np.zeros(0)})
    pool_rows = np.flatnonzero(loc_between["in_uniform"].to_numpy())
    if not need.any() or not len(pool_rows):
        return empty, source
    from scipy.spatial import cKDTree

    def features(frame, rows):
        return (_object_features(corpus, frame["object_a"].to_numpy()[rows])
                + _object_features(corpus, frame["object_b"].to_numpy()[rows])) / 2

    pool_x = features(loc_between, pool_rows)
    scale = pool_x.std(axis=0)
    scale[~(scale > 0)] = 1.0
    queries = np.flatnonzero((wa == wb) & need[wa])
    q_label = wa[queries]
    k = min(POOL_NEIGHBOURS, len(pool_rows))
    tree, x = cKDTree(pool_x / scale), features(loc_within, queries) / scale
    reach, _ = tree.query(x, k=k)
    reach = np.asarray(reach).reshape(len(queries), k)[:, -1]
    # every pooled pair as near as the k-th nearest: ties are all taken (shared weight),
    # so the weights never depend on the order of the rows
    found = tree.query_ball_point(x, r=reach * (1 + 1e-9) + 1e-12)
    size = np.array([len(f) for f in found], dtype=np.int64)
    nearest = np.concatenate([np.asarray(f, dtype=np.int64) for f in found]) if len(found) \
        else np.zeros(0, np.int64)
    query = np.repeat(np.arange(len(queries)), size)
    share = 1.0 / size[query]
    lab = q_label[query]
    key, inverse = np.unique(lab * len(pool_rows) + nearest, return_inverse=True)
    total = np.bincount(inverse, weights=share)
    label, row = key // len(pool_rows), pool_rows[key % len(pool_rows)]
    weight = total / within_n[label].astype(np.float64)
    source[need] = "pooled"
    return pd.DataFrame({"label": label, "row": row, "weight": weight}), source


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
        elif col.startswith("label"):
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
    """The between-item (chance) object pairs, one row per distinct matched pair.

    Built by the same matcher, with the same threshold, as :func:`within`, on pairings of
    the annotation of item i by annotator a and of item j by annotator b (i != j,
    a != b): all of them for a small corpus, otherwise uniform samples without
    replacement (see :mod:`iaa_frames.chance`). The ``in_*`` flags say which strata drew
    the row (docs/CONTRACTS.md).

    Parameters
    ----------
    df : pandas.DataFrame
    **kwargs
        Keyword-only parameters of :func:`pair_tables`.

    Returns
    -------
    pandas.DataFrame
        Columns ``item_a, item_b, annotator_a, annotator_b, label_a, label_b,
        object_id_a, object_id_b, iou, distance, in_uniform, in_annotator_a,
        in_annotator_b, in_pair, in_label``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> b = between(iaf.simulate(n_items=10, seed=0), n_chance=50)
    >>> bool((b["item_a"] != b["item_b"]).all())
    True
    """
    t = pair_tables(df, **kwargs)
    return _named(t, t.localization_between)


#: Public name of ``_named`` (codes to names, object indices to ids), used by the
#: ``df.iaa`` accessor on its cached tables.
named = _named


# -- public names of the steps of pair_tables(), for iaa_frames.dask, which runs the same
# steps on the partitions of a dask DataFrame and on its global index of annotations
within_pairings = _within_pairings
labels_of_pairings = _labels_of_pairings
to_label_slots = _to_label_slots
localization_frame = _localization_frame
sets_frame = _sets_frame
class_detection = _class_detection
within_counts = _within_counts
between_frames = _between_frames
pooled_baseline = _pooled_baseline
