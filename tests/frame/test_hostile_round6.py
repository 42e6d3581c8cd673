"""Hostile review, round 6: ``iaa_frames.check(df).dropped`` adds a ``reason`` column; a
column of the user's named ``reason`` was silently overwritten by it. It is now kept,
renamed ``user_reason``, beside the library's ``reason``.
"""

import warnings

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning


def _frame(**extra):
    return pd.DataFrame(
        {
            "item": ["a", "a", "b"],
            "annotator": ["x", "y", "x"],
            "label": ["cat", "cat", "cat"],
            "x0": [0, 5, 0],
            "y0": [0, 0, 0],
            "x1": [2, 1, 2],  # row 1 is inverted
            "y1": [2, 2, 2],
            "reason": ["seen", "flagged by QA", "seen"],
            **extra,
        }
    )


def test_check_keeps_the_users_reason_column_as_user_reason():
    res = iaf.check(_frame())
    assert res.dropped["reason"].tolist() == ["inverted_box"]
    assert res.dropped["user_reason"].tolist() == ["flagged by QA"]
    assert res.frame["reason"].tolist() == ["seen", "seen"]  # the valid rows keep theirs


def test_a_taken_user_reason_name_is_not_overwritten_either():
    res = iaf.check(_frame(user_reason=["u0", "u1", "u2"]))
    dropped = res.dropped
    assert dropped["reason"].tolist() == ["inverted_box"]
    assert dropped["user_reason"].tolist() == ["u1"]
    assert dropped["user_reason_2"].tolist() == ["flagged by QA"]


def test_the_dropped_rows_of_the_warning_keep_it_too():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = iaf.validate(_frame(), on_invalid="drop")
    (warning,) = [w.message for w in caught if isinstance(w.message, DroppedRowsWarning)]
    assert warning.dropped["user_reason"].tolist() == ["flagged by QA"]
    assert warning.dropped["reason"].tolist() == ["inverted_box"]
    assert out["reason"].tolist() == ["seen", "seen"]


def test_no_dropped_rows_no_renaming():
    res = iaf.check(_frame().drop(index=1))
    assert list(res.dropped.columns).count("reason") == 1
    assert "user_reason" in res.dropped.columns and len(res.dropped) == 0


@pytest.mark.parametrize("extra", [{}, {"note": ["n0", "n1", "n2"]}])
def test_a_frame_without_reason_is_unchanged(extra):
    res = iaf.check(_frame(**extra).drop(columns="reason"))
    assert "user_reason" not in res.dropped.columns
    assert res.dropped["reason"].tolist() == ["inverted_box"]


def test_from_records_refuses_points_beside_a_geometry_instead_of_replacing_it():
    import shapely

    from iaa_frames.errors import InvalidAnnotationError

    records = [
        {"item": "a", "annotator": "x", "label": "c", "points": [(0, 0), (9, 0), (9, 9)]},
        {
            "item": "a",
            "annotator": "y",
            "label": "c",
            "geometry": shapely.box(0, 0, 5, 5),
            "points": [(0, 0), (9, 0), (9, 9)],
        },
    ]
    with pytest.raises(InvalidAnnotationError, match=r"^record 1 gives both points and a geometry"):
        iaf.from_records(records)
    # one shape per record, either way, still reads
    out = iaf.from_records([records[0], {**records[1], "points": None}])
    assert out["x1"].tolist() == [9.0, 5.0]


@pytest.mark.parametrize("name", ["²", "③", "x¹"])
def test_a_name_of_superscript_digits_sorts_instead_of_a_raw_value_error(name):
    from iaa_frames.frame.names import natural_key

    assert sorted([name, "car", "2"], key=natural_key)[:2] == ["2", "car"]


def test_agreement_over_a_class_named_with_a_superscript():
    df = iaf.simulate(n_items=6, seed=0, classes=("²", "car")).drop(columns="truth_id")
    ds = iaf.agreement(df, n_boot=0, n_chance=50)
    assert list(ds.coords["label"].values) == ["(all)", "car", "²"]
