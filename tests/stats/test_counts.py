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


def test_row_blocks_multiply_as_the_whole_matrix():
    # counts given as vertical blocks by item, their kept rows (every row with a count,
    # and empty ones) remapped: the products are those of the whole matrix's kept rows,
    # float32 where exact (exact=True), float64 where a block's rows could leave float32
    # (a row of 2**19 counts), and with a multiplicity over 64
    from iaa_frames.stats import counts as mod

    rng = np.random.default_rng(3)
    rows = np.r_[np.full(2**19, 57, np.int64), rng.integers(0, 80, 20000)]
    cols = np.r_[np.zeros(2**19, np.int64), rng.integers(0, 300, 20000)]
    rows[rows == 5] = 6  # row 5 holds no count (dropped from kept below)
    whole = count_matrix(rows, cols, (80, 300))
    kept = np.flatnonzero(np.arange(80) != 5)
    edges = [0, 17, 40, 41, 80]
    for with_large in (False, True):
        m = whole if with_large else whole[np.arange(80) != 57]
        keep = kept if with_large else np.flatnonzero(np.arange(79) != 5)
        cut = edges if with_large else [0, 17, 40, 41, 79]
        blocks = [(lo, m[lo:hi].astype(np.float32).tocsc()) for lo, hi in zip(cut[:-1], cut[1:])]
        got = mod.CountMatrix.of_row_blocks(blocks, m.shape, keep)
        assert not blocks  # taken
        assert got.shape == (len(keep), 300)
        assert (got.matrix != m[keep]).nnz == 0
        for high in (8, 64, 200):
            k = rng.integers(0, high + 1, (5, 300)).astype(np.int32)
            want = m[keep].toarray() @ k.T.astype(np.float64)
            assert np.array_equal(got.times(k), want) and got.times(k).dtype == np.float64
            exact = got.times(k, exact=True)
            assert np.array_equal(exact, want)
            assert exact.dtype == (np.float32 if high <= 64 and not with_large else np.float64)
