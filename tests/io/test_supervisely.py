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


# --------------------------------------------- #41 T6, D3: deep JSON, keys written twice

_GEOM = {
    "position": {"x": 1, "y": 2, "z": 0.5},
    "rotation": {"x": 0, "y": 0, "z": 0.3},
    "dimensions": {"x": 4, "y": 1.8, "z": 1.5},
}


def _doc(objects=None, figures=None):
    fig = {"key": "f1", "objectKey": "o1", "geometryType": "cuboid_3d", "labelerLogin": "ana"}
    return {
        "objects": objects or [{"key": "o1", "classTitle": "car"}],
        "figures": figures or [{**fig, "geometry": _GEOM}],
    }


def test_t6_deep_json_is_a_reader_error(tmp_path):
    f = tmp_path / "deep.pcd.json"
    f.write_text('{"objects": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ReaderError, match="deep.pcd.json: JSON nested too deeply"):
        iaf.read_supervisely_pointcloud(f)


def test_d3_a_key_written_twice_in_one_object_is_a_reader_error(tmp_path):
    import json

    f = tmp_path / "s.pcd.json"
    text = json.dumps(_doc()).replace(
        '"classTitle": "car"', '"classTitle": "car", "classTitle": "dog"'
    )
    f.write_text(text)
    with pytest.raises(ReaderError, match=r"s.pcd.json: .*'classTitle' 2 times \('car', 'dog'\)"):
        iaf.read_supervisely_pointcloud(f)


def test_d3_two_objects_or_figures_of_one_key_are_refused_or_counted(tmp_path):
    import json

    fig = {"key": "f1", "objectKey": "o1", "geometryType": "cuboid_3d", "labelerLogin": "ana"}
    objects = [{"key": "o1", "classTitle": "car"}, {"key": "o1", "classTitle": "dog"}]
    f = tmp_path / "o.pcd.json"
    f.write_text(json.dumps(_doc(objects=objects)))
    with pytest.raises(ReaderError, match=r"objects\[1\]: the object key 'o1'"):
        iaf.read_supervisely_pointcloud(f)
    df, dropped = iaf.read_supervisely_pointcloud(f, on_invalid="drop", return_dropped=True)
    assert df["label"].tolist() == ["car"] and dropped["entry"].tolist() == ["objects[1]"]
    g = tmp_path / "f.pcd.json"
    g.write_text(json.dumps(_doc(figures=[{**fig, "geometry": _GEOM}] * 2)))
    with pytest.raises(ReaderError, match=r"figures\[1\]: the figure key 'f1'"):
        iaf.read_supervisely_pointcloud(g)
    df, dropped = iaf.read_supervisely_pointcloud(g, on_invalid="drop", return_dropped=True)
    assert len(df) == 1 and dropped["reason"].tolist() == ["unreadable_entry"]
