"""Defects noticed by a review and fixed in round 7: every item whose σ is NaN says why in
its ``note`` (as ``pairwise()``'s note does for its n/a cells)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf


def _box(item, annotator, x0, x1):
    return dict(item=item, annotator=annotator, label="cat", x0=x0, y0=10, x1=x1, y1=60,
                width=100, height=100)  # fmt: skip


@pytest.fixture(scope="module")
def result():
    """Items ``apart{i}`` (two annotators, boxes that never overlap: no matched pair),
    ``solo`` (one annotator), ``ok`` (a matched pair), one class."""
    rows = [_box(f"apart{i}", a, off + i, off + 40) for i in range(4)
            for a, off in (("A", 0), ("B", 50))]  # fmt: skip
    rows += [_box("solo", "A", 0, 10), _box("ok", "A", 0, 40), _box("ok", "B", 1, 40)]
    return iaf.agreement(pd.DataFrame(rows), n_boot=0, n_chance=50)


def test_items_with_no_sigma_say_why(result):
    table = result.iaa.items().set_index("item")
    assert "note" in table.columns
    assert np.isfinite(table.loc["ok", "sigma"]) and table.loc["ok", "note"] == ""
    for i in range(4):
        assert np.isnan(table.loc[f"apart{i}", "sigma"])
        assert table.loc[f"apart{i}", "note"] == "no matched pair on the item (units 0)"
    assert np.isnan(table.loc["solo", "sigma"])
    assert table.loc["solo", "note"].startswith("one annotator covered the item")
    # every NaN σ has a reason, every defined one none
    assert ((table["note"] != "") == table["sigma"].isna()).all()
    assert "note" in table.attrs["long_names"]


def test_a_class_names_its_units_and_no_chance_says_so(result):
    # one class: the classification's chance disagreement is 0, σ is n/a on every item
    table = result.iaa.items(component="classification").set_index("item")
    assert table["sigma"].isna().all()
    assert table.loc["ok", "note"] == (
        "no chance disagreement to compare the item with (chance mean 0)"
    )
    assert table.loc["apart0", "note"] == (
        "no cluster of two or more matched objects on the item (units 0)"
    )
    by_class = result.iaa.items(label="cat").set_index("item")
    assert (
        by_class.loc["apart0", "note"] == "no matched pair of the class 'cat' on the item (units 0)"
    )
