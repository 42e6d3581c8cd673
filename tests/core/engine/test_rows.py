"""iaa_frames.core.engine.rows: the within strata of localization counted in parts."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.core.engine import CellLayout
from iaa_frames.core.engine.rows import localization_rows, within_stratum_groups


def long_tail(seed):
    """Rare classes borrow pooled chance units: the cells whose fine key is dropped."""
    n_classes = 40
    return iaf.simulate(
        n_items=90,
        classes=[f"c{c:02d}" for c in range(n_classes)],
        class_weights=1.0 / np.arange(1, n_classes + 1) ** 1.1,
        seed=seed,
    )


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("parts", [1, 3])
def test_groups_of_item_subsets_give_the_whole_tables_weights(seed, parts):
    """The chance weights from the groups of disjoint item subsets, side by side, are
    bitwise those from the whole within table (as the dask partitions count them)."""
    tables = iaf.pair_tables(long_tail(seed), n_chance=300, seed=seed)
    assert len(tables.localization_pooled), "some class borrows: the case tested"
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    w = tables.localization_within
    part = w["item"].to_numpy() % parts
    groups = np.concatenate(
        [
            within_stratum_groups(
                dataclasses.replace(tables, localization_within=w[part == k]), layout
            )
            for k in range(parts)
        ],
        axis=1,
    )
    assert groups.dtype == np.int64 and groups.shape[0] == 4
    # every within row counted once in "(all)" (cell 0)
    assert groups[3][groups[0] == 0].sum() == len(w)
    want = localization_rows(tables, layout)[1].membership
    got = localization_rows(tables, layout, groups)[1].membership
    assert (got != want).nnz == 0
    np.testing.assert_array_equal(got.data, want.data)
    np.testing.assert_array_equal(got.indices, want.indices)
    # and not the plain weights: post-stratification moved some
    plain = localization_rows(tables, layout, np.zeros((4, 0), np.int64))[1].membership
    assert (plain != want).nnz > 0


def test_no_within_rows_no_groups():
    tables = iaf.pair_tables(long_tail(0), n_chance=100)
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    empty = dataclasses.replace(tables, localization_within=tables.localization_within.iloc[:0])
    assert within_stratum_groups(empty, layout).shape == (4, 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_within_groups_counted_once_give_the_weights_of_each_count(seed, monkeypatch):
    """The within rows' strata groups, counted once and reused by every chance
    membership of localization_rows (before and after thin cells borrow), give bitwise
    the weights of counting them for each (poststratify's own count)."""
    from iaa_frames.core.engine import rows

    tables = iaf.pair_tables(long_tail(seed), n_chance=300, seed=seed)
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    calls = []
    count = rows.within_type_groups
    monkeypatch.setattr(rows, "within_type_groups", lambda *a: calls.append(1) or count(*a))
    got = localization_rows(tables, layout)[1]
    assert len(calls) == 1
    monkeypatch.setattr(rows, "_chance_units", _uncached(rows._chance_units))
    want = localization_rows(tables, layout)[1]
    assert len(calls) > 2  # counted again for each membership: the borrowing case
    for a, b in ((got.membership, want.membership),):
        np.testing.assert_array_equal(a.indptr, b.indptr)
        np.testing.assert_array_equal(a.indices, b.indices)
        np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(got.borrowed, want.borrowed)


def _uncached(chance_units):
    """``_chance_units`` without the within groups kept between its memberships."""

    def run(*args, counted=None):
        return chance_units(*args[:6])

    return run


def _aggregated(groups):
    """Per distinct (cell, fine, coarse), the summed count: what poststratify reads."""
    keys, inverse = np.unique(groups[:3].T, axis=0, return_inverse=True)
    return keys, np.bincount(inverse.ravel(), weights=groups[3])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("pairwise", [False, True])
def test_within_groups_by_kind_of_row_are_those_of_the_entries(seed, pairwise, monkeypatch):
    """The within groups counted by kind of row hold, per (cell, fine, coarse), the counts
    of the entries (within_groups), with and without classes that borrow, and give the
    same chance weights bit for bit."""
    from iaa_frames.core.chance.poststrata import within_groups
    from iaa_frames.core.engine import rows

    tables = iaf.pair_tables(long_tail(seed), n_chance=300, seed=seed)
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators), pairwise)
    w = tables.localization_within
    fine, coarse = rows._strata(tables, w, ("item", "item"))
    borrowed = np.zeros(len(tables.corpus.labels) + 1, dtype=bool)
    borrowed[tables.localization_pooled["label"].to_numpy()] = True
    for classes in (None, borrowed):
        pools, borrows = rows._cell_kinds(layout, classes)
        got = rows.within_type_groups(tables, layout, w, pools, borrows)
        want = within_groups(
            rows._within_membership(layout, w), *rows._by_cell(pools, borrows, fine, coarse)
        )
        assert got.dtype == np.int64
        for a, b in zip(_aggregated(got), _aggregated(want)):
            np.testing.assert_array_equal(a, b)
    new = localization_rows(tables, layout)[1]
    monkeypatch.setattr(rows, "within_type_groups", lambda *a: None)  # entry by entry
    old = localization_rows(tables, layout)[1]
    for a in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(new.membership, a), getattr(old.membership, a))


@pytest.mark.parametrize("n_values", [3, 24, 5000, None])
def test_distance_order_sorts(n_values):
    """distance_order sorts the within distances ascending, of few distinct values (by
    ranks) or many (numpy's argsort)."""
    from iaa_frames.core.engine.sigma import distance_order

    rng = np.random.default_rng(n_values or 0)
    d = rng.random(50_000) if n_values is None else rng.choice(rng.random(n_values), 50_000)
    order = distance_order(d)
    assert order.dtype.kind == "i" and np.array_equal(np.sort(order), np.arange(d.size))
    np.testing.assert_array_equal(d[order], np.sort(d))
    assert distance_order(d[:5]).tolist() == np.argsort(d[:5]).tolist()
