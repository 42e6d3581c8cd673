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

The chance sample is drawn by :mod:`iaa_frames.chance`, whose docstring documents the
strata and the default target ``n_chance``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .chance import (
    DEFAULT_N_CHANCE,
    label_detection_strata,
    label_localization_strata,
    uniform_stratum,
)
from .comparability import require_comparable
from .corpus import Corpus, Slices, prepare
from .distances import DEFAULT_DISTANCE, get_distance
from .errors import ParameterError
from .frame import ALL
from .matching import _starts, clusters
from .pipeline import IoUCache, Matched, can_match, run

__all__ = ["DEFAULT_N_CHANCE", "PairTables", "pair_tables", "within", "between"]

_PROGRESS_MIN_PAIRS = 5_000_000
_MIN_LABEL_TARGET = 200  # chance pairs per class, at least (see iaa_frames.chance)
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


def _check_params(match_threshold, n_chance, overall, seed, progress):
    if isinstance(match_threshold, bool) or not isinstance(match_threshold, (int, float)) \
            or not 0 <= match_threshold <= 1:
        raise ParameterError(f"match_threshold must be a number in [0, 1]; got {match_threshold!r}")
    if isinstance(n_chance, bool) or not isinstance(n_chance, (int, np.integer)) or n_chance < 1:
        raise ParameterError(f"n_chance must be a positive integer; got {n_chance!r}")
    if overall not in _OVERALL:
        raise ParameterError(f"overall must be one of {_OVERALL}; got {overall!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer; got {seed!r}")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"progress must be None, True or False; got {progress!r}")


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
    require_comparable(df)
    _check_params(match_threshold, n_chance, overall, seed, progress)
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

        def reachable(slots, pa, pb):
            return can_match(corpus, slots, pa, pb, tau=tau)

        rng = np.random.default_rng(seed)
        uniform = uniform_stratum(rng, corpus, n_chance, match, reachable)
        la_, lb_ = corpus.label[whole.pair_a], corpus.label[whole.pair_b]
        within_per_label = np.bincount(la_[la_ == lb_], minlength=len(corpus.labels))
        label_target = np.minimum(n_chance, np.maximum(_MIN_LABEL_TARGET, 5 * within_per_label))
        loc_strata = label_localization_strata(rng, corpus, label_target, match, reachable)
        da, db, dg = label_detection_strata(rng, corpus, n_chance)
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
