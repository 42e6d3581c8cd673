"""require_comparable: a corpus that cannot give agreement is an error, not NaN."""

import itertools

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.tables.comparability import require_comparable, shared_items
from iaa_frames.errors import NotComparableError


def _box(item, ann, label="cat", x=0):
    return {
        "item": item,
        "annotator": ann,
        "label": label,
        "x0": x,
        "y0": 0,
        "x1": x + 10,
        "y1": 10,
        "width": 100,
        "height": 100,
    }


def test_one_annotator_is_an_error_everywhere(tmp_path):
    df = iaf.from_records([_box("a.jpg", "ana"), _box("b.jpg", "ana")])
    for call in (
        lambda: iaf.agreement(df, n_chance=10),
        lambda: df.iaa.sigma(n_chance=10),
        lambda: iaf.pair_tables(df, n_chance=10),
    ):
        with pytest.raises(
            NotComparableError, match=r"at least two annotators.*found one \('ana', 2 item"
        ):
            call()
    out = tmp_path / "report"
    with pytest.raises(NotComparableError, match="at least two annotators"):
        iaf.report(df, out, n_boot=0, n_chance=10)
    assert not out.exists()  # nothing drawn, nothing written
    assert issubclass(NotComparableError, iaf.IAAError)


def test_disjoint_items_name_the_item_key_that_aligns_them():
    # Label Studio upload paths against CVAT names: the base name (prefix stripped) aligns
    ls = [
        _box(f"/data/upload/1/{h}-{n}", "ana")
        for h, n in (("48c2f1a0", "photo.jpg"), ("0a1b2c3d", "dog.jpg"))
    ]
    cvat = [_box("photo.jpg", "ben"), _box("dog.jpg", "ben")]
    df = iaf.from_records(ls + cvat)
    with pytest.raises(NotComparableError) as info:
        iaf.agreement(df, n_chance=10)
    msg = str(info.value)
    assert msg.startswith("no item was annotated by two annotators")
    assert "'ana': 2 item(s)" in msg and "'ben': 2 item(s)" in msg
    assert "item_key='name'" in msg and "'photo.jpg'" in msg
    # YOLO stems against file names: the stem aligns
    df = iaf.from_records(
        [
            _box("photo", "ana"),
            _box("dog", "ana"),
            _box("imgs/photo.jpg", "ben"),
            _box("imgs/dog.jpg", "ben"),
        ]
    )
    with pytest.raises(NotComparableError, match="item_key='stem'"):
        require_comparable(df)
    # nothing aligns: the generic advice
    df = iaf.from_records([_box("a", "ana"), _box("b", "ben")])
    with pytest.raises(NotComparableError, match="if each annotator saw different images"):
        require_comparable(df)


def test_single_item_and_empty_corpus():
    one = iaf.from_records([_box("a", "ana"), _box("a", "ben", x=1)])
    require_comparable(one)  # within pairs of one image can still be listed
    assert len(iaf.within(one, n_chance=10)) == 1
    with pytest.raises(NotComparableError, match="at least 2 items.*'a'"):
        require_comparable(one, min_items=2)
    with pytest.raises(NotComparableError, match="at least 2 items"):
        iaf.report(one, "unused", n_boot=0)
    empty = iaf.from_records([{"item": i, "annotator": a} for i in "xy" for a in "AB"])
    require_comparable(empty)
    with pytest.raises(NotComparableError, match="no object was drawn: all 4 rows"):
        require_comparable(empty, objects=True)
    with pytest.raises(NotComparableError, match="no rows"):
        require_comparable(empty.iloc[:0])


def test_enough_overlap_passes_and_integer_annotators_count():
    df = iaf.simulate(n_items=5, seed=0)
    require_comparable(df, min_items=2, objects=True)
    # integer annotator ids (read_csv) are two annotators, not an error
    raw = pd.DataFrame([_box("a", 1), _box("a", 2, x=1), _box("b", 1), _box("b", 2)])
    require_comparable(raw)
    # a frame without the columns is left to validate()'s SchemaError
    require_comparable(pd.DataFrame({"x": [1]}))
    with pytest.raises(iaf.SchemaError):
        iaf.agreement(pd.DataFrame({"x": [1]}))


def test_shared_items_is_the_brute_force_count():
    rng = np.random.default_rng(0)
    rows = [
        {"item": int(i), "annotator": str(a)}
        for i in range(30)
        for a in "ABCD"
        if rng.random() < 0.5
    ]
    df = iaf.from_records(rows)
    t = shared_items(df)
    cov = {a: {r["item"] for r in rows if r["annotator"] == a} for a in "ABCD"}
    for a, b in itertools.product(t.index, t.columns):
        assert t.loc[a, b] == len(cov[a] & cov[b])
