"""Hostile input, round six: each test names the defect it pins and fails before its fix."""

from __future__ import annotations

import json

import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError


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
