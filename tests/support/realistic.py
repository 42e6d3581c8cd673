"""Corpora drawn the way real data is, independently of ``iaf.simulate``.

Classes have their own regions and sizes (sky on top, road below, trucks bigger than
cars), items hold few and small objects, and annotators follow one of a few profiles:

* ``"same"``: the item's true objects, as they are (identical annotators);
* ``"jitter:<s>"``: the true objects, each corner moved by a normal error of ``s`` times
  the object's size;
* ``"blind"``: objects drawn afresh from the class priors, as many as the item holds,
  without looking at the image (their labels follow the class priors too);
* ``"lazy"``: one box per class at the centre of the class's region, on every item.

Coordinates are pixels of a 1000 x 600 image.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

WIDTH, HEIGHT = 1000.0, 600.0

#: name -> (y band as fractions of the height, median width, median height as fractions
#: of the image, prior weight)
BANDS = {
    "sky": ((0.0, 0.3), 0.20, 0.12, 1.0),
    "car": ((0.55, 0.8), 0.06, 0.05, 1.0),
    "truck": ((0.55, 0.8), 0.14, 0.11, 0.5),
    "sign": ((0.3, 0.5), 0.03, 0.04, 0.7),
}


def _objects(rng, n, classes):
    names = list(classes)
    prior = np.array([classes[c][3] for c in names])
    label = rng.choice(len(names), size=n, p=prior / prior.sum())
    band = np.array([classes[names[k]][0] for k in label]).reshape(n, 2)
    w = np.minimum(
        np.array([classes[names[k]][1] for k in label]) * np.exp(rng.normal(0, 0.25, n)), 0.9
    )
    h = np.minimum(
        np.array([classes[names[k]][2] for k in label]) * np.exp(rng.normal(0, 0.25, n)), 0.9
    )
    cx = rng.uniform(w / 2, 1 - w / 2)
    cy = rng.uniform(band[:, 0], band[:, 1])
    box = np.column_stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
    return np.asarray(names, dtype=object)[label], box


def corpus(n_items, annotators, *, seed=0, objects=(1, 3), classes=None):
    """A tidy frame: ``annotators`` maps names to profiles (module docstring)."""
    classes = BANDS if classes is None else classes
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        n = int(rng.integers(objects[0], objects[1] + 1))
        labels, boxes = _objects(rng, n, classes)
        for name, profile in annotators.items():
            if profile == "same":
                lab, box = labels, boxes
            elif profile.startswith("jitter:"):
                s = float(profile.split(":")[1])
                size = np.repeat((boxes[:, 2:] - boxes[:, :2]), 2, axis=0).reshape(-1, 4)
                size = np.column_stack([size[:, 0], size[:, 1], size[:, 0], size[:, 1]])
                box = boxes + rng.normal(0, s, boxes.shape) * size
                box = np.column_stack(
                    [
                        np.minimum(box[:, 0], box[:, 2] - 1e-3),
                        np.minimum(box[:, 1], box[:, 3] - 1e-3),
                        box[:, 2],
                        box[:, 3],
                    ]
                )
                lab = labels
            elif profile == "blind":
                lab, box = _objects(rng, n, classes)
            elif profile == "lazy":
                names = list(classes)
                lab = np.asarray(names, dtype=object)
                box = np.array(
                    [
                        [
                            0.5 - classes[c][1] / 2,
                            np.mean(classes[c][0]) - classes[c][2] / 2,
                            0.5 + classes[c][1] / 2,
                            np.mean(classes[c][0]) + classes[c][2] / 2,
                        ]
                        for c in names
                    ]
                )
            else:
                raise ValueError(profile)
            box = np.clip(box, 0, 1)
            box[:, 2:] = np.maximum(box[:, 2:], np.minimum(box[:, :2] + 1e-3, 1))
            box[:, :2] = np.minimum(box[:, :2], box[:, 2:] - 1e-3)
            for k in range(len(lab)):
                rows.append(
                    (
                        f"img{i:04d}",
                        name,
                        lab[k],
                        box[k, 0] * WIDTH,
                        box[k, 1] * HEIGHT,
                        box[k, 2] * WIDTH,
                        box[k, 3] * HEIGHT,
                    )
                )
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "x0", "y0", "x1", "y1"])
    df["width"], df["height"] = WIDTH, HEIGHT
    return df
