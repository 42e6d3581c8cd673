"""Synthetic keypoint corpora: skeletons redrawn by annotators of known profiles.

:func:`simulate_keypoints` draws true people (a skeleton of a keypoints kind, by default
COCO's person, :data:`~iaa_frames.geometry.kinds.KEYPOINTS`) per image, then lets every
annotator redraw them by a :class:`KeypointProfile`: per-joint jitter (in units of the
joint's OKS constant times the object scale, so a jitter ``j`` costs about the same OKS on
every joint), left/right joints swapped, visibility confused (visible <-> occluded),
labelled joints dropped, objects missed, or skeletons drawn at random (independently of
the image, from the same distribution as the truth: the chance level).

Randomness flows from ``seed``; every annotator's draws come from streams keyed by its
name (:func:`iaa_frames.simulate.annotators.stream`), one per step, so changing one field of
a profile leaves the other steps' draws alone (common random numbers).

Examples
--------
>>> df = simulate_keypoints(n_items=3, annotators={"a": KeypointProfile(), "b": KeypointProfile()}, seed=0)
>>> int((df.annotator == "a").sum()) == int((df.annotator == "b").sum())
True
>>> df.filter(like="kp_nose").columns.tolist()
['kp_nose_x', 'kp_nose_y', 'kp_nose_v']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.geometry.kinds.keypoints import KEYPOINTS, KeypointsKind

from .annotators import name_key, stream
from .generate import check_image_size
from .limits import check_counts, check_number, check_size
from .object_frames import check_profiles, tidy_objects

__all__ = ["KeypointProfile", "simulate_keypoints"]

# A standing person facing the camera, in units of body height, centred (x right, y down;
# the person's left is the image's right).
_COCO_POSE = {
    "nose": (0.0, -0.42), "left_eye": (0.03, -0.45), "right_eye": (-0.03, -0.45),
    "left_ear": (0.06, -0.44), "right_ear": (-0.06, -0.44),
    "left_shoulder": (0.13, -0.30), "right_shoulder": (-0.13, -0.30),
    "left_elbow": (0.18, -0.10), "right_elbow": (-0.18, -0.10),
    "left_wrist": (0.20, 0.06), "right_wrist": (-0.20, 0.06),
    "left_hip": (0.09, 0.04), "right_hip": (-0.09, 0.04),
    "left_knee": (0.10, 0.27), "right_knee": (-0.10, 0.27),
    "left_ankle": (0.10, 0.50), "right_ankle": (-0.10, 0.50),
}  # fmt: skip
_T_COUNT, _T_PLACE, _T_POSE, _T_VIS = range(4)
_A_MISS, _A_JITTER, _A_SWAP, _A_OCCLUDE, _A_DROP, _A_RANDOM = range(6)


@dataclass(frozen=True)
class KeypointProfile:
    """How an annotator redraws the true skeletons.

    Parameters
    ----------
    jitter : float, default 0
        Standard deviation of each joint's displacement (x and y), in units of
        ``2 σ_i s`` (the joint's OKS constant times the object scale ``s = sqrt(area)``):
        a joint moved by one unit scores ``exp(-1/2)`` on average per axis.
    joint_jitter : dict {str: float}, optional
        Extra jitter of named joints (added to ``jitter``): one hard joint.
    swap : float, default 0
        Probability that a left/right pair of joints of an object is swapped (each pair
        independently; ``swap=1`` mirrors the whole skeleton, which a mirror-aware kind
        matches with the original and reports as ``mirrored``).
    swap_joints : tuple of str, optional
        The pairs that may be swapped, by either joint's name; all by default.
    occlusion : float, default 0
        Probability that a labelled joint's visibility flips (visible <-> occluded).
    drop : float, default 0
        Probability that a labelled joint is left unlabelled (``v = 0``).
    miss : float, default 0
        Probability that an object is not drawn.
    random : bool, default False
        Draw as many skeletons as the truth, placed, posed and labelled at random from the
        truth's distribution, independently of the image (chance level).
    """

    jitter: float = 0.0
    joint_jitter: dict | None = None
    swap: float = 0.0
    swap_joints: tuple | None = None
    occlusion: float = 0.0
    drop: float = 0.0
    miss: float = 0.0
    random: bool = False

    def __post_init__(self):
        for name in ("jitter", "swap", "occlusion", "drop", "miss"):
            value = getattr(self, name)
            top = np.inf if name == "jitter" else 1.0
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not (ok and np.isfinite(value) and 0 <= value <= top):
                raise ParameterError(
                    f"KeypointProfile.{name} must be a number in [0, {top}] (finite, not a bool); "
                    f"got {value!r}"
                )


def _template(kind: KeypointsKind) -> np.ndarray:
    """``(K, 2)`` rest pose of the kind's joints, in units of body height."""
    if all(k in _COCO_POSE for k in kind.keypoints):
        return np.array([_COCO_POSE[k] for k in kind.keypoints])
    rng = stream(0, *name_key(kind.name))
    return rng.uniform(-0.5, 0.5, size=(kind.n_keypoints, 2))


def _people(rng_count, rng_place, rng_pose, rng_vis, n_items, max_people, W, H, kind):
    """Skeletons of people: item, points ``(n, K, 2)`` (pixels), visibility, area."""
    K = kind.n_keypoints
    count = rng_count.integers(1, max_people + 1, size=n_items)
    item = np.repeat(np.arange(n_items), count)
    n = len(item)
    height = rng_place.uniform(0.35, 0.8, size=n) * H
    cx = rng_place.uniform(0.2, 0.8, size=n) * W
    cy = rng_place.uniform(0.35, 0.65, size=n) * H
    pose = _template(kind)[None] + rng_pose.normal(0, 0.03, size=(n, K, 2))
    pts = np.stack([cx[:, None] + pose[..., 0] * height[:, None],
                    cy[:, None] + pose[..., 1] * height[:, None]], axis=-1)  # fmt: skip
    v = rng_vis.choice([0.0, 1.0, 2.0], size=(n, K), p=[0.1, 0.25, 0.65])
    v[~(v > 0).any(axis=1), 0] = 2.0
    area = 0.5 * height * (0.45 * height)  # about a person's silhouette
    return item, pts, v, area


def _redraw(name, p: KeypointProfile, truth, seed, n_items, max_people, W, H, kind):
    """One annotator's objects: item, points, visibility, area."""
    key = name_key(name)
    rng = [stream(seed, 1, *key, step) for step in range(6)]
    if p.random:
        r = rng[_A_RANDOM]
        sub = [np.random.default_rng(r.integers(2**63)) for _ in range(4)]
        return _people(*sub, n_items, max_people, W, H, kind)
    item, pts, v, area = truth
    n, K = v.shape
    keep = rng[_A_MISS].random(n) >= p.miss
    scale = 2 * kind.sigmas[None, :] * np.sqrt(area)[:, None]
    sd = np.full(K, p.jitter)
    for joint, extra in (p.joint_jitter or {}).items():
        sd[kind.keypoints.index(joint)] += extra
    pts = pts + rng[_A_JITTER].normal(size=(n, K, 2)) * (sd[None, :] * scale)[..., None]
    pairs = [
        (a, b)
        for a, b in kind.flip
        if p.swap_joints is None or {kind.keypoints[a], kind.keypoints[b]} & set(p.swap_joints)
    ]
    swap = rng[_A_SWAP].random((n, max(len(kind.flip), 1)))[:, : len(pairs)] < p.swap
    if swap.any():
        order = np.tile(np.arange(K), (n, 1))
        for q, (a, b) in enumerate(pairs):
            order[swap[:, q], a], order[swap[:, q], b] = b, a
        pts = np.take_along_axis(pts, order[..., None], axis=1)
        v = np.take_along_axis(v, order, axis=1)
    flip = (rng[_A_OCCLUDE].random((n, K)) < p.occlusion) & (v > 0)
    v = np.where(flip, 3.0 - v, v)
    drop = (rng[_A_DROP].random((n, K)) < p.drop) & (v > 0)
    drop &= drop.sum(axis=1, keepdims=True) < (v > 0).sum(axis=1, keepdims=True)
    v = np.where(drop, 0.0, v)
    return item[keep], pts[keep], v[keep], area[keep]


def _check_joints(name, p: KeypointProfile, kind: KeypointsKind) -> None:
    """The joints a profile names (``joint_jitter``, ``swap_joints``) are the kind's."""
    jitter = p.joint_jitter or {}
    if not isinstance(jitter, dict):
        raise ParameterError(
            f"annotator {name!r}: joint_jitter must be a dict {{joint: jitter}}; got {jitter!r}"
        )
    swapped = p.swap_joints or ()
    if isinstance(swapped, str) or not hasattr(swapped, "__iter__"):
        raise ParameterError(
            f"annotator {name!r}: swap_joints must be a tuple of joint names; got {swapped!r}"
        )
    for field, joints in (("joint_jitter", list(jitter)), ("swap_joints", list(swapped))):
        unknown = [j for j in joints if j not in kind.keypoints]
        if unknown:
            raise ParameterError(
                f"annotator {name!r}: {field} names {unknown}, not joints of the kind "
                f"{kind.name!r} ({', '.join(kind.keypoints)})"
            )
    for joint, extra in jitter.items():
        check_number(extra, f"annotator {name!r}: joint_jitter[{joint!r}]")


def simulate_keypoints(
    *,
    n_items: int = 100,
    annotators: dict,
    kind: KeypointsKind = KEYPOINTS,
    max_people: int = 3,
    image_size=(640, 480),
    label: str = "person",
    seed: int = 0,
) -> pd.DataFrame:
    """A tidy frame of skeletons drawn by annotators of known profiles.

    Parameters
    ----------
    n_items : int, default 100
    annotators : dict {str: KeypointProfile}
    kind : KeypointsKind, default COCO's person
    max_people : int, default 3
        People per image: 1 to ``max_people``, uniformly.
    image_size : (int, int), default (640, 480)
    label : str, default "person"
    seed : int, default 0

    Returns
    -------
    pandas.DataFrame
        ``item, annotator, label, width, height`` and the kind's columns; a coverage row
        (no object) where an annotator drew nothing on an image. Pass it to
        :func:`iaa_frames.validate` or straight to :func:`iaa_frames.agreement`.

    Raises
    ------
    ParameterError
        On no annotators, a profile that is not a :class:`KeypointProfile` or that names
        joints the kind has not, a count or seed that is not an integer
        (:mod:`iaa_frames.simulate.limits`), a bad image size, kind or label, or more rows
        than :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS`.
    """
    check_profiles(annotators, KeypointProfile, "simulate_keypoints")
    n_items, max_people, seed = check_counts(
        n_items=(n_items, 1), max_people=(max_people, 1), seed=(seed, 0)
    )
    if not isinstance(kind, KeypointsKind):
        raise ParameterError(f"kind must be a KeypointsKind; got {kind!r}")
    if not isinstance(label, str) or not label or label == ALL:
        raise ParameterError(f"label must be a non-empty string other than {ALL!r}; got {label!r}")
    for name, p in annotators.items():
        _check_joints(name, p, kind)
    W, H = check_image_size(image_size, required=True)
    check_size(
        "simulate_keypoints",
        float(n_items) * max_people * (1 + len(annotators)),
        n_items=n_items,
        max_people=max_people,
        **{"len(annotators)": len(annotators)},
    )
    truth = _people(*(stream(seed, 0, s) for s in range(4)), n_items, max_people, W, H, kind)
    columns = []
    for name in sorted(annotators):
        item, pts, v, area = _redraw(name, annotators[name], truth, seed, n_items, max_people, W, H, kind)  # fmt: skip
        on = v > 0
        cols = {"item": item, "annotator": name, "label": label}
        for j, joint in enumerate(kind.keypoints):
            cols[f"{kind.prefix}{joint}_x"] = np.where(on[:, j], pts[:, j, 0], 0.0)
            cols[f"{kind.prefix}{joint}_y"] = np.where(on[:, j], pts[:, j, 1], 0.0)
            cols[f"{kind.prefix}{joint}_v"] = v[:, j]
        cols[f"{kind.prefix}area"] = area
        columns.append(cols)
    return tidy_objects(columns, n_items=n_items, width=W, height=H)
