"""read_coco against hand-written fixtures (tests/fixtures/coco, written from the COCO spec)."""

import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from helpers import FIX, row_of
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.errors import DroppedRowsWarning, ParameterError, ReaderError
from iaa_frames.io import read_coco
from iaa_frames.io.coco import mask_to_geometry
from iaa_frames.io.masks import compressed_counts, rle_crop


def _mask_utils():
    """pycocotools.mask, the reference of the mask tests (skipped without the coco extra)."""
    return pytest.importorskip("pycocotools.mask")


def test_per_annotator_file(tmp_path):
    df = read_coco(FIX / "coco" / "ana.json")
    assert list(df.columns[:11]) == [
        "item",
        "annotator",
        "label",
        "object_id",
        "x0",
        "y0",
        "x1",
        "y1",
        "geometry",
        "width",
        "height",
    ]
    assert set(df["annotator"]) == {"ana"}  # from the file name
    box = row_of(df, object_id=101)
    assert (box["label"], box["item"]) == ("car", "street_001.jpg")
    np.testing.assert_allclose(
        [box.x0, box.y0, box.x1, box.y1], [100.5, 200.0, 150.5, 225.5]
    )  # xywh
    assert box["geometry"] is None
    assert (box["width"], box["height"]) == (640, 480)
    assert (box["area"], box["iscrowd"]) == (1275.0, 0)
    poly = row_of(df, object_id=102)
    assert poly["geometry"].geom_type == "Polygon" and poly["geometry"].area == 800
    multi = row_of(df, object_id=103)
    assert multi["geometry"].geom_type == "MultiPolygon"
    assert multi["geometry"].area == pytest.approx(100 + 200)
    assert (multi.x0, multi.y0, multi.x1, multi.y1) == (0, 0, 40, 40)
    assert (multi["width"], multi["height"]) == (800, 600)
    cov = df[df["item"] == "street_003.jpg"]
    assert len(cov) == 1 and pd.isna(cov["label"].iloc[0]) and np.isnan(cov["x0"].iloc[0])
    assert cov["width"].iloc[0] == 640
    assert len(df) == 4


def test_annotator_argument_and_mapping():
    df = read_coco(FIX / "coco" / "ana.json", annotator="Ana P.")
    assert set(df["annotator"]) == {"Ana P."}
    df = read_coco({"x": FIX / "coco" / "ana.json", "y": FIX / "coco" / "ana.json"})
    assert set(df["annotator"]) == {"x", "y"}
    # several files: object ids are prefixed with the annotator so that they stay unique
    assert "x/101" in set(df["object_id"]) and "y/101" in set(df["object_id"])
    assert df["object_id"].dropna().is_unique
    df = read_coco([FIX / "coco" / "ana.json", FIX / "coco" / "ana.json"], annotator=["p", "q"])
    assert set(df["annotator"]) == {"p", "q"}


def test_same_file_name_twice_is_refused():
    with pytest.raises(ParameterError, match="same|annotator name"):
        read_coco([FIX / "coco" / "ana.json", FIX / "coco" / "ana.json"])
    with pytest.raises(ParameterError):
        read_coco([FIX / "coco" / "ana.json"] * 2, annotator=["a"])


def test_lvis_rater_keys():
    df = read_coco(FIX / "coco" / "lvis_raters.json")
    assert sorted(df["annotator"].unique()) == ["1", "2"]
    objs = df[df["x0"].notna()]
    assert len(objs) == 3
    assert row_of(df, object_id=3)["annotator"] == "2"
    # rater_list gives coverage: rater 1 reviewed 000000000285.jpg and drew nothing
    cov = df[df["x0"].isna()]
    assert set(zip(cov["item"], cov["annotator"], strict=True)) == {
        ("000000000285.jpg", "1"),
        ("000000000632.jpg", "2"),
    }
    assert cov.set_index("item").loc["000000000632.jpg", "height"] == 483
    assert "rater_id" not in df.columns


def test_explicit_annotator_keeps_rater_key_as_column():
    df = read_coco(FIX / "coco" / "lvis_raters.json", annotator="merged")
    assert set(df["annotator"]) == {"merged"}
    assert list(df.loc[df["x0"].notna(), "rater_id"]) == [1, 2, 2]


def test_rater_key_on_some_annotations_only(tmp_path):
    doc = json.loads((FIX / "coco" / "lvis_raters.json").read_text())
    del doc["annotations"][2]["rater_id"]
    p = tmp_path / "mixed.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError, match=r"mixed\.json: annotations\[2\] \(id=3\): no 'rater_id' although other"
    ):
        read_coco(p)
    for a in doc["annotations"]:
        a.pop("rater_id", None)
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError,
        match=r"annotations\[0\] \(id=1\): no 'rater_id' although the images .* 'rater_list'",
    ):
        read_coco(p)


def test_rle_is_decoded_without_pycocotools(monkeypatch):
    """Masks are decoded here: with pycocotools' import made to fail, the RLE of the
    fixture still gives its exact pixel polygon, and nothing is dropped."""
    monkeypatch.setitem(sys.modules, "pycocotools", None)  # make the import fail
    monkeypatch.setitem(sys.modules, "pycocotools.mask", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_coco(FIX / "coco" / "rle.json")
    crowd = row_of(df, object_id=1)
    assert crowd["geometry"].area == 5
    assert (crowd.x0, crowd.y0, crowd.x1, crowd.y1) == (1, 0, 3, 3)
    assert not df.attrs.get("iaa_reader_dropped")
    # the former rle= option is deprecated and has no effect
    with pytest.warns(FutureWarning, match=r"rle=\) has no effect"):
        df2 = read_coco(FIX / "coco" / "rle.json", rle="bbox")
    assert row_of(df2, object_id=1)["geometry"].equals(crowd["geometry"])
    with pytest.raises(ParameterError, match="rle must be"):
        read_coco(FIX / "coco" / "rle.json", rle="mask")


@settings(max_examples=200, deadline=None)
@given(
    h=st.integers(1, 12),
    w=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    p=st.floats(0.0, 1.0),
)
def test_runs_crop_is_pycocotools_decode_cropped(h, w, seed, p):
    """Our decoder (compressed string -> runs -> the crop of the columns the mask spans)
    against pycocotools' decode of the same RLE, cropped to its bounding box."""
    mask_utils = _mask_utils()
    m = (np.random.default_rng(seed).random((h, w)) < p).astype(np.uint8)
    rle = mask_utils.encode(np.asfortranarray(m))
    seg = {"size": [h, w], "counts": rle["counts"].decode()}
    if not m.any():
        with pytest.raises(ReaderError, match="empty"):
            rle_crop("x.json", "e", seg)
        return
    crop, (r0, c0) = rle_crop("x.json", "e", seg)
    rows, cols = np.flatnonzero(m.any(axis=1)), np.flatnonzero(m.any(axis=0))
    assert (r0, c0) == (rows[0], cols[0])
    ref = mask_utils.decode(rle)[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    assert np.array_equal(crop, ref != 0)
    # the uncompressed runs give the same
    runs = compressed_counts(seg["counts"])
    crop2, origin2 = rle_crop("x.json", "e", {"size": [h, w], "counts": runs})
    assert np.array_equal(crop2, crop) and origin2 == (r0, c0)


def test_rle_with_pycocotools():
    """The real pycocotools decodes the uncompressed RLE of the fixture (iscrowd=1) into the
    exact pixel polygon."""
    _mask_utils()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_coco(FIX / "coco" / "rle.json")
    crowd = row_of(df, object_id=1)
    # counts [3, 3, 1, 2, 3], column-major on 3 x 4: column 1 full (3 px) + column 2 rows 1-2
    assert crowd["geometry"].area == 5
    assert (crowd.x0, crowd.y0, crowd.x1, crowd.y1) == (1, 0, 3, 3)
    assert crowd["iscrowd"] == 1
    assert (crowd["mask_height"], crowd["mask_width"]) == (3, 4)


def _random_masks(rng, n, h, w, p=0.5):
    """Blobby random masks: thresholded, box-blurred noise (holes, several parts)."""
    out = []
    for _ in range(n):
        noise = rng.random((h + 4, w + 4))
        blur = sum(noise[dy : dy + h, dx : dx + w] for dy in range(5) for dx in range(5)) / 25
        m = (blur > np.quantile(blur, 1 - p)).astype(np.uint8)
        if not m.any():
            m[0, 0] = 1
        out.append(m)
    return out


def test_mask_polygon_iou_is_pycocotools_pixel_iou():
    # vector IoU of the pixel-boundary polygons equals pycocotools.mask.iou exactly
    rng = np.random.default_rng(7)
    for h, w in [(1, 1), (7, 5), (31, 40), (64, 48)]:
        masks = _random_masks(rng, 12, h, w, p=rng.uniform(0.05, 0.9))
        rles = _mask_utils().encode(np.asfortranarray(np.stack(masks, axis=-1)))
        ref = _mask_utils().iou(rles, rles, [0] * len(rles))
        geoms = np.array([mask_to_geometry(m) for m in masks], dtype=object)
        assert np.array_equal(shapely.area(geoms), [m.sum() for m in masks])
        a, b = np.meshgrid(np.arange(len(masks)), np.arange(len(masks)), indexing="ij")
        inter = shapely.area(shapely.intersection(geoms[a], geoms[b]))
        union = shapely.area(shapely.union(geoms[a], geoms[b]))
        np.testing.assert_array_equal(inter / union, ref)  # exact, not approximately


def _mask_coco(path, masks, sizes, *, compressed=True):
    images, anns = [], []
    for k, ((h, w), item_masks) in enumerate(zip(sizes, masks, strict=True)):
        images.append({"id": k + 1, "file_name": f"img_{k:03d}.png", "width": w, "height": h})
        for m in item_masks:
            rle = _mask_utils().encode(np.asfortranarray(m))
            if compressed:
                seg = {"size": rle["size"], "counts": rle["counts"].decode("ascii")}
            else:  # uncompressed: run lengths, column-major, starting with background
                flat = m.ravel(order="F")
                change = np.flatnonzero(np.diff(np.r_[0, flat, 1 - flat[-1]]))
                seg = {"size": [h, w], "counts": np.diff(np.r_[0, change]).tolist()}
            x0, y0, bw, bh = _mask_utils().toBbox(rle).tolist()
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": k + 1,
                    "category_id": 1,
                    "segmentation": seg,
                    "bbox": [x0, y0, bw, bh],
                    "area": int(m.sum()),
                    "iscrowd": int(not compressed),
                }
            )
    path.write_text(
        json.dumps(
            {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "blob"}]}
        )
    )
    return path


def test_read_rle_iou_is_pycocotools_iou(tmp_path):
    # random RLEs read by read_coco, then compared by the matcher's IoU (the overlay on
    # small masks, the mask IoU on the image's grid on detailed ones): pycocotools' value
    from iaa_frames.frame.schema import validate
    from iaa_frames.geometry.mask_rule import uses_mask_iou
    from iaa_frames.geometry.overlap import iou
    from iaa_frames.geometry.shapes import Shapes

    rng = np.random.default_rng(11)
    sizes = [(7, 5), (40, 31), (120, 160), (96, 128)]
    masks = [_random_masks(rng, 6, h, w, p=rng.uniform(0.1, 0.7)) for h, w in sizes]
    df = validate(read_coco(_mask_coco(tmp_path / "a.json", masks, sizes)))
    checked = on_masks = 0
    for k, item_masks in enumerate(masks):
        rows = df[df["item"] == f"img_{k:03d}.png"].sort_values("object_id")
        shapes = Shapes.from_frame(rows)
        rles = _mask_utils().encode(np.asfortranarray(np.stack(item_masks, axis=-1)))
        ref = _mask_utils().iou(rles, rles, [0] * len(rles))
        a, b = (g.ravel() for g in np.meshgrid(np.arange(len(rows)), np.arange(len(rows))))
        got = iou(shapes.take(a), shapes.take(b)).reshape(len(rows), len(rows))
        np.testing.assert_allclose(got.T, ref, rtol=0, atol=1e-12)
        checked += 1
        on_masks += int(uses_mask_iou(shapes.take(a), shapes.take(b)).sum())
    assert checked == len(sizes) and on_masks > 0  # both paths taken


def _random_shapes(rng, h, w):
    """A random mask drawn in coordinates normalized to the image (two rectangles or
    ellipses, rasterized at the image size), so that its statistics do not depend on the
    image size: masks of different images are then exchangeable, as chance needs."""
    yy, xx = np.mgrid[0:h, 0:w]
    u, v = (xx + 0.5) / w, (yy + 0.5) / h
    m = np.zeros((h, w), bool)
    for _ in range(2):
        cx, cy = rng.uniform(0.2, 0.8, 2)
        rx, ry = rng.uniform(0.15, 0.4, 2)
        if rng.random() < 0.5:
            m |= (np.abs(u - cx) < rx) & (np.abs(v - cy) < ry)
        else:
            m |= ((u - cx) / rx) ** 2 + ((v - cy) / ry) ** 2 < 1
    return [m.astype(np.uint8)]


@pytest.mark.slow
def test_random_masks_score_zero_identical_masks_one(tmp_path):
    # two annotators segmenting 150 images of varied sizes: independent random masks give
    # sigma ~ 0, copies give 1, read through RLE (compressed for one, uncompressed for the
    # other) and the whole pipeline; chance pairs compare masks of images of different
    # sizes in normalized coordinates. At tau = 0.3 about a third of the pairs miss, within
    # an image as between images, so detection is not degenerate.
    rng = np.random.default_rng(3)
    sizes = [(int(rng.integers(20, 60)), int(rng.integers(20, 60))) for _ in range(150)]
    a = [_random_shapes(rng, h, w) for h, w in sizes]
    b = [_random_shapes(rng, h, w) for h, w in sizes]
    pa = _mask_coco(tmp_path / "ana.json", a, sizes)
    pb = _mask_coco(tmp_path / "ben.json", b, sizes, compressed=False)
    pc = _mask_coco(tmp_path / "cid.json", a, sizes, compressed=False)
    rand = read_coco([pa, pb])
    assert rand["geometry"].notna().all() and rand["width"].notna().all()
    res = iaf.agreement(rand, n_chance=1000, match_threshold=0.3)
    loc = float(res["agreement"].sel(component="localization", label="(all)", annotator="(all)"))
    det = float(res["agreement"].sel(component="detection", label="(all)", annotator="(all)"))
    # sampling sd: ~0.03 for localization, ~0.1 for detection (150 Bernoulli within units)
    assert abs(loc) < 0.1 and abs(det) < 0.25
    same = read_coco([pa, pc])
    res = iaf.agreement(same, n_chance=400, match_threshold=0.3)
    for comp in ("detection", "localization", "overall"):
        value = float(res["agreement"].sel(component=comp, label="(all)", annotator="(all)"))
        assert value == pytest.approx(1, abs=1e-12)
    # the uncompressed and compressed RLE of the same mask give the same polygon
    ga = same[same["annotator"] == "ana"].sort_values("item")["geometry"].to_numpy()
    gc = same[same["annotator"] == "cid"].sort_values("item")["geometry"].to_numpy()
    assert shapely.equals(ga, gc).all()


def test_bad_rle_names_the_entry(tmp_path):
    _mask_utils()  # the reader decodes RLE with pycocotools
    doc = json.loads((FIX / "coco" / "rle.json").read_text())
    doc["annotations"][0]["segmentation"]["counts"] = [3, 3, 1, 2, 4]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError,
        match=r"bad\.json: annotations\[0\] \(id=1\): segmentation.counts adds up to 13",
    ):
        read_coco(p)
    doc["annotations"][0]["segmentation"] = {"size": [3], "counts": "abc"}
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"segmentation.size must be \[height, width\]"):
        read_coco(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_coco(p, on_invalid="drop")
    assert rec[0].message.counts == {"unreadable_entry": 1}
    assert list(df["object_id"].dropna()) == [2]


def test_a_mask_of_another_resolution_than_its_image_is_named(tmp_path):
    """#41 S19: an RLE whose size differs from its image's was normalised by the image's
    size, so it covered another part of the image; it is now an entry error naming both
    sizes (dropped and counted with on_invalid='drop'), and a matching size still reads."""
    _mask_utils()
    doc = json.loads((FIX / "coco" / "rle.json").read_text())
    doc["images"][0].update(width=8, height=6)  # the mask is 4 x 3
    p = tmp_path / "twice.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(
        ReaderError,
        match=r"twice\.json: annotations\[0\] \(id=1\): the RLE mask is 4 x 3 pixels .* "
        r"image 'crowd.jpg' is 8 x 6",
    ):
        read_coco(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_coco(p, on_invalid="drop")
    assert rec[0].message.counts == {"unreadable_entry": 1}
    assert list(df["object_id"].dropna()) == [2]
    assert len(read_coco(FIX / "coco" / "rle.json").dropna(subset=["object_id"])) == 2


def test_mask_to_geometry_holes_and_parts():
    m = np.zeros((6, 7), dtype=np.uint8)
    m[1:5, 1:5] = 1
    m[2:3, 2:3] = 0  # a one-pixel hole
    m[0, 6] = 1  # a separate part
    g = mask_to_geometry(m)
    assert g.geom_type == "MultiPolygon"
    assert g.area == m.sum()
    assert shapely.equals(
        g,
        shapely.MultiPolygon(
            [
                shapely.Polygon(
                    [(1, 1), (5, 1), (5, 5), (1, 5)], [[(2, 2), (3, 2), (3, 3), (2, 3)]]
                ),
                shapely.box(6, 0, 7, 1),
            ]
        ),
    )
    assert mask_to_geometry(np.zeros((3, 3))) is None


def test_images_without_annotations_is_all_coverage(tmp_path):
    p = tmp_path / "ann.json"
    p.write_text(
        json.dumps(
            {
                "images": [{"id": 1, "file_name": "a.jpg", "width": 10, "height": 10}],
                "annotations": [],
                "categories": [],
            }
        )
    )
    df = read_coco(p)
    assert len(df) == 1 and df["x0"].isna().all() and df["annotator"].iloc[0] == "ann"


def test_results_file_top_level_list(tmp_path):
    p = tmp_path / "detections.json"
    p.write_text(
        json.dumps([{"image_id": 4, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}])
    )
    df = read_coco(p)
    # the image id as text, like the category id (issue #23: identifiers stay text)
    assert (df["item"].iloc[0], df["label"].iloc[0], df["score"].iloc[0]) == ("4", "2", 0.5)


def test_unknown_annotation_keys_are_carried_through(tmp_path):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    doc["annotations"][0]["attributes"] = {"occluded": True}
    doc["annotations"][0]["note"] = {"by": "qa"}
    p = tmp_path / "ann.json"
    p.write_text(json.dumps(doc))
    df = read_coco(p)
    assert row_of(df, object_id=101)["note"] == {"by": "qa"}
    # an attributes dictionary becomes columns (tests/io/test_reader_attributes.py)
    assert bool(row_of(df, object_id=101)["occluded"]) and df.attrs["iaa_attributes"] == [
        "occluded"
    ]


def test_degenerate_polygon_keeps_bbox_and_counts(tmp_path):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    doc["annotations"][1]["segmentation"] = [[10.0, 10.0, 30.0, 10.0]]  # two points
    p = tmp_path / "ann.json"
    p.write_text(json.dumps(doc))
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_coco(p)
    assert rec[0].message.counts == {"degenerate_polygon_bbox_kept": 1}
    r = row_of(df, object_id=102)
    assert r["geometry"] is None and (r.x0, r.y0, r.x1, r.y1) == (10, 10, 30, 50)


def test_zero_area_box_raises_naming_entry_or_drops(tmp_path):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    doc["annotations"][0]["bbox"] = [100, 200, 0, 25]
    p = tmp_path / "ann.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"ann\.json: annotations\[0\] \(id=101\).*zero area"):
        read_coco(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_coco(p, on_invalid="drop")
    assert rec[0].message.counts == {"zero_area": 1}
    assert 101 not in set(df["object_id"].dropna())


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_polygon_coordinate_that_is_not_finite_names_the_entry_or_drops(tmp_path, bad):
    # found by a 1,500-example run of the readers' fuzz test: a NaN in a second polygon
    # part reached shapely (GEOSException: the ring could not be closed)
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    doc["annotations"][1]["segmentation"] = [
        [0, 0, 10, 0, 10, 10, 0, 10],
        [bad, 20, 40, 20, 30, 40],
    ]
    p = tmp_path / "ann.json"
    p.write_text(json.dumps(doc))  # NaN and Infinity, as Python's json writes them
    with pytest.raises(
        ReaderError, match=r"ann\.json: annotations\[1\] \(id=102\): a polygon coordinate is"
    ):
        read_coco(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_coco(p, on_invalid="drop")
    assert rec[0].message.counts == {"unreadable_entry": 1}
    assert 102 not in set(df["object_id"].dropna()) and 101 in set(df["object_id"])


def test_duplicate_annotation_ids_raise(tmp_path):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    doc["annotations"][1]["id"] = 101
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match=r"dup\.json: annotations\[\d\] \(id=101\).*not unique"):
        read_coco(p)


def test_key_order_does_not_matter(tmp_path):
    doc = json.loads((FIX / "coco" / "ana.json").read_text())
    reordered = {
        "annotations": doc["annotations"],
        "categories": doc["categories"],
        "images": doc["images"],
    }
    p = tmp_path / "ana.json"
    p.write_text(json.dumps(reordered, indent=4))
    pd.testing.assert_frame_equal(read_coco(p), read_coco(FIX / "coco" / "ana.json"))


def test_streaming_across_chunk_boundaries(tmp_path, monkeypatch):
    """Tiny read chunks put element and number boundaries everywhere."""
    from iaa_frames.io import json_stream

    orig = json_stream.JSONStream.__init__

    def tiny(self, path, stream_keys=(), chunk_size=7, **kw):
        orig(self, path, stream_keys, chunk_size=7, **kw)

    monkeypatch.setattr(json_stream.JSONStream, "__init__", tiny)
    small = read_coco(FIX / "coco" / "ana.json")
    monkeypatch.undo()
    pd.testing.assert_frame_equal(small, read_coco(FIX / "coco" / "ana.json"))


def _video_coco(path, video_ids, annotator):
    coco = {
        "images": [
            {"id": i, "file_name": f"f{i}.jpg", "width": 100, "height": 100, **v}
            for i, v in enumerate(video_ids)
        ],
        "categories": [{"id": 1, "name": "car"}],
        "annotations": [
            {"id": i, "image_id": i, "category_id": 1, "bbox": [10, 10, 20, 20]}
            for i in range(len(video_ids))
        ],
    }
    p = path / f"{annotator}.json"
    p.write_text(json.dumps(coco))
    return p


def test_video_id_gives_the_group(tmp_path):
    ids = [{"video_id": 3}, {"video_id": 3}, {"video_id": "v9"}, {}]
    df = read_coco(
        {"ann": _video_coco(tmp_path, ids, "ann"), "bob": _video_coco(tmp_path, ids, "bob")}
    )
    group = df.groupby("item")["group"].first()
    assert group[["f0.jpg", "f1.jpg", "f2.jpg"]].tolist() == ["3", "3", "v9"]
    assert pd.isna(group["f3.jpg"])
    assert prepare(df).n_groups == 3  # f3 is a group of its own
    assert "group" not in read_coco(tmp_path / "ann.json", group_key=None).columns


def test_an_image_in_two_videos_raises(tmp_path):
    a = _video_coco(tmp_path, [{"video_id": 1}], "ann")
    b = _video_coco(tmp_path, [{"video_id": 2}], "bob")
    with pytest.raises(ReaderError, match="'f0.jpg': '1', '2'"):
        read_coco({"ann": a, "bob": b})


def test_reading_rle_masks_costs_a_few_decodes(tmp_path):
    # 200 RLE masks on 640 x 480 images: read_coco (JSON, checks, decoding, tracing the
    # polygons) within 15 times pycocotools' decode of the same RLEs, best of three (about
    # 3 to 8 times on the CI machine; tracing by overlay of pixel rectangles took 25 to 30)
    import time

    rng = np.random.default_rng(5)
    h, w = 480, 640
    yy, xx = np.mgrid[0:h, 0:w]
    masks = []
    for _ in range(20):
        item = []
        for _ in range(10):
            cx, cy, r = rng.uniform(100, 540), rng.uniform(100, 380), rng.uniform(20, 100)
            item.append((((xx - cx) / 1.3) ** 2 + (yy - cy) ** 2 <= r * r).astype(np.uint8))
        masks.append(item)
    path = _mask_coco(tmp_path / "a.json", masks, [(h, w)] * 20)
    rles = [a["segmentation"] for a in json.loads(path.read_text())["annotations"]]
    read_coco(path)  # imports

    def best(f):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        return min(times)

    decode = best(lambda: [_mask_utils().decode(r) for r in rles])
    read = best(lambda: read_coco(path))
    assert read < 15 * decode, (read, decode)
