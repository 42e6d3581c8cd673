"""Count matrices: built by one sort as scipy builds them from COO, and their float32
products with multiplicities equal to the float64 products bit for bit."""

import numpy as np
import scipy.sparse as sp

from iaa_frames.stats.counts import EXACT_FLOAT32, CountMatrix, count_matrix


def test_count_matrix_is_scipys_coo_conversion():
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 30, 5000), rng.integers(0, 40, 5000)
    got = count_matrix(rows, cols, (31, 40))
    want = sp.csr_matrix((np.ones(5000), (rows, cols)), shape=(31, 40))
    want.sum_duplicates()
    assert got.has_canonical_format
    for a in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(got, a), getattr(want, a))
    assert count_matrix([], [], (2, 3)).nnz == 0


def test_products_equal_float64_with_rows_too_large_for_float32():
    # row 0 holds 2**19 entries: times a multiplicity of 64 it passes 2**24, so it is
    # multiplied in float64; the others in float32; a block with a multiplicity over 64
    # goes to float64 throughout
    rng = np.random.default_rng(1)
    rows = np.r_[np.zeros(2**19, np.int64), rng.integers(1, 50, 20000)]
    cols = np.r_[np.zeros(2**19, np.int64), rng.integers(0, 300, 20000)]
    m = CountMatrix.of_entries(rows, cols, (50, 300))
    dense = m.matrix.toarray()
    assert dense[0, 0] * 64 >= EXACT_FLOAT32
    for high in (8, 64, 200):
        k = rng.integers(0, high + 1, (7, 300)).astype(np.int32)
        k[0, 0] = high
        got = m.times(k)
        want = np.asarray(count_matrix(rows, cols, (50, 300)) @ k.T.astype(np.float64))
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.float64


def test_float32_counts_are_the_float64_counts_and_multiply_alike(monkeypatch):
    from iaa_frames.stats import counts as mod

    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, 40, 3000), rng.integers(0, 30, 3000)
    wide = mod.count_matrix(rows, cols, (40, 30))
    narrow = mod.count_matrix(rows, cols, (40, 30), np.float32)
    assert wide.dtype == np.float64 and narrow.dtype == np.float32
    assert np.array_equal(wide.indptr, narrow.indptr)
    assert np.array_equal(wide.indices, narrow.indices)
    assert np.array_equal(wide.data, narrow.data.astype(np.float64))
    k = rng.integers(0, 5, (6, 30)).astype(np.int32)
    brute = wide.toarray() @ k.T.astype(np.float64)
    for m in (wide, narrow):
        assert np.array_equal(mod.CountMatrix(m).times(k), brute)
        assert mod.CountMatrix(m).matrix.dtype == np.float64
        assert mod.CountMatrix(m).matrix.format == "csr"  # kept by item inside, CSR out
    # counts that could reach 2**24 stay float64
    monkeypatch.setattr(mod, "EXACT_FLOAT32", 100.0)
    assert mod.count_matrix(rows, cols, (40, 30), np.float32).dtype == np.float64
    # rows whose products could leave float32's exact range: multiplied in float64
    split = mod.CountMatrix(narrow)
    assert split._large.size and np.array_equal(split.times(k), brute)
