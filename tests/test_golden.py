"""Results are unchanged by refactoring: every variable of ``agreement()`` on the golden
corpora (tests/support/golden_corpora.py) equals the stored result.

Floating-point values are compared to 1e-12 rather than bit for bit, because a CI
machine with other SIMD instructions may sum in another order; on the machine that wrote
them they are bitwise equal (``EXACT=1 pytest tests/test_golden.py`` checks that).
"""

import os

import golden_corpora
import numpy as np
import pytest
import xarray as xr

EXACT = os.environ.get("EXACT") == "1"
CASES = golden_corpora.cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_agreement_equals_the_stored_result(name):
    frame, kwargs = CASES[name]
    got = golden_corpora.result(frame, kwargs)
    want = xr.load_dataset(golden_corpora.GOLDEN / f"{name}.nc")
    assert list(got["label"].values) == list(want["label"].values)
    assert list(got["annotator"].values) == list(want["annotator"].values)
    for var in want.data_vars:
        a, b = got[var].values, want[var].values
        if b.dtype.kind in "OUS":
            assert a.astype(str).tolist() == b.astype(str).tolist(), var
        elif EXACT:
            np.testing.assert_array_equal(a, b, err_msg=var)
        else:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=var)
    for key, value in want.attrs.items():
        assert str(got.attrs[key]) == str(value), key
