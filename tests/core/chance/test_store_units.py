"""The class localization strata match only their class's units (Store.run_units): what
the chance tables keep of every pairing is that of matching it whole, in the same
order, and agreement does not change."""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.chance.population import pairing_key
from iaa_frames.core.chance.store import Store
from iaa_frames.core.matching import pipeline, units
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.core.matching.units import class_units
from iaa_frames.geometry.distances import get_distance


def _frame(n_items, n, seed, n_classes=4):
    """Boxes of ``n`` objects per annotation (three annotators), one dense layout
    jittered per item: chance pairings as dense as within ones; classes at random
    (Zipf-like), so that components join classes and some classes are rare."""
    rng = np.random.default_rng(seed)
    layout, size = rng.uniform(0, 100, (n, 2)), rng.uniform(4, 16, (n, 2))
    p = 1 / np.arange(1, n_classes + 1)
    rows = []
    for i in range(n_items):
        centre = layout + rng.normal(0, 2, (n, 2))
        for ann in "abc":
            c = centre + rng.normal(0, 1, (n, 2))
            label = rng.choice(n_classes, n, p=p / p.sum())
            lo, hi = c - size / 2, c + size / 2
            rows.append(
                pd.DataFrame(
                    {
                        "item": f"i{i:02d}",
                        "annotator": ann,
                        "label": [f"c{k}" for k in label],
                        "x0": lo[:, 0],
                        "y0": lo[:, 1],
                        "x1": hi[:, 0],
                        "y1": hi[:, 1],
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def restricted(monkeypatch):
    """Pairings of these small corpora go through the components; counts the pairings
    proven large."""
    monkeypatch.setattr(units, "RESTRICT_MIN_PAIRS", pipeline.SPARSE_MIN_PAIRS + 1)
    seen = {"proven": 0}
    inner = units._restricted

    def spy(*args):
        out = inner(*args)
        seen["proven"] += int(out[1].sum())
        return out

    monkeypatch.setattr(units, "_restricted", spy)
    return seen


def test_store_keeps_what_the_whole_matching_gives(restricted):
    """Calls as the strata make them: whole pairings first, then class draws over several
    calls, with a pairing drawn by several classes (in one call and in later ones), in
    either orientation, twice in one call, or already held whole. The sample has the
    same pairings in the same order; of a pairing held by its units, its rows are the
    whole matching's rows of two objects of a class that drew it, in the same order."""
    c = prepare(_frame(6, 40, seed=2))
    ann, L, tau, dist = c.annotations, len(c.labels), 0.4, get_distance("giou")

    def run(a, b, sets):
        return pipeline.run(c, ann, a, b, tau=tau, distance=dist, sets=sets)

    def run_units(a, b, lab):
        return class_units(c, ann, a, b, lab, tau=tau, distance=dist)

    rng = np.random.default_rng(0)
    a, b = np.triu_indices(ann.empty, k=1)
    keep = (ann.annotator[a] != ann.annotator[b]) & (ann.item[a] != ann.item[b])
    a, b = a[keep], b[keep]
    whole = rng.choice(len(a), 20, replace=False)
    calls = []
    for _ in range(3):
        pick = rng.choice(len(a), 40)  # repeats within and across calls
        flip = rng.random(40) < 0.5
        pa, pb = np.where(flip, b[pick], a[pick]), np.where(flip, a[pick], b[pick])
        lab = rng.integers(0, L, 40)
        calls.append((np.r_[pa, a[whole[:5]]], np.r_[pb, b[whole[:5]]], np.r_[lab, 0, 1, 2, 3, 0]))
    new, ref = Store(ann, run, run_units=run_units, n_labels=L), Store(ann, run)
    drawn = []
    for store in (new, ref):
        store.run(a[whole], b[whole], sets=True)
        for pa, pb, lab in calls:
            store.run_units(pa, pb, lab)
    for pa, pb, lab in calls:
        drawn.append(pairing_key(pa, pb, ann.empty + 1) * L + lab)
    drawn = np.unique(np.concatenate(drawn))
    got, want = (s.finish(None, False, None) for s in (new, ref))
    for f in ("a", "b", "key", "has_sets"):
        np.testing.assert_array_equal(getattr(got, f), getattr(want, f))
    for f in ("set_n_a", "set_n_b"):
        np.testing.assert_array_equal(getattr(got.matched, f), getattr(want.matched, f))
    held_whole = np.isin(want.key, want.key[: len(whole)])

    def kept(sample):
        m = sample.matched
        la, lb = c.label[m.pair_a], c.label[m.pair_b]
        unit = (la == lb) & np.isin(sample.key[m.pair_pairing] * L + la, drawn)
        return held_whole[m.pair_pairing] | unit

    k_got, k_want = kept(got), kept(want)
    assert k_got.all()  # nothing else is held
    for f in ("pair_pairing", "pair_a", "pair_b", "pair_iou", "pair_distance"):
        np.testing.assert_array_equal(
            getattr(got.matched, f)[k_got], getattr(want.matched, f)[k_want], err_msg=f
        )
    assert (~held_whole[want.matched.pair_pairing] & k_want).sum() > 50
    assert restricted["proven"] > 0
    # the pairs the strata count units from, whatever their order
    for x, y in zip(new.pairs(), ref.pairs(), strict=True):
        assert len(x) == len(y)


def test_whole_matching_after_units_is_refused(restricted):
    """The class strata come last: matching whole a pairing held by its units only would
    leave it incomplete, and is refused."""
    c = prepare(_frame(3, 40, seed=4))
    ann, tau, dist = c.annotations, 0.4, get_distance("iou")
    store = Store(
        ann,
        lambda a, b, sets: pipeline.run(c, ann, a, b, tau=tau, distance=dist, sets=sets),
        run_units=lambda a, b, lab: class_units(c, ann, a, b, lab, tau=tau, distance=dist),
        n_labels=len(c.labels),
    )
    store.run_units(np.array([0]), np.array([4]), np.array([0]))
    with pytest.raises(RuntimeError, match="class units"):
        store.run(np.array([4]), np.array([0]), sets=False)


def test_agreement_is_unchanged(restricted, monkeypatch):
    """Every output of agreement is that of matching the class strata's pairings whole,
    on a corpus whose class strata draw (not enumerated) dense pairings (the strata of a
    corpus whose boxes overlap too much for the index of the pairings that can match,
    forced here on a small one)."""
    from iaa_frames.core.chance import strata

    monkeypatch.setattr(strata, "gated_pairings", lambda *args, **kwargs: None)
    df = iaf.validate(_frame(40, 60, seed=1, n_classes=6))
    got = iaf.agreement(df, n_boot=20, seed=0, progress=False)
    assert restricted["proven"] > 0
    monkeypatch.setattr(Store, "run_units", lambda self, a, b, label: self.run(a, b, sets=False))
    want = iaf.agreement(df, n_boot=20, seed=0, progress=False)
    assert set(got.data_vars) == set(want.data_vars)
    for k in want.data_vars:
        x, y = np.asarray(got[k].values), np.asarray(want[k].values)
        if x.dtype.kind in "fc":
            assert np.array_equal(x, y, equal_nan=True), k
        else:
            assert np.array_equal(x, y), k


def test_small_pairings_are_matched_once_whatever_the_classes():
    """Pairings under RESTRICT_MIN_PAIRS object pairs gain nothing from their components:
    the store matches each once, whole, however many classes draw it and in however many
    calls (matched again for each class, they would cost more than before the units)."""
    c = prepare(_frame(3, 8, seed=5))
    ann, tau, dist = c.annotations, 0.4, get_distance("iou")
    matched = []

    def run(a, b, sets):
        matched.append(len(a))
        return pipeline.run(c, ann, a, b, tau=tau, distance=dist, sets=sets)

    def run_units(a, b, lab):
        matched.append(len(a))
        return class_units(c, ann, a, b, lab, tau=tau, distance=dist)

    store = Store(ann, run, run_units=run_units, n_labels=len(c.labels))
    a, b = np.array([0, 0, 0, 3]), np.array([4, 4, 4, 7])  # pairing (0, 4) for 3 classes
    store.run_units(a, b, np.array([0, 1, 2, 0]))
    store.run_units(np.array([4, 3]), np.array([0, 7]), np.array([3, 1]))  # again, flipped
    assert sum(matched) == 2
    whole = Store(
        ann, lambda a, b, sets: pipeline.run(c, ann, a, b, tau=tau, distance=dist, sets=sets)
    )
    whole.run(np.array([0, 3]), np.array([4, 7]), sets=False)
    for x, y in zip(store.pairs(), whole.pairs(), strict=True):
        np.testing.assert_array_equal(x, y)
