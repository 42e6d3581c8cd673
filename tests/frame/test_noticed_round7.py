"""Defects noticed by a review and fixed in round 7: validate refuses blank item and
annotator names (as the readers' builder does), with their own reason."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, InvalidAnnotationError
from iaa_frames.frame.schema import INVALID_REASONS, is_blank


def _frame(items, annotators, labels=None):
    n = len(items)
    return pd.DataFrame(
        {
            "item": items,
            "annotator": annotators,
            "label": labels or ["cat"] * n,
            "x0": [0.0] * n,
            "y0": [0.0] * n,
            "x1": [2.0] * n,
            "y1": [2.0] * n,
        }
    )


BLANK = ["", " ", "\t", "\u3000 \n"]


def test_blank_names_are_invalid_rows_with_their_own_reason():
    assert "blank_name" in INVALID_REASONS
    df = _frame(
        ["a", *BLANK, "b", "b", "b", "b"],
        ["x", "x", "x", "x", "x", *BLANK],
    )
    res = iaf.check(df)
    assert res.counts == {"blank_name": 8}
    assert res.frame["item"].tolist() == ["a"]
    assert res.dropped.index.tolist() == list(range(1, 9))
    assert (res.dropped["reason"] == "blank_name").all()
    with pytest.raises(InvalidAnnotationError, match=r"blank_name: 8") as err:
        iaf.validate(df)
    assert INVALID_REASONS["blank_name"] in str(err.value)
    with pytest.warns(DroppedRowsWarning) as caught:
        out = iaf.validate(df, on_invalid="drop")
    assert out["item"].tolist() == ["a"]
    assert caught[0].message.counts == {"blank_name": 8}
    assert out.attrs["iaa_dropped"] == {"blank_name": 8}


def test_a_blank_coverage_row_is_invalid_too_and_names_around_spaces_are_kept():
    df = pd.DataFrame(
        {"item": ["", "a", " a "], "annotator": ["x", " ", "y "], "label": None, "geometry": None}
    )
    res = iaf.check(df)
    assert res.counts == {"blank_name": 2}
    assert res.frame["item"].tolist() == [" a "]  # spaces around a name: still a name
    assert res.frame["annotator"].tolist() == ["y "]


def test_blank_labels_are_kept_as_before():
    # labels are not checked for blanks (a whitespace label is a class of its own)
    res = iaf.check(_frame(["a", "a"], ["x", "y"], labels=[" ", "cat"]))
    assert res.counts == {}
    assert res.frame["label"].tolist() == [" ", "cat"]


@pytest.mark.parametrize("dtype", ["str", object])
def test_blank_names_among_many_are_found_as_one_by_one(dtype):
    """Past a thousand distinct names, the names with an ASCII letter or digit are set aside
    at once; the blank ones are still those ``str.strip`` empties (Python's whitespace:
    the separators \\x1c-\\x1f too), wherever they stand."""
    odd = ["", " ", "\t\u3000", "\x1c", "\u00a0", "\u2028", "é", "·", " a ", "_"]
    names = [f"img_{i:05d}" for i in range(3000)] + odd * 2 + [None]
    values = pd.Series(names[::-1], dtype=dtype)
    want = [isinstance(n, str) and not n.strip() for n in values]
    assert is_blank(values).tolist() == want
    assert sum(want) == 12  # six blank names, twice


@pytest.mark.parametrize("where", ["item", "annotator", "label"])
def test_a_nul_in_an_arrow_string_column_is_refused_wherever_it_stands(where):
    """The zero byte is looked for in the Arrow buffers at once: found at the last row,
    in a slice of the column, and not found in a slice that leaves it out."""
    n = 3000
    df = pd.DataFrame(
        {
            "item": [f"i{k % 50}" for k in range(n)],
            "annotator": ["a", "b", "c"] * (n // 3),
            "label": ["cat"] * n,
            "x0": 0.0,
            "y0": 0.0,
            "x1": 1.0,
            "y1": 1.0,
        }
    ).astype({"item": "str", "annotator": "str", "label": "str"})
    df.loc[n - 1, where] = "x\0y"
    with pytest.raises(InvalidAnnotationError):
        iaf.validate(df)
    with pytest.raises(InvalidAnnotationError):
        iaf.validate(df.iloc[n // 2 :])
    assert len(iaf.validate(df.iloc[: n - 1])) == n - 1  # its buffer still holds the NUL
