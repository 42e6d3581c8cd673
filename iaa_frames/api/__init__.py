"""The entry points: one place that picks the back end, and the results computed from
the memo of pair tables (:mod:`iaa_frames.core.engine.memo`).

:mod:`~iaa_frames.api.backend` sends a frame to the pandas or the dask engine;
:mod:`~iaa_frames.api.methods` gives each accessor method the docstring of its function;
:mod:`~iaa_frames.api.results` computes the entry points' results from them and
:mod:`~iaa_frames.api.shortcuts` one statistic by label and annotator (``iaf.sigma``).
"""
