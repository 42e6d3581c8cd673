"""Tests for iaa_frames.core.matching.rows: gathering rows, strings from their distinct values."""

import numpy as np
import pandas as pd
import pytest

from iaa_frames.core.matching.rows import gather_rows


@pytest.mark.parametrize("seed", range(5))
def test_gather_rows_is_iloc(seed):

    rng = np.random.default_rng(seed)
    n = 60
    df = pd.DataFrame(
        {
            "x": rng.random(n),
            "name": pd.array(rng.choice(["a", "bb", "ccc"], n), dtype="str"),
            "tag": pd.array(rng.choice(["p", "q"], n), dtype=object),  # uniques differ: iloc
            "k": pd.array(rng.integers(0, 9, n), dtype="Int64"),
        },
        index=rng.integers(0, 5, n),  # repeated labels: nothing aligns on the index
    )
    df.attrs["note"] = "kept"
    take = rng.permutation(n)[: n // 2]
    coded = {}
    for c in ("name", "tag", "missing"):
        if c in df.columns:
            codes, distinct = pd.factorize(df[c])
            coded[c] = (codes[take], distinct if c == "name" else np.asarray(distinct))
        else:
            coded[c] = (np.zeros(len(take), int), pd.array(["z"], dtype="str"))
    out = gather_rows(df, take, coded)
    want = df.iloc[take]
    assert out.equals(want) and list(out.columns) == list(want.columns)
    assert list(out.dtypes) == list(want.dtypes) and (out.index == want.index).all()
    assert out.attrs == want.attrs
