"""Hostile review, round 6 (second wave), of ``consensus``: a misspelt keyword."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf


def _frame(n_items: int = 4) -> pd.DataFrame:
    rows = [
        dict(item=f"i{i}", annotator=a, label="cat", x0=10 + i + k * 2, y0=10,
             x1=50 + i + k * 2, y1=60, width=200, height=100)
        for i in range(n_items)
        for k, a in enumerate("ABC")
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_consensus_misspelt_keyword_names_the_nearest_keyword():
    with pytest.raises(TypeError, match=r"consensus\(\) got an unexpected keyword argument "
                       r"'min_suport'; did you mean 'min_support'\?"):  # fmt: skip
        iaf.consensus(_frame(), min_suport=2)


def test_consensus_still_checks_match_threshold_and_seed():
    with pytest.raises(iaf.ParameterError, match=r"match_threshold"):
        iaf.consensus(_frame(), match_threshold=2.0)
    with pytest.raises(iaf.ParameterError, match=r"seed must be an integer >= 0"):
        iaf.consensus(_frame(), seed=-1)


def _volumes(names=("ana", "ben")) -> pd.DataFrame:
    from iaa_frames.geometry.kinds.volume import volume_params

    a = np.zeros((4, 4, 4), bool)
    a[1:3, 1:3, 1:3] = True
    return pd.DataFrame(
        [{"item": "s", "annotator": who, "label": "liver", **volume_params(a)} for who in names]
    )


@pytest.mark.parametrize("max_iter", [0, -1, True, None, "x", 2.5, float("nan")])
def test_volume_staple_max_iter_must_be_a_count_of_iterations(max_iter):
    with pytest.raises(iaf.ParameterError, match=r"max_iter must be an integer >= 1"):
        iaf.volume_staple(_volumes(), max_iter=max_iter)


def test_volume_staple_misspelt_keyword_names_the_nearest_keyword():
    with pytest.raises(TypeError, match=r"did you mean 'max_iter'\?"):
        iaf.volume_staple(_volumes(), max_iters=3)


def test_volume_staple_of_a_frame_of_boxes_is_a_schema_error_not_a_key_error():
    with pytest.raises(iaf.SchemaError, match=r"volume_staple needs volume rows"):
        iaf.volume_staple(_frame())


def test_volume_staple_of_annotators_named_by_numbers_and_words():
    consensus, perf = iaf.volume_staple(_volumes(("ana", 7)))
    assert consensus["vol_voxels"].tolist() == [8.0]
    assert sorted(map(str, perf["annotator"])) == ["7", "ana"]


def test_volume_staple_refuses_a_volume_row_without_an_annotator():
    frame = _volumes(("ana", "ben", "cy"))
    frame.loc[2, "annotator"] = None
    with pytest.raises(iaf.InvalidAnnotationError, match=r"volume_staple: 1 volume row"):
        iaf.volume_staple(frame)


def test_consensus_with_every_weight_zero_is_refused_not_nan_throughout():
    zero = {"A": 0, "B": 0.0, "C": 0}
    with pytest.raises(iaf.ParameterError, match=r"every annotator's weight is 0"):
        iaf.consensus(_frame(), weights=zero)
    with pytest.raises(iaf.ParameterError, match=r"every annotator's weight is 0"):
        iaf.next_items(_frame(), goal="consensus", weights=zero, n_chance=20)


def test_consensus_with_one_weight_above_zero_still_decides():
    out = iaf.consensus(_frame(), weights={"A": 1, "B": 0, "C": 0})
    assert out.objects["weight"].notna().all()
