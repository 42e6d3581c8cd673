"""read_kitti on hand-written KITTI label folders (tests/fixtures/kitti, after the devkit's
readme): the camera-to-scene conversion, coverage, DontCare, scores, and errors."""

import math
import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.geometry.kinds import CUBOID
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS, corners

FIXTURES = "tests/fixtures/kitti"


def read(path=FIXTURES, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedRowsWarning)
        return iaf.read_kitti(path, **kw)


def test_folders_of_annotators_and_frames():
    df = read()
    assert sorted(df["annotator"].unique()) == ["ana", "bob"]
    assert sorted(df["item"].unique()) == ["000000", "000001", "000002"]
    # ana's 000002.txt is empty: a coverage row, not a missing frame
    empty = df[(df["annotator"] == "ana") & (df["item"] == "000002")]
    assert len(empty) == 1 and empty["label"].isna().all()
    assert df["label"].dropna().value_counts().to_dict() == {
        "Car": 2,
        "Pedestrian": 2,
        "Cyclist": 2,
        "Van": 1,
    }
    assert df.loc[df["annotator"] == "bob", "score"].dropna().tolist() == [0.93, 0.81, 0.77, 0.55]
    assert df.loc[df["annotator"] == "ana", "score"].isna().all()


def test_camera_coordinates_become_the_scene_cuboid():
    df = read()
    car = df[(df["annotator"] == "ana") & (df["label"] == "Car")].iloc[0]
    # devkit line: h w l = 1.65 1.67 3.64, x y z = -0.65 1.71 46.70, ry = -1.59
    p = car[list(CUBOID_COLUMNS)].to_numpy(dtype=float)
    np.testing.assert_allclose(p, [-0.65, 46.70, -1.71 + 1.65 / 2, 3.64, 1.67, 1.65, 1.59, 0, 0])
    # the bottom face is at camera y = 1.71 (scene z = -1.71), the heading is the camera
    # direction (cos ry, 0, -sin ry), i.e. (cos ry, -sin ry) on the scene's ground
    c = corners(p[None])[0]
    np.testing.assert_allclose(c[:4, 2], -1.71)
    ry = -1.59
    heading = (c[1] - c[0])[:2] / np.linalg.norm((c[1] - c[0])[:2])
    np.testing.assert_allclose(heading, [math.cos(ry), -math.sin(ry)], atol=1e-12)
    assert CUBOID.areas(p[None])[0] == pytest.approx(1.65 * 1.67 * 3.64)
    # the frame's box is the bird's-eye bounds
    np.testing.assert_allclose(
        car[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float), CUBOID.bounds(p[None])[0]
    )


def test_dont_care_is_reported_not_lost():
    with pytest.warns(DroppedRowsWarning, match="dont_care: 1"):
        iaf.read_kitti(FIXTURES)
    _, dropped = iaf.read_kitti(FIXTURES, return_dropped=True)
    assert dropped["reason"].tolist() == ["dont_care"]
    assert dropped["entry"].tolist() == ["line 3"]


def test_one_folder_and_one_file():
    df = read(f"{FIXTURES}/bob", annotator="bob")
    assert df["annotator"].unique().tolist() == ["bob"] and len(df) == 4
    one = read(f"{FIXTURES}/bob/000002.txt", annotator="b")
    assert one["label"].tolist() == ["Van"]
    mapped = read({"x": f"{FIXTURES}/ana", "y": f"{FIXTURES}/bob"})
    assert sorted(mapped["annotator"].unique()) == ["x", "y"]


def test_malformed_line_is_one_reader_error_naming_file_and_line():
    with pytest.raises(ReaderError) as err:
        iaf.read_kitti("tests/fixtures/kitti_bad")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("tests/fixtures/kitti_bad/000000.txt: line 2: ")
    assert "has 14" in message


def test_a_value_that_is_not_a_number(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "7.txt").write_text(
        "Car 0 0 0 1 2 3 4 1.5 1.6 3.9 1 1.7 x 0.1\n", encoding="utf-8"
    )
    with pytest.raises(ReaderError, match=r"7.txt: line 1: location z is 'x', not a number"):
        iaf.read_kitti(tmp_path)


def test_kitti_agreement_runs_through_the_pipeline():
    df = read()
    res = iaf.agreement(df, seed=0, n_chance=50)
    assert set(res["component"].values) >= {"detection", "localization", "overall"}
