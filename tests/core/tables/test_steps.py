"""Steps of the pair tables (iaa_frames.core.tables.steps): counting keys, checked by brute
force."""

import numpy as np
import pytest

from iaa_frames.core.tables.steps import count_by_key


@pytest.mark.parametrize("spread", [10, 10**12])  # counted, and sorted
def test_count_by_key_counts_every_query_in_the_keys(spread):
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 50, 2000) * spread
    query = np.r_[rng.integers(-5, 60, 300) * spread, -1, keys.max() + 1]
    expected = [(keys == q).sum() for q in query]
    got = count_by_key(keys, query)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(count_by_key(keys[:0], query), 0)
    assert len(count_by_key(keys, query[:0])) == 0
