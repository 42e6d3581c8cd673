"""Statistics on samples and tables: σ, KS, Krippendorff's α, bootstrap and intervals.

``iaf.stats.sigma`` and ``iaf.stats.ks`` compute σ and the KS test of two plain samples of
distances (:mod:`~iaa_frames.stats.samples`); the other modules serve the engine: the cluster
bootstrap (:mod:`~iaa_frames.stats.bootstrap`), interval widths
(:mod:`~iaa_frames.stats.intervals`), the intervals of many cells from their per-item sums
(:mod:`~iaa_frames.stats.cell_intervals`), the KS test of many cells
(:mod:`~iaa_frames.stats.kstest`), nominal α
(:mod:`~iaa_frames.stats.krippendorff`), ordinal and interval α
(:mod:`~iaa_frames.stats.krippendorff_levels`) and empirical-Bayes shrinkage
(:mod:`~iaa_frames.stats.shrinkage`).
"""

from .samples import (
    KSResult,
    cell_tests,
    frac_below_chance,
    ks,
    percentile_ci,
    sigma,
)

__all__ = ["KSResult", "cell_tests", "frac_below_chance", "ks", "percentile_ci", "sigma"]
