"""class_detection counts the objects of a class in an annotation from its class slot
(corpus.by_label) when the slots are the corpus's annotations: the counts of the
objects themselves, as for any other slots."""

import dataclasses

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.core.matching.pipeline import run
from iaa_frames.core.tables.steps import class_detection, labels_of_pairings, within_pairings
from iaa_frames.geometry.distances import get_distance


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_from_class_slots_are_those_of_the_objects(seed):
    corpus = prepare(iaf.simulate(n_items=60, seed=seed))
    ann = corpus.annotations
    a, b = within_pairings(ann)
    rng = np.random.default_rng(seed)  # and pairings across items, as the chance ones
    a = np.r_[a, rng.integers(0, ann.empty + 1, 500)]
    b = np.r_[b, rng.integers(0, ann.empty + 1, 500)]
    m = run(corpus, ann, a, b, tau=0.5, distance=get_distance("giou"), overall="pooled", sets=True)
    pl, ll = labels_of_pairings(corpus, a, b)
    got = class_detection(corpus, ann, a, b, m, pl, ll)
    other = dataclasses.replace(ann)  # equal slots, not the corpus's: counted object by object
    assert other is not corpus.annotations
    want = class_detection(corpus, other, a, b, m, pl, ll)
    assert got.keys() == want.keys()
    for k in got:
        np.testing.assert_array_equal(got[k], want[k])
        assert got[k].dtype == want[k].dtype
