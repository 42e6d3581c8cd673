# Over 400 lines: one public function and its one-pass assembly over all clusters (support,
# geometry, label, presence and its fallback); splitting it would scatter the frame it builds.
"""One consensus object per matched cluster, weighted by the annotators' quality.

The clusters are those of the matching (:mod:`iaa_frames.decisions.clusters`: connected
components of the matched pairs, at most one object per annotator). For every cluster:

* **support**: the annotators who drew it (``support``: how many; ``share``: their weight
  over the weight of every annotator who covered the item) and ``p_real``, the posterior
  probability that it is a real object given how many of those who saw the item drew it,
  under a mixture fitted to the corpus's clusters (real objects: beta-binomial, some are
  harder to see than others; stray boxes: binomial; :mod:`iaa_frames.decisions.presence`).
  By default
  (``quorum="auto"``) a cluster is accepted when ``p_real`` reaches the threshold that
  maximises the expected F1 (about half the F1 it reaches, Lipton et al. 2014): the
  quorum is chosen from the data. On the real crowd of Braylan et al. this took F1 against the gold
  from 0.745 (share >= 0.5) to 0.80, beyond the best single worker's 0.75
  (the source repository's decisions benchmark). A number gives a fixed quorum on
  ``share`` instead. ``min_support`` applies in both. The clusters not accepted are kept
  in :attr:`Consensus.unsupported` with the reason, never dropped silently.
* **geometry**, from the members' shapes and their annotators' weights: with quality
  weights (the default), boxes take :func:`iaa_frames.decisions.votes.robust_boxes`
  (``box_fusion="robust"``): each annotator's estimated bias of every edge removed, then a
  Huber-weighted mean with each annotator's estimated precision, all fitted on the
  corpus's clusters without any truth. On a simulated crowd with biased workers it places
  the boxes at a mean IoU with the truth of 0.89, against 0.87 with the precision-weighted
  mean (``box_fusion="mean"``, the previous default) and 0.84 for the best single worker;
  on the real crowd of Braylan et al. both fusers place the gold boxes they match about
  equally well (+0.002 of IoU), and better than the best single worker (0.817 against
  0.805 on the gold boxes both match). With equal or given weights, boxes take the mean weighted by them. A cluster with
  a polygon or mask member is fused on a grid by a weighted pixel vote or by STAPLE
  (:mod:`iaa_frames.decisions.masks`).
* **label**: the weighted vote of the members' labels, with its ``margin`` (the winner's
  weight minus the runner-up's, over the members' weight: 1 unanimous, 0 a tie).
* **agreement**: the object's own agreement, the mean IoU of its matched pairs.

Everything is computed with bincount and sorted group boundaries over all clusters at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import shapely

from iaa_frames.core.engine import resolve
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import validate
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, check_int
from iaa_frames.settings.validation import validate_params

from .clusters import members_of
from .masks import fuse_shapes
from .presence import best_f1_threshold, presence, presence_step
from .votes import BOX_FUSIONS, fuse_boxes, label_vote
from .weights import annotator_weights

__all__ = ["AUTO_FALLBACK", "METHODS", "Consensus", "consensus", "consensus_from_tables"]

#: The quorum of ``quorum="auto"`` when the presence model cannot be fitted on the corpus
#: (three or four annotators on every item, or a degenerate fit; ``params["note"]``).
AUTO_FALLBACK = 0.5

#: Fusion methods of polygon and mask clusters.
METHODS = ("vote", "staple")

_COLUMNS = [
    "support",
    "share",
    "p_real",
    "weight",
    "n_annotators",
    "margin",
    "agreement",
]


@dataclass(frozen=True)
class Consensus:
    """What :func:`consensus` returns.

    Attributes
    ----------
    objects : pandas.DataFrame
        The accepted consensus objects as a tidy annotation frame (one ``annotator``,
        ``name``; a coverage row for every covered item without an accepted object),
        with the columns ``support``, ``share``, ``p_real`` (the probability that it is a
        real object; NaN when the presence model cannot be fitted, ``params["note"]``),
        ``weight`` (the supporters' weight),
        ``n_annotators`` (who covered the item), ``margin`` and ``agreement``; who
        drew each object is in :attr:`members`.
    unsupported : pandas.DataFrame
        The clusters that were not accepted, same columns, and ``reason``.
    members : pandas.DataFrame
        Who drew what: ``item``, ``cluster`` (the ``object_id`` of the consensus object),
        ``annotator``, ``object_id`` (of the member) and ``label``.
    weights : pandas.DataFrame
        ``annotator`` and the ``weight`` used (and STAPLE's ``sensitivity``,
        ``specificity`` with ``method="staple"``).
    params : dict
        The parameters; ``quorum`` is the quorum applied (``"auto"``, or a number:
        :data:`AUTO_FALLBACK` when ``"auto"`` fell back), ``p_threshold`` the threshold on
        ``p_real`` of ``"auto"`` (NaN otherwise), ``note`` why ``"auto"`` fell back (or
        why ``p_real`` is NaN), empty otherwise.
    """

    objects: pd.DataFrame
    unsupported: pd.DataFrame
    members: pd.DataFrame
    weights: pd.DataFrame
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"<Consensus: {int(self.objects['label'].notna().sum()):,} objects, "
            f"{len(self.unsupported):,} unsupported clusters, weights={self.params['weights']}>"
        )

    def to_coco(self, directory, **options):
        """Write the accepted objects as ``{directory}/{name}.json`` (COCO,
        :func:`iaa_frames.io.writers.write_coco`); ``read_coco`` reads it back."""
        from iaa_frames.io.writers import write_coco

        return write_coco(self.objects, directory, **options)

    def to_cvat(self, directory, **options):
        """Write the accepted objects as a CVAT for images 1.1 XML
        (:func:`iaa_frames.io.writers.write_cvat`); ``read_cvat`` reads it back."""
        from iaa_frames.io.writers import write_cvat

        return write_cvat(self.objects, directory, **options)


def _tables(df, match_threshold, seed):
    """The frame's pair tables from the memo, at the engine's default chance sample (the
    tables ``iaf.agreement(df)`` computes, shared with it; only the within-item tables are
    read here)."""
    settings = MatchSettings(match_threshold=match_threshold, seed=seed)
    if settings.several:
        raise ParameterError(f"match_threshold must be one value here, got {match_threshold!r}")
    return resolve.tables_of(df, settings)


def _check(min_support, quorum, method, resolution, name, box_fusion="robust"):
    min_support = check_int(min_support, "min_support", low=1)
    if isinstance(quorum, str) and quorum == "auto":
        pass
    elif isinstance(quorum, bool) or not isinstance(quorum, int | float) or not 0 <= quorum <= 1:
        raise ParameterError(f'quorum must be "auto" or a number in [0, 1], got {quorum!r}')
    else:
        quorum = float(quorum)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    resolution = check_int(resolution, "resolution", low=4)
    if box_fusion not in BOX_FUSIONS:
        raise ParameterError(f"box_fusion must be one of {BOX_FUSIONS}, got {box_fusion!r}")
    if not isinstance(name, str) or not name:
        raise ParameterError(f"name must be a non-empty string, got {name!r}")
    return min_support, quorum, resolution


@validate_params(engine=False)
def consensus(
    df: pd.DataFrame,
    *,
    min_support: int = 1,
    quorum: float | str = "auto",
    weights="quality",
    method: str = "vote",
    box_fusion: str = "robust",
    match_threshold: float = DEFAULTS.match_threshold,
    resolution: int = 64,
    name: str = "consensus",
    seed: int = DEFAULTS.seed,
) -> Consensus:
    """One consensus object per matched cluster, weighted by each annotator's quality.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (boxes, polygons or masks; several annotators per item).
    min_support : int, default 1
        Fewest annotators who must have drawn a cluster for it to be accepted.
    quorum : "auto" or float in [0, 1], default "auto"
        ``"auto"``: accept a cluster when its probability of being a real object
        (``p_real``) reaches the threshold that maximises the expected F1 (module
        docstring; the threshold is in ``params["p_threshold"]``). When the model cannot
        be fitted on the corpus (three or four annotators on every item: the clusters'
        counts do not identify it; or a degenerate fit), a majority of the weight
        (:data:`AUTO_FALLBACK`, 0.5) instead, with the reason in ``params["note"]``
        (before, the threshold jumped between 1e-13 and 1 from corpus to corpus and could
        reject every object all annotators drew). A number: the smallest
        weighted share of the annotators who covered the item that must have drawn it
        (``share``; with equal weights, the fraction who drew it).
    weights : {"quality", "equal"} or dict {annotator: float}, default "quality"
        Each annotator's weight in the support, the geometry and the label vote
        (:func:`iaa_frames.decisions.weights.annotator_weights`: ``"quality"`` is
        :func:`iaa_frames.annotator_quality`). With ``"quality"``, box coordinates are
        averaged with each annotator's estimated precision instead
        (:func:`iaa_frames.decisions.votes.box_precision`; an annotator of weight 0 still
        counts for nothing): quality counts misses and wrong labels, which say nothing
        about where a drawn box lies.
    method : {"vote", "staple"}, default "vote"
        Fusion of clusters with polygon or mask members: weighted pixel vote, or STAPLE
        (Warfield et al. 2004; ignores ``weights``, it estimates each annotator's
        sensitivity and specificity itself).
    box_fusion : {"robust", "mean"}, default "robust"
        How the boxes of a cluster are fused with ``weights="quality"``: ``"robust"``
        removes each annotator's estimated bias of every edge and takes a Huber-weighted
        mean with each annotator's estimated precision
        (:func:`iaa_frames.decisions.votes.robust_boxes`); ``"mean"`` is the
        precision-weighted mean without either (the default before 0.x; module
        docstring). Equal or given weights always take the mean weighted by them.
    match_threshold : float, default 0.5
        τ of the matching that makes the clusters.
    resolution : int, default 64
        Cells per side of the grid a polygon cluster is fused on.
    name : str, default "consensus"
        The ``annotator`` of the consensus objects (the file name of the exports).
    seed : int, default 0
        Seed of the pair tables (their chance sample is not used here; the tables are
        those of ``iaf.agreement(df, match_threshold=..., seed=...)``, computed once).

    Returns
    -------
    Consensus

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, seed=0, annotators={
    ...     "a": "good", "b": "good", "c": "good", "d": "random"})
    >>> c = iaf.consensus(df)
    >>> c.objects.columns[:4].tolist()
    ['item', 'annotator', 'label', 'object_id']
    >>> bool((c.objects.dropna(subset=["label"])["support"] >= 2).all())
    True
    >>> c.weights.set_index("annotator")["weight"].idxmin()
    'd'
    """
    args = (min_support, quorum, method, resolution, name, box_fusion)
    min_support, quorum, resolution = _check(*args)
    df = validate(df)
    tables = _tables(df, match_threshold, seed)
    return consensus_from_tables(
        df, tables, min_support=min_support, quorum=quorum, weights=weights, method=method,
        box_fusion=box_fusion, resolution=resolution, name=name,
    )  # fmt: skip


def consensus_from_tables(
    df: pd.DataFrame,
    tables,
    *,
    min_support: int = 1,
    quorum: float | str = "auto",
    weights="quality",
    method: str = "vote",
    box_fusion: str = "robust",
    resolution: int = 64,
    name: str = "consensus",
) -> Consensus:
    """:func:`consensus` from the pair tables of ``df`` already computed (the report's).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=5, seed=0)
    >>> t = iaf.pair_tables(df, n_chance=20)
    >>> consensus_from_tables(df, t).objects["label"].notna().sum() > 0
    np.True_
    """
    args = (min_support, quorum, method, resolution, name, box_fusion)
    min_support, quorum, resolution = _check(*args)
    df = validate(df)
    corpus = tables.corpus
    w_ann = annotator_weights(tables, weights)
    m = members_of(tables)
    n_c = m.n_clusters
    objects = corpus.objects
    order = np.argsort(m.cluster, kind="stable")  # members of a cluster contiguous
    cl = m.cluster[order]
    ann = m.annotator[order]
    w = w_ann[ann]
    boxes = objects[["x0", "y0", "x1", "y1"]].to_numpy(np.float64)[order]
    geoms = objects["geometry"].to_numpy(dtype=object)[order]

    # support: who drew it, against the weight of who covered the item
    support = np.bincount(cl, minlength=n_c)
    weight = np.bincount(cl, w, n_c)
    cov = tables.coverage
    n_items = len(corpus.items)
    covered_w = np.bincount(cov["item"].to_numpy(), w_ann[cov["annotator"].to_numpy()], n_items)
    n_cov = np.bincount(cov["item"].to_numpy(), minlength=n_items)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(
            covered_w[m.cluster_item] > 0,
            weight / covered_w[m.cluster_item],
            support / np.maximum(n_cov[m.cluster_item], 1),
        )

    # geometry: weighted mean of the coordinates (equal weights where all weigh 0); with
    # "quality", the weight of a coordinate is the annotator's estimated precision
    coords = fuse_boxes(cl, ann, boxes, w, n_c, len(w_ann), weights, box_fusion)
    geometry = np.full(n_c, None, dtype=object)
    is_poly = np.bincount(cl, (~pd.isna(geoms)).astype(float), n_c) > 0
    n_raters = len(corpus.annotators)
    sens = spec = np.full(n_raters, np.nan)
    if is_poly.any():
        sel = is_poly[cl]
        poly_ids = np.flatnonzero(is_poly)
        local = np.searchsorted(poly_ids, cl[sel])
        fused, sens, spec = fuse_shapes(
            geoms[sel], boxes[sel], local, ann[sel], w[sel], len(poly_ids), n_raters,
            method=method, resolution=resolution,
        )  # fmt: skip
        geometry[poly_ids] = fused
        got = ~pd.isna(fused)
        coords[poly_ids[got]] = shapely.bounds(fused[got].astype(object))
    label, margin = label_vote(cl, m.label[order], w, n_c)
    real = presence(support, n_cov[m.cluster_item])
    p_real, note = real.p, ""
    if real.note:  # the fit cannot tell real from stray: no probabilities, and no threshold
        p_real = np.full(n_c, np.nan)
        if quorum == "auto":
            quorum = AUTO_FALLBACK
            note = f'quorum="auto" fell back to a majority of the weight (quorum={quorum:g}): '
        note += real.note
    p_threshold = best_f1_threshold(p_real)[0] if quorum == "auto" else float("nan")
    # how far one more drawer moves a cluster's log odds, on average over the clusters
    logit_step = presence_step(real, support, n_cov[m.cluster_item]) if not real.note else np.nan

    names = np.asarray([str(a) for a in corpus.annotators], dtype=object)
    item_names = np.asarray(corpus.items, dtype=object)
    labels = np.asarray(corpus.labels, dtype=object)
    first_member = np.searchsorted(cl, np.arange(n_c))
    size = objects[["width", "height"]].to_numpy(np.float64)[order][first_member]
    frame = pd.DataFrame(
        {
            "item": item_names[m.cluster_item],
            "annotator": name,
            "label": labels[label],
            "object_id": np.arange(n_c, dtype=np.int64),
            "x0": coords[:, 0],
            "y0": coords[:, 1],
            "x1": coords[:, 2],
            "y1": coords[:, 3],
            "geometry": geometry,
            "width": size[:, 0],
            "height": size[:, 1],
            "support": support.astype(np.int64),
            "share": share,
            "p_real": p_real,
            "weight": weight,
            "n_annotators": n_cov[m.cluster_item].astype(np.int64),
            "margin": margin,
            "agreement": m.agreement,
        }
    )
    reason = np.full(n_c, "", dtype=object)
    if quorum == "auto":
        reason[real.p < p_threshold] = (
            f"probability of a real object below {p_threshold:.3g} (the threshold of "
            "the best expected F1)"
        )
    else:
        why = ' (the fallback of quorum="auto")' if note.startswith("quorum=") else ""
        reason[share < quorum - 1e-12] = f"weighted share below the quorum {quorum:g}{why}"
    few = support < min_support
    reason[few] = f"fewer than min_support={min_support} annotators"
    empty = is_poly & pd.isna(geometry)
    reason[empty & (reason == "")] = "the fused mask is empty"
    accepted = reason == ""
    kept = frame[accepted]
    # a coverage row for every covered item without an accepted object
    covered = np.unique(cov["item"].to_numpy())
    bare = np.setdiff1d(covered, m.cluster_item[accepted])
    sizes = df.drop_duplicates("item").set_index("item")[["width", "height"]]
    coverage = pd.DataFrame({"item": item_names[bare], "annotator": name})
    coverage = coverage.join(sizes, on="item")
    out = pd.concat([kept, coverage], ignore_index=True) if len(bare) else kept
    out = out.sort_values(["item", "object_id"], kind="stable").reset_index(drop=True)
    out = out.astype({c: "Int64" for c in ("object_id", "support", "n_annotators")})
    out = validate(out)
    unsupported = frame[~accepted].assign(reason=reason[~accepted]).reset_index(drop=True)
    members = pd.DataFrame(
        {
            "item": item_names[m.item[order]],
            "cluster": cl,
            "annotator": names[ann],
            "object_id": objects["object_id"].to_numpy()[order],
            "label": labels[m.label[order]],
        }
    )
    weights_frame = pd.DataFrame({"annotator": names, "weight": w_ann})
    if method == "staple":
        weights_frame["sensitivity"] = sens
        weights_frame["specificity"] = spec
    weights_frame = weights_frame.sort_values("annotator").reset_index(drop=True)
    params = dict(
        weights=weights if isinstance(weights, str) else "mapping",
        min_support=min_support,
        quorum=quorum,
        p_threshold=p_threshold,
        note=note,
        logit_step=logit_step,
        method=method,
        box_fusion=box_fusion,
        match_threshold=tables.params["match_threshold"],
        resolution=resolution,
        name=name,
    )
    return Consensus(out, unsupported, members, weights_frame, params)
