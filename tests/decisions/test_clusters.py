"""Clusters of the consensus: the matching's clusters, checked against a brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.matching.assignment import clusters
from iaa_frames.decisions.clusters import members_of


def _components(n, a, b):
    """Connected components by repeated relabelling (brute force)."""
    label = np.arange(n)
    for _ in range(n):
        for x, y in zip(a, b, strict=True):
            m = min(label[x], label[y])
            label[label == label[x]] = m
            label[label == label[y]] = m
    return label


def _same_partition(x, y):
    pairs = itertools.combinations(range(len(x)), 2)
    return all((x[i] == x[j]) == (y[i] == y[j]) for i, j in pairs)


@pytest.mark.parametrize("seed", range(20))
def test_without_conflict_clusters_are_connected_components(seed):
    rng = np.random.default_rng(seed)
    n_ann = 5
    ann = np.arange(n_ann).repeat(1)  # one object per annotator: no conflict possible
    a, b = np.triu_indices(n_ann, 1)
    keep = rng.random(len(a)) < 0.4
    a, b = a[keep], b[keep]
    got = clusters(n_ann, a, b, rng.random(len(a)), ann)
    assert _same_partition(got, _components(n_ann, a, b))


def _greedy(n, a, b, strength, ann):
    """Strongest pair first, skipping merges that put one annotator twice (brute force)."""
    group = {i: {i} for i in range(n)}
    for e in sorted(range(len(a)), key=lambda e: (-strength[e], a[e], b[e])):
        ga, gb = group[a[e]], group[b[e]]
        if ga is gb or {ann[i] for i in ga} & {ann[i] for i in gb}:
            continue
        merged = ga | gb
        for i in merged:
            group[i] = merged
    return np.array([min(group[i]) for i in range(n)])


@pytest.mark.parametrize("seed", range(30))
def test_clusters_hold_one_object_per_annotator_and_match_the_greedy(seed):
    rng = np.random.default_rng(seed)
    ann = rng.integers(0, 3, 7)
    a, b = np.triu_indices(7, 1)
    keep = (ann[a] != ann[b]) & (rng.random(len(a)) < 0.5)
    a, b = a[keep], b[keep]
    strength = rng.random(len(a))
    got = clusters(7, a, b, strength, ann)
    for c in np.unique(got):
        assert len(set(ann[got == c])) == (got == c).sum()
    assert _same_partition(got, _greedy(7, a, b, strength, ann))


def test_members_order_clusters_by_item_and_measure_their_agreement():
    df = iaf.simulate(n_items=6, seed=2, annotators={"a": "good", "b": "good", "c": "sloppy"})
    t = iaf.pair_tables(df, n_chance=20)
    m = members_of(t)
    assert (np.diff(m.cluster_item[np.unique(m.cluster)]) >= 0).all()
    assert (m.cluster_item[m.cluster] == m.item).all()
    # agreement: mean IoU of the matched pairs inside each cluster, recomputed by pandas
    w = t.localization_within
    ca, cb = m.cluster[w["object_a"]], m.cluster[w["object_b"]]
    expect = pd.Series(w["iou"].to_numpy()[ca == cb]).groupby(ca[ca == cb]).mean()
    np.testing.assert_allclose(m.agreement[expect.index], expect.to_numpy())
    alone = np.setdiff1d(np.arange(m.n_clusters), expect.index)
    assert np.isnan(m.agreement[alone]).all()
