"""The core: from a validated frame to the agreement of every cell.

The data pass through four packages, in this order, each using only those before it:

* :mod:`~iaa_frames.core.matching`: the frame as a :class:`~iaa_frames.core.matching.corpus.Corpus`
  (codes, normalized shapes, slices) and the one matching pipeline of two annotations;
* :mod:`~iaa_frames.core.chance`: which pairings of annotations of different items stand
  for chance, matched by the same pipeline;
* :mod:`~iaa_frames.core.tables`: the within-item and between-item pair tables
  (:class:`~iaa_frames.core.tables.pairs.PairTables`), the input of every statistic;
* :mod:`~iaa_frames.core.engine`: every cell (component x label x annotator) from the
  tables, as a labeled :class:`xarray.Dataset`.
"""
