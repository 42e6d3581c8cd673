# Over 400 lines: one idea, the skeleton kind: its columns, COCO OKS as drawn and mirrored, its bounds and rows.
"""The keypoints kind: a skeleton of K named points per object, scored by COCO's OKS.

Frame representation
--------------------
A skeleton is declared once (:class:`KeypointsKind`, registered with
:func:`~iaa_frames.geometry.kinds.register_kind`); its rows hold, for every joint ``j``
in order, the columns ``{prefix}{j}_x``, ``{prefix}{j}_y`` (pixels) and ``{prefix}{j}_v``
(COCO's visibility: 0 not labelled, 1 labelled but occluded, 2 labelled and visible),
and one column ``{prefix}area``: the object's area in pixels², the scale of OKS (COCO's
``area``, the area of the person's segmentation; readers without one write the area of
the object's box). A joint not labelled has ``v = 0`` and, as in COCO, ``x = y = 0`` (any
finite value: it is never read). The built-in kind ``keypoints`` (:data:`KEYPOINTS`) is
COCO's person skeleton with the prefix ``kp_`` (``kp_nose_x``, ..., ``kp_area``). The
object's ``x0, y0, x1, y1`` are the bounds of its labelled points.

Similarity (OKS)
----------------
For two objects ``a, b`` of a skeleton with per-joint constants ``σ_i``
(:attr:`KeypointsKind.sigmas`)::

    e_i = d_i² / ((2 σ_i)² · (s² + ε) · 2),   s² = (area_a + area_b) / 2,   ε = np.spacing(1)
    OKS = mean of exp(-e_i) over the joints labelled (v > 0) by both; 0 if there is none

which is ``COCOeval.computeOks`` (pycocotools) with the reference's area replaced by the
mean of both areas: when both areas are equal and ``b`` labels every joint ``a`` labels
(as COCO detections do), the OKS of ``(a, b)`` is COCO's with ``a`` the ground truth, to
the bit on pixel coordinates (the tests check it against the real module). Joints
labelled by one annotator only are left out of OKS and counted by the visibility
agreement (:func:`iaa_frames.keypoint_agreement`).

Mirror images: a skeleton drawn with every left and right joint exchanged (the common
left/right error: the annotator took the person's left for the image's left) is the same
person, not another one. Its OKS as labelled is low (a left shoulder against a right
one), so it would fall below the match threshold and count as a missed object and a
spurious one. A kind with left/right pairs (:attr:`KeypointsKind.flip`) therefore scores
a pair by the better of its two orientations::

    similarity(a, b) = max(OKS(a, b), OKS(a, mirror(b)), OKS(mirror(a), b))

``mirror`` exchanging the joints of every flip pair (their coordinates and visibility;
the last term differs from the second only where a flip pair's two constants differ;
the terms are summed so that the similarity is symmetric to the bit). A mirrored skeleton thus matches its original, and the
mirror is reported where it belongs: by :func:`iaa_frames.keypoint_agreement`, whose
per-joint figures compare joints by name (``swapped`` 1 on every left/right joint,
their ``localization`` low) and whose ``mirrored`` is the share of matched pairs that
match better as mirror images. :meth:`KeypointsKind.oks` is COCO's OKS alone, and
``mirror_aware=False`` makes it the similarity. Pairs that are not mirror images keep
COCO's OKS: mirroring only moves joints whose two sides are apart.

Constants: COCO's 17 person constants for the COCO person skeleton; user-given ones
otherwise; when none are given, a joint named like a COCO person keypoint takes COCO's
constant and any other joint the mean of COCO's 17 (:data:`DEFAULT_SIGMA`, 0.0669).

Normalization: :meth:`~iaa_frames.geometry.shapes.Shapes.from_frame` divides x *and* y by
one scale per image, ``sqrt(width · height)``, and the area by ``width · height``: OKS
only sees pixel distances over pixel areas, so it is unchanged by it (a per-axis
normalization would change it on images that are not square). The boxes of keypoint
rows are in those units too.

Reach: two objects reach OKS ≥ τ only if a joint is within
``σ_max · sqrt(8 ln(1/τ) · max(area) )`` of its match, so a box grown by
``σ_max · sqrt(8 ln(1/τ) · (area + ε))`` (:meth:`KeypointsKind.reach`) meets the other's.

Examples
--------
>>> import numpy as np
>>> kind = KeypointsKind("hand_example", ["wrist", "thumb"], sigmas=[0.1, 0.1])
>>> kind.columns[:3], kind.columns[-1]
(('hand_example_wrist_x', 'hand_example_wrist_y', 'hand_example_wrist_v'), 'hand_example_area')
>>> a = np.array([[10.0, 10, 2, 20, 20, 2, 100]])
>>> b = np.array([[10.0, 10, 2, 21, 20, 2, 100]])
>>> kind.similarity(a, b).round(4).tolist()  # (1 + exp(-1 / 8)) / 2
[0.9412]
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .registry import Kind, register_kind

__all__ = [
    "COCO_PERSON_FLIP",
    "COCO_PERSON_KEYPOINTS",
    "COCO_PERSON_SIGMAS",
    "COCO_PERSON_SKELETON",
    "DEFAULT_SIGMA",
    "KEYPOINTS",
    "KeypointsKind",
    "keypoint_kinds",
]

#: COCO's person keypoints, in COCO's order (``person_keypoints_*.json``).
COCO_PERSON_KEYPOINTS = (
    "nose",
    "left_eye",
    "right_eye",
    "left_ear",
    "right_ear",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
)
#: Their OKS constants, pycocotools ``COCOeval`` (``Params.kpt_oks_sigmas``).
COCO_PERSON_SIGMAS = (
    np.array(
        [0.26, 0.25, 0.25, 0.35, 0.35, 0.79, 0.79, 0.72, 0.72, 0.62, 0.62]
        + [1.07, 1.07, 0.87, 0.87, 0.89, 0.89]
    )
    / 10.0
)
#: COCO's left/right joint pairs, 0-based in :data:`COCO_PERSON_KEYPOINTS`' order: the
#: pairs every COCO keypoint model exchanges when it flips an image horizontally, e.g.
#: Detectron2's ``COCO_PERSON_KEYPOINT_FLIP_MAP`` (detectron2/data/datasets/
#: builtin_meta.py: ("left_eye", "right_eye"), ..., ("left_ankle", "right_ankle")) and
#: HRNet's ``flip_pairs = [[1, 2], [3, 4], ..., [15, 16]]`` (lib/dataset/coco.py).
#: pycocotools itself defines none; the order is that of the ``keypoints`` of the person
#: category in COCO's ``person_keypoints_*.json``.
COCO_PERSON_FLIP = ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14), (15, 16))
#: COCO's person skeleton: pairs of joints (0-based here; COCO's file counts from 1).
COCO_PERSON_SKELETON = tuple(
    (a - 1, b - 1)
    for a, b in [
        (16, 14), (14, 12), (17, 15), (15, 13), (12, 13), (6, 12), (7, 13), (6, 7), (6, 8),
        (7, 9), (8, 10), (9, 11), (2, 3), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7),
    ]
)  # fmt: skip
#: The constant of a joint without a given one and no COCO person name: the mean of COCO's 17.
DEFAULT_SIGMA = float(COCO_PERSON_SIGMAS.mean())

_EPS = np.spacing(1)  # pycocotools: (area + np.spacing(1))


class KeypointsKind(Kind):
    """A skeleton of named joints with visibility; OKS as its similarity.

    Parameters
    ----------
    name : str
        The registry name (and, by default, the column prefix ``{name}_``).
    keypoints : sequence of str
        The joints, in order.
    sigmas : sequence of float, optional
        One OKS constant per joint; the rule of the module docstring when omitted.
    skeleton : sequence of (int, int), optional
        Edges between joints (0-based), for drawing.
    prefix : str, optional
        Column prefix; ``{name}_`` by default.
    flip : sequence of (int, int), optional
        Left/right joint pairs (0-based; by default those named ``left_*``/``right_*``).
    mirror_aware : bool, default True
        Score a pair by the better of its two orientations (the module docstring's
        "Mirror images"), so that a skeleton drawn left/right mirrored matches its
        original; False: COCO's OKS alone. No effect without flip pairs.

    Raises
    ------
    ParameterError
        On no joints, repeated joints, or constants not positive or not one per joint.
    """

    def __init__(
        self,
        name,
        keypoints,
        *,
        sigmas=None,
        skeleton=(),
        prefix=None,
        flip=None,
        mirror_aware=True,
    ):
        keypoints = tuple(str(k) for k in keypoints)
        if not keypoints or len(set(keypoints)) != len(keypoints):
            raise ParameterError(
                f"keypoints kind {name!r} needs distinct joint names; got {list(keypoints)}"
            )
        if sigmas is None:
            coco = dict(zip(COCO_PERSON_KEYPOINTS, COCO_PERSON_SIGMAS, strict=True))
            sigmas = [coco.get(k, DEFAULT_SIGMA) for k in keypoints]
        sigmas = np.asarray(sigmas, dtype=np.float64).reshape(-1)
        if sigmas.shape != (len(keypoints),) or not (np.isfinite(sigmas) & (sigmas > 0)).all():
            raise ParameterError(
                f"keypoints kind {name!r} needs one positive OKS constant per joint "
                f"({len(keypoints)}); got {sigmas.tolist()}"
            )
        self.name = name
        self.keypoints = keypoints
        self.sigmas = sigmas
        self.skeleton = tuple((int(a), int(b)) for a, b in skeleton)
        self.prefix = f"{name}_" if prefix is None else prefix
        if flip is None:
            index = {k: i for i, k in enumerate(keypoints)}
            flip = [
                (i, index["right_" + k[5:]])
                for i, k in enumerate(keypoints)
                if k.startswith("left_") and "right_" + k[5:] in index
            ]
        self.flip = tuple((int(a), int(b)) for a, b in flip)
        mirror = np.arange(len(keypoints))
        for left, right in self.flip:
            inside = 0 <= left < len(keypoints) and 0 <= right < len(keypoints)
            # in an earlier pair: its mirror is set already
            if not inside or left == right or mirror[left] != left or mirror[right] != right:
                raise ParameterError(
                    f"keypoints kind {name!r}: flip pair {(left, right)} is not two joints "
                    f"of the {len(keypoints)}, each in one pair only"
                )
            mirror[left], mirror[right] = right, left
        #: Per joint, its left/right mirror joint (itself when it has none).
        self.mirror = mirror
        self.mirror_aware = bool(mirror_aware) and bool(self.flip)
        self._mirror_symmetric = bool(np.array_equal(self.sigmas, self.sigmas[mirror]))
        self._flip_sides = (
            np.array([a for a, _ in self.flip], dtype=np.int64),
            np.array([b for _, b in self.flip], dtype=np.int64),
        )
        self._unpaired = np.flatnonzero(mirror == np.arange(len(keypoints)))
        self.columns = tuple(
            f"{self.prefix}{k}_{c}" for k in keypoints for c in ("x", "y", "v")
        ) + (f"{self.prefix}area",)
        self.description = f"{len(keypoints)} keypoints with visibility, OKS ({self.prefix}*)"

    @property
    def n_keypoints(self) -> int:
        """The number of joints K."""
        return len(self.keypoints)

    def split(self, data):
        """``x, y, v`` as ``(m, K)`` arrays and the area ``(m,)`` of rows of parameters."""
        data = np.asarray(data, dtype=np.float64)
        k = self.n_keypoints
        return data[:, 0 : 3 * k : 3], data[:, 1 : 3 * k : 3], data[:, 2 : 3 * k : 3], data[:, -1]

    # -- reading ----------------------------------------------------------------------

    def normalize(self, data, sx, sy):
        """x and y divided by ``sqrt(sx · sy)``, the area by ``sx · sy`` (OKS unchanged)."""
        data = np.array(data, dtype=np.float64)
        s = np.sqrt(np.asarray(sx, np.float64) * np.asarray(sy, np.float64))
        k = self.n_keypoints
        data[:, 0 : 3 * k : 3] /= s[:, None]
        data[:, 1 : 3 * k : 3] /= s[:, None]
        data[:, -1] /= s * s
        return data

    def invalid(self, data):
        """Rows with a non-finite value, a visibility not 0, 1 or 2, no labelled joint,
        or a negative area."""
        data = np.asarray(data, dtype=np.float64)
        _, _, v, area = self.split(data)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(data).all(axis=1) | ~(area >= 0)
            bad |= ~np.isin(v, (0.0, 1.0, 2.0)).all(axis=1) | ~(v > 0).any(axis=1)
        return bad

    # -- measuring ----------------------------------------------------------------------

    def bounds(self, data):
        """The box of the labelled joints (of all joints where none is labelled)."""
        x, y, v, _ = self.split(data)
        on = v > 0
        on[~on.any(axis=1)] = True
        big = np.inf
        return np.column_stack(
            [
                np.where(on, x, big).min(axis=1),
                np.where(on, y, big).min(axis=1),
                np.where(on, x, -big).max(axis=1),
                np.where(on, y, -big).max(axis=1),
            ]
        )

    def areas(self, data):
        """The object's area (the scale of OKS), from its ``area`` column."""
        return self.split(data)[3]

    #: Aligned chance units map a skeleton into the other's box (a person's joints
    #: measured against another person's, once both stand in the same place).
    chance_alignment = "box"

    def translate(self, data, dx, dy):
        """Every joint moved by ``(dx, dy)`` (visibility and area kept)."""
        data = np.array(data, dtype=np.float64)
        k = self.n_keypoints
        data[:, 0 : 3 * k : 3] += np.asarray(dx, np.float64)[:, None]
        data[:, 1 : 3 * k : 3] += np.asarray(dy, np.float64)[:, None]
        return data

    def fit_to_boxes(self, data, boxes):
        """The skeletons scaled (x and y apart) and moved so that the box of their
        labelled joints (:meth:`bounds`) becomes ``boxes``, their area scaled by the
        product of the two scales; visibility kept.

        On an axis where the skeleton's box or the target has no extent (one labelled
        joint, joints in a line), the skeleton takes the scale of the other axis (1 when
        neither has one) and is centred in the target.

        Examples
        --------
        >>> kind = KeypointsKind("fit_example", ["a", "b"], sigmas=[0.1, 0.1])
        >>> y = np.array([[0.0, 0, 2, 2, 1, 1, 2.0]])            # box (0, 0, 2, 1), area 2: scales 2 and 3
        >>> kind.fit_to_boxes(y, np.array([[10.0, 10, 14, 13]])).tolist()
        [[10.0, 10.0, 2.0, 14.0, 13.0, 1.0, 12.0]]
        """
        data = np.array(data, dtype=np.float64)
        boxes = np.asarray(boxes, dtype=np.float64)
        own = self.bounds(data)
        k = self.n_keypoints
        size, target = own[:, 2:] - own[:, :2], boxes[:, 2:] - boxes[:, :2]
        ok = (size > 0) & (target > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(ok, target / np.where(ok, size, 1.0), np.nan)
        scale = np.where(ok, scale, scale[:, ::-1])  # the other axis's
        scale = np.where(np.isfinite(scale), scale, 1.0)
        centre, goal = (own[:, :2] + own[:, 2:]) / 2, (boxes[:, :2] + boxes[:, 2:]) / 2
        for axis in (0, 1):
            col = slice(axis, 3 * k, 3)
            data[:, col] = (
                goal[:, axis, None] + (data[:, col] - centre[:, axis, None]) * scale[:, axis, None]
            )
        data[:, -1] *= scale[:, 0] * scale[:, 1]
        return data

    def centroids(self, data):
        """The mean of the labelled joints."""
        x, y, v, _ = self.split(data)
        on = v > 0
        n = np.maximum(on.sum(axis=1), 1)
        return np.column_stack([(x * on).sum(axis=1) / n, (y * on).sum(axis=1) / n])

    def point_similarity(self, data_a, data_b):
        """Per joint, ``exp(-e_i)`` of OKS (``(m, K)``), and where both label it.

        Returns
        -------
        ks : ndarray of float64, shape (m, K)
        both : ndarray of bool, shape (m, K)
        """
        xa, ya, va, area_a = self.split(data_a)
        xb, yb, vb, area_b = self.split(data_b)
        dx = xb - xa
        dy = yb - ya
        variances = (self.sigmas * 2) ** 2
        area = (area_a + area_b) / 2
        # pycocotools' order of operations, so that equal inputs give COCO's bits
        e = (dx**2 + dy**2) / variances / (area[:, None] + _EPS) / 2
        return np.exp(-e), (va > 0) & (vb > 0)

    def oks(self, data_a, data_b):
        """COCO's OKS of each pair (module docstring), as labelled: in [0, 1], 0 without
        a joint labelled by both."""
        ks, both = self.point_similarity(data_a, data_b)
        n = both.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(both, ks, 0.0).sum(axis=1) / n
        return np.where(n > 0, out, 0.0)

    def mirrored(self, data):
        """The skeletons with the joints of every flip pair exchanged (coordinates and
        visibility move to the other side's columns; the area is kept).

        Examples
        --------
        >>> kind = KeypointsKind("mirror_example", ["nose", "left_eye", "right_eye"])
        >>> kind.mirrored(np.array([[5.0, 5, 2, 1, 1, 2, 9, 1, 1, 40]])).tolist()
        [[5.0, 5.0, 2.0, 9.0, 1.0, 1.0, 1.0, 1.0, 2.0, 40.0]]
        """
        data = np.array(data, dtype=np.float64)
        k = self.n_keypoints
        joints = data[:, : 3 * k].reshape(len(data), k, 3)
        data[:, : 3 * k] = joints[:, self.mirror, :].reshape(len(data), 3 * k)
        return data

    def mirror_oks(self, data_a, data_b):
        """OKS of each pair with one skeleton mirrored, the better of mirroring either
        (module docstring); the OKS as labelled for a kind without flip pairs."""
        if not self.flip:
            return self.oks(data_a, data_b)
        if not self._mirror_symmetric:
            # a flip pair's two constants differ: both ways, for a symmetric value
            return np.maximum(
                self.oks(data_a, self.mirrored(data_b)), self.oks(self.mirrored(data_a), data_b)
            )
        # OKS(a, mirror(b)) without copying: joint i of a against joint mirror(i) of b.
        # Exchanging a and b permutes these terms by the mirror, so they are summed
        # joints without a mirror first, then each flip pair's two terms together: the
        # same bits both ways (OKS(mirror(a), b) would be the same value up to rounding)
        xa, ya, va, area_a = self.split(data_a)
        xb, yb, vb, area_b = self.split(data_b)
        m = self.mirror
        dx = xb[:, m] - xa
        dy = yb[:, m] - ya
        area = (area_a + area_b) / 2
        e = (dx**2 + dy**2) / ((self.sigmas * 2) ** 2) / (area[:, None] + _EPS) / 2
        both = (va > 0) & (vb[:, m] > 0)
        terms = np.where(both, np.exp(-e), 0.0)
        left, right = self._flip_sides
        total = terms[:, self._unpaired].sum(axis=1) + (terms[:, left] + terms[:, right]).sum(
            axis=1
        )
        n = both.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / n, 0.0)

    def mirror_matched(self, data_a, data_b):
        """``(m,)`` bool: the pairs whose OKS is higher with one skeleton mirrored than as
        labelled (mirror images of each other, module docstring)."""
        return self.mirror_oks(data_a, data_b) > self.oks(data_a, data_b)

    def similarity_settings(self) -> tuple:
        """What :meth:`similarity` depends on besides the data (constants, flip pairs,
        :attr:`mirror_aware`): part of the key of the cached pair tables
        (:mod:`iaa_frames.core.engine.memo`), so that tables are not reused across a change
        of them."""
        return (tuple(self.sigmas.tolist()), self.flip, self.mirror_aware)

    def similarity(self, data_a, data_b):
        """The similarity of each pair: COCO's OKS (:meth:`oks`), or with
        :attr:`mirror_aware` the better of the pair as labelled and mirrored (module
        docstring); in [0, 1], 0 without a joint labelled by both."""
        out = self.oks(data_a, data_b)
        if self.mirror_aware:
            out = np.maximum(out, self.mirror_oks(data_a, data_b))
        return out

    def reach(self, data, tau):
        """``σ_max · sqrt(8 ln(1/τ) · (area + ε))``: an OKS ≥ τ needs one joint labelled
        by both with ``exp(-e_i) ≥ τ``, i.e. within ``σ_i sqrt(8 ln(1/τ) (s² + ε))`` of
        its match, and ``s² ≤ max(area_a, area_b)``, so the two margins add up to at least
        that distance. The mirrored orientation of a mirror-aware kind pairs a joint with
        another joint of the same skeleton (the same box) under a constant no larger than
        ``σ_max``: the same reach holds for it."""
        area = self.split(data)[3]
        if tau <= 0:
            return np.full(len(area), np.inf)
        log = max(-np.log(min(float(tau), 1.0)), 0.0)
        return float(self.sigmas.max()) * np.sqrt(8 * log * (np.maximum(area, 0) + _EPS))


def keypoint_kinds(columns=None) -> list[KeypointsKind]:
    """The registered keypoints kinds (those whose columns are all in ``columns``).

    Examples
    --------
    >>> [k.name for k in keypoint_kinds()][:1]
    ['keypoints']
    """
    from .registry import parametric_kinds

    return [k for k in parametric_kinds(columns) if isinstance(k, KeypointsKind)]


#: COCO's person skeleton, columns ``kp_{joint}_x/_y/_v`` and ``kp_area``.
KEYPOINTS = register_kind(
    KeypointsKind(
        "keypoints",
        COCO_PERSON_KEYPOINTS,
        sigmas=COCO_PERSON_SIGMAS,
        skeleton=COCO_PERSON_SKELETON,
        prefix="kp_",
        flip=COCO_PERSON_FLIP,
    )
)
