"""from_fiftyone / to_fiftyone on stand-ins shaped like FiftyOne's classes (fiftyone needs a
MongoDB binary that its installer downloads, which CI cannot), and on the real label and
sample classes where ``fiftyone`` is installed (they need no database)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, IAAError, IAAWarning, ParameterError, ReaderError
from iaa_frames.io.fiftyone import from_fiftyone
from iaa_frames.io.fiftyone_export import to_fiftyone


class Label:
    """A stand-in for fo.Detection / fo.Polyline: documented attributes, dynamic ones too."""

    _n = 0

    def __init__(self, **kw):
        Label._n += 1
        self.id = f"{Label._n:024x}"
        self.__dict__.update(kw)

    def __getattr__(self, name):  # unset optional attributes are None, like FiftyOne's
        return None


class Detections:
    def __init__(self, detections):
        self.detections = detections


class Polylines:
    def __init__(self, polylines):
        self.polylines = polylines


class Classification:
    label = "cat"


class Metadata:
    def __init__(self, width, height):
        self.width, self.height = width, height


class Sample:
    def __init__(self, filepath, metadata=None, **fields):
        self.filepath, self.metadata = filepath, metadata
        self.__dict__.update(fields)

    def __getitem__(self, name):
        return getattr(self, name)

    def __setitem__(self, name, value):
        setattr(self, name, value)


class Dataset(list):
    """values()/set_values() like a FiftyOne dataset, counting the bulk writes."""

    name = "my-dataset"
    writes = 0

    def values(self, field):
        return [getattr(s, field) for s in self]

    def set_values(self, field, values):
        self.writes += 1
        for s, v in zip(self, values, strict=True):
            setattr(s, field, v)


def det(label, box, **kw):
    return Label(label=label, bounding_box=box, **kw)


def samples():
    return Dataset([
        Sample("/d/a.jpg", Metadata(200, 100),
               ana=Detections([det("car", [0.1, 0.2, 0.5, 0.5], confidence=0.9)]),
               ben=Detections([det("car", [0.1, 0.2, 0.5, 0.5])])),
        Sample("/d/b.jpg", Metadata(200, 100), ana=Detections([]), ben=None),
    ])  # fmt: skip


def test_one_field_per_annotator_in_pixels():
    ds = samples()
    df = from_fiftyone(ds, fields=["ana", "ben"])
    assert df[["item", "annotator"]].values.tolist() == [
        ["/d/a.jpg", "ana"], ["/d/a.jpg", "ben"], ["/d/b.jpg", "ana"]
    ]  # fmt: skip
    # [x, y, w, h] relative -> pixels: x0 = 0.1 * 200, y1 = (0.2 + 0.5) * 100
    assert df.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [20, 20, 120, 70]
    assert df["label"].isna().tolist() == [False, False, True]  # empty field: coverage row
    assert df["confidence"].iloc[0] == 0.9 and np.isnan(df["confidence"].iloc[1])
    assert df["object_id"].iloc[0] == ds[0].ana.detections[0].id  # the label's id
    assert (df["width"] == 200).all()
    named = from_fiftyone(samples(), fields={"ana": "r1", "ben": "r2"}, item="filename")
    assert named["annotator"].tolist() == ["r1", "r2", "r1"]
    assert named["item"].tolist() == ["a.jpg", "a.jpg", "b.jpg"]


def test_annotator_attribute_and_coverage():
    ds = Dataset([
        Sample("a", Metadata(10, 10), gt=Detections([
            det("x", [0, 0, 0.5, 0.5], annotator="u1"), det("x", [0, 0, 0.5, 0.5], annotator="u2")])),
        Sample("b", Metadata(10, 10), gt=Detections([det("x", [0, 0, 0.5, 0.5], annotator="u1")])),
        Sample("c", Metadata(10, 10), gt=None),
    ])  # fmt: skip
    df = from_fiftyone(ds, fields="gt", annotator_attribute="annotator")
    got = sorted(zip(df["item"], df["annotator"], df["label"].isna(), strict=True))
    assert got == [("a", "u1", False), ("a", "u2", False), ("b", "u1", False), ("b", "u2", True)]
    only = from_fiftyone(ds, fields="gt", annotator_attribute="annotator", annotators=["u1"])
    assert set(only.loc[only["label"].isna(), "annotator"]) == set()
    ds[1].gt.detections.append(det("x", [0, 0, 0.2, 0.2]))  # no annotator attribute
    with pytest.raises(ReaderError, match=r"my-dataset: sample 'b', gt.detections\[1\]"):
        from_fiftyone(ds, fields="gt", annotator_attribute="annotator")
    with pytest.warns(DroppedRowsWarning, match="no_annotator: 1"):
        from_fiftyone(ds, fields="gt", annotator_attribute="annotator", on_invalid="drop")


def test_without_metadata_coordinates_stay_relative():
    ds = [Sample("a", None, r1=Detections([det("x", [0.1, 0.1, 0.2, 0.2])]))]
    with pytest.warns(IAAWarning, match="1 sample"):
        df = from_fiftyone(ds, fields="r1")
    assert df.loc[0, ["x0", "x1", "width", "height"]].tolist() == pytest.approx([0.1, 0.3, 1, 1])


def test_instance_masks_stretch_over_the_box(tmp_path, monkeypatch):
    pil = pytest.importorskip("PIL.Image")
    m = np.zeros((4, 5), bool)
    m[1:3, 1:4] = True  # 6 of 20 mask pixels
    path = tmp_path / "m.png"
    pil.fromarray(m.astype(np.uint8) * 255).save(path)
    ds = [
        Sample("a", Metadata(100, 100),
               r1=Detections([det("x", [0.1, 0.1, 0.5, 0.4], mask=m)]),
               r2=Detections([det("x", [0.1, 0.1, 0.5, 0.4], mask_path=str(path))])),
    ]  # fmt: skip
    df = from_fiftyone(ds, fields=["r1", "r2"])
    # the box is 50 x 40 px, a mask pixel 10 x 10 px: area 600, bounds of the set pixels
    assert [g.area for g in df["geometry"]] == [600, 600]
    assert df.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [20, 20, 50, 40]
    boxes = from_fiftyone(ds, fields=["r1"], masks=False)
    assert boxes["geometry"].isna().all() and boxes["x1"].iloc[0] == 60
    with monkeypatch.context() as mp:
        mp.setitem(sys.modules, "PIL", None)  # Pillow missing: mask_path needs it
        with pytest.raises(IAAError, match=r"iaa-frames\[image\]"):
            from_fiftyone(ds, fields=["r2"])
    ds[0].r1.detections[0].mask = np.zeros((3, 3), bool)
    with pytest.raises(ReaderError, match="mask is empty"):
        from_fiftyone(ds, fields=["r1"])


def test_polylines_closed_or_filled_are_polygons_open_ones_lines():
    tri = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5)]
    sq = [(0.6, 0.6), (0.8, 0.6), (0.8, 0.8), (0.6, 0.8)]
    ds = [Sample("a", Metadata(10, 10), p=Polylines([
        Label(label="t", points=[tri], closed=True),
        Label(label="two", points=[tri, sq], filled=True),
        Label(label="open", points=[tri], closed=False, filled=False),
        Label(label="split", points=[tri, sq], closed=False, filled=False),
    ]))]  # fmt: skip
    with pytest.raises(ReaderError, match=r"sample 'a', p.polylines\[3\]: .*of 2 lines"):
        from_fiftyone(ds, fields="p")
    with pytest.warns(DroppedRowsWarning, match="multipart_polyline: 1"):
        df = from_fiftyone(ds, fields="p", on_invalid="drop")
    assert df["label"].tolist() == ["t", "two", "open"]
    assert [g.area for g in df["geometry"].iloc[:2]] == pytest.approx([12.5, 16.5])
    assert df["geometry"].iloc[1].geom_type == "MultiPolygon"
    # the open polyline: its three vertices in pixels, the last one repeated
    line = df.iloc[2]
    assert line["geometry"] is None
    assert [line.pl_0_x, line.pl_1_x, line.pl_2_y, line.pl_31_y] == [0.0, 5.0, 5.0, 5.0]
    one = [Sample("a", Metadata(10, 10), p=Polylines([Label(label="o", points=[[(0.1, 0.1)]])]))]
    with pytest.raises(ReaderError, match="a shape of 1 point"):
        from_fiftyone(one, fields="p")


def test_other_label_types_and_missing_items_are_errors():
    with pytest.raises(ReaderError, match="holds a Classification"):
        from_fiftyone([Sample("a", c=Classification())], fields="c")
    with pytest.raises(ReaderError, match="has no 'uid'"):
        from_fiftyone([Sample("a", c=Detections([]))], fields="c", item="uid")
    with pytest.raises(ParameterError, match="at least one"):
        from_fiftyone([], fields=[])
    with pytest.raises(ParameterError, match="names no annotator"):
        from_fiftyone([], fields={"gt": None})
    bad = Polylines([Label(label="p", points=[[(0, 0), (1,)]], closed=True)])
    with pytest.raises(ReaderError, match=r"p.polylines\[0\]: points are not"):
        from_fiftyone([Sample("a", Metadata(4, 4), p=bad)], fields="p")


def test_agreement_written_back_per_sample():
    ds = Dataset([
        Sample(f"img{i}", Metadata(100, 100),
               r1=Detections([det("x", [0.1 * k, 0.05 * i, 0.08, 0.3]) for k in range(1 + i % 3)]),
               r2=Detections([det("x", [0.1 * k, 0.05 * i, 0.08, 0.3]) for k in range(1 + i % 3)]))
        for i in range(8)
    ])  # fmt: skip
    df = from_fiftyone(ds, fields=["r1", "r2"])
    scores = iaf.item_agreement(df, n_chance=100)
    names = to_fiftyone(ds, scores, field="iaa", columns=["detection", "n_objects"])
    assert names == ["iaa_detection", "iaa_n_objects"] and ds.writes == 2
    assert [s.iaa_detection for s in ds] == [1.0] * 8  # two identical annotators
    assert [s.iaa_n_objects for s in ds] == [2 * (1 + i % 3) for i in range(8)]
    assert all(type(s.iaa_n_objects) is int for s in ds)
    plain = list(ds)[:2] + [Sample("other")]
    to_fiftyone(plain, scores.reset_index(), field="q", columns=["detection"])
    assert [s.q_detection for s in plain] == [1.0, 1.0, None]
    with pytest.raises(ParameterError, match="no sample's 'filepath'"):
        to_fiftyone([Sample("zzz")], scores)
    with pytest.raises(ParameterError, match="not in the agreement frame"):
        to_fiftyone(ds, scores, columns=["nope"])


def test_fiftyone_is_never_imported():
    code = "import sys, iaa_frames; print('fiftyone' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_real_fiftyone_labels_and_samples():
    fo = pytest.importorskip("fiftyone")
    m = np.zeros((4, 5), bool)
    m[1:3, 1:4] = True
    a = fo.Sample(filepath="/d/a.jpg", metadata=fo.ImageMetadata(width=200, height=100))
    a["ana"] = fo.Detections(detections=[
        fo.Detection(label="car", bounding_box=[0.1, 0.2, 0.5, 0.5], confidence=0.5),
        fo.Detection(label="dog", bounding_box=[0.1, 0.1, 0.5, 0.4], mask=m),
    ])  # fmt: skip
    a["ben"] = fo.Polylines(polylines=[
        fo.Polyline(label="car", points=[[(0.1, 0.2), (0.6, 0.2), (0.6, 0.7), (0.1, 0.7)]],
                    closed=True)
    ])  # fmt: skip
    b = fo.Sample(filepath="/d/b.jpg", metadata=fo.ImageMetadata(width=200, height=100))
    b["ana"] = fo.Detections(detections=[])
    df = from_fiftyone([a, b], fields=["ana", "ben"])
    assert df["label"].tolist()[:3] == ["car", "dog", "car"] and df["label"].isna().iloc[3]
    assert df.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [20, 20, 120, 70]
    assert df["geometry"].iloc[1].area == pytest.approx(6 * 20 * 10)  # mask pixel: 20 x 10 px
    assert df["geometry"].iloc[2].area == pytest.approx(100 * 50)
    assert df["object_id"].iloc[0] == a["ana"].detections[0].id
    scores = pd.DataFrame({"detection": [0.5, np.nan]}, index=["/d/a.jpg", "/d/b.jpg"])
    assert to_fiftyone([a, b], scores) == ["iaa_detection"]
    assert a["iaa_detection"] == 0.5 and b["iaa_detection"] is None
