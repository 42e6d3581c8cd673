"""What the readers share about keypoints: the skeleton kind of a set of joint names, and
one object's joints as the parameters of that kind.

A skeleton read from a file is the kind
:data:`~iaa_frames.geometry.kinds.KEYPOINTS` when its joints are COCO's 17 person
keypoints; otherwise a registered :class:`~iaa_frames.geometry.kinds.KeypointsKind` with
the same joints (in any order: the readers put them in the kind's; register one first to
give its OKS constants); otherwise
one is registered as ``keypoints_{name}`` (``name`` the category or skeleton label, lower
case, other characters than letters and digits as ``_``), with the constants of the
default rule (:mod:`iaa_frames.geometry.kinds.keypoints`).

An object's scale (``{prefix}area``) is the area the file gives (COCO's ``area``), else
the area of the object's box when the file gives one, else the area of the box of its
labelled points.

Examples
--------
>>> skeleton_kind(["nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder",
...                "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
...                "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
...                "right_ankle"], "person").name
'keypoints'
>>> skeleton_kind(["tip", "base"], "Fish fin").columns[:2]
('keypoints_fish_fin_tip_x', 'keypoints_fish_fin_tip_y')
>>> from iaa_frames.geometry.kinds import unregister_kind
>>> unregister_kind("keypoints_fish_fin")
"""

from __future__ import annotations

import re

import numpy as np

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.kinds import KEYPOINTS, KeypointsKind, get_kind, register_kind
from iaa_frames.geometry.kinds.registry import available_kinds

__all__ = ["coco_name", "joint_order", "keypoint_params", "skeleton_kind"]


def coco_name(name) -> str:
    """A joint name in COCO's spelling: lower case, other characters than letters and
    digits as ``_``.

    Examples
    --------
    >>> coco_name("Left Eye")
    'left_eye'
    """
    return re.sub(r"[^0-9a-z]+", "_", str(name).lower()).strip("_")


def skeleton_kind(names, label, *, skeleton=()) -> KeypointsKind:
    """The keypoints kind of the joints ``names`` (module docstring), registering one if
    needed.

    Raises
    ------
    ParameterError
        When ``keypoints_{label}`` is registered with other joints, or the joints repeat
        a name (the readers turn it into a ReaderError naming the file and entry).
    """
    names = tuple(str(n) for n in names)
    if sorted(names) == sorted(KEYPOINTS.keypoints):
        return KEYPOINTS
    for k in available_kinds():
        kind = get_kind(k)
        if isinstance(kind, KeypointsKind) and sorted(kind.keypoints) == sorted(names):
            return kind
    name = "keypoints_" + coco_name(label)
    if name in available_kinds():
        raise ParameterError(
            f"the skeleton {label!r} has the joints {list(names)}, but the geometry kind "
            f"{name!r} is registered with {list(get_kind(name).keypoints)}; unregister it "
            "or register a KeypointsKind with these joints"
        )
    return register_kind(KeypointsKind(name, names, skeleton=skeleton))


def keypoint_params(x, y, v, area=None, box=None) -> list:
    """The parameters of one object (``x, y, v`` per joint, then the area; pixels): joints
    not labelled (``v == 0``) get ``x = y = 0``; the area is ``area``, else that of
    ``box`` (x0, y0, x1, y1), else that of the box of the labelled joints.

    Examples
    --------
    >>> keypoint_params([1, 9], [2, 5], [2, 0])
    [1.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    """
    x, y, v = (np.asarray(a, dtype=np.float64) for a in (x, y, v))
    on = v > 0
    x, y = np.where(on, x, 0.0), np.where(on, y, 0.0)
    if area is None or not np.isfinite(area) or area <= 0:
        if box is not None:
            area = (box[2] - box[0]) * (box[3] - box[1])
        elif on.any():
            area = (x[on].max() - x[on].min()) * (y[on].max() - y[on].min())
        else:
            area = 0.0
    return np.column_stack([x, y, v]).ravel().tolist() + [float(area)]


def joint_order(kind: KeypointsKind, names) -> np.ndarray:
    """Positions in ``names`` of the kind's joints, in the kind's order.

    Examples
    --------
    >>> from iaa_frames.geometry.kinds import KeypointsKind
    >>> joint_order(KeypointsKind("order_example", ["a", "b"]), ["b", "a"]).tolist()
    [1, 0]
    """
    where = {str(n): i for i, n in enumerate(names)}
    return np.array([where[k] for k in kind.keypoints], dtype=np.int64)
