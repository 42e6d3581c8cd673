"""A crowd of box workers with their own biases, written independently of ``iaf.simulate``.

Numpy only (no code of the package), and not the generator of ``independent_crowd``
either: it is there to check how matched boxes are fused. Three classes, each with its
own region of the 800 x 600 image and its own sizes and shapes (small wide objects in the
upper third, large tall ones in the lower half, medium square ones anywhere); 1 +
Poisson(4) objects per image. Every worker has a recall ``Beta(8, 2)``, a noise ``sd``
per coordinate (over the box's size) and a systematic bias of each of its four edges
(``N(0, 0.03)``, plus a common margin: some workers draw loose boxes, some tight); 60 %
are careful (``sd ~ U(0.02, 0.06)``), 25 % sloppy (``sd ~ U(0.06, 0.15)``, and now and
then a gross error: Student-t errors with 2 degrees of freedom), 15 % biased (margin
``U(0.05, 0.15)`` of the box's size outwards, or inwards). A worker draws a true box with
probability ``recall ** (1 + small)``, adds Poisson(0.2) random boxes, and confuses a
label with probability 0.05. Each image gets 2 to 5 workers, drawn with probability
proportional to a log-normal(0, 1) activity (a sparse crowd).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

W, H = 800.0, 600.0
#: class -> (region x0, y0, x1, y1 of the centre, log size mean, log size sd, log aspect)
CLASSES = {
    "c0": ((0.0, 0.0, 1.0, 0.33), np.log(35), 0.3, 0.6),
    "c1": ((0.0, 0.5, 1.0, 1.0), np.log(140), 0.3, -0.5),
    "c2": ((0.0, 0.0, 1.0, 1.0), np.log(70), 0.4, 0.0),
}


def _truth(rng, n_items):
    k = 1 + rng.poisson(4, n_items)
    item = np.repeat(np.arange(n_items), k)
    names = list(CLASSES)
    cls = rng.integers(0, len(names), len(item))
    reg = np.array([CLASSES[n][0] for n in names])[cls]
    mu, sd, asp = (np.array([CLASSES[n][j] for n in names])[cls] for j in (1, 2, 3))
    size = np.exp(rng.normal(mu, sd))
    aspect = np.exp(asp + rng.normal(0, 0.15, len(item)))
    w, h = np.minimum(size * aspect, W - 2), np.minimum(size / aspect, H - 2)
    cx = rng.uniform(reg[:, 0], reg[:, 2]) * W
    cy = rng.uniform(reg[:, 1], reg[:, 3]) * H
    x0 = np.clip(cx - w / 2, 0, W - w)
    y0 = np.clip(cy - h / 2, 0, H - h)
    small = (w * h < np.quantile(w * h, 0.25)).astype(float)
    return pd.DataFrame({"item": item, "x0": x0, "y0": y0, "x1": x0 + w, "y1": y0 + h,
                         "cls": cls, "small": small})  # fmt: skip


def workers_of(seed: int, n_workers: int) -> pd.DataFrame:
    """The workers' parameters (module docstring), seeded."""
    rng = np.random.default_rng([seed, 47])
    kind = rng.choice(["careful", "sloppy", "biased"], n_workers, p=[0.6, 0.25, 0.15])
    sd = np.where(kind == "sloppy", rng.uniform(0.06, 0.15, n_workers),
                  rng.uniform(0.02, 0.06, n_workers))  # fmt: skip
    margin = rng.normal(0.0, 0.02, n_workers)
    big = rng.uniform(0.05, 0.15, n_workers) * rng.choice([1.0, -0.6], n_workers)
    margin = np.where(kind == "biased", big, margin)
    edges = rng.normal(0.0, 0.03, (n_workers, 4))
    return pd.DataFrame(
        {"kind": kind, "recall": rng.beta(8, 2, n_workers), "sd": sd, "margin": margin,
         "b0": edges[:, 0], "b1": edges[:, 1], "b2": edges[:, 2], "b3": edges[:, 3]},
        index=[f"w{k:03d}" for k in range(n_workers)],
    )  # fmt: skip


def crowd(seed: int, n_items: int = 200, n_workers: int = 120, per_item=(2, 5)):
    """``(crowd, truth, workers)``: tidy frames of the crowd and of the truth (annotator
    ``"truth"``), and the workers' parameters."""
    rng = np.random.default_rng([seed, 46])
    workers = workers_of(seed, n_workers)
    truth = _truth(rng, n_items)
    names = np.asarray(workers.index)
    activity = rng.lognormal(0, 1.0, n_workers)
    activity /= activity.sum()
    by_item = dict(tuple(truth.groupby("item")))
    rows = []
    for it in range(n_items):
        k = int(rng.integers(per_item[0], per_item[1] + 1))
        for wk in rng.choice(names, k, replace=False, p=activity):
            p = workers.loc[wk]
            t = by_item.get(it)
            keep = rng.random(len(t)) < p["recall"] ** (1 + t["small"].to_numpy())
            t = t[keep]
            box = t[["x0", "y0", "x1", "y1"]].to_numpy()
            size = np.column_stack([box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]])[:, [0, 1, 0, 1]]
            if p["kind"] == "sloppy":
                e = rng.standard_t(2, box.shape) * p["sd"]
            else:
                e = rng.normal(0, p["sd"], box.shape)
            bias = p[["b0", "b1", "b2", "b3"]].to_numpy(float) + p["margin"] * np.array(
                [-1.0, -1.0, 1.0, 1.0]
            )
            box = box + (e + bias) * size
            cls = t["cls"].to_numpy()
            wrong = rng.random(len(cls)) < 0.05
            cls = np.where(wrong, (cls + rng.integers(1, 3, len(cls))) % 3, cls)
            nf = rng.poisson(0.2)
            s = np.exp(rng.normal(np.log(60), 0.5, nf))
            fx, fy = rng.uniform(0, W - s), rng.uniform(0, H - s)
            box = np.r_[box, np.column_stack([fx, fy, fx + s, fy + s])]
            cls = np.r_[cls, rng.integers(0, 3, nf)]
            lo = np.minimum(box[:, :2], box[:, 2:])
            hi = np.maximum(box[:, :2], box[:, 2:])
            lo, hi = np.clip(lo, 0, [W, H]), np.clip(hi, 0, [W, H])
            ok = ((hi - lo) > 1).all(axis=1)
            if not ok.any():
                rows.append({"item": it, "annotator": wk})
            for b0, b1, c in zip(lo[ok], hi[ok], cls[ok], strict=True):
                rows.append({"item": it, "annotator": wk, "label": f"c{int(c)}",
                             "x0": b0[0], "y0": b0[1], "x1": b1[0], "y1": b1[1]})  # fmt: skip
    ann = pd.DataFrame(rows)
    tr = truth.assign(annotator="truth", label=[f"c{int(c)}" for c in truth["cls"]])
    tr = tr.drop(columns=["small", "cls"])

    def finish(frame):
        frame = frame.assign(item=[f"it{int(i):04d}" for i in frame["item"]], width=W, height=H)
        return frame.reset_index(drop=True)

    return finish(ann), finish(tr), workers
