"""from_supervision / to_supervision against the real ``supervision`` package: frame ->
Detections -> frame is the identity, masks come back pixel for pixel (and their polygons
have the masks' pixel areas and IoUs, cross-checked with numpy and supervision's own
mask IoU), empty Detections are coverage rows, and malformed input names the Detections
and the box."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, IAAError, InvalidAnnotationError, ParameterError
from iaa_frames.io.supervision import from_supervision
from iaa_frames.io.supervision_export import to_supervision

with warnings.catch_warnings():  # "OpenCV is not installed; using the NumPy fallback"
    warnings.simplefilter("ignore", UserWarning)
    sv = pytest.importorskip("supervision")

CORE = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]


@pytest.fixture(scope="module")
def frame():
    df = iaf.simulate(
        n_items=12, annotators={"a": "good", "b": "sloppy", "c": "mislabeler"}, seed=3
    )
    # an item one annotator reviewed and left empty
    return iaf.validate(
        pd.concat(
            [df, pd.DataFrame({"item": ["img_empty"], "annotator": ["a"], "label": [None]})],
            ignore_index=True,
        ).assign(width=lambda d: d["width"].fillna(640.0), height=lambda d: d["height"].fillna(480))
    )


def sizes(df):
    return {i: (w, h) for i, w, h in zip(df["item"], df["width"], df["height"], strict=True)}


def test_boxes_round_trip(frame):
    dets = to_supervision(frame)
    assert all(isinstance(d, sv.Detections) for d in dets.values())
    assert len(dets["img_empty", "a"]) == 0
    back = from_supervision(dets, image_sizes=sizes(frame))
    pd.testing.assert_frame_equal(
        back[CORE].reset_index(drop=True), frame[CORE].reset_index(drop=True)
    )
    assert (~iaf.is_object(back)).sum() == (~iaf.is_object(frame)).sum() == 1


def test_class_ids_follow_class_names_and_the_frame_labels(frame):
    names = ["person", "car", "bicycle", "dog"]
    dets = to_supervision(frame, class_names=names)
    d = next(d for d in dets.values() if len(d))
    assert [names[i] for i in d.class_id] == list(d.data["class_name"])
    # without data["class_name"], class_names maps the ids (list or dict)
    bare = {k: sv.Detections(xyxy=d.xyxy, class_id=d.class_id) for k, d in dets.items()}
    by_list = from_supervision(bare, class_names=names, image_sizes=sizes(frame))
    by_dict = from_supervision(bare, class_names=dict(enumerate(names)), image_sizes=sizes(frame))
    for got in (by_list, by_dict):
        assert got["label"].tolist() == from_supervision(dets)["label"].tolist()
    ids = from_supervision(bare)
    obj = iaf.is_object(ids)
    assert set(ids.loc[obj, "label"]) <= {"0", "1", "2", "3"}


def test_confidence_tracker_and_data_columns_are_kept():
    d = sv.Detections(
        xyxy=np.array([[0.0, 0, 4, 4], [5, 5, 9, 9]]),
        class_id=np.array([0, 1]),
        confidence=np.array([0.9, 0.25]),
        tracker_id=np.array([7, 8]),
        data={"class_name": np.array(["cat", "dog"]), "score2": np.array([1.5, 2.5]),
              "label": np.array(["x", "y"]), "emb": np.zeros((2, 3))},
    )  # fmt: skip
    df = from_supervision({"ana": d}, item="img")
    assert df["label"].tolist() == ["cat", "dog"]
    assert df["confidence"].tolist() == [0.9, 0.25]
    assert df["tracker_id"].tolist() == [7, 8]
    assert df["score2"].tolist() == [1.5, 2.5]
    assert df["data_label"].tolist() == ["x", "y"]  # a data key named like a frame column
    assert "emb" not in df.columns  # not one value per box
    back = to_supervision(df)["img", "ana"]
    assert np.array_equal(back.confidence, d.confidence)
    assert np.array_equal(back.tracker_id, d.tracker_id)


def random_masks(rng, n, h=24, w=32):
    masks = np.zeros((n, h, w), bool)
    for k in range(n):
        blobs = rng.random((h, w)) < 0.05
        y0, x0 = rng.integers(0, h - 8), rng.integers(0, w - 8)
        masks[k, y0 : y0 + rng.integers(3, 8), x0 : x0 + rng.integers(3, 8)] = True
        masks[k] |= blobs  # scattered pixels: several parts, holes
    return masks


def test_masks_are_exact_polygons_and_round_trip():
    rng = np.random.default_rng(0)
    ma, mb = random_masks(rng, 5), random_masks(rng, 4)
    da = sv.Detections(xyxy=sv.mask_to_xyxy(ma).astype(float), mask=ma, class_id=np.zeros(5, int))
    db = sv.Detections(xyxy=sv.mask_to_xyxy(mb).astype(float), mask=mb, class_id=np.zeros(4, int))
    df = from_supervision({("i", "a"): da, ("i", "b"): db}, class_names=["blob"])
    assert df["geometry"].notna().all()
    assert (df["width"] == 32).all() and (df["height"] == 24).all()
    ga, gb = df["geometry"][:5].to_numpy(), df["geometry"][5:].to_numpy()
    assert np.array_equal(shapely.area(ga), ma.sum(axis=(1, 2)))
    # vector IoU = pixel IoU, against numpy and against supervision's mask_iou_batch
    inter = shapely.area(shapely.intersection(ga[:, None], gb[None, :]))
    union = shapely.area(shapely.union(ga[:, None], gb[None, :]))
    pixel = (ma[:, None] & mb[None]).sum(axis=(2, 3)) / (ma[:, None] | mb[None]).sum(axis=(2, 3))
    np.testing.assert_allclose(inter / union, pixel, rtol=0, atol=1e-12)
    np.testing.assert_allclose(inter / union, sv.mask_iou_batch(ma, mb), atol=1e-6)
    back = to_supervision(df, masks=True)
    assert np.array_equal(back["i", "a"].mask, ma) and np.array_equal(back["i", "b"].mask, mb)
    # supervision's run-length CompactMask gives the same polygons
    compact = getattr(getattr(sv, "detection", None), "compact_mask", None)
    if compact is not None:
        cm = compact.CompactMask.from_dense(ma, da.xyxy, image_shape=(24, 32))
        dc = sv.Detections(xyxy=da.xyxy, mask=cm, class_id=da.class_id)
        got = from_supervision({("i", "a"): dc}, class_names=["blob"])["geometry"].to_numpy()
        assert shapely.equals(got, ga).all()
    # masks=False compares the boxes given
    boxes = from_supervision({("i", "a"): da}, masks=False)
    assert boxes["geometry"].isna().all()
    assert np.array_equal(boxes[["x0", "y0", "x1", "y1"]].to_numpy(), da.xyxy)


def test_boxes_rasterize_to_the_pixels_they_cover():
    df = iaf.from_records([
        {"item": "i", "annotator": "a", "label": "c", "x0": 1, "y0": 2, "x1": 4, "y1": 3,
         "width": 6, "height": 5},
    ])  # fmt: skip
    mask = to_supervision(df, masks=True)["i", "a"].mask[0]
    expected = np.zeros((5, 6), bool)
    expected[2:3, 1:4] = True
    assert np.array_equal(mask, expected)
    with pytest.raises(ParameterError, match="needs the image size"):
        to_supervision(df.assign(width=np.nan, height=np.nan), masks=True)


def test_polygons_without_masks_are_written_as_boxes_with_a_warning():
    df = iaf.from_records(
        [{"item": "i", "annotator": "a", "label": "c", "points": [(0, 0), (4, 0), (0, 3)]}]
    )
    with pytest.warns(iaf.IAAWarning, match="1 polygon"):
        d = to_supervision(df)["i", "a"]
    assert d.xyxy.tolist() == [[0, 0, 4, 3]]


def test_oriented_boxes_are_polygons():
    corners = np.array([[[2.0, 0], [4, 2], [2, 4], [0, 2]]])
    d = sv.Detections(
        xyxy=np.array([[0.0, 0, 4, 4]]),
        class_id=np.array([0]),
        data={"xyxyxyxy": corners, "class_name": np.array(["diamond"])},
    )
    df = from_supervision({"a": d})
    assert df["geometry"].iloc[0].area == pytest.approx(8.0)


def test_two_identical_annotators_agree_perfectly(frame):
    dets = to_supervision(frame)
    same = {(i, who): d for (i, a), d in dets.items() if a == "b" for who in ("x", "y")}
    df = from_supervision(same, image_sizes=sizes(frame))
    res = iaf.agreement(df, n_chance=50, n_boot=0)
    # (localization has no chance population when every pair is a perfect copy)
    for comp in ("detection", "overall"):
        assert float(res["agreement"].sel(component=comp, label="(all)", annotator="(all)")) == 1
    # labels: Krippendorff's alpha is 1; the headline needs matched pairs of unrelated
    # items, too few on 12 items (it says so)
    cls = res.sel(component="classification", label="(all)", annotator="(all)")
    assert float(cls["label_alpha"]) == 1
    value = float(cls["agreement"])
    assert value == 1 or (np.isnan(value) and "too few" in str(cls["note"].item()))


def test_empty_detections_are_coverage_rows():
    box = sv.Detections(xyxy=np.array([[1.0, 1, 3, 3]]), class_id=np.array([0]))
    df = from_supervision({"a": {"i1": box, "i2": sv.Detections.empty()}, "b": {"i1": box}})
    assert df[["item", "annotator"]].values.tolist() == [["i1", "a"], ["i2", "a"], ["i1", "b"]]
    assert df["label"].isna().tolist() == [False, True, False]


def test_unknown_class_is_named_or_dropped_and_counted():
    d = sv.Detections(xyxy=np.array([[0.0, 0, 2, 2], [1, 1, 3, 3]]), class_id=np.array([0, 5]))
    dets = {("img1", "ana"): d, ("img2", "ana"): d[:1]}
    with pytest.raises(
        InvalidAnnotationError, match=r"detections\[\('img1', 'ana'\)\]\[1\]: the class_id"
    ):
        from_supervision(dets, class_names=["cat"])
    with pytest.warns(DroppedRowsWarning, match="unknown_class: 1") as w:
        df = from_supervision(dets, class_names=["cat"], on_invalid="drop")
    assert len(df) == 2 and w[0].message.dropped["index"].tolist() == [1]


def test_invalid_boxes_and_empty_masks_name_the_box():
    d = sv.Detections(xyxy=np.array([[0.0, 0, 2, 2], [5, 5, 5, 9]]), class_id=np.array([0, 0]))
    with pytest.raises(InvalidAnnotationError, match=r"\['a'\]\[1\]: the shape has zero area"):
        from_supervision({"a": d})
    m = np.zeros((1, 4, 4), bool)
    e = sv.Detections(xyxy=np.array([[0.0, 0, 2, 2]]), mask=m, class_id=np.array([0]))
    with pytest.warns(DroppedRowsWarning, match="empty_mask: 1"):
        df = from_supervision({"a": e}, on_invalid="drop")
    # the annotator reviewed the item: a coverage row remains
    assert len(df) == 1 and df["label"].isna().all() and df["width"].iloc[0] == 4


def test_malformed_input_is_a_parameter_error():
    d = sv.Detections(xyxy=np.array([[0.0, 0, 2, 2]]), class_id=np.array([0]))
    with pytest.raises(ParameterError, match="must be a dict"):
        from_supervision([d])
    with pytest.raises(ParameterError, match=r"detections\['a'\] is a list"):
        from_supervision({"a": [1, 2]})
    with pytest.raises(ParameterError, match=r"\(item, annotator\)"):
        from_supervision({("i", "a", "x"): d})
    with pytest.raises(ParameterError, match="given twice"):
        from_supervision({("image", "a"): d, "a": d})
    no_class = sv.Detections(xyxy=np.array([[0.0, 0, 2, 2]]))
    with pytest.raises(InvalidAnnotationError, match="neither data"):
        from_supervision({"a": no_class})
    with pytest.raises(ParameterError, match="on_invalid"):
        from_supervision({"a": d}, on_invalid="ignore")
    df = from_supervision({"a": d})
    with pytest.raises(ParameterError, match="not in class_names"):
        to_supervision(df, class_names=["dog"])


def test_supervision_is_imported_only_when_needed(monkeypatch):
    code = "import sys, iaa_frames; print('supervision' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    monkeypatch.setitem(sys.modules, "supervision", None)  # import supervision fails
    df = iaf.from_records([{"item": "i", "annotator": "a"}])
    with pytest.raises(IAAError, match=r"iaa-frames\[supervision\]"):
        to_supervision(df)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["i1", "i2", "i3"]),
            st.sampled_from(["ana", "ben"]),
            st.lists(
                st.tuples(
                    st.floats(-1e6, 1e6),
                    st.floats(-1e6, 1e6),
                    st.floats(1e-3, 1e4),
                    st.floats(1e-3, 1e4),
                    st.sampled_from(["car", "Car", "12", "person walking"]),
                ),
                max_size=6,
            ),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_detections_to_frame_and_back_are_identical(entries):
    dets = {}
    for item, ann, boxes in entries:
        xyxy = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in boxes]).reshape(-1, 4)
        names = np.array([c for *_, c in boxes], dtype=str)
        dets[item, ann] = sv.Detections(
            xyxy=xyxy, class_id=np.zeros(len(boxes), int), data={"class_name": names}
        )
    back = to_supervision(from_supervision(dets))
    assert list(back) == list(dets)
    for key, d in dets.items():
        assert np.array_equal(back[key].xyxy, d.xyxy)
        assert back[key].data["class_name"].tolist() == d.data["class_name"].tolist()
