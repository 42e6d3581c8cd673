"""Tests for iaa_frames.stats.krippendorff: published values, the `krippendorff` package, properties."""

import tracemalloc

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracles import binary_alpha, presence_alpha, weighted_nominal_alpha

from iaa_frames.errors import IAAError, InvalidAnnotationError, ParameterError, SchemaError
from iaa_frames.stats.krippendorff import (
    binary_alpha_per_category,
    nominal_alpha,
    nominal_alpha_from_codes,
)

nan = np.nan

# K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School
# for Communication, University of Pennsylvania, section C ("Nominal data, any number of
# observers, missing values"): reliability data matrix of 4 observers x 12 units; the
# nominal alpha is reported as 0.743.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)


def kripp(matrix):
    """Reference value from the independent `krippendorff` package."""
    with np.errstate(invalid="ignore", divide="ignore"):  # it returns NaN with a warning
        return krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")


def random_matrix(rng, n_annotators, n_units, n_categories, p_missing):
    m = rng.integers(0, n_categories, size=(n_annotators, n_units)).astype(float)
    m[rng.random(m.shape) < p_missing] = nan
    return m


def codes_of(matrix):
    """(unit_codes, value_codes) of the non-missing entries, category = the value."""
    ann, unit = np.nonzero(~np.isnan(matrix))
    return unit, matrix[ann, unit].astype(np.int64)


def to_tidy(matrix, rng=None):
    ann, unit = np.indices(matrix.shape)
    df = pd.DataFrame(
        {
            "unit": [f"u{u}" for u in unit.ravel()],
            "annotator": [f"a{a}" for a in ann.ravel()],
            "value": pd.array(
                [None if np.isnan(v) else f"cat{int(v)}" for v in matrix.ravel()],
                dtype="str",
            ),
        }
    )
    if rng is not None:
        df = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    return df


# ------------------------------------------------------------------ published example


def test_krippendorff_2011_nominal_example():
    assert round(nominal_alpha(KRIPPENDORFF_2011), 3) == 0.743
    assert nominal_alpha(KRIPPENDORFF_2011) == pytest.approx(kripp(KRIPPENDORFF_2011), abs=1e-12)


def test_krippendorff_2011_object_array_with_none():
    obj = np.where(np.isnan(KRIPPENDORFF_2011), None, KRIPPENDORFF_2011.astype(object))
    as_text = np.array(
        [[None if v is None else f"v{int(v)}" for v in row] for row in obj], dtype=object
    )
    assert round(nominal_alpha(obj), 3) == 0.743
    assert round(nominal_alpha(as_text), 3) == 0.743
    assert round(nominal_alpha(as_text.tolist()), 3) == 0.743


def test_krippendorff_2011_tidy_frame_equals_matrix():
    rng = np.random.default_rng(1)
    df = to_tidy(KRIPPENDORFF_2011, rng)
    assert nominal_alpha(df) == pytest.approx(nominal_alpha(KRIPPENDORFF_2011), abs=1e-15)
    renamed = df.rename(columns={"unit": "cluster", "annotator": "who", "value": "label"})
    assert nominal_alpha(renamed, unit="cluster", annotator="who", value="label") == (
        pytest.approx(0.743, abs=5e-4)
    )


# ------------------------------------------------------ cross-check with krippendorff


@pytest.mark.parametrize(
    "shape, n_categories, p_missing",
    [
        ((2, 10), 2, 0.0),
        ((3, 50), 5, 0.2),
        ((5, 200), 40, 0.4),
        ((10, 30), 300, 0.3),
        ((4, 400), 3, 0.6),
    ],
)
def test_matches_krippendorff_package(shape, n_categories, p_missing):
    rng = np.random.default_rng(sum(shape) + n_categories)
    for _ in range(3):
        m = random_matrix(rng, *shape, n_categories, p_missing)
        assert nominal_alpha(m) == pytest.approx(kripp(m), abs=1e-9)
        assert nominal_alpha_from_codes(*codes_of(m)) == pytest.approx(kripp(m), abs=1e-9)


def test_agreeing_annotators_match_krippendorff():
    # mostly agreeing data gives alpha far from 0, a stronger check than random data
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 6, size=300)
    m = np.tile(truth, (4, 1)).astype(float)
    flip = rng.random(m.shape) < 0.15
    m[flip] = rng.integers(0, 6, size=flip.sum())
    m[rng.random(m.shape) < 0.2] = nan
    a = nominal_alpha(m)
    assert a > 0.6
    assert a == pytest.approx(kripp(m), abs=1e-9)


matrices = st.integers(2, 6).flatmap(
    lambda n_ann: st.integers(1, 12).flatmap(
        lambda n_units: hnp.arrays(
            np.float64,
            (n_ann, n_units),
            elements=st.one_of(st.just(nan), st.integers(0, 4).map(float)),
        )
    )
)


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_hypothesis_matches_krippendorff(m):
    values = m[~np.isnan(m)]
    pairable = (~np.isnan(m)).sum(axis=0) >= 2
    assume(np.unique(values).size >= 2 and pairable.any())
    # both are NaN when only one value occurs among the pairable units
    assert nominal_alpha(m) == pytest.approx(kripp(m), abs=1e-9, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(matrices, st.randoms(use_true_random=False))
def test_tidy_equals_array(m, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    np.testing.assert_allclose(nominal_alpha(to_tidy(m, rng)), nominal_alpha(m), atol=1e-12)


# ------------------------------------------------- the weighted oracle of other tests


def test_oracle_integer_weights_equal_duplicated_units():
    """tests/support/oracles.py's weighted alpha (used to check the engine's weighted cells)
    against the `krippendorff` package on duplicated units."""
    rng = np.random.default_rng(3)
    for _ in range(3):
        m = random_matrix(rng, 4, 40, 5, 0.3)
        w = rng.integers(0, 4, size=m.shape[1])
        got = weighted_nominal_alpha(*codes_of(m), weights=w)
        assert got == pytest.approx(kripp(np.repeat(m, w, axis=1)), abs=1e-9)
        assert weighted_nominal_alpha(*codes_of(m)) == pytest.approx(
            nominal_alpha_from_codes(*codes_of(m)), abs=1e-12
        )


# ----------------------------------------------------------------- binary per category


def recoded(m, c):
    return np.where(np.isnan(m), nan, (m == c).astype(float))


def test_binary_per_category_equals_nominal_on_recoded_data():
    rng = np.random.default_rng(8)
    m = random_matrix(rng, 4, 120, 6, 0.25)
    truth = rng.integers(0, 6, size=120)
    m = np.where(rng.random(m.shape) < 0.6, truth, m)
    m[rng.random(m.shape) < 0.2] = nan
    units, values = codes_of(m)
    per = binary_alpha_per_category(units, values)
    assert per.shape == (6,)
    for c in range(6):
        assert per[c] == pytest.approx(kripp(recoded(m, c)), abs=1e-9)
        assert per[c] == pytest.approx(nominal_alpha(recoded(m, c)), abs=1e-12)
        assert binary_alpha(units, values, c) == pytest.approx(per[c], abs=1e-12)


def test_binary_per_category_unused_categories_are_nan():
    rng = np.random.default_rng(9)
    m = random_matrix(rng, 3, 70, 4, 0.2)
    units, values = codes_of(m)
    per = binary_alpha_per_category(units, values, n_categories=6)
    assert per.shape == (6,)
    for c in range(4):
        assert per[c] == pytest.approx(kripp(recoded(m, c)), abs=1e-9)
    assert np.isnan(per[4:]).all()  # categories no value uses


def test_binary_per_category_nan_when_category_always_used():
    per = binary_alpha_per_category([0, 0, 1, 1], [0, 0, 0, 0], n_categories=2)
    assert np.isnan(per).all()


# ---------------------------------------------------------------------- presence alpha


@pytest.mark.parametrize("n", [1, 2, 3, 10, 57])
def test_presence_alpha_two_annotator_identity(n):
    """The identity of docs/ARCHITECTURE.md ("The components") that makes presence alpha
    unfit as the detection headline, on the oracle the engine's presence cells are
    checked against."""
    for u in range(n + 1):
        n_present = np.r_[np.full(n - u, 2), np.full(u, 1)]
        got = presence_alpha(n_present, np.full(n, 2))
        if u == 0:
            assert np.isnan(got)  # no expected disagreement
        else:
            assert got == pytest.approx(1 - (2 * n - 1) / (2 * n - u), abs=1e-12)
            assert got <= 1e-12


def test_presence_alpha_equals_krippendorff_on_presence_matrix():
    rng = np.random.default_rng(10)
    n_raters = rng.integers(1, 6, size=80)
    n_present = np.minimum(np.maximum(rng.integers(0, n_raters + 1), 1), n_raters)
    rows = np.arange(5)[:, None]
    m = np.where(rows < n_present, 1.0, np.where(rows < n_raters, 0.0, nan))
    assert presence_alpha(n_present, n_raters) == pytest.approx(kripp(m), abs=1e-9)


# ------------------------------------------------------------------------- invariance


@settings(max_examples=60, deadline=None)
@given(matrices, st.randoms(use_true_random=False))
def test_invariant_to_permutations_and_relabeling(m, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    base = nominal_alpha(m)
    permuted = m[rng.permutation(m.shape[0])][:, rng.permutation(m.shape[1])]
    np.testing.assert_allclose(nominal_alpha(permuted), base, atol=1e-12)
    names = np.array([f"label-{k}" for k in rng.permutation(5)], dtype=object)
    relabeled = np.where(np.isnan(m), None, names[np.nan_to_num(m).astype(int)])
    np.testing.assert_allclose(nominal_alpha(relabeled), base, atol=1e-12)


def test_value_codes_need_not_be_contiguous():
    rng = np.random.default_rng(11)
    m = random_matrix(rng, 3, 40, 4, 0.2)
    units, values = codes_of(m)
    spread = np.array([7, 1000, 3, 55])[values]
    assert nominal_alpha_from_codes(units * 3, spread) == pytest.approx(
        nominal_alpha_from_codes(units, values), abs=1e-12
    )


# ----------------------------------------------------------------------- degenerate


@pytest.mark.parametrize(
    "matrix",
    [
        [[1, 1, 1], [1, 1, 1]],  # all identical: D_e = 0
        [[1, nan, nan], [nan, 2, nan]],  # no unit has two values
        [[nan, nan], [nan, nan]],  # nothing at all
        np.empty((2, 0)),  # no units
        [[3, 3]],  # one annotator: nothing pairable
    ],
)
def test_degenerate_inputs_are_nan(matrix):
    assert np.isnan(nominal_alpha(matrix))


def test_degenerate_codes_are_nan():
    assert np.isnan(nominal_alpha_from_codes([], []))
    assert np.isnan(nominal_alpha_from_codes([0, 1], [0, 1]))  # no unit is pairable
    assert np.isnan(nominal_alpha_from_codes([0, 0, 1, 1], [1, 1, 1, 1]))  # no variation


def test_tidy_ignores_na_values():
    df = pd.DataFrame(
        {
            "unit": [1, 1, 2, 2, 2],
            "annotator": ["a", "b", "a", "b", "c"],
            "value": ["x", "x", "y", None, "x"],
        }
    )
    assert nominal_alpha(df) == pytest.approx(kripp([[0, 1], [0, nan], [nan, 0]]), abs=1e-12)


# ---------------------------------------------------------------------- many classes


def test_many_categories_small():
    rng = np.random.default_rng(12)
    n_values, n_units, n_cat = 200_000, 60_000, 5_000
    units = rng.integers(0, n_units, n_values)
    truth = rng.integers(0, n_cat, n_units)
    values = np.where(rng.random(n_values) < 0.7, truth[units], rng.integers(0, n_cat, n_values))
    tracemalloc.start()
    a = nominal_alpha_from_codes(units, values)
    per = binary_alpha_per_category(units, values)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 0.3 < a < 0.8
    assert per.shape == (n_cat,)
    # a dense 5,000 x 5,000 float64 coincidence matrix alone would take 200 MB
    assert peak < 100e6
    # relabeling the 5,000 categories does not change alpha
    assert nominal_alpha_from_codes(units, rng.permutation(n_cat)[values]) == (
        pytest.approx(a, abs=1e-12)
    )


# ------------------------------------------------------------------------- validation


def test_validation_errors():
    with pytest.raises(ParameterError, match="2-D"):
        nominal_alpha([1, 2, 3])
    with pytest.raises(ParameterError, match="2-D"):
        nominal_alpha(np.zeros((2, 2, 2)))
    with pytest.raises(ParameterError, match="rectangular"):
        nominal_alpha([[1, 2], [1]])
    with pytest.raises(ParameterError):
        nominal_alpha("not data")
    with pytest.raises(SchemaError, match="annotator"):
        nominal_alpha(pd.DataFrame({"unit": [1], "value": [1]}))
    dup = pd.DataFrame({"unit": [1, 1], "annotator": ["a", "a"], "value": ["x", "y"]})
    with pytest.raises(InvalidAnnotationError, match="more than one value"):
        nominal_alpha(dup)
    with pytest.raises(ParameterError, match="integer"):
        nominal_alpha_from_codes([0.0, 1.0], [0, 1])
    with pytest.raises(ParameterError, match="non-negative"):
        nominal_alpha_from_codes([0, -1], [0, 1])
    with pytest.raises(ParameterError, match="same length"):
        nominal_alpha_from_codes([0, 1], [0])
    with pytest.raises(ParameterError, match="n_categories"):
        binary_alpha_per_category([0, 0], [0, 5], n_categories=3)
    assert issubclass(ParameterError, IAAError)
