"""Figures of agreement results, pair tables and item drilldowns (seaborn/matplotlib).

Every function takes its data first and keyword-only options after it; axes-level
functions accept ``ax=`` and return the Axes they drew on, figure-level ones (several
panels) return the Figure. Computing is kept apart: each figure has a function returning
the long-form table it draws (:func:`forest_frame`, :func:`profile_frame`, ...). Axis
labels come from the result's ``long_name`` attrs; colors are seaborn's colorblind
palette, one fixed color per component; with many classes or annotators only the top N by
support are drawn and the figure says how many were left out.

=======================  ================================================================
:func:`distributions`    within-item vs chance distances, ECDFs and the KS gap (Figure)
:func:`agreement`        forest plot per label, one panel per component, CIs (Figure)
:func:`pairwise`         annotator x annotator heatmap (Axes)
:func:`annotators`       each annotator's profile across the components (Axes)
:func:`decomposition`    detection, classification, localization per label (Axes)
:func:`items`            the items that concentrate the disagreement (Axes)
:func:`ranking`          annotators by partner-corrected quality vs raw PQ (Axes)
=======================  ================================================================
"""

from .agreement import agreement, forest_frame
from .annotators import annotators, profile_frame
from .decomposition import decomposition, decomposition_frame
from .distributions import distance_samples, distributions, sample_summary
from .items import items
from .pairwise import pairwise, pairwise_frame
from .ranking import ranking, ranking_frame

__all__ = [
    "agreement",
    "annotators",
    "decomposition",
    "decomposition_frame",
    "distance_samples",
    "distributions",
    "forest_frame",
    "items",
    "pairwise",
    "pairwise_frame",
    "profile_frame",
    "ranking",
    "ranking_frame",
    "sample_summary",
]
