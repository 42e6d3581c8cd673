# Over 400 lines: accuracy against a reference annotator: the definition, its bootstrap and its
# table.
"""Accuracy against a reference annotator: precision, recall, F1, IoU, label accuracy.

When one annotator is a reference (a ground-truth job, an expert), every other annotator
can be *scored* against it. This is accuracy against a reference, **not agreement**: the
reference is taken to be right, nothing is corrected for chance, and the figures are not
comparable with σ or α (an annotator can agree well with the others and still score
poorly against a reference that follows different conventions).

:func:`accuracy` computes the figures from the within-item matching of the pair tables
(the same matching, threshold τ and tables as the agreement figures): for every item
covered by both the reference and the annotator, the two annotations were paired by an
optimal assignment and a pair kept when IoU >= τ. Matching ignores labels, so a wrong
label is a label-accuracy matter, never a miss.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.errors import ParameterError
from iaa_frames.explore.conflicts import partners, reference_code, tables_of
from iaa_frames.frame.schema import ALL
from iaa_frames.progress import tqdm
from iaa_frames.settings.parameters import DEFAULTS, check_int, engine_kwargs
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.bootstrap import ItemSums, block_size, multiplicity_blocks
from iaa_frames.stats.samples import percentile_ci

__all__ = ["ACCURACY_METRICS", "CI_LEVEL", "accuracy", "accuracy_frame"]

#: Coverage of the bootstrap intervals.
CI_LEVEL = 0.95

#: metric -> (long_name, description), in Dataset order.
ACCURACY_METRICS = {
    "precision": (
        "precision",
        (
            "Share of the annotator's objects matched to a reference object (IoU >= τ, any "
            "label). For a class: the annotator's objects of that class."
        ),
    ),
    "recall": (
        "recall",
        (
            "Share of the reference's objects matched by one of the annotator's objects "
            "(IoU >= τ, any label): 1 - miss rate. For a class: the reference's objects of "
            "that class."
        ),
    ),
    "f1": (
        "F1",
        (
            "Harmonic mean of precision and recall; for '(all)' classes 2 n_matched / "
            "(n_reference + n_annotator), i.e. 1 minus the detection distance. 0 when nothing "
            "matched."
        ),
    ),
    "mean_iou": (
        "mean IoU of matched pairs",
        (
            "Mean IoU of the matched (reference, annotator) object pairs; for a class, the "
            "pairs whose reference object carries it. Uncorrected for chance."
        ),
    ),
    "label_accuracy": (
        "label accuracy",
        (
            "Share of matched pairs where the annotator gives the reference's label: 1 - "
            "confusion rate. For a class: among pairs whose reference object carries it (the "
            "row-normalized diagonal of the confusion matrix)."
        ),
    ),
}

_Q = ("tp_ref", "n_ref", "tp_ann", "n_ann", "iou_sum", "n_pairs", "n_agree")
_QI = {q: i for i, q in enumerate(_Q)}
_PROGRESS_MIN_WORK = 2_000_000_000

_VARIABLES = {
    "score": (
        "accuracy against the reference",
        (
            "The metric (see the `metric` coordinate's description) of the annotator "
            "against the reference, pooled over items (ratio of sums). Accuracy against "
            "a reference, not chance-corrected agreement. NaN where the denominator is "
            "0; `note` says why."
        ),
    ),
    "ci_low": (
        "lower confidence bound",
        (
            "Lower percentile bound of the cluster-bootstrap interval of `score` (items "
            "resampled with replacement; level, n_boot and seed in the Dataset attrs). "
            "NaN when n_boot is 0 or `score` is NaN."
        ),
    ),
    "ci_high": (
        "upper confidence bound",
        "Upper percentile bound of the cluster-bootstrap interval of `score`.",
    ),
    "n_units": (
        "denominator",
        (
            "What `score` is a share or mean of: the annotator's objects (precision), "
            "the reference's objects (recall), both (f1), matched pairs (mean_iou, "
            "label_accuracy)."
        ),
    ),
    "n_reference": (
        "reference objects",
        ("Objects of the reference (of the class) on the items the annotator also covered."),
    ),
    "n_annotator": (
        "annotator objects",
        (
            "Objects of the annotator (of the class, by the annotator's label) on "
            "the items the reference also covered."
        ),
    ),
    "n_matched": (
        "matched pairs",
        (
            "Matched (reference, annotator) object pairs; for a class, those whose "
            "reference object carries it."
        ),
    ),
}


def _entries(t, ref: int):
    """(item, label cell, annotator group, quantity, value) of every contribution.

    Label cells: 0 = "(all)", 1 + label code. Groups: 0 = "(all)", 1 + rank of the
    annotator among the non-reference annotators (by name)."""
    c = t.corpus
    others = [i for i in np.argsort([str(a) for a in c.annotators], kind="stable") if i != ref]
    group = np.zeros(len(c.annotators), np.int64)
    group[others] = 1 + np.arange(len(others))
    p = partners(t)
    obj, owner, other, item = (
        p[k].to_numpy(np.int64) for k in ("object", "owner", "other", "item")
    )
    matched = p["matched"].to_numpy(float)
    out = []
    r = owner == ref  # reference objects against each annotator who covered the item
    out += [
        (item[r], 1 + c.label[obj[r]], group[other[r]], _QI["n_ref"], np.ones(r.sum())),
        (item[r], 1 + c.label[obj[r]], group[other[r]], _QI["tp_ref"], matched[r]),
    ]
    s = other == ref  # the annotators' objects against the reference
    out += [
        (item[s], 1 + c.label[obj[s]], group[owner[s]], _QI["n_ann"], np.ones(s.sum())),
        (item[s], 1 + c.label[obj[s]], group[owner[s]], _QI["tp_ann"], matched[s]),
    ]
    w = t.localization_within
    a, b = w["annotator_a"].to_numpy(np.int64), w["annotator_b"].to_numpy(np.int64)
    keep = (a == ref) | (b == ref)
    oa, ob = w["object_a"].to_numpy(np.int64)[keep], w["object_b"].to_numpy(np.int64)[keep]
    a, b = a[keep], b[keep]
    ref_obj = np.where(a == ref, oa, ob)
    ann_obj = np.where(a == ref, ob, oa)
    ann = np.where(a == ref, b, a)
    witem = w["item"].to_numpy(np.int64)[keep]
    lab = 1 + c.label[ref_obj]
    g = group[ann]
    out += [
        (witem, lab, g, _QI["iou_sum"], w["iou"].to_numpy(float)[keep]),
        (witem, lab, g, _QI["n_pairs"], np.ones(len(witem))),
        (witem, lab, g, _QI["n_agree"], (c.label[ref_obj] == c.label[ann_obj]).astype(float)),
    ]
    return out, others


def _sums(entries, n_items, n_labels, n_groups) -> ItemSums:
    """Per-item sums of every (quantity, label cell, group) column, each entry also
    counted in its "(all)" label cell and "(all)" group."""
    cells = n_labels * n_groups
    items, cols, vals = [], [], []
    for item, lab, g, q, v in entries:
        for ll in (lab, np.zeros_like(lab)):
            for gg in (g, np.zeros_like(g)):
                items.append(item)
                cols.append(q * cells + ll * n_groups + gg)
                vals.append(v)
    return ItemSums.from_entries(
        np.concatenate(items),
        np.concatenate(cols),
        np.concatenate(vals),
        n_items=n_items,
        n_columns=len(_Q) * cells,
    )


def _metrics(totals: np.ndarray, cells: int) -> np.ndarray:
    """(..., metric, cell) scores from (..., quantity * cell) totals."""
    q = totals.reshape(totals.shape[:-1] + (len(_Q), cells))
    tp_ref, n_ref, tp_ann, n_ann, iou_sum, n_pairs, n_agree = (q[..., i, :] for i in range(len(_Q)))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_ann > 0, tp_ann / np.where(n_ann > 0, n_ann, 1), np.nan)
        recall = np.where(n_ref > 0, tp_ref / np.where(n_ref > 0, n_ref, 1), np.nan)
        # 2PR / (P + R) = 2 tp_ann tp_ref / (tp_ann n_ref + tp_ref n_ann); 0 when nothing
        # matched
        den = tp_ann * n_ref + tp_ref * n_ann
        f1 = np.where(den > 0, 2 * tp_ann * tp_ref / np.where(den > 0, den, 1), 0.0)
        f1 = np.where(n_ref + n_ann > 0, f1, np.nan)
        mean_iou = np.where(n_pairs > 0, iou_sum / np.where(n_pairs > 0, n_pairs, 1), np.nan)
        label_acc = np.where(n_pairs > 0, n_agree / np.where(n_pairs > 0, n_pairs, 1), np.nan)
    return np.stack([precision, recall, f1, mean_iou, label_acc], axis=-2)


def _notes(q: np.ndarray) -> np.ndarray:
    """Why each (metric, cell) score is NaN ('' when defined)."""
    n_ref, n_ann, n_pairs = q[_QI["n_ref"]], q[_QI["n_ann"]], q[_QI["n_pairs"]]
    no_ann = np.where(n_ann > 0, "", "no objects of the annotator")
    no_ref = np.where(n_ref > 0, "", "no reference objects")
    no_both = np.where(n_ref + n_ann > 0, "", "no objects on either side")
    no_pairs = np.where(n_pairs > 0, "", "no matched pairs")
    return np.stack([no_ann, no_ref, no_both, no_pairs, no_pairs]).astype(object)


@validate_params()
def accuracy(
    data,
    *,
    reference: str,
    n_boot: int = 0,
    seed: int = DEFAULTS.seed,
    distance=DEFAULTS.distance,
    match_threshold: float = DEFAULTS.match_threshold,
    n_chance: int = DEFAULTS.n_chance,
    overall: str = DEFAULTS.overall,
    progress: bool | None = DEFAULTS.progress,
) -> xr.Dataset:
    """Score every annotator against a reference annotator (accuracy, not agreement).

    For each annotator A other than the reference R, over the items both covered (an
    item one of them never reviewed counts for neither), from the within-item matching
    at τ:

    * ``precision``: A's objects matched to one of R's / A's objects;
    * ``recall``: R's objects matched by one of A's / R's objects (1 - miss rate);
    * ``f1``: their harmonic mean (for "(all)" classes, 2 matched / (n_R + n_A));
    * ``mean_iou``: mean IoU of the matched pairs;
    * ``label_accuracy``: share of matched pairs where A gives R's label (1 - confusion
      rate).

    Each figure is a ratio of sums over items (micro-averaged). The "(all)" annotator
    pools every annotator other than the reference. Per class, matching still ignores
    labels: recall, mean IoU and label accuracy of class L use R's objects / pairs of
    class L, precision A's objects labelled L by A. Confidence intervals come from a
    cluster bootstrap over items (``n_boot`` replicates, seeded), reweighting the stored
    tables.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame, or its pair tables (reused, not recomputed).
    reference : str
        The reference annotator (e.g. a ground-truth job).
    n_boot : int, default 0
        Bootstrap replicates for ``ci_low`` / ``ci_high`` (0: none).
    seed : int, default 0
        Seed of the bootstrap (and of the chance sample when tables are built here).
    distance, match_threshold, n_chance, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame;
        ``progress`` also controls the bootstrap's progress bar.

    Returns
    -------
    xarray.Dataset
        Dims ``metric`` (precision, recall, f1, mean_iou, label_accuracy), ``label``
        ("(all)" first, then the classes by name) and ``annotator`` ("(all)" first, then
        every annotator but the reference, by name). Variables ``score``, ``ci_low``,
        ``ci_high``, ``n_units`` (the denominator) and ``note`` (why a score is NaN) on
        (metric, label, annotator); ``n_reference``, ``n_annotator``, ``n_matched`` on
        (label, annotator). Every variable and the ``metric`` coordinate carry
        ``long_name`` and ``description`` attrs; the Dataset attrs hold the reference
        and the parameters.

    Raises
    ------
    ParameterError
        When ``reference`` is not an annotator of the corpus, or for bad parameters.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=30, annotators={"gold": "perfect", "bob": "misser"},
    ...                   seed=0)
    >>> ds = accuracy(df, reference="gold", n_boot=50, n_chance=50)
    >>> ds["score"].dims
    ('metric', 'label', 'annotator')
    >>> ds["annotator"].values.tolist()
    ['(all)', 'bob']
    >>> float(ds["score"].sel(metric="precision", label="(all)", annotator="bob"))
    1.0
    >>> recall = ds["score"].sel(metric="recall", label="(all)", annotator="bob")
    >>> bool(0.5 < recall < 0.9)
    True
    """
    n_boot = check_int(n_boot, "n_boot")
    seed = check_int(seed, "seed")
    if reference is None:  # reference_code reads None as "no reference": every score NaN
        raise ParameterError("accuracy needs reference=, the name of the reference annotator")
    t = tables_of(data, **engine_kwargs(locals()))
    ref = reference_code(t, reference)
    c = t.corpus
    n_items = len(c.items)
    entries, others = _entries(t, ref)
    label_order = np.argsort([str(x) for x in c.labels], kind="stable")
    n_labels, n_groups = len(c.labels) + 1, len(others) + 1
    cells = n_labels * n_groups
    sums = _sums(entries, n_items, n_labels, n_groups)
    totals = sums.total()
    score = _metrics(totals, cells)
    q = totals.reshape(len(_Q), cells)
    note = _notes(q)
    low = np.full(score.shape, np.nan)
    high = np.full(score.shape, np.nan)
    if n_boot:
        reps = np.empty((n_boot,) + score.shape)
        step = block_size(n_boot, max(n_items, len(_Q) * cells))
        work = n_boot * max(sums.matrix.nnz, 1) * len(_Q)
        disable = (work < _PROGRESS_MIN_WORK) if progress is None else not progress
        with tqdm(total=n_boot, unit="replicate", desc="bootstrap", disable=disable) as bar:
            start = 0
            for k in multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step):
                reps[start : start + len(k)] = _metrics(sums.total(k), cells)
                start += len(k)
                bar.update(len(k))
        low, high = percentile_ci(reps, level=CI_LEVEL)
        defined = np.isfinite(score)
        low, high = np.where(defined, low, np.nan), np.where(defined, high, np.nan)
    n_units = np.stack(
        [
            q[_QI["n_ann"]],
            q[_QI["n_ref"]],
            q[_QI["n_ref"]] + q[_QI["n_ann"]],
            q[_QI["n_pairs"]],
            q[_QI["n_pairs"]],
        ]
    )

    lab_idx = np.r_[0, 1 + label_order]

    def grid(x):  # (..., cells) -> (..., label, annotator) in coordinate order
        return x.reshape(x.shape[:-1] + (n_labels, n_groups))[..., lab_idx, :]

    metric_dims = ("metric", "label", "annotator")
    cell_dims = ("label", "annotator")

    def var(name, dims, values, dtype=np.float64):
        long_name, description = _VARIABLES[name]
        return (
            dims,
            np.asarray(values, dtype=dtype),
            {"long_name": long_name, "description": description},
        )

    data_vars = {
        "score": var("score", metric_dims, grid(score)),
        "ci_low": var("ci_low", metric_dims, grid(low)),
        "ci_high": var("ci_high", metric_dims, grid(high)),
        "n_units": var("n_units", metric_dims, grid(np.rint(n_units)), np.int64),
        "n_reference": var("n_reference", cell_dims, grid(np.rint(q[_QI["n_ref"]])), np.int64),
        "n_annotator": var("n_annotator", cell_dims, grid(np.rint(q[_QI["n_ann"]])), np.int64),
        "n_matched": var("n_matched", cell_dims, grid(np.rint(q[_QI["n_pairs"]])), np.int64),
        "note": (
            metric_dims,
            grid(note).astype(object),
            {
                "long_name": "reason score is NaN",
                "description": "'' where the score is defined, else why not (an empty "
                "denominator).",
            },
        ),
    }
    labels = [ALL] + [str(x) for x in np.asarray(c.labels, dtype=object)[label_order]]
    annotators = [ALL] + [str(c.annotators[i]) for i in others]
    coords = {
        "metric": (
            "metric",
            np.array(list(ACCURACY_METRICS), dtype=object),
            {
                "long_name": "metric of accuracy against the reference",
                "description": "; ".join(f"{k}: {d}" for k, (_, d) in ACCURACY_METRICS.items()),
            },
        ),
        "metric_long_name": (
            "metric",
            np.array([v[0] for v in ACCURACY_METRICS.values()], dtype=object),
            {"long_name": "name of the metric"},
        ),
        "label": (
            "label",
            np.asarray(labels, dtype=object),
            {
                "long_name": "class",
                "description": f"{ALL!r} pools every class; a class keeps the "
                "reference's objects of that class (the annotator's, for "
                "precision)",
            },
        ),
        "annotator": (
            "annotator",
            np.asarray(annotators, dtype=object),
            {
                "long_name": "annotator",
                "description": f"an annotator scored against the reference; {ALL!r} "
                "pools every annotator but the reference",
            },
        ),
    }
    attrs = {
        "title": "iaa_frames accuracy against a reference",
        "description": "Accuracy of each annotator against the reference annotator "
        "(taken to be right): not chance-corrected, not agreement.",
        "reference": str(reference),
        **t.params,
        "n_boot": int(n_boot),
        "bootstrap_seed": int(seed),
        "ci_level": CI_LEVEL,
        "n_items": int(n_items),
    }
    return xr.Dataset(data_vars, coords=coords, attrs=attrs)


def accuracy_frame(result: xr.Dataset) -> pd.DataFrame:
    """The accuracy Dataset as a long table: one row per (metric, label, annotator).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=10, annotators={"gold": "perfect", "bob": "good"},
    ...                   seed=0)
    >>> accuracy_frame(accuracy(df, reference="gold", n_chance=50)).columns.tolist()[:4]
    ['metric', 'label', 'annotator', 'score']
    """
    if not isinstance(result, xr.Dataset) or "score" not in result:
        raise ParameterError("expected the Dataset of iaa_frames.accuracy")
    cols = ["score", "ci_low", "ci_high", "n_units", "note"]
    return result[cols].to_dataframe().reset_index()[["metric", "label", "annotator", *cols]]
