"""Tests for iaa_frames.stats.krippendorff_levels: alpha at the nominal, ordinal and
interval levels equals the ``krippendorff`` package (fast-krippendorff) on random
matrices with missing values, and the closed forms agree with brute force over the
coincidence matrix."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from iaa_frames.errors import ParameterError
from iaa_frames.stats.krippendorff_levels import (
    interval_disagreements,
    level_alpha,
    midranks,
    ordinal_disagreements,
    pair_index,
)


def _matrix(rng, n_coders, n_units, n_values, missing):
    data = rng.integers(1, n_values + 1, size=(n_coders, n_units)).astype(float)
    # some agreement: coders copy the first coder's value half the time
    copy = rng.random(data.shape) < 0.5
    data = np.where(copy, data[0], data)
    data[rng.random(data.shape) < missing] = np.nan
    return data


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(8))
def test_level_alpha_equals_the_krippendorff_package(level, seed):
    rng = np.random.default_rng(seed)
    data = _matrix(rng, 2 + seed % 4, 30 + 7 * seed, 2 + seed % 6, missing=0.2)
    ours = level_alpha(data, level=level)
    theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert ours == pytest.approx(theirs, rel=1e-10, abs=1e-12)


def test_interval_alpha_of_real_values_and_a_shift_or_scale_leaves_it_unchanged():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(3, 40)) + rng.normal(size=40) * 2
    data[rng.random(data.shape) < 0.1] = np.nan
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert level_alpha(data, level="interval") == pytest.approx(ref, rel=1e-10)
    assert level_alpha(1e6 + 3 * data, level="interval") == pytest.approx(ref, rel=1e-8)


def _coincidences(data):
    """Brute-force coincidence matrix o_ck over the sorted distinct values."""
    values = np.unique(data[np.isfinite(data)])
    o = np.zeros((len(values), len(values)))
    for u in range(data.shape[1]):
        col = data[:, u][np.isfinite(data[:, u])]
        if len(col) < 2:
            continue
        for i in range(len(col)):
            for j in range(len(col)):
                if i != j:
                    o[np.searchsorted(values, col[i]), np.searchsorted(values, col[j])] += 1 / (
                        len(col) - 1
                    )
    return values, o


def test_ordinal_and_interval_disagreements_against_brute_force_sums():
    rng = np.random.default_rng(5)
    data = _matrix(rng, 3, 25, 5, missing=0.15)
    values, o = _coincidences(data)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    # ordinal: delta(c, k) = sum_{g=c}^{k} n_g - (n_c + n_k) / 2 (Krippendorff 2011)
    delta2 = np.array(
        [
            [
                (n_c[min(c, k) : max(c, k) + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
                for k in range(len(n_c))
            ]
            for c in range(len(n_c))
        ]
    )
    c, k = pair_index(len(n_c))
    d_o, d_e = ordinal_disagreements(n_c, o[c, k] + o[k, c])
    assert float(d_o) == pytest.approx((o * delta2).sum() / n)
    assert float(d_e) == pytest.approx(np.outer(n_c, n_c).__mul__(delta2).sum() / (n * (n - 1)))
    # interval: delta^2 = (c - k)^2
    diff2 = (values[:, None] - values[None, :]) ** 2
    d_o, d_e = interval_disagreements(n, n_c @ values, n_c @ values**2, (o * diff2).sum())
    assert float(d_o) == pytest.approx((o * diff2).sum() / n)
    assert float(d_e) == pytest.approx((np.outer(n_c, n_c) * diff2).sum() / (n * (n - 1)))


def test_helpers_broadcast_over_leading_axes():
    n_c = np.array([[2.0, 1.0, 3.0], [1.0, 1.0, 1.0]])
    o = np.array([[0.0, 0.0, 2.0], [2.0, 0.0, 0.0]])
    d_o, d_e = ordinal_disagreements(n_c, o)
    assert d_o.shape == d_e.shape == (2,)
    for row in range(2):
        one = ordinal_disagreements(n_c[row], o[row])
        assert float(one[0]) == pytest.approx(d_o[row]) and float(one[1]) == pytest.approx(d_e[row])
    assert midranks(n_c).shape == n_c.shape


def test_identical_values_give_one_and_no_variation_nan():
    data = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    for level in ("nominal", "ordinal", "interval"):
        assert level_alpha(data, level=level) == pytest.approx(1.0)
        assert np.isnan(level_alpha(np.ones((2, 3)), level=level))


def test_bad_level_and_values_raise():
    with pytest.raises(ParameterError, match="level"):
        level_alpha([[1, 2]], level="ratio")
    with pytest.raises(ParameterError, match="numbers"):
        level_alpha([["a", "b"], ["a", "b"]], level="interval")
