"""Tests for iaa_frames.core.chance.sizing: the detection and overall strata sized by the
noise of their chance mean. The ratio and the prefixes against direct computations; on
class-structured corpora (classes with their own bands and sizes, ``realistic.corpus``):
image-blind annotators keep the full chance sample and score 0, faithful ones get a far
smaller one and the same agreement within its noise."""

import numpy as np
import pandas as pd
import pytest
import realistic
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.core.chance import sizing, strata
from iaa_frames.core.tables.pairs import pair_tables


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=0, max_size=12),
    st.lists(st.floats(0, 1), min_size=0, max_size=12),
    st.lists(st.floats(0, 1), min_size=0, max_size=12),
)
def test_noise_ratio_is_the_ratio_of_the_variances_it_names(within, chance, shift):
    w, c = np.array(within), np.array(chance)
    o_w = np.clip(w + np.resize(np.array(shift or [0.0]), len(w)) / 3, 0, 1)
    o_c = np.clip(c[::-1], 0, 1)
    got = sizing.noise_ratio(
        sizing.noise_sums(w, o_w, np.zeros(len(w), np.int64), 1),
        sizing.noise_sums(c, o_c, np.zeros(len(c), np.int64), 1),
    )[0]

    def f(x, y):
        if len(x) < 2 or len(y) < 2 or y.mean() <= 0:
            return np.inf
        if (x == 0).all():
            return 0.0  # identical: the agreement is 1 whatever the chance mean
        if np.var(x, ddof=1) <= 1e-12:
            return np.inf
        return (x.mean() / y.mean()) ** 2 * np.var(y, ddof=1) / np.var(x, ddof=1)

    with np.errstate(all="ignore"):
        want = max(f(w, c), f(o_w, o_c))
    if not np.isfinite(want):
        return  # near-zero variances or means: the sums' rounding decides, either is fine
    assert got == pytest.approx(want, rel=1e-6, abs=1e-9)


def test_group_prefix_is_the_first_entries_of_each_group():
    rng = np.random.default_rng(0)
    group = np.sort(rng.integers(0, 6, 200))
    keep = rng.integers(0, 40, 6)
    seen = {}
    want = []
    for g in group:
        seen[g] = seen.get(g, 0) + 1
        want.append(seen[g] <= keep[g])
    assert sizing.group_prefix(group, keep).tolist() == want


def test_sized_target_keeps_the_target_where_the_noise_is_unknown_or_large():
    t = sizing.sized_target(
        [2000, 2000, 2000, 300], [400, 400, 400, 10], [np.inf, 2.0, 0.05, 0.0], 50
    )
    assert t.tolist() == [2000, 2000, 200, 50]  # 10 x 400 x 0.05 = 200 (MARGIN 2)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)), max_size=30),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), max_size=8),
    st.integers(1, 4),
)
def test_subcell_least_is_the_shortest_prefix_that_reaches_each_floor(draws, held, floor):
    # draws (group, subcell, second subcell), grouped by group; against a loop that
    # grows each group's prefix until every subcell holds min(floor, all it can)
    draws = sorted(draws, key=lambda d: d[0])
    group = np.array([d[0] for d in draws], dtype=np.int64)
    entry, sub = [], []
    for i, (_, s1, s2) in enumerate(draws):
        for s in {s1, s2}:
            entry.append(i)
            sub.append(s)
    got = sizing.subcell_least(
        group,
        np.array(entry, dtype=np.int64),
        np.array(sub, dtype=np.int64),
        np.array([h[0] for h in held], dtype=np.int64),
        np.array([h[1] for h in held], dtype=np.int64),
        n_groups=3,
        floor=floor,
    )
    for g in range(3):
        mine = [set(d[1:]) for d in draws if d[0] == g]

        def counts(n, mine=mine, g=g):
            c = {s: sum(h == (g, s) for h in held) for s in range(4)}
            for subs in mine[:n]:
                for s in subs:
                    c[s] += 1
            return c

        full = counts(len(mine))
        want = next(
            n
            for n in range(len(mine) + 1)
            if all(counts(n)[s] >= min(floor, full[s]) for s in range(4))
        )
        assert got[g] == want


def _faithful(n_items=400):
    """Three annotators who draw the items' objects with their corners moved by 5 % of a
    side; classes with their own bands and sizes (``realistic.corpus``)."""
    return realistic.corpus(
        n_items, dict.fromkeys(("a", "b", "c"), "jitter:0.05"), seed=3, objects=(1, 6)
    )


def _blind(df, seed=1):
    """Each annotator's annotations moved to other items (a permutation per annotator)."""
    rng = np.random.default_rng(seed)
    items = np.sort(df["item"].unique())
    out = []
    for _, g in df.groupby("annotator"):
        g = g.copy()
        g["item"] = g["item"].map(dict(zip(items, rng.permutation(items), strict=True)))
        out.append(g)
    return pd.concat(out, ignore_index=True)


def _unsized(monkeypatch):
    monkeypatch.setattr(
        strata, "noise_ratio", lambda within, chance: np.full(np.shape(within)[:-2], np.inf)
    )


def _sized_and_full(df, monkeypatch):
    """The pair tables of ``df`` with the strata sized by their noise, and without."""
    sized = pair_tables(df, seed=0, progress=False)
    with monkeypatch.context() as m:
        _unsized(m)
        full = pair_tables(df, seed=0, progress=False)
    return sized, full


def _rows(t, flag=None):
    """The chance pairings of detection and overall as (items, annotators, class), those
    of a stratum's ``flag`` (``label >= 0`` for the class rows)."""
    sb = t.sets_between
    sel = sb["label"] >= 0 if flag == "class" else (sb["label"] == -1) & sb[flag]
    cols = ["item_a", "annotator_a", "item_b", "annotator_b", "label"]
    return sb.loc[sel, cols].apply(tuple, axis=1)


def test_image_blind_annotators_keep_the_chance_sample_and_score_zero(monkeypatch):
    # f is about 1: the uniform and annotator strata draw what 5 w asks (the same
    # pairings as without sizing), the pairs and classes at least half of it (their f,
    # estimated, is about 1 too), and every cell reads about 0
    df = _blind(_faithful())
    sized, full = _sized_and_full(df, monkeypatch)
    assert sized.params["chance_population"] == "sampled"
    for flag in ("in_uniform", "in_annotator_a", "in_annotator_b"):
        assert set(_rows(sized, flag)) == set(_rows(full, flag))
    for flag in ("in_pair", "class"):
        got, want = _rows(sized, flag), _rows(full, flag)
        assert set(got) <= set(want)
        assert 2 * len(got) >= len(want)
    res = iaf.agreement_from_tables(sized, n_boot=200, seed=0)
    for comp in ("detection", "overall"):
        s = res.sel(component=comp)
        lo, hi = s.ci_low.values, s.ci_high.values
        ok = np.isfinite(lo)
        assert ok.sum() >= 10
        assert ((lo <= 0) & (hi >= 0))[ok].mean() >= 0.9
        assert abs(float(s.agreement.sel(label="(all)", annotator="(all)"))) < 0.05


def test_faithful_annotators_get_a_smaller_chance_sample_and_the_same_agreement(monkeypatch):
    # f is far below 1: far fewer chance pairings, the same agreement within its noise,
    # intervals about as wide
    df = _faithful()
    sized, full = _sized_and_full(df, monkeypatch)
    n_sized, n_full = len(sized.sets_between), len(full.sets_between)
    assert n_sized * 3 < n_full
    a = iaf.agreement_from_tables(sized, n_boot=200, seed=0)
    b = iaf.agreement_from_tables(full, n_boot=200, seed=0)
    for comp in ("detection", "overall"):
        x = a.sel(component=comp, label="(all)", annotator="(all)")
        y = b.sel(component=comp, label="(all)", annotator="(all)")
        width = float(y.ci_high - y.ci_low)
        assert abs(float(x.agreement - y.agreement)) <= width / 2
        assert float(x.ci_high - x.ci_low) <= 1.25 * width + 1e-12


def _crowd(n_items=300, n_annotators=12, per_item=3):
    """A sparse crowd: each item drawn by ``per_item`` of ``n_annotators`` faithful
    annotators (corners moved by 5 % of a side); classes with their own bands and
    sizes."""
    names = [f"r{k:02d}" for k in range(n_annotators)]
    df = realistic.corpus(n_items, dict.fromkeys(names, "jitter:0.05"), seed=5, objects=(1, 4))
    rng = np.random.default_rng(5)
    items = np.sort(df["item"].unique())
    who = {i: set(rng.choice(names, per_item, replace=False)) for i in items}
    keep = [a in who[i] for i, a in zip(df["item"], df["annotator"], strict=True)]
    return df[keep].reset_index(drop=True)


def test_a_class_sized_by_its_noise_keeps_its_annotator_cells_defined(monkeypatch):
    # a class's cell of one annotator takes the class's chance rows that involve the
    # annotator, and no stratum of its own tops it up: sizing the class down to what
    # the class's noise asks for (f far below 1 here) must keep those cells as defined
    # as the full sample does (min(MIN_CHANCE_UNITS, every draw) units each)
    df = _crowd()
    sized, full = _sized_and_full(df, monkeypatch)
    assert len(sized.sets_between) < len(full.sets_between)  # sized all the same
    a = iaf.agreement_from_tables(sized, n_boot=0, seed=0)
    b = iaf.agreement_from_tables(full, n_boot=0, seed=0)
    classes = [c for c in a.label.values if c != "(all)"]
    annotators = [x for x in a.annotator.values if x != "(all)"]
    for comp in ("detection", "overall"):
        got = a.agreement.sel(component=comp, label=classes, annotator=annotators).values
        want = b.agreement.sel(component=comp, label=classes, annotator=annotators).values
        n_chance = a.n_chance.sel(component=comp, label=classes, annotator=annotators).values
        assert np.isfinite(want).sum() >= 20
        assert np.isfinite(got).sum() >= 0.9 * np.isfinite(want).sum()
        assert np.nanmin(np.where(np.isfinite(got), n_chance, np.nan)) >= 30
