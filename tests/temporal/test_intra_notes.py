"""Hostile review, round 6: ``iaf.intra_agreement`` left n/a cells without a note, and
refused the commonest intra-rater design.

* The annotators who annotated every item once had ``intra`` NaN and an empty
  ``intra_note``; the ``inter`` figures had no note at all (NaN for a class without
  enough pairs said nothing).
* One annotator redoing their own work (no second annotator) was refused with
  "agreement needs at least two annotators who annotated the same items": the intra
  figures need no other annotator; the inter ones are now NaN with a note.
"""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf

FAST = dict(n_chance=100)


@pytest.fixture(scope="module")
def passes():
    """A, B, C annotate every item once (round 1); A redoes every item (round 2)."""
    df = iaf.simulate(n_items=30, seed=4).drop(columns=["truth_id", "object_id"])
    first = df.assign(round=1)
    redo = df[df["annotator"] == "A"].assign(round=2)
    redo[["x0", "x1"]] += 3.0
    return first, redo


def test_every_nan_intra_or_inter_cell_says_why(passes):
    first, redo = passes
    res = iaf.intra_agreement(pd.concat([first, redo], ignore_index=True), n_boot=0, **FAST)
    assert "inter_note" in res.data_vars
    for value, note in (("intra", "intra_note"), ("inter", "inter_note")):
        undefined = np.isnan(res[value].values)
        assert (res[note].values[undefined] != "").all(), value
    assert np.isnan(res["intra"].sel(annotator=["B", "C"]).values).all()
    once = res["intra_note"].sel(annotator=["B", "C"]).values
    assert (once == "no item annotated twice (column 'round')").all()
    assert (
        str(res["intra_note"].sel(annotator="A", component="localization", label="(all)").values)
        == ""
    )


def test_one_annotator_redoing_its_work_has_intra_figures_and_no_inter(passes):
    first, redo = passes
    alone = pd.concat([first[first["annotator"] == "A"], redo], ignore_index=True)
    res = iaf.intra_agreement(alone, n_boot=20, **FAST)
    assert list(res["annotator"].values) == ["(all)", "A"]
    cell = res.sel(annotator="A", component="localization", label="(all)")
    assert 0.5 < float(cell["intra"]) < 1.0
    assert float(cell["intra_ci_low"]) < float(cell["intra"]) < float(cell["intra_ci_high"])
    assert np.isnan(res["inter"].values).all()
    assert (
        res["inter_note"].values
        == "no inter-annotator figure: no item was annotated by two annotators"
    ).all()
