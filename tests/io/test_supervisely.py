"""read_supervisely_pointcloud on a hand-written Supervisely point-cloud project
(tests/fixtures/supervisely_pointcloud, after Supervisely's format pages and SDK docs)."""

import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS

FIXTURES = "tests/fixtures/supervisely_pointcloud"


def read(path=FIXTURES, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedRowsWarning)
        return iaf.read_supervisely_pointcloud(path, **kw)


def test_project_figures_become_cuboids():
    df = read()
    assert df["item"].tolist() == ["ds0/scene_1.pcd"] * 3 + ["ds0/scene_2.pcd"]
    assert df["annotator"].tolist() == ["ana", "ana", "bob", "bob"]
    assert df["label"].tolist() == ["car", "pedestrian", "car", "car"]
    # position, dimensions along the cuboid's own x, y, z, rotation about z, y, x
    bob = df.iloc[2][list(CUBOID_COLUMNS)].to_numpy(dtype=float)
    np.testing.assert_allclose(bob, [-3.3, 29.0, -0.7, 1.85, 4.0, 1.55, -0.05, -0.01, 0.02])
    assert df["object_key"].tolist() == ["o-car-ana", "o-ped-ana", "o-car-bob", "o-van-bob"]


def test_other_geometry_types_are_reported():
    _, dropped = iaf.read_supervisely_pointcloud(FIXTURES, return_dropped=True)
    assert dropped["reason"].tolist() == ["unsupported_shape"]
    assert dropped["entry"].tolist() == ["figures[1]"]
    with pytest.warns(DroppedRowsWarning):
        iaf.read_supervisely_pointcloud(FIXTURES)


def test_named_annotator_covers_every_point_cloud():
    df = read(annotator="ana")
    assert df["annotator"].unique().tolist() == ["ana"]
    assert sorted(df["item"].unique()) == ["ds0/scene_1.pcd", "ds0/scene_2.pcd"]


def test_malformed_figure_is_one_reader_error_naming_file_and_figure():
    with pytest.raises(ReaderError) as err:
        iaf.read_supervisely_pointcloud("tests/fixtures/supervisely_pointcloud_bad")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(
        "tests/fixtures/supervisely_pointcloud_bad/ds0/ann/scene_1.pcd.json: figures[0]: "
    )


def test_not_json(tmp_path):
    f = tmp_path / "x.pcd.json"
    f.write_text("{not json", encoding="utf-8")
    with pytest.raises(ReaderError, match="x.pcd.json: not a JSON annotation file"):
        iaf.read_supervisely_pointcloud(f, annotator="a")
