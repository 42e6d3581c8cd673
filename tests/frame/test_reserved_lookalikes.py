"""Names that read as the reserved "(all)" are refused like "(all)" itself (hostile review,
round 6: the label " (all)" followed by a right-to-left mark passed validation and showed
as a second "(all)" row beside the real total)."""

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import InvalidAnnotationError

LOOKALIKES = [" (all)\u200f", "(all) ", "\u200b(all)", "\uff08all\uff09", "(\uff41ll)"]


def _frame(label="c", annotator="y"):
    return pd.DataFrame(
        {
            "item": ["a", "a", "b", "b"],
            "annotator": ["x", annotator, "x", annotator],
            "label": [label, "c", "c", "c"],
            "x0": [0.0] * 4,
            "y0": [0.0] * 4,
            "x1": [5.0] * 4,
            "y1": [5.0] * 4,
        }
    )


@pytest.mark.parametrize("name", LOOKALIKES)
def test_a_label_that_reads_as_all_is_reserved(name):
    with pytest.raises(InvalidAnnotationError, match="reserved_label: 1") as info:
        iaf.validate(_frame(label=name))
    assert "read as it" in str(info.value)
    assert iaf.check(_frame(label=name)).dropped["reason"].tolist() == ["reserved_label"]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_an_annotator_that_reads_as_all_is_reserved(name):
    with pytest.raises(InvalidAnnotationError, match="reserved_annotator: 2"):
        iaf.validate(_frame(annotator=name))


@pytest.mark.parametrize("name", ["(ALL)", "( all )", "(all", "all", "(all)x", "c (all)"])
def test_names_that_differ_visibly_stay_valid(name):
    out = iaf.validate(_frame(label=name, annotator=name))
    assert out["label"].iloc[0] == name
    assert (out["annotator"] == name).sum() == 2
