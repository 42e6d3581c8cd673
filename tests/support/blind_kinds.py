"""Corpora of every kind with image-blind annotators, drawn the way real data is.

Classes in bands of their own and with sizes of their own (sky on top, road below, a sign on
the right), two look-alike classes (car and van: one region, near sizes) whose unrelated
objects match and disagree, items in groups of three near-duplicate frames (``group``),
objects drawn as boxes, polygons, COCO keypoints, polylines or cuboids. Two annotators
(``a``, ``b``) draw the item; image-blind ones (``x``, ``y``) draw the objects of another
image of the same kind, one outside the corpus (its objects jittered as the seers' are).

Why outside the corpus: a blind annotator who copies item ``k`` of the corpus onto item
``j`` has drawn item ``k`` truly, so the chance pairs (``a`` on ``k``, ``x`` on ``j``) hold
real matches and the blind annotator's expected agreement with the seers is below 0 (about
-0.1 on detection and overall with these classes and groups of three, its intervals
covering 0 in about 40 % of corpora): not a defect of the engine, a null that is not one.
"""

import numpy as np
import pandas as pd
import shapely

from iaa_frames.geometry.kinds import KEYPOINTS

__all__ = ["CLASSES", "COMPONENTS", "KINDS", "ROLES", "corpus"]

W, H = 1280.0, 720.0
COMPONENTS = ("detection", "classification", "localization", "overall")
KINDS = ("box", "polygon", "keypoints", "polyline", "cuboid")
#: class -> (centre x, centre y, spread x, spread y) and (width, height), fractions of the image
CLASSES = {
    "sky": ((0.5, 0.15, 0.05, 0.03), (0.5, 0.25)),
    "road": ((0.5, 0.85, 0.05, 0.03), (0.6, 0.25)),
    "car": ((0.5, 0.6, 0.06, 0.03), (0.15, 0.1)),
    "van": ((0.5, 0.6, 0.06, 0.03), (0.17, 0.12)),
    "sign": ((0.85, 0.35, 0.03, 0.03), (0.08, 0.08)),
}
#: COCO's 17 joints in a unit box (x right, y down)
SKELETON = np.array(
    [
        [0.5, 0.06], [0.55, 0.04], [0.45, 0.04], [0.6, 0.06], [0.4, 0.06],
        [0.7, 0.2], [0.3, 0.2], [0.8, 0.38], [0.2, 0.38], [0.85, 0.52], [0.15, 0.52],
        [0.62, 0.55], [0.38, 0.55], [0.63, 0.77], [0.37, 0.77], [0.64, 0.98], [0.36, 0.98],
    ]
)  # fmt: skip
ROLES = {"a": "expert", "b": "expert", "x": "crowd", "y": "crowd", "z": "crowd"}


def _scene(rng, n=(1, 4)):
    """Objects (label, centre x, centre y, width, height) in pixels, from the class priors."""
    names = list(CLASSES)
    out = []
    for _ in range(rng.integers(n[0], n[1] + 1)):
        label = names[rng.integers(len(names))]
        (cx, cy, sx, sy), (w, h) = CLASSES[label]
        f = np.exp(rng.normal(0, 0.2))
        x = float(np.clip(rng.normal(cx, sx), 0.05, 0.95) * W)
        y = float(np.clip(rng.normal(cy, sy), 0.05, 0.95) * H)
        out.append((label, x, y, w * W * f, h * H * f))
    return out


def _jitter(rng, objects, s):
    return [
        (lab, x + rng.normal(0, s) * w, y + rng.normal(0, s) * h, w, h)
        for lab, x, y, w, h in objects
    ]


def _render(kind, obj):
    """The columns of one object drawn as ``kind``."""
    _, cx, cy, w, h = obj
    if kind == "box":
        return {"x0": cx - w / 2, "y0": cy - h / 2, "x1": cx + w / 2, "y1": cy + h / 2}
    if kind == "polygon":
        t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.c_[cx + w / 2 * np.cos(t), cy + h / 2 * np.sin(t)]
        return {"geometry": shapely.Polygon(ring)}
    if kind == "keypoints":
        row = {}
        for j, joint in enumerate(KEYPOINTS.keypoints):
            row[f"kp_{joint}_x"] = cx + (SKELETON[j, 0] - 0.5) * w
            row[f"kp_{joint}_y"] = cy + (SKELETON[j, 1] - 0.5) * h
            row[f"kp_{joint}_v"] = 2.0
        row["kp_area"] = 0.6 * w * h
        return row
    if kind == "polyline":  # a gently bent line across the object, 8 vertices padded to 32
        t = np.linspace(0, 1, 8)
        xs = np.r_[cx - w / 2 + w * t, [cx + w / 2] * 24]
        ys = cy + h / 2 - h * t + 0.1 * h * np.sin(np.pi * t)
        ys = np.r_[ys, [ys[-1]] * 24]
        return {f"pl_{v}_{c}": p for v in range(32) for c, p in (("x", xs[v]), ("y", ys[v]))}
    if kind == "cuboid":  # metres: forward from the image column, lateral from the row
        return {
            "cuboid_x": cx / W * 60.0,
            "cuboid_y": (cy / H - 0.5) * 20.0,
            "cuboid_z": 0.8,
            "cuboid_length": w / W * 50.0,
            "cuboid_width": h / H * 25.0,
            "cuboid_height": 1.5,
            "cuboid_yaw": 0.0,
            "cuboid_pitch": 0.0,
            "cuboid_roll": 0.0,
        }
    raise ValueError(kind)


def corpus(
    seed, kind, *, n_items=30, group=3, seers=("a", "b"), blind=("x", "y"), copy=None, pool=None
):
    """``seers`` draw the item (jitter 3 % of the size, one object in ten left out);
    ``blind`` annotators copy an image of the same kind outside the corpus; ``copy``
    repeats the rows of one annotator as ``"copy"``. Items come in groups of ``group``
    near-duplicate frames (column ``group`` when ``group > 1``)."""
    rng = np.random.default_rng(seed)
    truth = []
    for i in range(n_items):
        fresh = i % group == 0
        truth.append(_scene(rng) if fresh else _jitter(rng, truth[-1], 0.01))
    pool = n_items if pool is None else pool
    elsewhere = [_scene(rng) for _ in range(pool)]
    rows = []
    for i in range(n_items):
        drawn = {ann: [o for o in _jitter(rng, truth[i], 0.03) if rng.random() >= 0.1]
                 for ann in seers}  # fmt: skip
        for ann in blind:
            drawn[ann] = _jitter(rng, elsewhere[rng.integers(pool)], 0.03)
        for ann, objects in drawn.items():
            for obj in objects:
                rows.append(dict(item=f"img{i:03d}", annotator=ann, label=obj[0]))
                rows[-1].update(_render(kind, obj))
    df = pd.DataFrame(rows)
    if group > 1:
        df["group"] = [f"seq{int(it[3:]) // group:02d}" for it in df["item"]]
    if kind != "cuboid":
        df["width"], df["height"] = W, H
    if copy is not None:
        df = pd.concat([df, df[df.annotator == copy].assign(annotator="copy")], ignore_index=True)
    return df
