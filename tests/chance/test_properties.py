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
    exact = ds["chance_source"].values != "sampled"
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
