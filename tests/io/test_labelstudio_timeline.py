"""Label Studio timeline regions read as time segments (iaa_frames.io.labelstudio_timeline),
on exports written by hand from Label Studio's documentation of the ``TimelineLabels`` tag
(``value.ranges`` of ``{start, end}`` frames, ``value.timelinelabels``) and of the
``Audio`` tag (``original_length`` in seconds, ``value.start``/``end`` in seconds,
``value.labels``)."""

import json

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import IAAWarning, ReaderError
from iaa_frames.geometry.kinds import kind_of_rows
from iaa_frames.io import read_labelstudio


def timeline(rid, start, end, label):
    return {
        "id": rid,
        "type": "timelinelabels",
        "from_name": "timelineLabels",
        "to_name": "video",
        "origin": "manual",
        "value": {"ranges": [{"start": start, "end": end}], "timelinelabels": [label]},
    }


def audio(rid, start, end, labels, length=18.0):
    return {
        "id": rid,
        "type": "labels",
        "from_name": "label",
        "to_name": "audio",
        "original_length": length,
        "value": {"start": start, "end": end, "channel": 0, "labels": labels},
    }


def task(tid, data, *annotations):
    return {
        "id": tid,
        "data": data,
        "annotations": [
            {"id": 100 * tid + j, "completed_by": {"id": j, "email": who}, "result": result}
            for j, (who, result) in enumerate(annotations)
        ],
    }


def write(tmp_path, tasks, name="export.json"):
    p = tmp_path / name
    p.write_text(json.dumps(tasks))
    return p


def test_video_timeline_ranges_are_segments_in_frames(tmp_path):
    tasks = [
        task(
            1,
            {"video": "/data/upload/1/3f2a9c1b-skate.mp4"},
            ("ana@x.org", [timeline("r1", 3, 5, "Kickflip"), timeline("r2", 20, 20, "Trick")]),
            ("ben@x.org", [timeline("q1", 4, 5, "Kickflip")]),
        )
    ]
    df = read_labelstudio(write(tmp_path, tasks))
    assert set(kind_of_rows(df)) == {"segment"}
    got = df[["item", "annotator", "label", "seg_start", "seg_end", "object_id"]]
    assert got.to_numpy(dtype=object).tolist() == [
        ["skate.mp4", "ana@x.org", "Kickflip", 2.0, 5.0, "100/r1"],  # frames 3..5: 3 frames
        ["skate.mp4", "ana@x.org", "Trick", 19.0, 20.0, "100/r2"],  # a single frame
        ["skate.mp4", "ben@x.org", "Kickflip", 3.0, 5.0, "101/q1"],
    ]
    assert df["width"].isna().all()  # the export gives no length of the video
    assert df[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [2.0, 0.0, 5.0, 1.0]


def test_audio_regions_are_segments_in_seconds_normalized_by_the_length(tmp_path):
    tasks = [
        task(
            1,
            {"audio": "/data/upload/1/a1b2c3d4-call.wav"},
            ("ana", [audio("a", 3.1, 8.2, ["Voice"]), audio("b", 10.0, 12.0, ["Music"])]),
            ("ben", [audio("c", 3.0, 8.0, ["Voice"])]),
        ),
        task(2, {"audio": "/data/upload/1/0f0f0f0f-quiet.wav"}, ("ana", []), ("ben", [])),
    ]
    df = read_labelstudio(write(tmp_path, tasks))
    obj = df[df["seg_start"].notna()]
    assert obj[["item", "annotator", "label", "seg_start", "seg_end", "width", "height"]].to_numpy(
        dtype=object
    ).tolist() == [
        ["call.wav", "ana", "Voice", 3.1, 8.2, 18.0, 1.0],
        ["call.wav", "ana", "Music", 10.0, 12.0, 18.0, 1.0],
        ["call.wav", "ben", "Voice", 3.0, 8.0, 18.0, 1.0],
    ]
    assert sorted(df.loc[df["seg_start"].isna(), "annotator"]) == ["ana", "ben"]  # coverage
    assert (obj["channel"] == 0).all()
    res = iaf.agreement(df, n_chance=50, n_boot=0, seed=0, distance="iou")
    cell = {"component": "localization", "label": "(all)", "annotator": "(all)"}
    assert int(res["n_units"].sel(cell)) == 1
    np.testing.assert_allclose(float(res["raw_iou"].sel(cell)), 4.9 / 5.2)


def test_text_spans_stay_unsupported_and_bad_regions_are_counted(tmp_path):
    text_span = {
        "id": "t",
        "type": "labels",
        "from_name": "label",
        "to_name": "text",
        "value": {"start": 4, "end": 9, "text": "Paris", "labels": ["LOC"]},
    }
    tasks = [
        task(
            1,
            {"audio": "a.wav"},
            (
                "ana",
                [
                    audio("a", 1.0, 2.0, ["Voice"]),
                    audio("b", 3.0, 4.0, []),  # no label
                    audio("c", 5.0, 6.0, ["Voice", "Music"]),  # two labels: the first kept
                    audio("d", 7.0, 7.0, ["Voice"]),  # no length
                    audio("e", "x", 9.0, ["Voice"]),  # unreadable
                    text_span,
                ],
            ),
        )
    ]
    p = write(tmp_path, tasks)
    with pytest.raises(ReaderError, match=r"annotations\[0\] \(id=100\) result\[4\]: start must"):
        read_labelstudio(p)
    df, dropped = read_labelstudio(p, on_invalid="drop", return_dropped=True)
    assert df[["label", "seg_start"]].to_numpy(dtype=object).tolist() == [
        ["Voice", 1.0],
        ["Voice", 5.0],
    ]
    reasons = dropped["reason"].value_counts().to_dict()
    assert reasons.pop("unlabelled_region") == 1
    assert reasons.pop("extra_labels_ignored") == 1
    assert reasons.pop("unreadable_entry") == 1
    assert reasons.pop("unsupported_result") == 1  # the text span
    assert sum(reasons.values()) == 1  # the region of no length (validation)


def test_bad_ranges_name_the_result(tmp_path):
    r = timeline("r1", 3, 5, "Kickflip")
    r["value"]["ranges"] = [{"start": 3}]
    p = write(tmp_path, [task(1, {"video": "v.mp4"}, ("ana", [r]))])
    with pytest.raises(ReaderError, match=r"result\[0\] ranges\[0\]: end must be a number"):
        read_labelstudio(p)


def test_the_video_length_comes_from_a_videorectangle_of_the_annotation(tmp_path):
    track = {
        "id": "t1",
        "type": "videorectangle",
        "from_name": "box",
        "to_name": "video",
        "value": {
            "framesCount": 120,
            "duration": 4.0,
            "sequence": [{"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5, "enabled": True}],
            "labels": ["person"],
        },
    }
    tasks = [
        task(
            1,
            {"video": "v.mp4"},
            ("ana", [timeline("r1", 31, 60, "Walk"), track]),
            ("ben", [timeline("q1", 1, 60, "Walk")]),  # no track: the same video's length
        )
    ]
    with pytest.warns(IAAWarning, match="given the image size of the other rows"):
        df, dropped = read_labelstudio(write(tmp_path, tasks), return_dropped=True)
    seg = df[df["seg_start"].notna()]
    assert seg[["annotator", "seg_start", "seg_end", "width", "height"]].to_numpy(
        dtype=object
    ).tolist() == [["ana", 30.0, 60.0, 120.0, 1.0], ["ben", 0.0, 60.0, 120.0, 1.0]]
    assert dropped["reason"].tolist() == ["unsupported_result"]  # the track itself
