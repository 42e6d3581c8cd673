"""Tests for iaa_frames.stats.masi: the MASI distance against Passonneau's definition
written out case by case, its matrix against the pairwise function, and alpha of set
values against the ``krippendorff`` package given the same distance as a callable, and
against a brute force over the pairs of values of every unit."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.errors import ParameterError
from iaa_frames.stats.krippendorff_levels import alpha_from_disagreements
from iaa_frames.stats.masi import (
    MAX_SETS,
    as_set,
    masi_distance,
    masi_matrix,
    set_disagreements,
)

SETS = st.frozensets(st.sampled_from("abcdef"), max_size=5)


def _passonneau(a, b):
    """MASI as Passonneau (LREC 2006) tabulates it: J times 1, 2/3, 1/3 or 0."""
    a, b = set(a), set(b)
    if not a and not b:
        return 0.0
    j = len(a & b) / len(a | b)
    if a == b:
        m = 1.0
    elif a < b or b < a:
        m = 2 / 3
    elif a & b:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - j * m


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("ab", "ab", 0.0),
        ("ab", "abc", 1 - 2 / 3 * 2 / 3),  # subset: J = 2/3, M = 2/3
        ("ab", "ac", 1 - 1 / 3 * 1 / 3),  # overlap: J = 1/3, M = 1/3
        ("a", "abcd", 1 - 1 / 4 * 2 / 3),
        ("ab", "cd", 1.0),
        ("", "", 0.0),
        ("", "a", 1.0),
    ],
)
def test_distance_of_the_published_cases(a, b, expected):
    assert masi_distance(a, b) == pytest.approx(expected, abs=1e-15)
    assert masi_distance(b, a) == pytest.approx(expected, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.lists(SETS, min_size=1, max_size=12, unique=True))
def test_matrix_equals_the_pairwise_distance(sets):
    d = masi_matrix(sets)
    brute = np.array([[_passonneau(a, b) for b in sets] for a in sets])
    np.testing.assert_allclose(d, brute, atol=1e-15)
    assert np.allclose(d, d.T) and (np.diag(d) == 0).all()
    assert ((0 <= d) & (d <= 1)).all()


def test_values_become_sets():
    assert as_set(["a", "b", "a"]) == frozenset("ab")
    assert as_set(("x",)) == frozenset("x") and as_set({"y"}) == frozenset("y")
    assert as_set(np.array([1, 2])) == frozenset([1, 2])
    assert as_set("tail") == frozenset(["tail"]) and as_set(3) == frozenset([3])
    assert as_set(None) is None and as_set(float("nan")) is None
    assert as_set([]) == frozenset()


def test_too_many_distinct_sets_is_an_error_that_names_the_remedy():
    sets = [frozenset([i]) for i in range(MAX_SETS + 1)]
    with pytest.raises(ParameterError, match="levels="):
        masi_matrix(sets)


def _alpha_of_units(units):
    """Alpha of units (lists of frozensets) through set_disagreements."""
    sets = sorted({s for u in units for s in u}, key=sorted)
    code = {s: k for k, s in enumerate(sets)}
    delta = masi_matrix(sets)
    n_c = np.zeros(len(sets))
    o = 0.0
    for u in units:
        if len(u) < 2:
            continue
        for s in u:
            n_c[code[s]] += 1
        w = 1.0 / (len(u) - 1)
        for x, y in itertools.combinations(u, 2):
            o += 2 * w * delta[code[x], code[y]]
    n = n_c.sum()
    d_o, d_e = set_disagreements(n, n_c, o, delta)
    return float(alpha_from_disagreements(d_o, d_e, n)), sets


def _krippendorff(units, sets):
    """The ``krippendorff`` package with MASI as its distance callable."""
    code = {s: k for k, s in enumerate(sets)}
    data = np.full((max(len(u) for u in units), len(units)), np.nan)
    for j, u in enumerate(units):
        for i, s in enumerate(u):
            data[i, j] = code[s]
    table = np.array([[_passonneau(a, b) for b in sets] for a in sets])

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return table[v1.astype(int), v2.astype(int)].astype(dtype)

    return float(
        krippendorff.alpha(
            reliability_data=data,
            value_domain=np.arange(len(sets), dtype=float),
            level_of_measurement=metric,
        )
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(SETS, min_size=1, max_size=4), min_size=2, max_size=15))
def test_alpha_equals_the_krippendorff_package_with_masi_as_its_distance(units):
    got, sets = _alpha_of_units(units)
    if len(sets) < 2 or sum(len(u) for u in units if len(u) >= 2) < 2:
        return
    expected = _krippendorff(units, sets)
    if np.isnan(got):
        assert np.isnan(expected) or abs(expected) < 1e-9 or not np.isfinite(expected)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_alpha_of_a_small_case_by_hand():
    # units ({a}, {a}) and ({a}, {a, b}): n = 4, n_c = (3, 1), d({a}, {a, b}) = 2/3;
    # D_o = 2 * 2/3 / 4 = 1/3, D_e = 2 * 3 * 1 * 2/3 / (4 * 3) = 1/3: alpha 0
    a, ab = frozenset("a"), frozenset("ab")
    got, _ = _alpha_of_units([[a, a], [a, ab]])
    assert got == pytest.approx(0.0, abs=1e-12)


def test_near_misses_earn_partial_credit_that_nominal_alpha_does_not_give():
    # every disagreement a near miss ({a, b} against {a, b, c}): MASI's alpha is above
    # nominal alpha (which counts {a, b} against {a, b, c} as far apart as {a} against {d})
    ab, abc, d = frozenset("ab"), frozenset("abc"), frozenset("d")
    units = [[ab, ab], [ab, abc], [abc, abc], [d, d], [d, d], [ab, abc]]
    masi, sets = _alpha_of_units(units)
    code = {s: k for k, s in enumerate(sets)}
    data = np.array([[code[u[0]] for u in units], [code[u[1]] for u in units]], dtype=float)
    nominal = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert nominal < masi < 1
