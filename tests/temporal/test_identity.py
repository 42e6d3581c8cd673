"""temporal.identity: IDTP against brute force over every one-to-one assignment."""

import itertools

import numpy as np
import pytest

from iaa_frames.temporal.identity import idtp


def _brute(n):
    """Largest sum of a one-to-one assignment of rows to columns of the count matrix."""
    r, c = n.shape
    if r > c:
        return _brute(n.T)
    return max(
        (sum(n[i, p[i]] for i in range(r)) for p in itertools.permutations(range(c), r)),
        default=0,
    )


@pytest.mark.parametrize("seed", range(20))
def test_idtp_is_the_best_one_to_one_assignment(seed):
    rng = np.random.default_rng(seed)
    units, rows = [], []
    expected = []
    for u in range(4):
        na, nb = rng.integers(1, 5, size=2)
        n = rng.integers(0, 4, size=(na, nb)) * (rng.random((na, nb)) < 0.6)
        expected.append(_brute(n))
        a, b = np.nonzero(n)
        rep = n[a, b]
        units.append(np.full(rep.sum(), u))
        rows.append(np.c_[np.repeat(a + 10 * u, rep), np.repeat(b + 100, rep)])
    unit = np.concatenate(units)
    ab = np.concatenate(rows)
    perm = rng.permutation(len(unit))  # row order does not matter
    got = idtp(unit[perm], ab[perm, 0], ab[perm, 1], 5)
    np.testing.assert_array_equal(got, [*expected, 0])
