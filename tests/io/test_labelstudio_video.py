"""read_labelstudio_video: Label Studio VideoRectangle tracks, a fixture hand-written
from Label Studio's VideoRectangle result (value.sequence of keyframes, framesCount) and
the keyframe filling of label_studio_sdk's extract_key_frames."""

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
    with pytest.raises(ReaderError, match=r"annotations\[0\] result\[0\]: a keyframe lacks"):
        read_labelstudio_video(p)
