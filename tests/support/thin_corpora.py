"""Thin corpora, drawn the way real pilots are: few items, few small objects, so that
unrelated objects rarely pass the gate (an 8-image pilot, KITTI-like cuboids, COCO-like
keypoints, points, polylines) and dense random shapes. ``variant``: "identical" (every
annotator copies the truth), "jittered", "random" (fresh shapes), and for keypoints
"shuffled" (half of each person's joints swapped among themselves)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import shapely

import iaa_frames as iaf
from iaa_frames.geometry.kinds import KEYPOINTS, POLYLINE, polyline_params
from iaa_frames.geometry.kinds.cuboid import CUBOID_COLUMNS

ANNOTATORS = ("ann", "bob", "cy")
#: A standing person, COCO's 17 joints in order, in units of body height (x right, y down).
POSE = np.array(
    [[0.0, -0.42], [0.03, -0.45], [-0.03, -0.45], [0.06, -0.44], [-0.06, -0.44],
     [0.13, -0.30], [-0.13, -0.30], [0.18, -0.10], [-0.18, -0.10], [0.20, 0.06],
     [-0.20, 0.06], [0.09, 0.04], [-0.09, 0.04], [0.10, 0.27], [-0.10, 0.27],
     [0.10, 0.50], [-0.10, 0.50]]
)  # fmt: skip


# -- corpora -------------------------------------------------------------------------------


def _copy_or(rng, variant, truth, fresh, jitter):
    if variant == "identical":
        return truth.copy()
    if variant == "random":
        return fresh()
    return jitter(truth.copy())


def pilot(variant="jittered", seed=0, n_items=8, per=3, W=1000.0, H=800.0):
    """An 8-image pilot: 3 annotators x ``per`` small boxes (20-60 px) per image."""
    rng = np.random.default_rng(seed)

    def boxes():
        wh = rng.uniform(20, 60, (per, 2))
        xy = rng.uniform(0, 1, (per, 2)) * ([W, H] - wh)
        return np.column_stack([xy, xy + wh])

    def jitter(b):
        return b + rng.normal(0, 0.05, b.shape) * np.tile(b[:, 2:] - b[:, :2], 2)

    rows = []
    for i in range(n_items):
        truth = boxes()
        for a in ANNOTATORS:
            b = _copy_or(rng, variant, truth, boxes, jitter)
            rows += [
                dict(item=f"img{i}", annotator=a, label="obj", width=W, height=H,
                     **dict(zip(("x0", "y0", "x1", "y1"), b[k], strict=True)))
                for k in range(per)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def cuboids(variant="jittered", seed=0, n_items=60, cars=(1, 4)):
    """KITTI-like frames of 1-4 upright cars along a road (metres), 2 annotators."""
    rng = np.random.default_rng(seed)

    def draw(n):
        x, y = rng.uniform(5, 45, n), rng.uniform(-12, 12, n)
        size = np.column_stack([rng.normal(4.2, 0.3, n), rng.normal(1.75, 0.1, n),
                                rng.normal(1.55, 0.1, n)])  # fmt: skip
        yaw = rng.choice([0.0, np.pi], n) + rng.normal(0, 0.15, n)
        z = -1.73 + size[:, 2] / 2 + rng.normal(0, 0.05, n)
        return np.column_stack([x, y, z, size, yaw, np.zeros((n, 2))])

    def jitter(p):
        n = len(p)
        p[:, :2] += rng.normal(0, 0.15, (n, 2))
        p[:, 2] += rng.normal(0, 0.05, n)
        p[:, 3:6] *= np.exp(rng.normal(0, 0.05, (n, 3)))
        p[:, 6] += rng.normal(0, 0.05, n)
        return p

    rows = []
    for i in range(n_items):
        n = int(rng.integers(cars[0], cars[1] + 1))
        truth = draw(n)
        for a in ANNOTATORS[:2]:
            p = _copy_or(rng, variant, truth, lambda n=n: draw(n), jitter)
            rows += [
                dict(item=f"frame{i:03d}", annotator=a, label="Car",
                     **dict(zip(CUBOID_COLUMNS, p[k], strict=True)))
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def keypoints(variant="jittered", seed=0, n_items=60, people=(1, 3), jitter=0.5, shuffle=0.5):
    """COCO-like images of 1-3 people (10-40 % of the height, anywhere), 2 annotators:
    ``bob`` copies ``ann``, jitters every joint (``jitter`` in units of 2 σ_i s), draws
    people of his own ("random"), draws every joint anywhere in the person's box
    ("random_pose"), or shuffles a share ``shuffle`` of the labelled joints of each
    person among themselves (the same box)."""
    W, H = 640.0, 480.0
    rng = np.random.default_rng(seed)
    pose = POSE
    K = len(pose)

    def draw(n):
        h = rng.uniform(0.1, 0.4, n) * H
        cx = rng.uniform(0, 1, n) * (W - 0.5 * h) + 0.25 * h
        cy = rng.uniform(0, 1, n) * (H - h) + 0.5 * h
        shape = pose + rng.normal(0, 0.03, (n, K, 2))
        pts = np.stack([cx[:, None] + shape[..., 0] * h[:, None],
                        cy[:, None] + shape[..., 1] * h[:, None]], axis=-1)  # fmt: skip
        v = rng.choice([0.0, 1.0, 2.0], size=(n, K), p=[0.1, 0.25, 0.65])
        v[~(v > 0).any(axis=1), 0] = 2.0
        return pts, v, 0.5 * h * 0.45 * h

    rows = []
    for i in range(n_items):
        n = int(rng.integers(people[0], people[1] + 1))
        pts, v, area = draw(n)
        for a in ANNOTATORS[:2]:
            p, vv, ar = pts.copy(), v.copy(), area.copy()
            if a == "bob" and variant == "random":
                p, vv, ar = draw(n)
            elif a == "bob" and variant == "jittered":
                scale = 2 * KEYPOINTS.sigmas[None, :] * np.sqrt(area)[:, None]
                p += rng.normal(size=p.shape) * (jitter * scale)[..., None]
            elif a == "bob" and variant == "random_pose":  # the person found, joints anywhere in it
                on = vv > 0
                lo = np.where(on[..., None], p, np.inf).min(axis=1)
                hi = np.where(on[..., None], p, -np.inf).max(axis=1)
                p = lo[:, None, :] + rng.uniform(size=p.shape) * (hi - lo)[:, None, :]
            elif a == "bob" and variant == "shuffled":
                for r in range(n):
                    on = rng.permutation(np.flatnonzero(vv[r] > 0))
                    on = on[: max(int(round(shuffle * len(on))), 2)]
                    p[r, on] = p[r, rng.permutation(on)]
            for k in range(n):
                row = dict(item=f"img{i:03d}", annotator=a, label="person", width=W, height=H)
                for j, joint in enumerate(KEYPOINTS.keypoints):
                    on = vv[k, j] > 0
                    row[f"kp_{joint}_x"] = p[k, j, 0] if on else 0.0
                    row[f"kp_{joint}_y"] = p[k, j, 1] if on else 0.0
                    row[f"kp_{joint}_v"] = vv[k, j]
                row["kp_area"] = ar[k]
                rows.append(row)
    return pd.DataFrame(rows)


def points(variant="jittered", seed=0, n_items=40, per=(1, 5), W=1280.0, H=720.0):
    """Landmarks: 1-5 per image, 2 annotators (jitter 0.4 % of the diagonal)."""
    rng = np.random.default_rng(seed)
    diag = np.hypot(W, H)
    rows = []
    for i in range(n_items):
        n = int(rng.integers(per[0], per[1] + 1))
        truth = rng.uniform(0, 1, (n, 2)) * [W, H]
        for a in ANNOTATORS[:2]:
            p = _copy_or(
                rng,
                variant,
                truth,
                lambda n=n: rng.uniform(0, 1, (n, 2)) * [W, H],
                lambda p: p + rng.normal(0, 0.004 * diag, p.shape),
            )
            rows += [
                dict(item=f"im{i}", annotator=a, label="pt", pt_x=p[k, 0], pt_y=p[k, 1],
                     width=W, height=H)
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def polylines(variant="jittered", seed=0, n_items=40, W=1280.0, H=720.0):
    """Lanes: 1-3 straight lines of 4 vertices (100-300 px) per image, 2 annotators."""
    rng = np.random.default_rng(seed)
    diag = np.hypot(W, H)

    def lanes(n):
        start = rng.uniform(0, 1, (n, 2)) * [W, H]
        angle, length = rng.uniform(0, 2 * np.pi, n), rng.uniform(100, 300, n)
        step = np.stack([np.cos(angle), np.sin(angle)], axis=1) * length[:, None]
        return start[:, None, :] + np.linspace(0, 1, 4)[None, :, None] * step[:, None, :]

    rows = []
    for i in range(n_items):
        n = int(rng.integers(1, 4))
        truth = lanes(n)
        for a in ANNOTATORS[:2]:
            p = _copy_or(
                rng,
                variant,
                truth,
                lambda n=n: lanes(n),
                lambda p: p + rng.normal(0, 0.003 * diag, p.shape),
            )
            rows += [
                dict(item=f"im{i}", annotator=a, label="lane", width=W, height=H,
                     **dict(zip(POLYLINE.columns, polyline_params(POLYLINE, p[k]), strict=True)))
                for k in range(n)
            ]  # fmt: skip
    return pd.DataFrame(rows)


def random_shapes(kind, n_items=400, per=2, size=(20, 80), seed=0, W=1000.0, H=1000.0):
    """Three annotators who draw ``per`` objects at uniform positions, of random sizes,
    on every image, independently of each other (the chance level)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for a in ANNOTATORS:
            for _ in range(per):
                w, h = rng.uniform(*size, 2)
                x0, y0 = rng.uniform(0, W - w), rng.uniform(0, H - h)
                row = dict(item=f"i{i}", annotator=a, label="obj", width=W, height=H)
                if kind == "box":
                    row.update(x0=x0, y0=y0, x1=x0 + w, y1=y0 + h)
                elif kind == "polygon":  # a star-shaped heptagon in the box
                    t = np.sort(rng.uniform(0, 2 * np.pi, 7))
                    r = rng.uniform(0.6, 1.0, 7)
                    xy = np.column_stack(
                        [x0 + w / 2 * (1 + r * np.cos(t)), y0 + h / 2 * (1 + r * np.sin(t))]
                    )
                    row["geometry"] = shapely.Polygon(xy)
                else:
                    row.update(pt_x=x0 + w / 2, pt_y=y0 + h / 2)
                rows.append(row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", iaf.errors.RepairedGeometryWarning)
        return iaf.validate(pd.DataFrame(rows))


def three_annotators_on_few_items(seed: int, n_items: int, *, item: str = "i") -> pd.DataFrame:
    """Three annotators on ``n_items`` items, four shared objects per item (two classes),
    each box jittered (sd 5 px), left out (15 %) or relabelled (10 %): the crowd whose
    presence model cannot be identified (3 annotators an item, 2 free counts for 4
    parameters; :mod:`iaa_frames.decisions.presence`)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        objs = [(*rng.uniform(0, 300, 2), *rng.uniform(20, 100, 2), rng.integers(2))
                for _ in range(4)]  # fmt: skip
        for a in ("a", "b", "c"):
            for x, y, w, h, lab in objs:
                if rng.random() < 0.15:
                    continue
                j = rng.normal(0, 5, 4)
                lab = lab if rng.random() > 0.1 else rng.integers(2)
                rows.append((f"{item}{i}", a, ["cat", "dog"][lab], x + j[0], y + j[1],
                             x + w + j[2], y + h + j[3]))  # fmt: skip
    columns = ["item", "annotator", "label", "x0", "y0", "x1", "y1"]
    return pd.DataFrame(rows, columns=columns).assign(width=500.0, height=500.0)


def rare_class_drawn_alike(n_items: int = 5, seed: int = 3) -> pd.DataFrame:
    """Two good annotators on 40 simulated items, and a class ``zebra`` on the first
    ``n_items`` of them: one tiny box per item, drawn alike by both, where nothing else is
    (no chance pair of its own: its chance rate is the pooled one)."""
    df = iaf.simulate(n_items=40, annotators={"a": "good", "b": "good"}, seed=seed)
    items = sorted(df["item"].unique())[:n_items]
    zebras = pd.DataFrame(
        [
            {"item": it, "annotator": ann, "label": "zebra"}
            | {"x0": 20.0 + 30 * i, "y0": 2.0, "x1": 26.0 + 30 * i, "y1": 8.0}
            for i, it in enumerate(items)
            for ann in ("a", "b")
        ]
    )
    full = pd.concat([df.drop(columns="object_id"), zebras], ignore_index=True)
    full[["width", "height"]] = full.groupby("item")[["width", "height"]].transform("first")
    return full
