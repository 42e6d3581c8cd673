"""The entry points: one place that picks the back end and one memo of pair tables.

:mod:`~iaa_frames.api.memo` keeps the pair tables of recent frames;
:mod:`~iaa_frames.api.results` computes the entry points' results from them and
:mod:`~iaa_frames.api.shortcuts` one statistic by label and annotator (``iaf.sigma``).
"""
