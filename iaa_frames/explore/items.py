"""Per-item drilldown: which items concentrate the disagreement.

:func:`items` sets each item's mean within-item distance against the chance distribution
of the same component, and counts the objects nobody else matched and the clusters whose
labels disagree. Everything is computed from the pair tables with grouped reductions; no
distance is recomputed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine import resolve
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import TOP, OneOf, validate_params

__all__ = ["ITEM_COLUMNS", "SORTS", "items"]

#: Columns of :func:`items` with their meaning (also in ``result.attrs["long_names"]``).
ITEM_COLUMNS = {
    "item": "item",
    "n_annotators": "annotators who covered the item",
    "n_objects": "objects drawn on the item",
    "n_pairs": "within-item units of the component",
    "mean_distance": "mean within-item distance",
    "sigma": "item agreement (1 - mean distance / chance mean)",
    "chance_percentile": "share of chance distances at or below the item's mean distance",
    "share": "share of the corpus's within-item disagreement carried by the item",
    "n_unmatched": "objects no other annotator matched",
    "n_mislabeled": "clusters whose members carry different labels",
    "excess": "disagreement beyond the corpus's mean: n_pairs x (mean_distance - corpus mean)",
    "note": "why sigma is NaN on the item (empty where it is defined)",
}

#: The component's within-item units, as a row's note names them.
_UNITS = {
    "localization": "matched pair",
    "detection": "pairing of two annotators' annotations",
    "overall": "pairing of two annotators' annotations",
    "classification": "cluster of two or more matched objects",
}

#: Orders of :func:`items`.
SORTS = ("excess", "sigma")


def _within_and_chance(t: PairTables, component: str, n_items: int, code: int):
    """Per-item sums and counts of within-item distances, and the sorted chance sample
    (label ``code``, -1 for every label)."""
    if component == "localization":
        w = t.localization_within
        la, lb = w["label_a"].to_numpy(), w["label_b"].to_numpy()
        keep = np.ones(len(w), bool) if code < 0 else (la == code) & (lb == code)
        item, dist = w["item"].to_numpy()[keep], w["distance"].to_numpy(dtype=float)[keep]
        chance = _chance_of(t, component, code)
    elif component in ("detection", "overall"):
        w = t.sets_within[t.sets_within["label"].to_numpy() == code]
        item, dist = w["item"].to_numpy(), w[component].to_numpy(dtype=float)
        chance = _chance_of(t, component, code)
    else:  # classification: pairs of members of a cluster, distance = labels differ
        return _classification(t, n_items, code)
    total = np.bincount(item, weights=dist, minlength=n_items)
    count = np.bincount(item, minlength=n_items).astype(float)
    dist, weight = chance
    mean = float(np.average(dist, weights=weight)) if weight.sum() > 0 else np.nan
    return total, count, chance, mean


def _chance_of(t: PairTables, component: str, code: int):
    """The chance distances of the (label ``code``, every annotator) cell, sorted, and
    their weights (post-stratified, pooled or aligned: the engine's,
    :func:`iaa_frames.core.engine.cell_distances`)."""
    from iaa_frames.core.engine import cell_distances

    d = cell_distances(t, component, by=None if code < 0 else "label")
    name = ALL if code < 0 else str(t.corpus.labels[code])
    d = d[(d["sample"] == "between") & (d["label"] == name) & (d["annotator"] == ALL)]
    dist, weight = d["distance"].to_numpy(dtype=float), d["weight"].to_numpy(dtype=float)
    order = np.argsort(dist, kind="stable")
    return dist[order], weight[order]


def _chance_share(chance, values) -> np.ndarray:
    """The weighted share of chance distances at or below each of ``values``."""
    dist, weight = chance
    cum = np.r_[0.0, np.cumsum(weight)]
    return cum[np.searchsorted(dist, values, side="right")] / cum[-1]


def _classification(t: PairTables, n_items: int, code: int):
    """Ordered member pairs within clusters of >= 2 objects; chance = the classification
    cell's expected disagreement (matched chance pairs, :mod:`iaa_frames.core.engine.labels`).
    For a class, labels are recoded to {class, other} and only clusters with a member of
    the class count."""
    u = t.units
    if code >= 0:
        cluster, label = u["cluster"].to_numpy(), u["label"].to_numpy()
        has = np.bincount(cluster[label == code], minlength=int(cluster.max(initial=-1)) + 1)
        u = u[has[cluster] > 0].assign(label=lambda f: (f["label"] == code).astype(np.int64))
    per_cluster = u.groupby("cluster", sort=False).agg(item=("item", "first"), n=("label", "size"))
    per_value = u.groupby(["cluster", "label"], sort=False).size().rename("n_c").reset_index()
    pairable = per_cluster[per_cluster["n"] >= 2]
    per_value = per_value[per_value["cluster"].isin(pairable.index)]
    n = pairable["n"].to_numpy(dtype=float)
    pairs = n * (n - 1)  # ordered member pairs
    n_c = per_value["n_c"].to_numpy(dtype=float)
    agree = pd.Series(n_c * (n_c - 1)).groupby(per_value["cluster"].to_numpy()).sum()
    agree = agree.reindex(pairable.index, fill_value=0.0).to_numpy()
    item = pairable["item"].to_numpy()
    total = np.bincount(item, weights=pairs - agree, minlength=n_items)
    count = np.bincount(item, weights=pairs, minlength=n_items)
    # chance: the label disagreement of matched chance pairs (engine.labels), the
    # classification cell's expected disagreement
    from iaa_frames.core.engine import CellLayout, component_cells

    layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
    cells = component_cells(t, layout, "classification")
    expected = float(cells.statistics()[1][(code + 1) * layout.n_groups])
    # count is in ordered pairs; report unordered pairs
    return total, count, None, expected


def _notes(component, label, n_annotators, count, chance_mean) -> np.ndarray:
    """Per item, why its σ is NaN ("" where it is defined): no within-item unit (no
    second annotator, or none of the component's units), else no chance distance to set
    its mean against (as :func:`iaa_frames.pairwise`'s note says why a cell is n/a)."""
    notes = np.full(len(count), "", dtype=object)
    of_class = "" if label == ALL else f" of the class {label!r}"
    unit = _UNITS[component] + of_class
    if not np.isfinite(chance_mean):
        notes[count > 0] = "no chance distance to compare the item with (chance mean n/a)"
    elif not chance_mean:
        notes[count > 0] = "no chance disagreement to compare the item with (chance mean 0)"
    notes[(count == 0) & (n_annotators >= 2)] = f"no {unit} on the item (units 0)"
    notes[n_annotators == 1] = "one annotator covered the item: nothing to compare (units 0)"
    notes[n_annotators == 0] = "no annotator covered the item (units 0)"
    return notes


def _label_code(t: PairTables, label) -> int:
    if label == ALL:
        return -1
    labels = [str(x) for x in t.corpus.labels]
    if isinstance(label, str) and label in labels:
        return labels.index(label)
    raise ParameterError(f"label must be {ALL!r} or one of the classes {labels}; got {label!r}")


def _items(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = None,
    sort: str = "excess",
    settings: MatchSettings = DEFAULTS,
) -> pd.DataFrame:
    """:func:`items` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    if not isinstance(component, str) or component not in COMPONENTS:
        raise ParameterError(f"component must be one of {COMPONENTS}; got {component!r}")
    t = resolve.tables_of(data, settings)
    code = _label_code(t, label)
    names = np.asarray(t.corpus.items)
    n_items = len(names)
    total, count, chance, chance_mean = _within_and_chance(t, component, n_items, code)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)
        sig = (
            1.0 - mean / chance_mean
            if chance_mean and np.isfinite(chance_mean)
            else np.full(n_items, np.nan)
        )
        share = total / total.sum() if total.sum() > 0 else np.where(count > 0, 0.0, np.nan)
        corpus_mean = total.sum() / count.sum() if count.sum() > 0 else np.nan
    if chance is not None and len(chance[0]) and chance[1].sum() > 0:
        pct = np.where(np.isnan(mean), np.nan, _chance_share(chance, np.nan_to_num(mean)))
    else:
        pct = np.full(n_items, np.nan)
    n_pairs = count / 2 if component == "classification" else count
    excess = np.where(count > 0, n_pairs * (mean - corpus_mean), np.nan)

    u = t.units
    n_annotators = np.bincount(t.coverage["item"].to_numpy(), minlength=n_items)
    u_item, u_label = u["item"].to_numpy(), u["label"].to_numpy()
    cluster = u["cluster"].to_numpy()
    mine = np.ones(len(u), bool) if code < 0 else u_label == code
    n_objects = np.bincount(u_item[mine], minlength=n_items)
    size = np.bincount(cluster)[cluster] if len(cluster) else np.zeros(0, np.int64)
    lonely = (size == 1) & (n_annotators[u_item] >= 2) & mine
    n_unmatched = np.bincount(u_item[lonely], minlength=n_items)
    per_cluster = (
        u.assign(mine=mine)
        .groupby("cluster", sort=False)
        .agg(
            item=("item", "first"),
            n=("label", "size"),
            n_labels=("label", "nunique"),
            mine=("mine", "any"),
        )
    )
    bad = per_cluster[(per_cluster["n"] >= 2) & (per_cluster["n_labels"] > 1) & per_cluster["mine"]]
    n_mislabeled = np.bincount(bad["item"].to_numpy(), minlength=n_items)

    out = pd.DataFrame(
        {
            "item": names,
            "n_annotators": n_annotators.astype(np.int64),
            "n_objects": n_objects.astype(np.int64),
            "n_pairs": n_pairs.astype(np.int64),
            "mean_distance": mean,
            "sigma": sig,
            "chance_percentile": pct,
            "share": share,
            "n_unmatched": n_unmatched.astype(np.int64),
            "n_mislabeled": n_mislabeled.astype(np.int64),
            "excess": excess,
            "note": _notes(component, label, n_annotators, count, chance_mean),
        }
    )
    key = -excess if sort == "excess" else sig
    key = np.where(np.isnan(key), np.inf, key)
    order = np.lexsort(
        (names.astype(str), -out["n_mislabeled"].to_numpy(), -out["n_unmatched"].to_numpy(), key)
    )
    out = out.iloc[order].reset_index(drop=True)
    if top is not None:
        out = out.head(int(top))
    out.attrs = {
        "component": component,
        "label": str(label),
        "sort": sort,
        "chance_mean": float(chance_mean),
        "corpus_mean": float(corpus_mean),
        "distance": str(t.params.get("distance", "")),
        "long_names": dict(ITEM_COLUMNS),
    }
    return out


@validate_params({"top": TOP, "sort": OneOf(SORTS)}, engine=False)
def items(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = None,
    sort: str = "excess",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Per-item drilldown table, the items that carry the most disagreement first.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame (pair tables are built from it with the parameters below)
        or the tables of :func:`iaa_frames.core.tables.pairs.pair_tables`.
    component : {"localization", "detection", "overall", "classification"}
        Which within-item units are set against chance:

        * ``"localization"``: matched object pairs, distance as chosen; chance = the
          uniform stratum of the between-item matched pairs;
        * ``"detection"`` / ``"overall"``: pairings of two annotations of the item
          (whole annotations), distance 1 - F1 / the set distance; chance = the uniform
          between-item pairings;
        * ``"classification"``: pairs of members of the same cluster, distance 1 when their
          labels differ; chance = the share of matched chance pairs whose labels differ
          (the classification cell's expected disagreement; ``chance_percentile`` is
          NaN: a 0/1 distance has no useful percentile).
    label : str, default "(all)"
        One class: localization pairs whose two objects carry it (chance: its stratum),
        detection / overall pairings of the annotations restricted to it, classification
        clusters with a member of it (labels recoded to {class, other}); the object
        counts are the class's objects and clusters.
    top : int, optional
        Keep only the first ``top`` items.
    sort : {"excess", "sigma"}, default "excess"
        ``"excess"``: by the disagreement the item carries beyond the corpus's mean
        (``n_pairs x (mean_distance - corpus mean)``), so that a large item with many
        poor pairs comes before a 2-pair item with one poor pair (a small item's mean is
        mostly noise); ``"sigma"``: by the item's own agreement, lowest first.
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame;
        ignored for tables.

    Returns
    -------
    pandas.DataFrame
        One row per item, columns:

        ``item``
            the item name;
        ``n_annotators``, ``n_objects``
            annotators who covered it, objects drawn on it (of the class);
        ``n_pairs``
            its within-item units of the component (matched pairs, annotator pairings,
            or member pairs of clusters);
        ``mean_distance``
            their mean distance (NaN without units);
        ``sigma``
            ``1 - mean_distance / mean chance distance``: the item's own agreement, on
            the scale of σ (0 = as far apart as unrelated annotations, negative = worse);
        ``chance_percentile``
            share of chance distances at or below ``mean_distance``: 0.4 means the item's
            average pair is as far apart as the 40th percentile of unrelated pairs;
        ``share``
            the item's share of the total within-item distance of the corpus (how much
            of the observed disagreement it carries);
        ``n_unmatched``
            objects that no other annotator matched (in a singleton cluster) on an item
            covered by at least two annotators: missed by the others, or spurious;
        ``n_mislabeled``
            clusters of at least two objects whose labels are not all equal;
        ``excess``
            ``n_pairs x (mean_distance - corpus mean)``: the disagreement the item carries
            beyond an average item of the same size (negative: better than average);
        ``note``
            why ``sigma`` is NaN on the item, empty where it is defined: no within-item
            unit (one annotator covered it, or no unit of the component on it), or no
            chance distance to compare with (as :func:`iaa_frames.pairwise`'s note).

        Sorted by ``sort`` (NaN last; ties by ``n_unmatched``, ``n_mislabeled``
        descending, then item name). ``attrs`` holds ``component``, ``label``,
        ``sort``, ``chance_mean``, ``corpus_mean`` and ``long_names`` (column ->
        meaning).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=8, annotators={"a": "good", "b": "sloppy"}, seed=0)
    >>> table = items(df, n_chance=100, top=3)
    >>> list(table.columns[:4])
    ['item', 'n_annotators', 'n_objects', 'n_pairs']
    >>> len(table), table.attrs["sort"]
    (3, 'excess')
    >>> items(df, n_chance=100, label="car").attrs["label"]
    'car'
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _items(data, component=component, label=label, top=top, sort=sort, settings=settings)
