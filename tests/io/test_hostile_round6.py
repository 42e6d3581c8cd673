"""Hostile input, round six: each test names the defect it pins and fails before its fix."""

from __future__ import annotations

import json
import shutil

import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError

POTATO = iaf.sample_path("potato")


def _write_json(path, doc):
    path.write_text(json.dumps(doc))
    return path


# ------------------------- LS1: a keypoint whose parentID is a list or an object
def _ls_keypoint(parent):
    joint = {
        "id": "k1",
        "type": "keypointlabels",
        "from_name": "kp",
        "to_name": "image",
        "original_width": 200,
        "original_height": 100,
        "parentID": parent,
        "value": {"x": 10, "y": 10, "keypointlabels": ["nose"]},
    }
    ann = {"id": 10, "completed_by": 3, "result": [joint]}
    return [{"id": 1, "data": {"image": "a.jpg"}, "annotations": [ann]}]


@pytest.mark.parametrize("parent", [[1], {"id": "r1"}])
def test_ls1_keypoint_parent_that_is_no_region_id_names_the_result(tmp_path, parent):
    p = _write_json(tmp_path / "ls.json", _ls_keypoint(parent))
    with pytest.raises(ReaderError, match=r"ls\.json: tasks\[0\] .*result\[0\]: parentID must be"):
        iaf.read_labelstudio(p)


# ------------------------- PO1: a Potato config whose sections have the wrong shape
def _potato_config(tmp_path, old, new):
    root = tmp_path / "project"
    shutil.copytree(POTATO, root)
    config = root / "config.yaml"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new))
    return config


@pytest.mark.parametrize(
    "old, new, match",
    [
        (
            "        type: boolean",
            "        type: boolean\n    skeletons: [a, b]",
            r"annotation_schemes\[0\]\.skeletons: must be a mapping",
        ),
        (
            "  annotators:\n    - id: detector",
            "  annotators: 5\n  x:\n    - id: detector",
            r"machine_annotators\.annotators: must be a list",
        ),
        (
            "annotation_schemes:\n  - annotation_type",
            "annotation_schemes:\n  x:\n    annotation_type",
            r"annotation_schemes: must be a list",
        ),
        (
            "    name: objects",
            "    name: [objects]",
            r"annotation_schemes\[0\]\.name: must be a non-empty string",
        ),
        (
            "item_properties:\n  id_key: id\n  text_key: image",
            "item_properties: [id, image]",
            r"item_properties: must be a mapping",
        ),
    ],
    ids=["skeletons_list", "annotators_int", "schemes_mapping", "name_list", "properties_list"],
)
def test_po1_potato_config_of_the_wrong_shape_names_the_key(tmp_path, old, new, match):
    config = _potato_config(tmp_path, old, new)
    with pytest.raises(ReaderError, match=r"config\.yaml: " + match):
        iaf.read_potato(config)
