"""``res.iaa.pairwise()`` and ``df.iaa.pairwise()`` check ``n_boot``, ``seed`` and
``annotators`` as ``iaf.pairwise()`` does: a negative ``n_boot`` was a ``KeyError``, a
billion replicates a 67 GiB allocation (``MemoryError``), a negative seed numpy's
``ValueError``, and ``annotators="ab"`` silently the pair of annotators "a" and "b"."""

from __future__ import annotations

import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.settings.validation import MAX_N_BOOT

FAST = dict(n_chance=50)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=6, annotators={"a": "good", "b": "good", "c": "sloppy"}, seed=0)


@pytest.fixture(scope="module")
def res(df):
    return iaf.agreement(df, n_boot=0, **FAST)


@pytest.mark.parametrize(
    "kwargs, named",
    [
        (dict(n_boot=-1), "n_boot"),
        (dict(n_boot=10**9), "n_boot"),
        (dict(n_boot=2.0), "n_boot"),
        (dict(seed=-1), "seed"),
        (dict(seed="0"), "seed"),
        (dict(annotators="ab"), "annotators"),
        (dict(annotators=3), "annotators"),
    ],
)
def test_result_pairwise_refuses_bad_parameters(res, kwargs, named):
    with pytest.raises(ParameterError, match=named):
        res.iaa.pairwise(**kwargs)


@pytest.mark.parametrize(
    "kwargs, named",
    [
        (dict(n_boot=MAX_N_BOOT + 1), "n_boot"),
        (dict(annotators="ab"), "annotators"),
        (dict(annotators=3), "annotators"),
    ],
)
def test_frame_pairwise_refuses_bad_parameters(df, kwargs, named):
    with pytest.raises(ParameterError, match=named):
        df.iaa.pairwise(**{"n_boot": 0, **FAST, **kwargs})


def test_a_list_tuple_or_set_of_names_still_chooses_the_pairs(res):
    want = res.iaa.pairwise(n_boot=0, annotators=["a", "b"])
    for given in (("b", "a"), {"a", "b"}):
        got = res.iaa.pairwise(n_boot=0, annotators=given)
        assert got.identical(want)
    assert want.shape == (2, 2)
