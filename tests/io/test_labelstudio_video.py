"""read_labelstudio_video: Label Studio VideoRectangle tracks, a fixture hand-written
from Label Studio's VideoRectangle result (value.sequence of keyframes, framesCount) and
the keyframe filling of label_studio_sdk's extract_key_frames."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io.labelstudio_video import read_labelstudio_video

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio" / "video_tracking.json"


@pytest.fixture(scope="module")
def read():
    with pytest.warns(DroppedRowsWarning) as w:
        df = read_labelstudio_video(FIX)
    return df, w[0].message


def test_keyframes_are_filled_as_label_studio_does(read):
    df, _ = read
    ana = df[(df["annotator"] == "ana@example.org") & (df["track_id"] == "kLq1")]
    # enabled keyframe 1 -> 5: x interpolated 10, 15, 20, 25, then 30 on frame 5 (disabled:
    # shown on that frame only)
    assert ana["frame"].tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(ana["x0"], [10, 15, 20, 25, 30])
    # a last enabled keyframe is copied to the last frame (framesCount 8)
    other = df[df["track_id"] == "Pz8w"]
    assert other["frame"].tolist() == [3, 4, 5, 6, 7, 8]
    assert (other["x0"] == 60).all() and (other["x1"] == 70).all()
    assert (df["group"] == "5d1e-crossing.mp4").all() and (df["width"] == 100).all()
    # ana covers every frame (frames 6-8 have her second track only)
    assert df.loc[df["annotator"] == "ana@example.org", "frame"].nunique() == 8


def test_skipped_records_are_counted(read):
    _, warning = read
    assert warning.counts == {"unsupported_result": 1, "rotated": 1, "cancelled": 1}


def test_time_column(read):
    df, _ = read
    times = df.groupby("annotator")["time"].first().astype(str).to_dict()
    assert times == {
        "ana@example.org": "2026-02-02 09:30:00+00:00",
        "ben@example.org": "2026-02-03 14:20:00+00:00",
    }


def test_track_agreement_on_the_export(read):
    """Ben's track Wm3d (x 10, 35, then 60 from frame 3 to 8) follows ana's kLq1 on frame 1
    (x 10), misses on frame 2 and follows her Pz8w (x 60) on frames 3-8: with ben as the
    reference one ID switch and one fragmentation; with ana none; IDTP 6 (Pz8w-Wm3d),
    IDF1 = 2 * 6 / (11 + 8)."""
    df, _ = read
    t = iaf.track_figures(df, match_threshold=0.5, n_chance=20)
    t = t[t["label"] == "(all)"].set_index("annotator")
    ben, ana = t.loc["ben@example.org"], t.loc["ana@example.org"]
    assert (ben["id_switches"], ben["fragmentations"]) == (1, 1)
    assert (ana["id_switches"], ana["fragmentations"]) == (0, 0)
    assert (ana["n_annotator"], ana["n_partner"], ana["idtp"]) == (11, 8, 6)
    assert ana["idf1"] == pytest.approx(12 / 19)


def test_broken_exports(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"not": "a list"}')
    with pytest.raises(ReaderError, match="list of tasks"):
        read_labelstudio_video(p)
    p.write_text(
        '[{"id": 1, "data": {"video": "v.mp4"}, "annotations": [{"completed_by": 1, '
        '"result": [{"id": "a", "type": "videorectangle", "value": {"labels": ["x"], '
        '"sequence": [{"frame": 1, "x": 1}]}}]}]}]'
    )
    with pytest.raises(
        ReaderError, match=r"annotations\[0\] result\[0\] sequence\[0\]: a keyframe lacks"
    ):
        read_labelstudio_video(p)


# ------------------------------------------------ #41 T1, B3, D3: hostile values, bounded


def _export(tmp_path, value=None, *, task=None, name="x.json"):
    import json

    value = {
        "framesCount": 3,
        "labels": ["car"],
        "sequence": [{"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5, "enabled": True}],
        **(value or {}),
    }
    ann = {"completed_by": 1, "result": [{"id": "a", "type": "videorectangle", "value": value}]}
    task_ = {"id": 1, "data": {"video": "v.mp4"}, "annotations": [ann], **(task or {})}
    p = tmp_path / name
    p.write_text(json.dumps([task_], allow_nan=True))
    return p


@pytest.mark.parametrize(
    "value",
    [
        {"framesCount": 1e9},
        {"framesCount": 10**30},
        {"framesCount": "many"},
        {"framesCount": float("inf")},
        {"sequence": [{"frame": 1e9, "x": 1, "y": 1, "width": 5, "height": 5}]},
        {"sequence": [{"frame": 2.5, "x": 1, "y": 1, "width": 5, "height": 5}]},
    ],
)
def test_b3_declared_frames_are_bounded_before_allocation(tmp_path, value):
    import tracemalloc

    p = _export(tmp_path, value)
    tracemalloc.start()
    with pytest.raises(ReaderError, match=r"x\.json: tasks\[0\].*(max_frames|number|finite)"):
        read_labelstudio_video(p)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6


def test_b3_max_frames_is_a_parameter(tmp_path):
    p = _export(tmp_path, {"framesCount": 50})
    with pytest.raises(ReaderError, match="max_frames=10"):
        read_labelstudio_video(p, max_frames=10)
    assert read_labelstudio_video(p, max_frames=50)["frame"].max() == 50


@pytest.mark.parametrize(
    "value, message",
    [
        ({"sequence": [[1, 2, 3]]}, r"sequence\[0\]: a keyframe must be an object"),
        ({"sequence": [{"frame": "1", "x": None, "y": 1, "width": 5, "height": 5}]}, "x must"),
        (
            {"sequence": [{"frame": 1, "x": float("nan"), "y": 1, "width": 5, "height": 5}]},
            "finite",
        ),
        (
            {"sequence": [{"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5, "enabled": "no"}]},
            "enabled",
        ),
        (
            {"sequence": [{"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5, "rotation": {}}]},
            "rotation",
        ),
        ({"labels": "car"}, "value.labels must be a list"),
        ({"labels": [{"a": 1}]}, "value.labels must be a list"),
    ],
)
def test_t1_malformed_values_are_reader_errors(tmp_path, value, message):
    with pytest.raises(ReaderError, match=r"tasks\[0\] \(id=1\) annotations\[0\] result\[0\]"):
        read_labelstudio_video(_export(tmp_path, value))
    with pytest.raises(ReaderError, match=message):
        read_labelstudio_video(_export(tmp_path, value))


@pytest.mark.parametrize(
    "task, message",
    [
        ({"annotations": {"a": 1}}, "annotations must be a list"),
        ({"annotations": 7}, "annotations must be a list"),
        ({"annotations": [{"completed_by": 1, "result": 5}]}, "result must be a list"),
        ({"annotations": [{"completed_by": 1, "result": [3]}]}, None),
        ({"annotations": [[1]]}, "an annotation must be an object"),
        ({"id": {"x": [1]}}, None),
    ],
)
def test_t1_malformed_records_are_reader_errors_or_counted(tmp_path, task, message):
    p = _export(tmp_path, task=task)
    if message is None:  # read, the odd record counted or ignored
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                read_labelstudio_video(p)
            except ReaderError as exc:
                assert "x.json" in str(exc)
        return
    with pytest.raises(ReaderError, match=message):
        read_labelstudio_video(p)


def test_t1_deep_json_is_a_reader_error(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReaderError, match="deep.json"):
        read_labelstudio_video(p)


def test_d3_a_duplicate_keyframe_is_counted(tmp_path):
    seq = [
        {"frame": 1, "x": 1, "y": 1, "width": 5, "height": 5},
        {"frame": 1, "x": 2, "y": 1, "width": 5, "height": 5},
    ]
    df, dropped = read_labelstudio_video(_export(tmp_path, {"sequence": seq}), return_dropped=True)
    assert list(dropped["reason"]) == ["duplicate_keyframe"]
    assert dropped["entry"].iat[0].endswith("result[0] sequence[0]")
    assert df.loc[df["frame"] == 1, "x0"].tolist() == [2.0]  # the last one written
