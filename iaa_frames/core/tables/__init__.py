"""Within-item and between-item pair tables: the input of every statistic.

:func:`~iaa_frames.core.tables.pairs.pair_tables` builds both tables with one pipeline (the steps
are in :mod:`~iaa_frames.core.tables.steps`), after the comparability check of
:mod:`~iaa_frames.core.tables.comparability`.
"""
