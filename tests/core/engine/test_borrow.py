"""Thin cells borrowing their parent's chance units (iaa_frames.core.engine.borrow)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from realistic import corpus

import iaa_frames as iaf
from iaa_frames.core.engine import borrow
from iaa_frames.core.engine.borrow import borrow_thin_cells

ALL = iaf.ALL
#: Objects small against the scene: unrelated objects rarely pass the gate.
SMALL = {
    "car": ((0.5, 0.9), 0.08, 0.07, 1.0),
    "person": ((0.3, 0.8), 0.04, 0.10, 1.0),
    "sign": ((0.1, 0.4), 0.05, 0.05, 0.5),
}


def _agreement(df, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return iaf.agreement(df, progress=False, **kwargs)


def test_borrowing_takes_the_parent_column_and_keeps_the_rest():
    m = sp.csr_matrix(np.array([[1.0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 0]]))
    parents = m[:, :1].tocsc()
    out, borrowed = borrow_thin_cells(m, parents, np.array([-1, 0, 0]), np.array([9, 5, 1]),
                                      min_units=3)  # fmt: skip
    # cell 1 (1 unit, 5 within) borrows the 4 of cell 0; cell 2 has 1 within unit: not
    assert borrowed.tolist() == [-1, 0, -1]
    assert out.toarray()[:, 1].tolist() == [1, 1, 1, 1]
    assert out.toarray()[:, 2].tolist() == [0, 0, 1, 0]
    # a budget of entries: an evenly spaced half of the parent, each weighing twice
    out, _ = borrow_thin_cells(m, parents, np.array([-1, 0, -1]), np.array([9, 5, 0]),
                               min_units=3, budget=2)  # fmt: skip
    assert out.toarray()[:, 1].tolist() == [2, 0, 2, 0]


def test_bundled_sample_every_pair_and_annotator_defined():
    df = iaf.load_sample("coco")
    res = _agreement(df, n_boot=100)
    loc = res.sel(component="localization", label=ALL)
    assert np.isfinite(loc["agreement"]).all()
    assert np.isfinite(loc["ci_low"]).all() and np.isfinite(loc["ci_high"]).all()
    pw = iaf.pairwise(df, progress=False)
    off = ~np.eye(pw.shape[0], dtype=bool)
    assert np.isfinite(pw.values[off]).all()
    assert (pw["chance_source"].values[off] == "borrowed").all()
    assert (pw["ci_low"].values[off] <= pw.values[off]).all()
    assert (pw.values[off] <= pw["ci_high"].values[off]).all()


def test_identical_and_blind_annotators_in_borrowed_cells():
    # small objects: the annotator cells have few chance units of their own
    mid = {k: (v[0], 2 * v[1], 2 * v[2], v[3]) for k, v in SMALL.items()}
    same = _agreement(corpus(60, {"a": "same", "b": "same", "c": "same"}, seed=2, classes=mid),
                      n_boot=0).sel(component="localization")  # fmt: skip
    assert (same["chance_source"] == "borrowed").any()
    value = same["agreement"].values
    assert np.isfinite(value[0]).all() and np.nanmin(value) > 0.99
    got = []
    for seed in range(6):
        df = corpus(60, {"a": "blind", "b": "blind", "c": "jitter:0.02"}, seed=20 + seed,
                    classes={k: (v[0], 4 * v[1], 4 * v[2], v[3]) for k, v in SMALL.items()},
                    objects=(2, 4))  # fmt: skip
        res = _agreement(df, n_boot=0).sel(component="localization", label=ALL)
        got.append(res["agreement"].sel(annotator=["a", "b"]).values)
    got = np.array(got)
    assert np.abs(np.nanmean(got)) < 0.1, got


def test_a_lazy_annotator_keeps_its_own_units_and_scores_near_zero():
    # the same box per class on every image: its own chance units are not thin
    df = corpus(120, {"a": "same", "b": "jitter:0.05", "lazy": "lazy"}, seed=5,
                classes={k: (v[0], 3 * v[1], 3 * v[2], v[3]) for k, v in SMALL.items()})  # fmt: skip
    res = _agreement(df, n_boot=100).sel(component="localization", label=ALL)
    lazy = res.sel(annotator="lazy")
    assert str(lazy["chance_source"].item()) != "borrowed"
    assert float(lazy["ci_low"]) <= 0.05
    assert float(res["agreement"].sel(annotator="a")) > float(lazy["agreement"]) + 0.2


def _shuffled(m, rng):
    """``m`` (CSR or CSC) with the entries of every line in a random order."""
    order = np.concatenate(
        [lo + rng.permutation(hi - lo) for lo, hi in zip(m.indptr[:-1], m.indptr[1:])]
        or [np.zeros(0, np.int64)]
    ).astype(np.int64)
    out = type(m)((m.data[order], m.indices[order], m.indptr.copy()), shape=m.shape)
    out.has_sorted_indices = False
    return out


def _by_coordinates(membership, parents, parent_of, borrowed, budget):
    """The borrowed matrix as scipy assembles it from coordinates (sorted and summed)."""
    thin = borrowed >= 0
    cells = np.flatnonzero(thin)
    if not len(cells):
        return membership
    count = np.diff(parents.indptr)[parent_of[cells]]
    step = max(1, -(-int(count.sum()) // budget))
    take = -(-count // step)
    return borrow._assembled(membership, parents, parent_of, thin, cells, take, step)


@pytest.mark.parametrize("seed", range(8))
def test_column_copy_is_the_matrix_sorting_the_entries_gives(seed):
    # the borrowed matrix is built column by column in linear time: it must be, array for
    # array and bit for bit, the canonical matrix scipy assembles from the coordinates,
    # for subsets (budget), float32 parents beside float64 cells, and caller-chosen cells
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n_rows, n_cells, n_par = (int(v) for v in rng.integers(1, [60, 40, 6]))
        dtypes = [np.float64, np.float32]
        m = sp.random(
            n_rows,
            n_cells,
            density=rng.uniform(0.01, 0.5),
            format="csr",
            random_state=int(rng.integers(1 << 30)),
            dtype=dtypes[rng.random() < 0.2],
        )
        parents = sp.random(
            n_rows,
            n_par,
            density=rng.uniform(0.05, 0.9),
            format="csc",
            random_state=int(rng.integers(1 << 30)),
            dtype=dtypes[rng.random() < 0.2],
        )
        if rng.random() < 0.3:  # entries in any order within rows (as a product leaves them)
            m = _shuffled(m, rng)
        if rng.random() < 0.2:  # a parent with unsorted rows
            parents = _shuffled(parents, rng)
        parent_of = rng.integers(-1, n_par, n_cells)
        within = rng.integers(0, 6, n_cells)
        budget = int(rng.choice([1 << 24, 5, 20, 100]))
        kw = {"min_units": int(rng.integers(1, 10)), "budget": budget}
        if rng.random() < 0.3:
            kw["thin"] = rng.random(n_cells) < 0.5
        got, borrowed = borrow_thin_cells(m, parents, parent_of, within, **kw)
        want = _by_coordinates(m, parents, parent_of, borrowed, budget)
        assert got.shape == want.shape
        assert got.indices.dtype == want.indices.dtype and got.dtype == want.dtype
        assert np.array_equal(got.indptr, want.indptr)
        assert np.array_equal(got.indices, want.indices)
        assert np.array_equal(got.data.view(np.uint8), want.data.view(np.uint8))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_distinct_finds_a_repeat_in_any_line(fmt):
    rng = np.random.default_rng(1)
    dense = (rng.random((7, 5)) < 0.5) * 1.0
    m = sp.csr_matrix(dense) if fmt == "csr" else sp.csc_matrix(dense)
    assert borrow._distinct(_shuffled(m, rng))
    for line in np.flatnonzero(np.diff(m.indptr)):  # repeat one entry of each line in turn
        at = m.indptr[line]
        data = np.insert(m.data, at, 1.0)
        indices = np.insert(m.indices, at, m.indices[at])
        indptr = m.indptr + (np.arange(len(m.indptr)) > line)
        assert not borrow._distinct(type(m)((data, indices, indptr), shape=m.shape))
    assert borrow._distinct(type(m)(m.shape))  # empty, and empty trailing lines


def test_repeated_entries_are_summed_as_before():
    # a membership with a repeated entry is not canonical: the coordinates' assembly sums it
    m = sp.csr_matrix(
        (np.array([1.0, 2.0, 1.0]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2)
    )
    parents = sp.csc_matrix(np.array([[1.0], [1.0]]))
    got, borrowed = borrow_thin_cells(m, parents, np.array([-1, 0]), np.array([5, 5]), min_units=2)
    assert borrowed.tolist() == [-1, 0]
    assert got.toarray().tolist() == [[3.0, 1.0], [0.0, 1.0]]
