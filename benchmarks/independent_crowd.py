"""A crowd of box workers with known truth, written independently of ``iaf.simulate``.

Numpy only (no code of the package): every item holds 1 + Poisson(5) true boxes
(log-normal sizes, some small) on a 1000 x 800 image and has a difficulty ``d ~ U(0, 1)``;
every worker has a recall ``r ~ Beta(6, 2)``, a jitter ``s ~ U(0.02, 0.15)`` (sd of each
coordinate over the box's size) and a rate of false boxes ``f ~ Exponential(0.3)`` per
item; 5 % are spammers who draw 1 + Poisson(5) random boxes. A worker draws a true box
with probability ``r ** (1 + d + small)`` (``small`` is 1 for the smallest third of the
boxes: hard items and small objects are skipped more, by everyone, as in real crowds),
moves each coordinate by its jitter, and adds Poisson(f) random boxes. Each item gets 3
to 9 workers drawn with probability proportional to a log-normal(0, 1.5) activity (many
workers with one or two items, a few with many). The truth is returned as the frame of
annotator ``"truth"``; ``held_out`` items (annotated by every worker, not part of the
crowd) give each worker's quality on new items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

W, H = 1000.0, 800.0


def _truth(rng, n_items, n_classes=1):
    k = 1 + rng.poisson(5, n_items)
    item = np.repeat(np.arange(n_items), k)
    size = np.exp(rng.normal(np.log(60), 0.7, len(item)))
    aspect = np.exp(rng.normal(0, 0.4, len(item)))
    w, h = size * aspect, size / aspect
    x0 = rng.uniform(0, W - np.minimum(w, W - 1))
    y0 = rng.uniform(0, H - np.minimum(h, H - 1))
    small = (size < np.quantile(size, 1 / 3)).astype(float)
    share = np.sort(rng.dirichlet(np.full(n_classes, 2.0)))[::-1]
    label = rng.choice(n_classes, len(item), p=share)
    return pd.DataFrame(
        {"item": item, "x0": x0, "y0": y0, "x1": x0 + w, "y1": y0 + h, "small": small,
         "cls": label}
    )  # fmt: skip


def _random_boxes(rng, n):
    size = np.exp(rng.normal(np.log(60), 0.7, n))
    x0, y0 = rng.uniform(0, W - size), rng.uniform(0, H - size)
    return x0, y0, x0 + size, y0 + size


def _draw(rng, truth, difficulty, pairs, workers, n_classes=1):
    """Annotations of the (item, worker) ``pairs``."""
    out = []
    by_item = dict(tuple(truth.groupby("item")))
    params = workers.to_dict("index")
    for it, wk in pairs:
        p = params[wk]
        if p["spammer"]:
            n = 1 + rng.poisson(5)
            x0, y0, x1, y1 = _random_boxes(rng, n)
            cls = rng.integers(0, n_classes, n)
        else:
            t = by_item.get(it)
            x0 = y0 = x1 = y1 = np.zeros(0)
            cls = np.zeros(0, np.int64)
            if t is not None:
                keep = rng.random(len(t)) < p["recall"] ** (
                    1 + difficulty[it] + t["small"].to_numpy()
                )
                t = t[keep]
                bw = (t["x1"] - t["x0"]).to_numpy()
                bh = (t["y1"] - t["y0"]).to_numpy()
                e = rng.normal(0, p["jitter"], (len(t), 4))
                x0 = t["x0"].to_numpy() + e[:, 0] * bw
                x1 = t["x1"].to_numpy() + e[:, 1] * bw
                y0 = t["y0"].to_numpy() + e[:, 2] * bh
                y1 = t["y1"].to_numpy() + e[:, 3] * bh
                cls = t["cls"].to_numpy()
                if n_classes > 1:  # a confused label is another class at random
                    wrong = rng.random(len(cls)) < p["confusion"]
                    shift = rng.integers(1, n_classes, len(cls))
                    cls = np.where(wrong, (cls + shift) % n_classes, cls)
            nf = rng.poisson(p["false"])
            fx0, fy0, fx1, fy1 = _random_boxes(rng, nf)
            x0, y0 = np.r_[x0, fx0], np.r_[y0, fy0]
            x1, y1 = np.r_[x1, fx1], np.r_[y1, fy1]
            cls = np.r_[cls, rng.integers(0, n_classes, nf)]
        lo_x, hi_x = np.minimum(x0, x1), np.maximum(x0, x1)
        lo_y, hi_y = np.minimum(y0, y1), np.maximum(y0, y1)
        ok = (hi_x - lo_x > 1) & (hi_y - lo_y > 1)
        if not ok.any():  # a coverage row: the worker saw the item and drew nothing
            out.append((it, wk, [None], np.full((1, 4), np.nan)))
            continue
        names = np.array([f"c{int(c)}" for c in cls[ok]], dtype=object)
        out.append((it, wk, names, np.column_stack([lo_x, lo_y, hi_x, hi_y])[ok]))
    n = [len(o[3]) for o in out]
    coords = np.concatenate([o[3] for o in out])
    return pd.DataFrame(
        {
            "item": np.repeat([o[0] for o in out], n),
            "annotator": np.repeat([o[1] for o in out], n),
            "label": np.concatenate([np.asarray(o[2], dtype=object) for o in out]),
            "x0": coords[:, 0], "y0": coords[:, 1], "x1": coords[:, 2], "y1": coords[:, 3],
        }
    )  # fmt: skip


def workers_of(seed: int, n_workers: int) -> pd.DataFrame:
    """The workers' parameters (module docstring), seeded."""
    rng = np.random.default_rng([seed, 44])
    return pd.DataFrame(
        {
            "recall": rng.beta(6, 2, n_workers),
            "jitter": rng.uniform(0.02, 0.15, n_workers),
            "false": rng.exponential(0.3, n_workers),
            "confusion": rng.uniform(0.0, 0.3, n_workers),
            "spammer": rng.random(n_workers) < 0.05,
        },
        index=[f"w{k:03d}" for k in range(n_workers)],
    )


def crowd(
    seed: int,
    n_items: int = 200,
    n_workers: int = 150,
    held_out: int = 30,
    *,
    per_item=(3, 9),
    activity_sd: float = 1.5,
    n_classes: int = 1,
    workers: pd.DataFrame | None = None,
):
    """``(crowd, truth, held_crowd, held_truth, workers)``: tidy frames of the crowd and
    of the truth on its items, the same on ``held_out`` items that every worker
    annotated, and the workers' parameters (``workers`` given: that population, with
    items and draws of ``seed``). ``per_item``: the fewest and most workers of an item;
    ``n_classes``: classes of the objects (a worker confuses a label with probability
    ``confusion ~ U(0, 0.3)``)."""
    rng = np.random.default_rng([seed, 43])
    if workers is None:
        workers = workers_of(seed, n_workers)
    names = list(workers.index)
    n_workers = len(names)
    total = n_items + held_out
    truth = _truth(rng, total, n_classes)
    difficulty = rng.uniform(0, 1, total)
    activity = rng.lognormal(0, activity_sd, n_workers)
    activity /= activity.sum()
    pairs = [
        (it, w)
        for it in range(n_items)
        for w in rng.choice(
            names, int(rng.integers(per_item[0], per_item[1] + 1)), replace=False, p=activity
        )
    ]
    if held_out:
        idle = sorted(set(names) - {w for _, w in pairs})  # everyone annotated something
        pairs += [(int(rng.integers(0, n_items)), w) for w in idle]
    pairs = sorted(set(pairs))
    held_pairs = [(it, w) for it in range(n_items, total) for w in names]
    ann = _draw(rng, truth, difficulty, pairs, workers, n_classes)
    held = _draw(rng, truth, difficulty, held_pairs, workers, n_classes) if held_out else None

    def finish(frame):
        frame = frame.assign(item=[f"it{int(i):04d}" for i in frame["item"]], width=W, height=H)
        return frame.reset_index(drop=True)

    tr = truth.assign(annotator="truth", label=[f"c{int(c)}" for c in truth["cls"]])
    tr = tr.drop(columns=["small", "cls"])
    return (
        finish(ann),
        finish(tr[tr["item"] < n_items]),
        finish(held) if held is not None else None,
        finish(tr[tr["item"] >= n_items]),
        workers,
    )
