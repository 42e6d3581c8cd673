"""Tests for the rows of a sparse matrix summed per key: bit for bit the indicator
product they replace, and the same additions in order of row as a brute force."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.stats.grouped_sums import sum_rows_by_key


def _sums_in_row_order(key, matrix):
    """Brute force: every (key, column) sum added entry by entry in order of row."""
    sums = {}
    for r, k in enumerate(key):
        for j in range(matrix.indptr[r], matrix.indptr[r + 1]):
            at = (int(k), int(matrix.indices[j]))
            sums[at] = sums.get(at, 0.0) + float(matrix.data[j])
    return {at: v for at, v in sums.items() if v != 0}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(1, 6), st.integers(1, 8), st.integers(0, 2**31))
def test_sum_rows_by_key_is_the_indicator_product_bit_for_bit(n_rows, n_cols, n_keys, seed):
    rng = np.random.default_rng(seed)
    key = rng.integers(0, n_keys, n_rows) * rng.choice([1, 7, 2**59])  # huge keys too
    dense = rng.normal(size=(n_rows, n_cols)) * 10.0 ** rng.integers(-8, 8, (n_rows, n_cols))
    dense[rng.random((n_rows, n_cols)) < 0.4] = 0.0
    matrix = sp.csr_matrix(dense)
    keys, sums = sum_rows_by_key(key, matrix)
    np.testing.assert_array_equal(keys, np.unique(key))
    got = {
        (int(keys[i]), int(sums.indices[j])): float(sums.data[j])
        for i in range(len(keys))
        for j in range(sums.indptr[i], sums.indptr[i + 1])
    }
    assert got == _sums_in_row_order(key, matrix)  # exact: the same additions in order
    assert sums.has_canonical_format
    if n_rows:  # the sparse product it replaces, bit for bit
        _, inverse = np.unique(key, return_inverse=True)
        indicator = sp.csr_matrix(
            (np.ones(n_rows), (inverse, np.arange(n_rows))), shape=(len(keys), n_rows)
        )
        scale = rng.normal(size=n_rows) * (rng.random(n_rows) < 0.8)
        stacked = sp.hstack([matrix, sp.diags(scale) @ matrix], format="csr")
        for got, rows in (
            (sums, matrix),
            (sum_rows_by_key(key, matrix, (None, scale))[1], stacked),
        ):
            product = sp.csr_matrix(indicator @ rows)
            product.sort_indices()
            np.testing.assert_array_equal(product.indptr, got.indptr)
            np.testing.assert_array_equal(product.indices, got.indices)
            np.testing.assert_array_equal(product.data, got.data)


def test_sum_rows_by_key_with_columns_too_many_to_code():
    """Keys x columns past int64: the stable two-key sort gives the same sums."""
    key = np.array([3, 1, 3, 3])
    columns = np.array([0, 2**61, 0, 2**61])
    matrix = sp.csr_matrix(
        (np.array([0.1, 0.2, 0.3, 0.4]), (np.arange(4), columns)), shape=(4, 2**62)
    )
    keys, sums = sum_rows_by_key(key, matrix)
    assert keys.tolist() == [1, 3]
    assert sums.indices.tolist() == [2**61, 0, 2**61]
    assert sums.data.tolist() == [0.2, 0.1 + 0.3, 0.4]
