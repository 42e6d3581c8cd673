"""Measures beside σ: accuracy against a reference, kalphacv's α, annotator quality, τ.

:mod:`~iaa_frames.measures.reference` (precision, recall, F1 against one annotator),
:mod:`~iaa_frames.measures.kalpha` (Krippendorff's α as kalphacv computes it),
:mod:`~iaa_frames.measures.ranking` with :mod:`~iaa_frames.measures.partner_fit` (annotator
quality), :mod:`~iaa_frames.measures.threshold_choice` (a data-driven match threshold),
:mod:`~iaa_frames.measures.keypoints` (which joints of skeletons disagree, and whose); their
bootstrap intervals come from :mod:`iaa_frames.stats.cell_intervals`.
"""
