"""Objects matched between two annotations of an item, and the corpus prepared for it.

:mod:`~iaa_frames.core.matching.corpus` turns a validated frame into codes, normalized shapes and
slices (:mod:`~iaa_frames.core.matching.copies` finds items that are copies of one another);
:mod:`~iaa_frames.core.matching.assignment` matches the objects of two annotations;
:mod:`~iaa_frames.core.matching.pipeline` is the one pipeline that within-item and between-item
pairings both go through, with the pair values of :mod:`~iaa_frames.core.matching.pair_values`.
"""
