"""Every public function bounds ``n_boot`` and ``seed`` as :func:`iaa_frames.agreement`
does, and ``annotators`` is a list of names:

* ``annotator_quality`` and ``accuracy`` ran any ``n_boot`` (a billion replicates ran
  for hours with no error);
* a seed above 2**63 - 1 was taken, and the result's ``seed`` attr could not be written
  by ``to_netcdf`` (``report`` already refused it);
* ``iaf.pairwise(annotators="ab")`` read the string as the annotators "a" and "b", and
  ``annotators=3`` was a ``TypeError`` from inside."""

from __future__ import annotations

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.settings.validation import MAX_N_BOOT

#: The largest signed 64-bit integer.
MAX_SEED = 2**63 - 1

FAST = dict(n_chance=50)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=6, annotators={"a": "good", "b": "good", "c": "sloppy"}, seed=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda d, n: iaf.annotator_quality(d, n_boot=n),
        lambda d, n: iaf.annotator_quality_from_tables(iaf.pair_tables(d, **FAST), n_boot=n),
        lambda d, n: iaf.accuracy(d, reference="a", n_boot=n, **FAST),
    ],
    ids=["annotator_quality", "annotator_quality_from_tables", "accuracy"],
)
def test_n_boot_above_the_engine_bound_is_refused(df, call):
    with pytest.raises(ParameterError, match=f"n_boot must be at most {MAX_N_BOOT:,}"):
        call(df, MAX_N_BOOT + 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda d, s: iaf.agreement(d, n_boot=0, seed=s, **FAST),
        lambda d, s: iaf.pair_tables(d, seed=s, **FAST),
        lambda d, s: iaf.annotator_quality(d, n_boot=0, seed=s),
    ],
    ids=["agreement", "pair_tables", "annotator_quality"],
)
def test_a_seed_above_int64_is_refused(df, call):
    with pytest.raises(ParameterError, match="seed must be at most"):
        call(df, MAX_SEED + 1)


def test_the_largest_seed_is_kept_as_an_int64(df):
    res = iaf.agreement(df, n_boot=0, seed=MAX_SEED, **FAST)
    assert np.int64(res.attrs["seed"]) == MAX_SEED


@pytest.mark.parametrize("annotators", ["ab", 3, {"a": 1, "b": 2}])
def test_pairwise_annotators_must_be_a_list_of_names(df, annotators):
    with pytest.raises(ParameterError, match="annotators must be None or a list"):
        iaf.pairwise(df, n_boot=0, annotators=annotators, **FAST)
