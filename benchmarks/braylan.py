"""Braylan et al.'s crowdsourced boxes with gold, as tidy frames (for the benchmarks).

The data (``boundingbox_data.csv``, ``boundingbox_gold.json``; BSD 3-Clause, Copyright (c)
2019 Alex Braylan) is read from a directory given by the caller or by the environment
variable ``IAA_BRAYLAN``; it is not part of the project, and without either the benchmarks
that need it say so and skip. :func:`load` returns the crowd frame (annotators
``w<uid>``, one class ``"object"``; a worker who drew nothing keeps a coverage row) and
the gold frame (annotator ``"gold"``). Image sizes are not in the data: every image of
the frames gets the extent of all boxes drawn on it, crowd and gold.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

GOLD = "gold"


def data_dir(path=None) -> Path | None:
    """The directory of the data: ``path`` or ``$IAA_BRAYLAN``; None without either."""
    found = path or os.environ.get("IAA_BRAYLAN")
    return Path(found) if found else None


def available(path=None) -> bool:
    d = data_dir(path)
    return (
        d is not None
        and (d / "boundingbox_data.csv").is_file()
        and (d / "boundingbox_gold.json").is_file()
    )


def _rows(item, annotator, boxes):
    if not boxes:
        return [{"item": item, "annotator": annotator}]
    out = []
    for (x0, y0), (x1, y1) in boxes:
        out.append(
            {
                "item": item,
                "annotator": annotator,
                "label": "object",
                "x0": float(min(x0, x1)),
                "y0": float(min(y0, y1)),
                "x1": float(max(x0, x1)),
                "y1": float(max(y0, y1)),
            }
        )
    return out


def load(path=None):
    """``(crowd, gold)`` tidy frames of the Braylan boxes."""
    d = data_dir(path)
    if d is None:
        raise SystemExit(
            "Braylan et al.'s data is not shipped: name its directory with $IAA_BRAYLAN"
        )
    raw = pd.read_csv(d / "boundingbox_data.csv")
    gold_raw = json.loads((d / "boundingbox_gold.json").read_text())
    rows = []
    for uid, item, ann in zip(raw["uid"], raw["item"], raw["annotation"], strict=True):
        rows += _rows(f"i{item}", f"w{uid}", ast.literal_eval(ann))
    crowd = pd.DataFrame(rows)
    grows = []
    for item, boxes in gold_raw.items():
        grows += _rows(f"i{item}", GOLD, [ast.literal_eval(b) for b in boxes])
    gold = pd.DataFrame(grows)
    gold = gold[gold["item"].isin(crowd["item"].unique())]
    both = pd.concat([crowd, gold], ignore_index=True)
    ext = both.groupby("item")[["x1", "y1"]].max()
    w = np.ceil(ext["x1"].fillna(1.0)) + 1
    h = np.ceil(ext["y1"].fillna(1.0)) + 1
    for f in (crowd, gold):
        f["width"] = w.reindex(f["item"]).to_numpy()
        f["height"] = h.reindex(f["item"]).to_numpy()
    # zero-area boxes (a click without a drag) are degenerate: widen them to one pixel
    for f in (crowd, gold):
        f["x1"] = np.where(f["x1"] <= f["x0"], f["x0"] + 1.0, f["x1"])
        f["y1"] = np.where(f["y1"] <= f["y0"], f["y0"] + 1.0, f["y1"])
    return crowd.reset_index(drop=True), gold.reset_index(drop=True)
