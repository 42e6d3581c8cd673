"""read_activitynet on files written by hand from the ActivityNet JSON layout
(``{"database": {video: {"duration": s, "annotations": [{"segment": [s, e], "label":
...}]}}}``, and the challenge's ``{"results": {video: [...]}}``)."""

import json
import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.geometry.kinds import kind_of_rows
from iaa_frames.io import read_activitynet
from iaa_frames.io.formats import reader_for

ANA = {
    "version": "VERSION 1.3",
    "taxonomy": [{"nodeName": "Ballet", "parentName": "Dancing"}],
    "database": {
        "v_1": {
            "subset": "validation",
            "duration": 80.0,
            "url": "https://www.youtube.com/watch?v=1",
            "annotations": [
                {"segment": [6.0, 30.0], "label": "Ballet"},
                {"segment": [40.0, 70.0], "label": "Tango"},
            ],
        },
        "v_2": {"subset": "validation", "duration": 20.0, "annotations": []},
    },
}
BEN = {
    "database": {
        "v_1": {
            "duration": 80.0,
            "annotations": [
                {"segment": [8.0, 30.0], "label": "Ballet"},
                {"segment": [40.0, 66.0], "label": "Tango"},
            ],
        },
        "v_2": {"duration": 20.0, "annotations": [{"segment": [2.0, 5.0], "label": "Tango"}]},
    }
}


def write(tmp_path, name, doc):
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(doc))
    return p


def test_reads_segments_durations_and_coverage(tmp_path):
    df = read_activitynet([write(tmp_path, "ana", ANA), write(tmp_path, "ben", BEN)])
    assert set(kind_of_rows(df)) == {"segment", ""}
    obj = df[df["seg_start"].notna()]
    assert obj[["item", "annotator", "label", "seg_start", "seg_end", "width", "height"]].to_numpy(
        dtype=object
    ).tolist() == [
        ["v_1", "ana", "Ballet", 6.0, 30.0, 80.0, 1.0],
        ["v_1", "ana", "Tango", 40.0, 70.0, 80.0, 1.0],
        ["v_1", "ben", "Ballet", 8.0, 30.0, 80.0, 1.0],
        ["v_1", "ben", "Tango", 40.0, 66.0, 80.0, 1.0],
        ["v_2", "ben", "Tango", 2.0, 5.0, 20.0, 1.0],
    ]
    assert obj[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [6.0, 0.0, 30.0, 1.0]
    cover = df[df["seg_start"].isna()]
    assert cover[["item", "annotator", "width"]].to_numpy(dtype=object).tolist() == [
        ["v_2", "ana", 20.0]
    ]
    assert obj["subset"].iloc[0] == "validation"


def test_agreement_of_two_activitynet_files(tmp_path):
    paths = {"ana": write(tmp_path, "a", ANA), "ben": write(tmp_path, "b", BEN)}
    df = read_activitynet(paths)
    assert sorted(df["annotator"].unique()) == ["ana", "ben"]
    res = iaf.agreement(df, n_chance=50, n_boot=0, seed=0, distance="iou")
    cell = {"component": "localization", "label": "(all)", "annotator": "(all)"}
    # matched pairs: tIoU 22/24 and 26/30
    assert int(res["n_units"].sel(cell)) == 2
    np.testing.assert_allclose(float(res["raw_iou"].sel(cell)), (22 / 24 + 26 / 30) / 2)


def test_results_files_and_scores(tmp_path):
    doc = {"results": {"v_1": [{"segment": [1.0, 2.5], "label": "Tango", "score": 0.9}]}}
    df = read_activitynet(write(tmp_path, "model", doc))
    assert df[["item", "annotator", "seg_start", "seg_end", "score"]].values.tolist() == [
        ["v_1", "model", 1.0, 2.5, 0.9]
    ]
    assert np.isnan(df["width"].iloc[0])  # no duration: times stay in seconds


def test_bad_entries_name_the_file_and_the_entry(tmp_path):
    bad = {
        "database": {"v_1": {"duration": 9.0, "annotations": [{"segment": [1.0], "label": "x"}]}}
    }
    p = write(tmp_path, "bad", bad)
    with pytest.raises(
        ReaderError, match=r"bad\.json: database\['v_1'\] annotations\[0\]: 'segment'"
    ):
        read_activitynet(p)
    neg = {"database": {"v_1": {"duration": -3, "annotations": []}}}
    with pytest.raises(ReaderError, match=r"database\['v_1'\]: duration must be positive"):
        read_activitynet(write(tmp_path, "neg", neg))
    with pytest.raises(ReaderError, match="no 'database'"):
        read_activitynet(write(tmp_path, "coco", {"images": []}))


def test_dropped_records_are_counted(tmp_path):
    doc = {
        "database": {
            "v_1": {
                "duration": 9.0,
                "annotations": [
                    {"segment": [1.0, 3.0], "label": "x"},
                    {"segment": [4.0, 4.0], "label": "x"},  # no length
                    {"segment": [5.0, 6.0]},  # no label
                    {"segment": "5-6", "label": "x"},  # unreadable
                ],
            },
            "v_2": "not an entry",
        }
    }
    p = write(tmp_path, "mixed", doc)
    with pytest.raises(ReaderError):
        read_activitynet(p)
    df, dropped = read_activitynet(p, on_invalid="drop", return_dropped=True)
    assert df["seg_start"].dropna().tolist() == [1.0]
    reasons = dropped["reason"].value_counts().to_dict()
    assert reasons.pop("unlabelled_segment") == 1
    assert reasons.pop("unreadable_entry") == 2  # the segment "5-6" and the entry v_2
    assert sum(reasons.values()) == 1  # the segment of no length (validation)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        read_activitynet(p, on_invalid="drop")
    assert any(issubclass(x.category, DroppedRowsWarning) for x in w)


def test_the_format_is_recognized(tmp_path):
    assert reader_for(write(tmp_path, "ana", ANA))[0] == "read_activitynet"


def test_two_identical_files_agree_fully(tmp_path):
    rng = np.random.default_rng(0)
    db = {}
    for i in range(40):
        duration = float(rng.uniform(30, 300))
        anns = []
        for _ in range(int(rng.integers(1, 4))):
            s = float(rng.uniform(0, 0.8) * duration)
            anns.append(
                {
                    "segment": [s, s + float(rng.uniform(0.05, 0.2)) * duration],
                    "label": str(rng.choice(["Ballet", "Tango"])),
                }
            )
        db[f"v_{i}"] = {"duration": duration, "annotations": anns}
    paths = {who: write(tmp_path, who, {"database": db}) for who in ("ana", "ben", "cy")}
    res = iaf.agreement(read_activitynet(paths), n_chance=300, n_boot=0, seed=0)
    got = res["agreement"].sel(label="(all)", annotator="(all)").to_series().to_dict()
    assert got == pytest.approx(
        {"detection": 1.0, "classification": 1.0, "localization": 1.0, "overall": 1.0}
    )
