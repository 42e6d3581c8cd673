"""The canonical corpus (iaa_frames.core.matching.corpus): codes fixed by content, slices that cover
every object once, lookups that invert them."""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.matching import corpus as corpus_module
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.frame.schema import validate


@pytest.fixture(scope="module")
def frame():
    df = iaf.simulate(
        n_items=25,
        kind="mixed",
        seed=7,
        annotators={"ana": "good", "ben": "sloppy", "cy": {"preset": "misser", "coverage": 0.7}},
    )
    return df


def _canonical(c):
    """The corpus as plain values: objects (item, annotator, label, box) in order."""
    return pd.DataFrame(
        {
            "item": c.items[c.item],
            "annotator": c.annotators[c.annotator],
            "label": c.labels[c.label],
            "box": [tuple(np.round(b, 12)) for b in c.shapes.boxes],
        }
    )


def test_slices_cover_every_object_once(frame):
    c = prepare(frame)
    for slots in (c.annotations, c.by_label):
        n = slots.empty
        assert slots.count[n] == 0  # the last slot is the empty annotation
        covered = np.concatenate(
            [np.arange(s, s + k) for s, k in zip(slots.start[:n], slots.count[:n])]
        )
        objects = np.sort(covered[np.isin(covered, np.arange(len(c.objects)))])
        if slots is c.annotations:
            np.testing.assert_array_equal(objects, np.arange(len(c.objects)))
        else:  # per class: every object once, in its own class's slot
            np.testing.assert_array_equal(np.sort(covered), np.arange(len(c.objects)))
            owner = np.repeat(np.arange(n), slots.count[:n])
            np.testing.assert_array_equal(c.label[covered], slots.label[owner])
    # an annotation holds only its own item's and annotator's objects
    ann = c.annotations
    owner = np.repeat(np.arange(ann.empty), ann.count[:-1])
    np.testing.assert_array_equal(c.item, ann.item[owner])
    np.testing.assert_array_equal(c.annotator, ann.annotator[owner])


def test_coverage_slots_include_empty_annotations(frame):
    c = prepare(frame)
    covered = frame.groupby(["item", "annotator"]).size()
    assert c.annotations.empty == len(covered)  # every reviewed (item, annotator), drawn or not
    assert (c.annotations.count[:-1] == 0).sum() == int(
        (~frame["x0"].notna()).groupby([frame["item"], frame["annotator"]]).all().sum()
    )


def test_lookups_invert_the_slices(frame):
    c = prepare(frame)
    ann = c.annotations
    slots = np.arange(ann.empty)
    np.testing.assert_array_equal(c.annotation_of(ann.item[:-1], ann.annotator[:-1]), slots)
    bl = c.by_label
    np.testing.assert_array_equal(
        c.by_label_of(bl.item[:-1], bl.annotator[:-1], bl.label[:-1]), np.arange(bl.empty)
    )
    # a class an annotation does not contain: the empty slot
    lonely = np.flatnonzero(ann.count[:-1] > 0)[0]
    missing = [
        lab for lab in range(len(c.labels)) if lab not in set(c.label[c.item == ann.item[lonely]])
    ]
    if missing:
        got = c.by_label_of(ann.item[[lonely]], ann.annotator[[lonely]], np.array([missing[0]]))
        assert got.tolist() == [bl.empty]


def test_codes_do_not_depend_on_row_order_or_names(frame):
    c = prepare(frame)
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    assert _canonical(prepare(shuffled)).equals(_canonical(c))
    renamed = frame.assign(
        item=frame["item"].map(lambda s: f"z{len(s)}_{s[::-1]}"),
        annotator=frame["annotator"].map({"ana": "zed", "ben": "al", "cy": "mo"}),
    )
    r = prepare(renamed)
    # the same objects in the same order: only the names differ
    np.testing.assert_array_equal(r.item, c.item)
    np.testing.assert_array_equal(r.annotator, c.annotator)
    np.testing.assert_array_equal(r.shapes.boxes, c.shapes.boxes)


def test_normalization_and_areas(frame):
    c = prepare(frame)
    assert c.normalization == "image size"
    assert np.nanmax(c.shapes.boxes) <= 1.0 + 1e-9
    raw = prepare(frame, normalize=False)
    assert raw.normalization == "none" and np.nanmax(raw.shapes.boxes) > 1.0
    w = (c.shapes.boxes[:, 2] - c.shapes.boxes[:, 0]) * (
        c.shapes.boxes[:, 3] - c.shapes.boxes[:, 1]
    )
    boxes = ~c.shapes.is_polygon
    np.testing.assert_allclose(c.area[boxes], w[boxes])
    assert (c.area[~boxes] <= w[~boxes] + 1e-12).all()  # a polygon fills at most its box


# ------------------------------------------------------------------ groups of items


def _grouped(df, groups):
    items = np.sort(df["item"].unique())
    return df.assign(group=df["item"].map(dict(zip(items, groups))))


def test_group_code_is_the_smallest_item_code_of_the_group():
    df = iaf.simulate(n_items=9, seed=2)
    groups = ["a", "b", "a", "c", "b", "a", None, "c", None]
    c = prepare(_grouped(df, groups))
    name = dict(zip(np.sort(df["item"].unique()), groups))
    by_code = [name[i] for i in c.items]
    for code, g in enumerate(by_code):
        members = [k for k, h in enumerate(by_code) if h == g and g is not None]
        assert c.group[code] == (min(members) if g is not None else code)
    assert c.n_groups == 5  # a, b, c and the two items without a group
    dense = c.group_codes()
    assert sorted(set(dense)) == list(range(5))
    assert (np.unique(c.group, return_inverse=True)[1] == dense).all()
    # every slot carries its item's group
    s = c.annotations
    assert (s.group[:-1] == c.group[s.item[:-1]]).all() and s.group[-1] == -1
    b = c.by_label
    assert (b.group[:-1] == c.group[b.item[:-1]]).all()


def test_without_groups_every_item_is_its_own():
    c = prepare(iaf.simulate(n_items=5, seed=2))
    assert c.group is None and c.annotations.group is None and c.group_codes() is None
    assert c.n_groups == 5
    assert (c.group_of_item(np.arange(5)) == np.arange(5)).all()


def test_group_codes_do_not_depend_on_group_names_or_row_order():
    df = iaf.simulate(n_items=12, seed=3)
    groups = [k // 3 for k in range(12)]
    a = prepare(_grouped(df, groups))
    renamed = _grouped(df, [f"video {100 - g}" for g in groups]).sample(frac=1, random_state=0)
    b = prepare(renamed)
    assert (a.items == b.items).all() and (a.group == b.group).all()


def test_label_slots_look_up_what_by_label_of_searches(frame):
    c = prepare(frame)
    ann = c.annotations
    rng = np.random.default_rng(0)
    slot = np.r_[rng.integers(0, ann.empty + 1, 4000), ann.empty]  # with the empty slot
    label = np.r_[rng.integers(0, len(c.labels), 4000), 0]
    expected = c.by_label_of(ann.item[slot], ann.annotator[slot], label)
    assert (expected != c.by_label.empty).any() and (expected == c.by_label.empty).any()
    np.testing.assert_array_equal(c.label_slots(slot, label), expected)
    # without the table (a corpus with too many annotations x classes): the search
    c.__dict__["_label_slot_table"] = None
    np.testing.assert_array_equal(c.label_slots(slot, label), expected)


def test_prepared_objects_are_the_validated_rows_in_canonical_order():
    df = iaf.simulate(n_items=30, seed=2).drop(columns="object_id")
    v = validate(df)
    c = prepare(df)
    # generated object ids number the validated rows
    want = v.iloc[c.objects["object_id"].to_numpy(dtype=np.int64)]
    assert c.objects.equals(want) and list(c.objects.dtypes) == list(want.dtypes)
    assert (c.objects.index == want.index).all()


def test_box_fingerprint_is_the_weighted_sum_of_the_sides_without_blas():
    """Column by column, left to right (the bits the canonical codes, the per-class
    strata's order and dask's partitions all read), within an ulp of the matrix product
    it replaces; NaN sides count as 0."""
    rng = np.random.default_rng(5)
    boxes = rng.uniform(-1e3, 1e3, (500, 4))
    boxes[::7, 1] = np.nan
    w = corpus_module._FINGERPRINT
    b = np.nan_to_num(boxes)
    expected = ((b[:, 0] * w[0] + b[:, 1] * w[1]) + b[:, 2] * w[2]) + b[:, 3] * w[3] + 0.37
    got = corpus_module.box_fingerprint(boxes)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(got, b @ w + 0.37, rtol=1e-13)
    assert corpus_module.box_fingerprint(np.zeros((0, 4))).shape == (0,)
