"""read_labelstudio against a hand-written Label Studio JSON export (tests/fixtures/labelstudio)."""

import json

import numpy as np
import pandas as pd
import pytest
from helpers import FIX, row_of

import iaa_frames as iaf
from iaa_frames.core.engine import rater_kinds
from iaa_frames.errors import AnnotatorNameWarning, DroppedRowsWarning, ParameterError, ReaderError
from iaa_frames.io import read_cvat, read_labelstudio

EXPORT = FIX / "labelstudio" / "export.json"
DOG_PARK = (
    "dog_park.jpg"  # the upload path /data/upload/1/6a1b2c3d-dog_park.jpg, by item_key="name"
)


def _read(path=EXPORT, **kw):
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_labelstudio(path, **kw)
    return df, rec[0].message


def test_export():
    df, w = _read()
    rect = row_of(df, object_id="1001/Dx_aB91ISN")
    # percent of original_width=800, original_height=600
    assert (rect.x0, rect.y0, rect.x1, rect.y1) == (80, 120, 280, 420)
    assert (rect["label"], rect["annotator"], rect["item"]) == ("Dog", "ana@example.org", DOG_PARK)
    assert (rect["width"], rect["height"]) == (800, 600)
    assert rect["quality"] == "sharp"  # a per-region choices result
    assert rect["task"] == 1
    poly = row_of(df, object_id="1001/p0ly9")
    assert poly["label"] == "Cat"
    assert poly["geometry"].area == pytest.approx(0.5 * 200 * 300)
    # rotation=90 (clockwise about the top-left corner (400, 300)) of an 80 x 60 box
    rot = row_of(df, object_id="1002/r0t8")
    assert rot["annotator"] == "11"  # completed_by as a plain user id
    np.testing.assert_allclose([rot.x0, rot.y0, rot.x1, rot.y1], [340, 300, 400, 380], atol=1e-9)
    assert rot["rotation"] == 90
    # task 2: an empty result is a coverage row; the cancelled annotation gives nothing
    cov = df[df["x0"].isna()]
    assert list(zip(cov["item"], cov["annotator"], strict=True)) == [
        ("empty_lot.jpg", "ana@example.org")
    ]
    assert "12" not in set(df["annotator"])
    # the keypointlabels result is a one-joint skeleton (issue #26), no longer skipped
    nose = row_of(df, object_id="1001/keypoints/3")  # "Nose": COCO's person, its nose alone
    assert (nose["kp_nose_x"], nose["kp_nose_y"], nose["kp_nose_v"]) == (40.0, 30.0, 2.0)
    assert len(df) == 5
    assert w.counts == {"cancelled_annotation": 1}
    assert set(w.dropped["annotator"]) == {"12"}


def test_item_is_task_id():
    df, _ = _read(item="task")
    assert set(df["item"]) == {"1", "2"}  # items are text (issue #23)
    with pytest.raises(ParameterError):
        read_labelstudio(EXPORT, item="nope")


def test_data_key(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    for t in tasks:
        t["data"] = {"img": t["data"]["image"], "n": 3}
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, _ = _read(p)  # the only string value of data
    assert DOG_PARK in set(df["item"])
    for t in tasks:
        t["data"]["caption"] = "text"
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match=r"e\.json: tasks\[0\] \(id=1\): cannot tell which key"):
        read_labelstudio(p)
    df, _ = _read(p, data_key="img")
    assert DOG_PARK in set(df["item"])


def test_multiple_labels_are_counted(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][0]["result"][0]["value"]["rectanglelabels"] = ["Dog", "Cat"]
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, w = _read(p)
    assert w.counts["extra_labels_ignored"] == 1
    assert row_of(df, object_id="1001/Dx_aB91ISN")["label"] == "Dog"


def test_rectangle_labelled_by_a_labels_tag(tmp_path):
    tasks = [
        {
            "id": 5,
            "data": {"image": "a.jpg"},
            "annotations": [
                {
                    "id": 1,
                    "completed_by": 1,
                    "result": [
                        {
                            "id": "q",
                            "type": "rectangle",
                            "original_width": 100,
                            "original_height": 100,
                            "value": {"x": 0, "y": 0, "width": 10, "height": 10},
                        },
                        {
                            "id": "q",
                            "type": "labels",
                            "original_width": 100,
                            "original_height": 100,
                            "value": {"x": 0, "y": 0, "width": 10, "height": 10, "labels": ["Car"]},
                        },
                    ],
                }
            ],
        }
    ]
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df = read_labelstudio(p)
    assert list(df["label"]) == ["Car"] and df["x1"].iloc[0] == 10


def test_wrong_types_name_the_entry(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][1]["result"][0]["value"]["x"] = "50%"
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    with pytest.raises(
        ReaderError,
        match=r"e\.json: tasks\[0\] \(id=1\) annotations\[1\] \(id=1002\) result\[0\]: value\.x",
    ):
        read_labelstudio(p)
    tasks = json.loads(EXPORT.read_text())
    tasks[1]["annotations"][0]["completed_by"] = [1]
    p.write_text(json.dumps(tasks))
    with pytest.raises(
        ReaderError, match=r"tasks\[1\] \(id=2\) annotations\[0\] \(id=1004\): completed_by"
    ):
        read_labelstudio(p)
    tasks = json.loads(EXPORT.read_text())
    del tasks[1]["annotations"][0]["completed_by"]
    p.write_text(json.dumps(tasks))
    with pytest.raises(ReaderError, match="missing key 'completed_by'"):
        read_labelstudio(p)


@pytest.mark.parametrize("result", [True, 7, "x", {"a": 1}])
def test_a_result_that_is_not_a_list_names_its_annotation(tmp_path, result):
    # found by a 1,500-example run of the readers' fuzz test: the task's image size was
    # read from every annotation's result before any was checked (a TypeError)
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][0]["result"] = result
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    with pytest.raises(
        ReaderError, match=r"e\.json: tasks\[0\] \(id=1\) annotations\[0\] \(id=1001\): 'result'"
    ):
        read_labelstudio(p)
    # with on_invalid="drop" that annotation alone is dropped: the task's others are read
    df, dropped = read_labelstudio(p, on_invalid="drop", return_dropped=True)
    first = dropped[dropped["reason"] == "unreadable_entry"]
    assert first["entry"].tolist() == ["tasks[0] (id=1) annotations[0] (id=1001)"]
    counts = df.groupby(["item", "annotator"]).size().to_dict()
    assert counts == {("dog_park.jpg", "11"): 1, ("empty_lot.jpg", "ana@example.org"): 1}


def test_not_a_task_list(tmp_path):
    p = tmp_path / "coco.json"
    p.write_text(json.dumps({"images": []}))
    with pytest.raises(ReaderError, match=r"coco\.json: not a Label Studio JSON export"):
        read_labelstudio(p)
    p.write_text("[]")
    with pytest.raises(ReaderError, match="no tasks"):
        read_labelstudio(p)


def test_relations_and_image_level_results_are_counted(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    result = tasks[0]["annotations"][0]["result"]
    result.append(
        {"from_id": "Dx_aB91ISN", "to_id": "p0ly9", "type": "relation", "direction": "right"}
    )
    result.append(
        {
            "id": "img1",
            "from_name": "weather",
            "to_name": "image",
            "type": "choices",
            "value": {"choices": ["sunny"]},
        }
    )
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, w = _read(p)
    assert w.counts == {"unsupported_result": 2, "cancelled_annotation": 1}
    assert len(df) == 5


# -- JSON-MIN, item keys, on_invalid, and the same images from Label Studio and CVAT --------


JSON_MIN = FIX / "labelstudio" / "json_min.json"
CROSS = FIX / "crosstool"


def test_json_min_export():
    df = read_labelstudio(JSON_MIN)
    assert set(df["annotator"]) == {"chloe@example.org"}
    assert sorted(set(df["item"])) == ["beach.jpg", "garage.jpg", "park.jpg", "street.jpg"]
    car = row_of(df, item="street.jpg", label="car")
    # x=6.25 % of 640, y=41.666667 % of 480, width 34.375 %, height 27.083333 %
    np.testing.assert_allclose([car.x0, car.y0, car.x1, car.y1], [40, 200, 260, 330], atol=1e-4)
    assert (car["width"], car["height"]) == (640, 480)
    assert car["object_id"] == "201/label0"
    dog = row_of(df, item="beach.jpg", label="dog")
    assert dog["geometry"].area == pytest.approx(0.2 * 640 * 0.4 * 480)
    garage = df[df["item"] == "garage.jpg"]
    assert len(garage) == 1 and garage["x0"].isna().all()  # an annotation with no region


def test_json_min_without_annotator(tmp_path):
    # without 'annotator', the file name is used and a warning says so
    recs = json.loads(JSON_MIN.read_text())
    for r in recs:
        r.pop("annotator")
    p = tmp_path / "project-7-at-2024.json"
    p.write_text(json.dumps(recs))
    with pytest.warns(AnnotatorNameWarning, match="'project-7-at-2024'"):
        df = read_labelstudio(p)
    assert set(df["annotator"]) == {"project-7-at-2024"}
    df = read_labelstudio(p, annotator="chloe")
    assert set(df["annotator"]) == {"chloe"}


def test_item_keys_of_label_studio_sources(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["data"]["image"] = "/data/local-files/?d=photos/dog_park.jpg"
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, _ = _read(p)
    assert sorted(set(df["item"])) == ["dog_park.jpg", "empty_lot.jpg"]
    df, _ = _read(p, item_key="path")
    assert "/data/local-files/?d=photos/dog_park.jpg" in set(df["item"])
    df, _ = _read(p, item_key="stem")
    assert sorted(set(df["item"])) == ["dog_park", "empty_lot"]


def test_on_invalid_drop_skips_unreadable_results(tmp_path):
    tasks = json.loads(EXPORT.read_text())
    tasks[0]["annotations"][0]["result"][0]["value"]["x"] = "left"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(tasks))
    with pytest.raises(
        ReaderError, match=r"tasks\[0\] \(id=1\) annotations\[0\] \(id=1001\) result\[0\]: value.x"
    ):
        read_labelstudio(p)
    df, w = _read(p, on_invalid="drop")
    assert w.counts["unreadable_entry"] == 1
    assert "1001/Dx_aB91ISN" not in set(df["object_id"])
    assert "1001/p0ly9" in set(df["object_id"])  # the rest of the annotation is kept


def test_same_images_from_label_studio_and_cvat_give_agreement():
    # Label Studio names the images by their upload paths, CVAT by their file names: with
    # the default item_key="name" they are the same items, without editing any path
    ls = read_labelstudio(CROSS / "labelstudio_ana.json")
    cvat = read_cvat(CROSS / "cvat_ben.xml")
    assert (
        set(ls["item"])
        == set(cvat["item"])
        == {"street.jpg", "park.jpg", "beach.jpg", "garage.jpg"}
    )
    df = pd.concat([ls, cvat], ignore_index=True)
    df["object_id"] = range(len(df))
    res = iaf.agreement(df, n_chance=200)
    cells = res.sel(label="(all)", annotator="(all)")
    # every object is matched (observed detection distance 0) with the same label; four
    # images give only 12 chance pairings, too few for sigma, and the note says so
    assert float(cells["observed"].sel(component="detection")) == pytest.approx(0.0)
    assert float(cells["label_alpha"].sel(component="classification")) == pytest.approx(1.0)
    assert "the whole chance population" in cells["note"].sel(component="detection").item()
    # the same files read with item_key="path" share nothing: an error says how to fix it
    ls_path = read_labelstudio(CROSS / "labelstudio_ana.json", item_key="path")
    both = pd.concat([ls_path, cvat], ignore_index=True)
    both["object_id"] = range(len(both))
    with pytest.raises(iaf.NotComparableError, match="item_key='name'"):
        iaf.agreement(both, n_chance=50)


def test_open_polygons_read_as_polylines_or_polygons():
    from iaa_frames.geometry.kinds import POLYLINE

    path = FIX / "labelstudio" / "open_polygons.json"
    df, dropped = iaf.read_labelstudio(path, open_polygons="polyline", return_dropped=True)
    lanes = df[df["label"] == "lane"].reset_index(drop=True)
    assert len(lanes) == 2 and lanes["geometry"].isna().all()
    xy = lanes.loc[1, list(POLYLINE.columns)].to_numpy(dtype=float).reshape(-1, 2)
    # percent of 1600 x 1200 to pixels, in the order drawn, the last vertex repeated
    np.testing.assert_allclose(xy[:3], [[1212.4, 0.0], [1390.0, 600.0], [1568.64, 1200.0]])
    assert (xy[3:] == xy[2]).all()
    car = df[df["label"] == "car"].iloc[0]
    assert car["geometry"].area == pytest.approx(320 * 240)  # closed: still a polygon
    assert dropped["reason"].tolist() == ["degenerate_polyline"]
    assert dropped["entry"].str.endswith("result[3]").all()
    # by default an open polygon is a polygon, closed from its last point to its first
    df, dropped = iaf.read_labelstudio(path, return_dropped=True)
    assert df["geometry"].notna().sum() == 2  # the three-point lane and the car
    assert sorted(dropped["reason"]) == ["degenerate_polygon", "degenerate_polygon"]
    with pytest.raises(iaf.errors.ParameterError, match="open_polygons must be"):
        iaf.read_labelstudio(path, open_polygons="line")


def test_polylines_round_trip_through_write_labelstudio(tmp_path):
    from iaa_frames.geometry.kinds import POLYLINE
    from iaa_frames.io.writers import write_labelstudio
    from iaa_frames.simulate import PolylineProfile, simulate_polylines

    profiles = {"ana": PolylineProfile(jitter=0.5), "ben": PolylineProfile(miss=0.3)}
    df = iaf.validate(simulate_polylines(n_items=6, annotators=profiles, seed=2))
    path = write_labelstudio(df, tmp_path / "ls.json")
    back = read_labelstudio(path, open_polygons="polyline", item_key="stem")
    back["annotator"] = back["annotator"].str.removesuffix("@example.org")
    cols = ["item", "annotator", "label", *POLYLINE.columns]
    want = df.dropna(subset=["label"]).sort_values(cols[:4]).reset_index(drop=True)
    got = back.dropna(subset=["label"]).sort_values(cols[:4]).reset_index(drop=True)
    # percent to 6 places and back: within a millionth of a percent of the image side
    np.testing.assert_allclose(got[cols[3:]], want[cols[3:]], rtol=0, atol=1280e-8)
    assert (got[cols[:3]] == want[cols[:3]]).all().all()


def test_annotator_on_a_full_export_is_refused_with_the_way_out():
    """annotator= applies to JSON-MIN records; on a full export it used to be ignored
    silently (issue #42). The error names the rename that works; following it gives the
    frame with the annotator renamed."""
    full = FIX / "labelstudio" / "export.json"
    with pytest.raises(ParameterError, match=r"full JSON export.*completed_by.*replace") as caught:
        read_labelstudio(full, annotator="ana")
    assert str(full) in str(caught.value)
    df = read_labelstudio(full)
    first = str(df["annotator"].iloc[0])
    df["annotator"] = df["annotator"].replace({first: "ana"})
    assert "ana" in set(df["annotator"]) and first not in set(df["annotator"])


def test_ellipses_are_polygons_in_pixels(tmp_path):
    """#45 item 4: an ellipselabels region (x, y the centre and radiusX, radiusY in
    percent of the width and height, rotation clockwise in degrees) is the polygon of
    iaa_frames.geometry.ellipse in pixels, with the ellipse's area."""

    def region(rid, x, y, rx, ry, rotation=0):
        return {
            "id": rid, "type": "ellipselabels", "from_name": "label", "to_name": "image",
            "original_width": 400, "original_height": 200,
            "value": {"x": x, "y": y, "radiusX": rx, "radiusY": ry, "rotation": rotation,
                      "ellipselabels": ["cell"]},
        }  # fmt: skip

    tasks = [
        {
            "id": 1,
            "data": {"image": "a.jpg"},
            "annotations": [
                {"id": 10, "completed_by": 1,
                 "result": [region("e1", 25, 50, 5, 10), region("e2", 75, 50, 5, 5, 45),
                            region("e3", 50, 50, 0, 5)]},
            ],
        }
    ]  # fmt: skip
    p = tmp_path / "e.json"
    p.write_text(json.dumps(tasks))
    df, w = _read(p)
    assert w.counts == {"degenerate_ellipse": 1}
    got = df.sort_values("x0")
    # radii 5 % and 10 % of 400 x 200 px: 20 x 20 px; 5 % and 5 %: 20 x 10 px
    np.testing.assert_allclose(got["geometry"].map(lambda g: g.area), [np.pi * 400, np.pi * 200])
    np.testing.assert_allclose(got["geometry"].map(lambda g: g.centroid.x), [100, 300], atol=1e-9)
    assert got["rotation"].tolist()[1] == 45.0


# ---------------------------------------------------------------- predictions (issue #45)


def _rect(rid, x, y, w, h, label="car"):
    """A rectanglelabels result as Label Studio writes it (percent of the image)."""
    return {
        "id": rid,
        "type": "rectanglelabels",
        "from_name": "label",
        "to_name": "image",
        "original_width": 640,
        "original_height": 480,
        "image_rotation": 0,
        "value": {"x": x, "y": y, "width": w, "height": h, "rotation": 0,
                  "rectanglelabels": [label]},
    }  # fmt: skip


def _task(tid, annotations, predictions):
    """A task of the full JSON export (the documented "Label Studio JSON format of
    annotated tasks"): ``annotations`` by people (``completed_by``) and ``predictions``
    by models (``model_version``, ``score``)."""
    return {
        "id": tid,
        "data": {"image": f"/data/upload/1/0a1b2c3d-img{tid}.jpg"},
        "annotations": [
            {"id": 100 * tid + j, "completed_by": who, "result": result, "was_cancelled": False,
             "ground_truth": False, "lead_time": 4.2, "task": tid}
            for j, (who, result) in enumerate(annotations)
        ],
        "predictions": [
            {"id": 500 * tid + j, "model_version": model, "created_ago": "3 hours",
             "score": 0.9, "result": result, "task": tid}
            for j, (model, result) in enumerate(predictions)
        ],
    }  # fmt: skip


def test_predictions_are_machine_raters(tmp_path):
    tasks = [
        _task(
            1,
            [(7, [_rect("a", 10, 10, 20, 30)]), ({"id": 8, "email": "ben@x.org"}, [])],
            [("yolo-v8", [_rect("p", 11, 10, 20, 30), _rect("q", 60, 60, 10, 10, "bus")]),
             ("", [])],
        ),
        _task(2, [(7, [])], []),
    ]  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    df = read_labelstudio(path, predictions=True)
    kinds = df.groupby("annotator")["rater_kind"].agg(set).to_dict()
    assert kinds == {"7": {"human"}, "ben@x.org": {"human"}, "yolo-v8": {"machine"},
                     "prediction": {"machine"}}  # fmt: skip
    model = df[df["annotator"] == "yolo-v8"].sort_values("x0")
    assert list(model["label"]) == ["car", "bus"]
    assert model[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == pytest.approx([70.4, 48, 198.4, 192])
    assert set(model["item"]) == {"img1.jpg"}
    # a prediction with an empty result covers its task
    assert df[df["annotator"] == "prediction"]["x0"].isna().all()
    # by default predictions are ignored, and there is no rater_kind
    plain = read_labelstudio(path)
    assert set(plain["annotator"]) == {"7", "ben@x.org"} and "rater_kind" not in plain
    assert rater_kinds(df) == {"7": "human", "ben@x.org": "human", "prediction": "machine",
                                   "yolo-v8": "machine"}  # fmt: skip


def test_a_model_named_like_a_person_is_refused(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([_task(1, [("m1", [])], [("m1", [])])]))
    with pytest.raises(ReaderError, match="both an annotator and a model"):
        read_labelstudio(path, predictions=True)
    path.write_text(json.dumps([{"id": 1, "data": {"image": "a.jpg"}, "predictions": [3]}]))
    with pytest.raises(ReaderError, match="prediction ids"):
        read_labelstudio(path, predictions=True)
    with pytest.raises(ParameterError, match="predictions"):
        read_labelstudio(path, predictions="yes")


def _corpus(tmp_path, n=60, seed=0):
    """Two people who box the same cars with a little jitter, a model that copies
    ``ana`` and a model blind to the image (random boxes)."""
    rng = np.random.default_rng(seed)
    tasks = []
    for t in range(1, n + 1):
        truth = [(rng.uniform(0, 70), rng.uniform(0, 70), rng.uniform(10, 25), rng.uniform(10, 25))
                 for _ in range(rng.integers(1, 4))]  # fmt: skip
        ana = [
            _rect(f"a{k}", *(v + rng.normal(0, 0.5, 4))) for k, v in enumerate(map(np.array, truth))
        ]
        ben = [
            _rect(f"b{k}", *(v + rng.normal(0, 0.5, 4))) for k, v in enumerate(map(np.array, truth))
        ]
        blind = [_rect(f"r{k}", *rng.uniform(0, 70, 2), *rng.uniform(10, 25, 2))
                 for k in range(rng.integers(1, 4))]  # fmt: skip
        tasks.append(_task(t, [("ana", ana), ("ben", ben)], [("copy", ana), ("blind", blind)]))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    return read_labelstudio(path, predictions=True)


def test_human_machine_split_on_an_export_with_predictions(tmp_path):
    df = _corpus(tmp_path)
    copy = df[df["annotator"] != "blind"]
    sigma = ("detection", "localization", "overall")  # one class: classification has no variation
    t = iaf.rater_kind_agreement(
        copy[copy["annotator"] != "ben"], components=sigma, n_chance=300, n_boot=0
    )
    assert np.allclose(t.loc[t["cell"] == "human-machine", "agreement"], 1.0)
    blind = df[df["annotator"] != "copy"]
    t = iaf.rater_kind_agreement(blind, components=sigma, n_chance=1000, n_boot=0)
    t = t.set_index(["component", "cell"])
    for component in ("detection", "overall"):
        assert abs(t.loc[(component, "human-machine"), "agreement"]) < 0.05
    # a blind model's boxes rarely pass the match gate (4 pairs here): near 0, noisy
    assert abs(t.loc[("localization", "human-machine"), "agreement"]) < 0.3
    for component in sigma:
        assert t.loc[(component, "human-human"), "agreement"] > 0.6


def test_the_table_of_the_raters_guide(tmp_path):
    """docs/user-guide/raters.md: two people and a looser model that misses one object in
    five, on 100 images of a Label Studio export with predictions."""
    rng = np.random.default_rng(0)
    tasks = []
    for t in range(1, 101):
        truth = [(*rng.uniform(0, 70, 2), *rng.uniform(10, 25, 2), rng.choice(["car", "bus"]))
                 for _ in range(rng.integers(1, 4))]  # fmt: skip

        def drawn(prefix, sd, miss=0.0, truth=truth):
            return [{**_rect(f"{prefix}{k}", *(np.array(v[:4], float) + rng.normal(0, sd, 4)),
                             str(v[4]))}
                    for k, v in enumerate(truth) if rng.random() >= miss]  # fmt: skip

        people = [({"id": 1, "email": "ana@example.org"}, drawn("a", 0.5)),
                  ({"id": 2, "email": "ben@example.org"}, drawn("b", 0.5))]  # fmt: skip
        tasks.append(_task(t, people, [("detector-v2", drawn("p", 1.5, miss=0.2))]))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    df = read_labelstudio(path, predictions=True)
    t = iaf.rater_kind_agreement(df, n_chance=2000, seed=0).set_index(["component", "cell"])
    got = t["agreement"].round(3).dropna().to_dict()
    assert got == {
        ("detection", "human-human"): 1.0,
        ("detection", "human-machine"): 0.782,
        ("classification", "human-human"): 1.0,
        ("classification", "human-machine"): 1.0,
        ("localization", "human-human"): 0.675,
        ("localization", "human-machine"): 0.37,
        ("overall", "human-human"): 0.848,
        ("overall", "human-machine"): 0.565,
    }
