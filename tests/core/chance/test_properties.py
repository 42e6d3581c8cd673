"""Invariance properties of the agreement result (issue 9), on small random corpora.

* Renaming the classes (a bijection that reverses their sort order, so that every class
  code changes) changes no cell where the chance population is enumerated.
* Shuffling the rows and renaming items and annotators changes nothing at all.

Every variable of ``agreement()`` is compared, bootstrap intervals included. The corpora
are drawn with ``iaf.simulate`` under hypothesis-drawn seeds, sizes, shapes and profiles,
small enough for the chance population to be enumerated.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iaa_frames as iaf

ALL = iaf.ALL
PROFILES = (
    "good",
    "sloppy",
    "mislabeler",
    "misser",
    "random",
    "perfect",
    {"preset": "good", "coverage": 0.7},
)
N_BOOT = 30


@st.composite
def corpora(draw):
    """A small simulated corpus: 3-8 items, 2-3 annotators, boxes or polygons."""
    n_annotators = draw(st.integers(2, 3))
    profiles = draw(
        st.lists(
            st.sampled_from(range(len(PROFILES))), min_size=n_annotators, max_size=n_annotators
        )
    )
    annotators = {name: PROFILES[p] for name, p in zip("abc", profiles)}
    return iaf.simulate(
        n_items=draw(st.integers(3, 8)),
        annotators=annotators,
        kind=draw(st.sampled_from(("box", "polygon", "mixed"))),
        classes=("car", "person", "bicycle", "dog")[: draw(st.integers(1, 4))],
        objects_per_item=draw(st.sampled_from((1.0, 3.0, 6.0))),
        seed=draw(st.integers(0, 2**16)),
    )


def _same(ds, other, where=None):
    """Every variable equal (NaN = NaN); only the cells ``where`` (bool per cell)."""
    assert list(ds.data_vars) == list(other.data_vars)
    for var in ds.data_vars:
        a, b = ds[var].values, other[var].values
        if a.dtype.kind == "f":
            same = np.isclose(a, b, rtol=1e-9, atol=1e-12) | (np.isnan(a) & np.isnan(b))
        else:
            same = a == b
        if where is not None:
            same |= ~where
        assert same.all(), (var, np.argwhere(~same)[:5].tolist())


def _agreement(df, **kwargs):
    return iaf.agreement(df, n_boot=N_BOOT, seed=5, **kwargs)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=corpora(), tau=st.sampled_from((0.0, 0.3, 0.5)))
def test_renaming_classes_changes_no_exact_cell(df, tau):
    names = sorted(df["label"].dropna().unique())
    rename = {name: f"class_{len(names) - i:02d}" for i, name in enumerate(names)}
    assert sorted(rename, key=rename.get) == names[::-1]  # the sort order is reversed
    renamed = df.assign(label=df["label"].map(rename))
    ds = _agreement(df, match_threshold=tau)
    other = _agreement(renamed, match_threshold=tau)
    back = {v: k for k, v in rename.items()}
    other = other.assign_coords(label=[back.get(x, x) for x in other["label"].values])
    other = other.sel(label=ds["label"].values)
    assert ds.attrs["chance_population"] == "enumerated"
    # the population is enumerated for every cell here; "where" keeps the rule general
    exact = ~np.isin(
        ds["chance_source"].values, ["sampled", "aligned"]
    )  # drawn: names order the draws
    _same(ds, other, where=exact)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=corpora(), tau=st.sampled_from((0.0, 0.5)), shuffle=st.integers(0, 2**16))
def test_row_order_and_renaming_items_and_annotators_change_nothing(df, tau, shuffle):
    rng = np.random.default_rng(shuffle)
    other = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    items = other["item"].unique()
    item_map = dict(zip(items, [f"zz{j:03d}" for j in rng.permutation(len(items))]))
    annotators = sorted(other["annotator"].unique())
    ann_map = dict(zip(annotators, [f"n{j}" for j in rng.permutation(len(annotators))]))
    other["item"] = other["item"].map(item_map)
    other["annotator"] = other["annotator"].map(ann_map)
    ds = _agreement(df, match_threshold=tau)
    renamed = _agreement(other, match_threshold=tau)
    back = {v: k for k, v in ann_map.items()}
    renamed = renamed.assign_coords(annotator=[back.get(x, x) for x in renamed["annotator"].values])
    renamed = renamed.sel(annotator=ds["annotator"].values)
    _same(ds, renamed)


# ------------------------------------------------ integer-code helpers of the sampling


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 2**62), max_size=60),
    st.integers(1, 50),
    st.sampled_from([1, 2**40, 2**57]),
)
def test_code_helpers_equal_their_numpy_definitions(big, n_small, scale):
    """sort_with_order is the stable argsort (both ways: codes that fit and codes that
    would overflow), first_occurrence the first index of numpy.unique, in_sorted
    numpy.isin, on small and huge codes and past the 4096 of in_sorted's second path."""
    from iaa_frames.core.chance.sampling import first_occurrence, in_sorted, sort_with_order

    rng = np.random.default_rng(len(big) + n_small)
    for values in (
        np.array(big, dtype=np.int64),
        rng.integers(0, n_small, 5000) * scale,
    ):
        v, order = sort_with_order(values)
        np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))
        np.testing.assert_array_equal(v, np.sort(values))
        want = np.zeros(len(values), dtype=bool)
        want[np.unique(values, return_index=True)[1]] = True
        np.testing.assert_array_equal(first_occurrence(values), want)
        keys = np.unique(values[: len(values) // 2])
        np.testing.assert_array_equal(in_sorted(values, keys), np.isin(values, keys))
        np.testing.assert_array_equal(
            in_sorted(np.sort(values), keys), np.isin(np.sort(values), keys)
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=400),
    st.integers(1, 10**6),
    st.integers(0, 400),
    st.integers(0, 2**31),
)
def test_a_sort_split_between_groups_is_the_stable_argsort(sizes, n_keys, split, seed):
    """Keys grouped as the sampler groups them (``group * n_keys + key``, groups in order),
    split at any position: where every key before it is below every key after it, the two
    parts sort apart, on two threads (the threshold lowered so that small cases take that
    path); anywhere else the split is not used. Both are numpy's stable argsort."""
    import iaa_frames.core.chance.sampling as sampling

    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(len(sizes)), sizes)
    keys = rng.integers(0, n_keys, len(group)) + group * n_keys
    split = min(split, len(keys))
    for at in (split, int(np.searchsorted(group, group[len(group) // 2])) if len(group) else 0):
        old = sampling.PARALLEL_SORT
        sampling.PARALLEL_SORT = 1
        try:
            v, order = sampling.sort_with_order(keys, split=at)
        finally:
            sampling.PARALLEL_SORT = old
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
        np.testing.assert_array_equal(v, np.sort(keys))


def test_draws_contains_equals_a_set_lookup():
    """Draws.contains against a Python set of (kind, group, key), with annotator-sized
    group codes (table lookup) and pair-sized ones (binary search)."""
    from iaa_frames.core.chance.store import Draws

    rng = np.random.default_rng(3)
    draws, drawn = Draws(n_slots=50), set()
    for kind, top in ((2, 30), (3, 10**9)):
        g = rng.integers(0, top, 400)
        a, b = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
        draws.add(kind, g, a, b)
        drawn |= {(kind, int(x), int(min(p, q) * 50 + max(p, q))) for x, p, q in zip(g, a, b)}
    for kind, top in ((2, 30), (3, 10**9)):
        records = [r for r in drawn if r[0] == kind]
        group = np.r_[[r[1] for r in records], rng.integers(0, top, 300), -1]
        key = np.r_[[r[2] for r in records], rng.integers(0, 2500, 300), 7]
        got = draws.contains((kind,), group, key)
        want = [(kind, int(x), int(k)) in drawn for x, k in zip(group, key)]
        assert got.tolist() == want
