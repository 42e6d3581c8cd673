"""Figures of agreement results, pair tables and item drilldowns (seaborn/matplotlib).

Every function takes its data first and keyword-only options after it, and ``width=``
(inches; 7 by default, 3.5 for one column; from 3 to 100, else a ParameterError). A
function that draws one panel accepts ``ax=`` (an Axes, else a ParameterError) and
returns the Axes it drew on; a grid of panels (:func:`forest`,
:func:`distributions`, :func:`worst_items`) returns its Figure, which Jupyter shows once
(:class:`~iaa_frames.plot.style.ShownOnce`). A value that cannot be computed is written
"n/a" where it would be, and the note under the panel says why. Computing is kept apart: each figure has a function returning
the long-form table it draws (:func:`forest_frame`, :func:`profile_frame`, ...), from the
views of the result (:mod:`iaa_frames.explore.views`), the distances behind a cell
(:mod:`iaa_frames.explore.distances`) or one item (:mod:`iaa_frames.explore.item`); the look
(colors, sizes, notes) is in :mod:`iaa_frames.plot.style`. Axis labels come from the result's ``long_name`` attrs. Colors: one fixed color per component
(seaborn's colorblind palette) and one per annotator (:func:`annotator_colors`, the same in
every figure of a result); labels in one order everywhere (:func:`label_order`). Figures
are sized for print: 8 pt text, 7 in wide by default, readable at 3.5 in (``width=3.5``).
With many classes or annotators only the top N by support are drawn and the figure says
how many were left out; the annotator profiles and the quality ranking show a crowd by its
two ends (the highest and the lowest, a dotted line between them), the pair heatmap by
annotators who share items.

=======================  ================================================================
:func:`distributions`    within-item vs chance distances, ECDFs and the KS gap (Figure)
:func:`forest`           forest plot per label (or annotator), one panel per component
:func:`agreement`        deprecated: the former name of :func:`forest`
:func:`pairwise`         annotator x annotator heatmap (Axes)
:func:`annotators`       each annotator's profile across the components (Axes)
:func:`decomposition`    detection, classification, localization per label (Axes)
:func:`items`            the items that concentrate the disagreement (Axes)
:func:`keypoints`        per joint and annotator: σ, visibility α or swaps, with CIs (Axes)
:func:`item`             one item: every annotator's shapes, pairs, conflicts (Axes)
:func:`worst_items`      a grid of the worst items drawn by :func:`item` (Figure)
:func:`confusion`        label confusion of matched pairs, α per class (Axes)
:func:`ranking`          annotators by partner-corrected quality vs raw PQ (Axes)
:func:`threshold_curve`  every component against the match threshold τ, CI bands (Axes)
:func:`plan`             half-width of the interval against items, from ``iaf.plan`` (Axes)
:func:`over_time`        every component per time window, the re-calibration flag (Axes)
=======================  ================================================================
"""

from iaa_frames.explore.views import label_order

from .accessor import FramePlots, ResultPlots
from .agreement import agreement, forest, forest_frame
from .annotators import annotators, profile_frame
from .confusion import confusion
from .decomposition import decomposition, decomposition_frame
from .distributions import distance_samples, distributions, sample_summary
from .item import item, item_view, worst_items
from .items import items
from .keypoints import keypoint_frame, keypoints
from .pairwise import pairwise, pairwise_frame
from .plan import plan
from .ranking import ranking, ranking_frame
from .style import ANNOTATOR_PALETTE, annotator_colors, theme
from .threshold import threshold_curve, threshold_frame
from .time_windows import over_time, over_time_frame

__all__ = [
    "ANNOTATOR_PALETTE",
    "FramePlots",
    "ResultPlots",
    "annotator_colors",
    "forest",
    "label_order",
    "theme",
    "agreement",
    "annotators",
    "confusion",
    "plan",
    "over_time",
    "over_time_frame",
    "decomposition",
    "decomposition_frame",
    "distance_samples",
    "distributions",
    "forest_frame",
    "item",
    "item_view",
    "items",
    "keypoint_frame",
    "keypoints",
    "pairwise",
    "pairwise_frame",
    "profile_frame",
    "ranking",
    "ranking_frame",
    "sample_summary",
    "threshold_curve",
    "threshold_frame",
    "worst_items",
]
