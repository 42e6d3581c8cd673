"""The per-object attributes the readers keep (iaa_frames.io.cvat, .labelstudio, .coco):
hand-written exports in each tool's shape (tests/fixtures/attributes: CVAT jobs whose
labels declare select / checkbox / number attributes, a Label Studio export with
per-region choices, rating, number and a multiple choice, CVAT's COCO export with
``attributes`` dictionaries), the columns and ``attrs["iaa_attributes"]`` they give, and
attribute agreement on them against the ``krippendorff`` package."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from helpers import FIX

import iaa_frames as iaf

ATTR = FIX / "attributes"
ALL = "(all)"


def _alpha(ds, attribute):
    return float(ds["alpha"].sel(attribute=attribute, label=ALL, annotator=ALL))


def test_cvat_attribute_children_and_occluded():
    df = iaf.read_cvat([ATTR / "cvat_ana.xml", ATTR / "cvat_ben.xml"])
    assert df.attrs["iaa_attributes"] == ["occluded", "color", "parked", "seats"]
    ana = df[df["annotator"] == "ana"].reset_index(drop=True)
    assert ana["color"].tolist() == ["red", "blue", "red"]
    assert ana["parked"].tolist() == ["true", "false", "false"]  # CVAT's checkbox text
    assert ana["occluded"].tolist() == [False, True, True]
    ds = iaf.attribute_agreement(df, n_boot=0, n_chance=20)
    assert ds["level"].values.tolist() == ["nominal"] * 4  # text and booleans
    # the three boxes match one to one (same places): units are the box positions
    ana_ben = {
        "occluded": [[0, 1, 1], [0, 0, 1]],
        "color": [[0, 1, 0], [0, 0, 0]],
        "parked": [[1, 0, 0], [1, 1, 0]],
        "seats": [[3, 5, 2], [4, 5, 2]],
    }
    for name, data in ana_ben.items():
        want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert _alpha(ds, name) == pytest.approx(want), name
    seats = iaf.attribute_agreement(
        df, attributes="seats", levels="interval", n_boot=0, n_chance=20
    )
    want = krippendorff.alpha(reliability_data=ana_ben["seats"], level_of_measurement="interval")
    assert _alpha(seats, "seats") == pytest.approx(want)


def test_labelstudio_per_region_results_are_attributes():
    df = iaf.read_labelstudio(ATTR / "labelstudio.json")
    assert df.attrs["iaa_attributes"] == ["color", "quality", "seats", "tags"]
    first = df[df["object_id"] == "2001/r1"].iloc[0]
    assert (first["color"], first["quality"], first["seats"]) == ("red", 4, 5)
    assert first["tags"] == ["wet", "dark"]  # several choices: a list
    ds = iaf.attribute_agreement(df, levels={"quality": "ordinal"}, n_boot=0, n_chance=20)
    assert ds["level"].values.tolist() == ["nominal", "ordinal", "interval", "nominal"]
    units = {  # ana, ben per matched region: r1/s1, r2/s2, t1/u1
        "color": ([0, 1, 1], [0, 0, 1], "nominal"),
        "quality": ([4, 2, 3], [5, 2, 3], "ordinal"),
        "seats": ([5, 2, 7], [5, 4, 7], "interval"),
    }
    for name, (a, b, level) in units.items():
        want = krippendorff.alpha(reliability_data=[a, b], level_of_measurement=level)
        assert _alpha(ds, name) == pytest.approx(want), name
    tags = ds.sel(attribute="tags", label=ALL, annotator=ALL)
    assert int(tags["n_pairs"]) == 2 and float(tags["percent_agreement"]) == 1.0


def test_coco_attributes_dictionaries_become_columns(tmp_path):
    df = iaf.read_coco({"ana": ATTR / "coco_ana.json", "ben": ATTR / "coco_ben.json"})
    assert df.attrs["iaa_attributes"] == ["occluded", "rotation", "color", "parked", "seats"]
    assert "attributes" not in df.columns
    assert df["parked"].dtype == bool and df["seats"].dtype == np.int64
    ds = iaf.attribute_agreement(
        df, attributes=["occluded", "color", "seats"], n_boot=0, n_chance=20
    )
    assert ds.attrs["attributes_source"] == "attributes="
    assert ds["level"].values.tolist() == ["nominal", "nominal", "interval"]
    want = krippendorff.alpha(
        reliability_data=[[3, 5, 2], [4, 5, 2]], level_of_measurement="interval"
    )
    assert _alpha(ds, "seats") == pytest.approx(want)
    # a key that names a core column or another annotation key gets the prefix attr_
    doc = json.loads((ATTR / "coco_ana.json").read_text())
    doc["annotations"][0]["attributes"] = {"label": "x", "area": 3, "occluded": True}
    p = tmp_path / "a.json"
    p.write_text(json.dumps(doc))
    one = iaf.read_coco(p)
    assert {"attr_label", "attr_area", "occluded"} <= set(one.columns)
    assert one["label"].tolist() == ["car"] * 3
    assert one.attrs["iaa_attributes"][:3] == ["attr_label", "attr_area", "occluded"]


def test_attribute_columns_survive_validate_and_selection():
    df = iaf.read_cvat([ATTR / "cvat_ana.xml", ATTR / "cvat_ben.xml"])
    assert iaf.validate(df).attrs["iaa_attributes"] == df.attrs["iaa_attributes"]
    kept = df.drop(columns=["parked"])
    assert iaf.validate(kept).attrs["iaa_attributes"] == ["occluded", "color", "seats"]
    assert pd.concat([df, df.iloc[:0]]).attrs["iaa_attributes"] == df.attrs["iaa_attributes"]


def test_darwin_attribute_tags_are_one_attribute_masi_by_default():
    df = iaf.read_darwin(ATTR / "darwin")  # one subdirectory per annotator
    assert df.attrs["iaa_attributes"] == ["attributes"]
    first = df[(df["annotator"] == "ben") & (df["item"] == "lot_1.jpg")].iloc[0]
    assert first["attributes"] == ["parked", "red"]  # sorted: a set of tags
    # units: {parked, red} twice, blue / red, red / red
    ds = iaf.attribute_agreement(df, n_boot=0, n_chance=20, levels={"attributes": "nominal"})
    want = krippendorff.alpha(
        reliability_data=[[0, 1, 2], [0, 2, 2]], level_of_measurement="nominal"
    )
    assert _alpha(ds, "attributes") == pytest.approx(want)
    # sets of tags are compared by MASI by default (Passonneau 2006: 1 - Jaccard x M, M =
    # 2/3 for a subset): D_o = 2/6 (blue / red), D_e = (2x1x1 + 2x3x2/3 + 1x3x1) x 2 / 30
    # = 0.6 over the six values {p,r} x2, {b}, {r} x3, so alpha = 1 - (1/3) / 0.6 = 4/9
    ds = iaf.attribute_agreement(df, n_boot=0, n_chance=20)
    assert _alpha(ds, "attributes") == pytest.approx(4 / 9)
