"""Write the sample Potato project (``iaa_frames/samples/potato``) from Potato's storage
layout, and the truth it was drawn from.

Run ``python tests/support/potato_project.py`` to regenerate the packaged sample;
``tests/io/test_potato.py`` checks that a fresh run
writes the same files.

The project: 40 street images, 3 annotators (``ana`` and ``ben``, people; ``detector``, a
tool declared in the config's ``machine_annotators`` and stamped in its state's
``origin``), one ``image_annotation`` scheme ``objects`` (car, person, bicycle) with an
``occluded`` attribute. The objects are boxes, polygons and a few brush masks (row-major
RLE); some images are saved with nothing drawn (``"[]"``); every save has its session and
its annotation changes, over three weeks (``ben`` grows sloppier in the last one). The
data file gives the image sizes except for two images whose size comes from their masks.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np

LABELS = ("car", "person", "bicycle")
SIZES = ((640, 480), (800, 600), (1024, 768))
N_IMAGES = 40
START = 1_767_225_600  # 2026-01-01 00:00 UTC, Unix seconds
DAY = 86_400
#: annotator -> (jitter as a share of the object's size, miss rate, false-positive rate,
#: label confusion, images saved empty by mistake)
PROFILES = {
    "ana": (0.03, 0.05, 0.05, 0.02),
    "ben": (0.08, 0.15, 0.10, 0.08),
    "detector": (0.05, 0.10, 0.20, 0.05),
}
ORIGINS = {
    "ana": {},
    "ben": {},
    "detector": {
        "kind": "tool",
        "id": "detector",
        "declared_in": "config",
        "tool": "yolo-street",
        "version": "2.1",
        "recorded_at": "2026-01-01T00:00:00+00:00",
    },
}
CONFIG = """\
annotation_task_name: Street objects (iaa_frames sample)
task_dir: .
output_annotation_dir: annotation_output/
data_files:
  - data/images.jsonl
item_properties:
  id_key: id
  text_key: image
annotation_schemes:
  - annotation_type: image_annotation
    name: objects
    description: Box, outline or paint every car, person and bicycle.
    tools: [bbox, polygon, brush]
    labels: [car, person, bicycle]
    attributes:
      - name: occluded
        type: boolean
machine_annotators:
  enabled: true
  annotators:
    - id: detector
      kind: tool
      tool: yolo-street
      version: "2.1"
"""


def rle_row_major(mask: np.ndarray) -> list[int]:
    """Run lengths of a boolean mask, row-major, background first."""
    flat = mask.ravel().astype(np.int8)
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate([[0], change, [flat.size]])
    runs = np.diff(bounds).tolist()
    return runs if flat[0] == 0 else [0] + runs


def ellipse_mask(w, h, cx, cy, rx, ry) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    return ((x + 0.5 - cx) / rx) ** 2 + ((y + 0.5 - cy) / ry) ** 2 <= 1.0


def truth(rng):
    """[(image id, (w, h), [(kind, label, cx, cy, bw, bh), ...])] in pixels."""
    out = []
    for i in range(N_IMAGES):
        w, h = SIZES[i % 3]
        objects = []
        n = 0 if i == 39 else int(rng.integers(1, 5))
        for k in range(n):
            bw, bh = rng.uniform(0.1, 0.35) * w, rng.uniform(0.1, 0.35) * h
            cx, cy = rng.uniform(bw / 2, w - bw / 2), rng.uniform(bh / 2, h - bh / 2)
            kind = "mask" if (i % 5 == 2 and k == 0) else ("box", "polygon")[int(rng.integers(2))]
            objects.append((kind, LABELS[int(rng.integers(3))], cx, cy, bw, bh))
        out.append((f"img_{i:03d}", (w, h), objects))
    return out


def _polygon(rng, cx, cy, bw, bh, n=8):
    step = 2 * math.pi / n
    a = np.arange(n) * step + rng.uniform(-0.25, 0.25, n) * step
    r = rng.uniform(0.7, 1.0, n)
    return np.column_stack([cx + r * np.cos(a) * bw / 2, cy + r * np.sin(a) * bh / 2])


def draw(rng, kind, label, cx, cy, bw, bh, w, h, jitter, confusion, occluded):
    """One annotator's shape of a true object, in Potato's stored form."""
    cx += rng.normal(0, jitter) * bw
    cy += rng.normal(0, jitter) * bh
    bw *= math.exp(rng.normal(0, jitter))
    bh *= math.exp(rng.normal(0, jitter))
    if rng.random() < confusion:
        label = LABELS[(LABELS.index(label) + 1) % 3]
    shape = {"type": {"box": "bbox"}.get(kind, kind), "label": label, "color": "#4e79a7"}
    if kind == "box":
        x0, y0 = max(cx - bw / 2, 0), max(cy - bh / 2, 0)
        x1, y1 = min(cx + bw / 2, w), min(cy + bh / 2, h)
        shape["coordinates"] = {
            "x": round(x0 / w, 6),
            "y": round(y0 / h, 6),
            "width": round((x1 - x0) / w, 6),
            "height": round((y1 - y0) / h, 6),
        }
    elif kind == "polygon":
        pts = _polygon(rng, cx, cy, bw, bh)
        shape["coordinates"] = [
            {"x": round(float(x) / w, 6), "y": round(float(y) / h, 6)} for x, y in pts
        ]
    else:
        mask = ellipse_mask(w, h, cx, cy, bw / 2, bh / 2)
        shape["rle"] = {"counts": rle_row_major(mask), "size": [h, w]}
    shape["source"] = "human"
    shape["attributes"] = {"occluded": bool(occluded)}
    return shape


def annotations(seed: int = 2026):
    """{annotator: {item: (shapes, time of the save)}}, the truth and the image sizes."""
    rng = np.random.default_rng(seed)
    images = truth(rng)
    out = {a: {} for a in PROFILES}
    for a, (jitter, miss, fp, confusion) in PROFILES.items():
        for i, (item, (w, h), objects) in enumerate(images):
            t = START + (i * 21 * DAY) // N_IMAGES + int(rng.integers(600, 7200))
            late = i >= 27  # the third week
            j = jitter * (3 if a == "ben" and late else 1)
            if a == "ben" and i in (5, 17):  # saved without drawing
                out[a][item] = ([], t)
                continue
            shapes = []
            for kind, label, cx, cy, bw, bh in objects:
                if rng.random() < miss:
                    continue
                if a == "detector" and kind == "mask":
                    kind = "box"  # the tool draws boxes only
                occluded = rng.random() < 0.3
                shapes.append(draw(rng, kind, label, cx, cy, bw, bh, w, h, j, confusion, occluded))
            if rng.random() < fp:
                bw, bh = rng.uniform(0.05, 0.2) * w, rng.uniform(0.05, 0.2) * h
                cx, cy = rng.uniform(bw, w - bw), rng.uniform(bh, h - bh)
                label = LABELS[int(rng.integers(3))]
                shapes.append(draw(rng, "box", label, cx, cy, bw, bh, w, h, j, 0, False))
            if a == "detector":
                for s in shapes:
                    s["source"] = "ai"
                    s["confidence"] = round(float(rng.uniform(0.4, 0.99)), 3)
            out[a][item] = (shapes, t)
    return out, images


def state(user: str, items: dict) -> dict:
    """A ``user_state.json`` as Potato's ``InMemoryUserState.to_json`` writes it (the keys
    this sample needs; the others empty)."""
    labels, behavior = {}, {}
    for item, (shapes, t) in items.items():
        labels[item] = [[{"schema": "objects", "name": "_data"}, json.dumps(shapes)]]
        behavior[item] = {
            "instance_id": item,
            "session_start": float(t - 95),
            "session_end": float(t + 4),
            "total_time_ms": 99_000,
            "interactions": [],
            "ai_usage": [],
            "annotation_changes": [
                {"timestamp": float(t - 60 + 10 * k), "schema_name": "objects",
                 "label_name": "_data", "action": "update", "source": "user"}
                for k in range(len(shapes))
            ] or [{"timestamp": float(t), "schema_name": "objects", "label_name": "_data",
                   "action": "update", "source": "user"}],
        }  # fmt: skip
    return {
        "user_id": user,
        "instance_id_ordering": list(items),
        "current_instance_index": len(items) - 1,
        "current_phase_and_page": ["annotation", "annotation"],
        "completed_phase_and_pages": [],
        "max_assignments": -1,
        "instance_id_to_behavioral_data": behavior,
        "instance_id_to_label_to_value": labels,
        "instance_id_to_span_to_value": {},
        "phase_to_page_to_label_to_value": {},
        "phase_to_page_to_span_to_value": {},
        "origin": ORIGINS[user],
    }


def write(root: Path, seed: int = 2026) -> Path:
    """Write the project under ``root`` (replaced); return it."""
    if root.exists():
        shutil.rmtree(root)
    (root / "data").mkdir(parents=True)
    anns, images = annotations(seed)
    (root / "config.yaml").write_text(CONFIG)
    with open(root / "data" / "images.jsonl", "w") as fh:
        for i, (item, (w, h), _objects) in enumerate(images):
            rec = {"id": item, "image": f"images/{item}.jpg"}
            if i not in (2, 7):  # img_002 and img_007: sized by their masks
                rec.update(image_width=w, image_height=h)
            fh.write(json.dumps(rec) + "\n")
    for user, items in anns.items():
        d = root / "annotation_output" / user
        d.mkdir(parents=True)
        with open(d / "user_state.json", "w") as fh:
            json.dump(state(user, items), fh, indent=2)
    export = root / "annotation_output" / "exports" / "jsonl"
    export.mkdir(parents=True)
    with open(export / "annotations.jsonl", "w") as fh:
        for user, items in anns.items():
            for item, (shapes, _t) in items.items():
                rec = {"instance_id": item, "user_id": user}
                rec["annotator_origin"] = ORIGINS[user] or {"kind": "human"}
                rec.update(labels={"objects": {"_data": json.dumps(shapes)}}, spans={}, links={})
                fh.write(json.dumps(rec) + "\n")
    return root


def write_two_schemes(root: Path, seed: int = 2026) -> Path:
    """The project of :func:`write` with a second ``image_annotation`` scheme, ``regions``
    (road and sky boxes, a little apart from one annotator to the next), drawn by every
    annotator on every image they saved; return it."""
    root = write(root, seed)
    config = root / "config.yaml"
    second = (
        "  - annotation_type: image_annotation\n    name: regions\n"
        "    tools: [bbox]\n    labels: [road, sky]\n"
    )
    config.write_text(
        config.read_text().replace("annotation_schemes:\n", "annotation_schemes:\n" + second, 1)
    )
    for k, user in enumerate(PROFILES):
        path = root / "annotation_output" / user / "user_state.json"
        st = json.loads(path.read_text())
        for i, pairs in enumerate(st["instance_id_to_label_to_value"].values()):
            label = "sky" if (i + k) % 7 == 0 else "road"
            x, w = 0.1 + 0.01 * ((i + k) % 3), 0.6 + 0.02 * k
            coords = {"x": x, "y": 0.5 - 0.4 * (label == "sky"), "width": w, "height": 0.4}
            shapes = [{"type": "bbox", "label": label, "coordinates": coords}]
            pairs.append([{"schema": "regions", "name": "_data"}, json.dumps(shapes)])
        path.write_text(json.dumps(st, indent=2))
    return root


if __name__ == "__main__":
    repo = Path(__file__).resolve().parents[2]
    target = repo / "iaa_frames" / "samples" / "potato"
    write(target)
    print("wrote", target)
