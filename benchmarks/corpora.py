"""Corpora shaped like real projects, for the benchmarks and the chance-baseline study.

* :func:`lvis_like`: hundreds of classes with a long-tailed (Zipf) frequency, small
  objects (LVIS: most instances cover well under 1 % of the image), detailed polygons,
  two raters, the second a noisy redraw of the first with misses and a few label slips.
* :func:`crowd`: many workers with a handful of images each (crowdsourcing).
* :func:`traces`: two annotators tracing the same contour with many vertices.
* :func:`corner_corpus`, :func:`cooccurring_corpus`, :func:`counting_corpus`: the class
  structures that biased per-class and pooled cells (a class with its own position and
  size prior, a large class on the same items for everyone, random drawers who know the
  count), every annotator placing objects at random given the class.

All take a ``seed`` and return a tidy frame; :func:`to_coco_raters` writes one COCO file
with ``images[].rater_list`` and ``annotations[].rater`` (the layout kalphacv reads).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import shapely

import iaa_frames as iaf


def _star(rng, cx, cy, rx, ry, k):
    """Star-shaped polygons (one per row) with ``k`` vertices each."""
    n = len(cx)
    angle = np.sort(rng.uniform(0, 2 * np.pi, (n, k)), axis=1)
    radius = rng.uniform(0.6, 1.0, (n, k))
    x = cx[:, None] + rx[:, None] * radius * np.cos(angle)
    y = cy[:, None] + ry[:, None] * radius * np.sin(angle)
    coords = np.stack([x, y], axis=-1)
    return shapely.polygons(coords)


def lvis_like(
    *,
    n_images=200,
    n_classes=274,
    objects_per_image=9.5,
    vertices=24,
    jitter=0.04,
    miss=0.08,
    slip=0.05,
    seed=0,
) -> pd.DataFrame:
    """Two raters of a long-tailed, small-object polygon corpus (LVIS-shaped).

    Object sides are log-uniform between 1 % and 25 % of the image side; classes follow
    a Zipf law (exponent 1.1). Rater ``r2`` redraws each of ``r1``'s objects with vertex
    jitter ``jitter`` (fraction of the object size), misses ``miss`` of them and gives
    ``slip`` of them another class.
    """
    rng = np.random.default_rng(seed)
    W = rng.choice([640, 800, 1024], n_images)
    H = rng.choice([480, 600, 768], n_images)
    n = rng.poisson(objects_per_image, n_images)
    item = np.repeat(np.arange(n_images), n)
    m = len(item)
    p = 1.0 / np.arange(1, n_classes + 1) ** 1.1
    label = rng.choice(n_classes, m, p=p / p.sum())
    side = np.exp(rng.uniform(np.log(0.01), np.log(0.25), m))
    aspect = np.exp(rng.normal(0, 0.4, m))
    rx = side * np.sqrt(aspect) / 2 * W[item]
    ry = side / np.sqrt(aspect) / 2 * H[item]
    cx = rng.uniform(rx, W[item] - rx)
    cy = rng.uniform(ry, H[item] - ry)
    truth = _star(rng, cx, cy, rx, ry, vertices)
    # rater 2: jittered vertices, misses, label slips
    coords = shapely.get_coordinates(truth).reshape(m, vertices + 1, 2)
    scale = np.column_stack([rx, ry])[:, None, :]
    noisy = coords + rng.normal(0, jitter, coords.shape) * 2 * scale
    noisy[:, -1] = noisy[:, 0]
    redraw = shapely.make_valid(shapely.polygons(noisy))
    keep = rng.random(m) >= miss
    label2 = np.where(rng.random(m) < slip, rng.choice(n_classes, m, p=p / p.sum()), label)
    names = np.array([f"class_{c:03d}" for c in range(n_classes)], dtype=object)
    rows = []
    for rater, geom, lab, sel in (
        ("r1", truth, label, np.ones(m, bool)),
        ("r2", redraw, label2, keep),
    ):
        rows.append(
            pd.DataFrame(
                {
                    "item": [f"img_{i:05d}" for i in item[sel]],
                    "annotator": rater,
                    "label": names[lab[sel]],
                    "geometry": geom[sel],
                    "width": W[item[sel]].astype(float),
                    "height": H[item[sel]].astype(float),
                }
            )
        )
        # coverage: every image reviewed by both raters
        rows.append(
            pd.DataFrame(
                {
                    "item": [f"img_{i:05d}" for i in range(n_images)],
                    "annotator": rater,
                    "label": None,
                    "geometry": None,
                    "width": W.astype(float),
                    "height": H.astype(float),
                }
            )
        )
    df = pd.concat(rows, ignore_index=True)
    # polygons of type GeometryCollection after make_valid: keep their polygonal part
    df["geometry"] = [
        g
        if g is None or g.geom_type in ("Polygon", "MultiPolygon")
        else shapely.union_all(
            [p for p in getattr(g, "geoms", []) if p.geom_type in ("Polygon", "MultiPolygon")]
        )
        for g in df["geometry"]
    ]
    return iaf.validate(df)


def crowd(
    *, n_items=200, n_workers=100, per_item=5, objects=3, jitter_px=5.0, seed=0
) -> pd.DataFrame:
    """Crowdsourced boxes: ``per_item`` of ``n_workers`` workers on each item, each
    redrawing the same ``objects`` true boxes with Gaussian corner noise (pixels)."""
    rng = np.random.default_rng(seed)
    W, H = 640.0, 480.0
    t = np.repeat(np.arange(n_items), objects)
    w = rng.uniform(40, 200, len(t))
    h = rng.uniform(40, 200, len(t))
    x0 = rng.uniform(0, W - w)
    y0 = rng.uniform(0, H - h)
    workers = np.stack([rng.choice(n_workers, per_item, replace=False) for _ in range(n_items)])
    rows = []
    for k in range(per_item):
        wk = workers[t, k]
        noise = rng.normal(0, jitter_px, (len(t), 4))
        rows.append(
            pd.DataFrame(
                {
                    "item": [f"img_{i:04d}" for i in t],
                    "annotator": [f"w{x:03d}" for x in wk],
                    "label": "object",
                    "x0": x0 + noise[:, 0],
                    "y0": y0 + noise[:, 1],
                    "x1": x0 + w + noise[:, 2],
                    "y1": y0 + h + noise[:, 3],
                    "width": W,
                    "height": H,
                }
            )
        )
    return iaf.validate(pd.concat(rows, ignore_index=True))


def traces(*, n_items=20, vertices=10_000, noise=0.002, seed=0) -> pd.DataFrame:
    """Two annotators tracing the same smooth contour with ``vertices`` vertices each
    (noise as a fraction of the object size): the worst case for an exact overlay."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        cx, cy, r = rng.uniform(300, 700), rng.uniform(300, 500), rng.uniform(80, 250)
        a = np.linspace(0, 2 * np.pi, vertices, endpoint=False)
        base = r * (1 + 0.2 * np.sin(3 * a + rng.uniform(0, 6)))
        for name in ("A", "B"):
            rr = base * (1 + rng.normal(0, noise, vertices))
            poly = shapely.make_valid(
                shapely.Polygon(np.column_stack([cx + rr * np.cos(a), cy + rr * np.sin(a)]))
            )
            rows.append(
                {
                    "item": f"img_{i:03d}",
                    "annotator": name,
                    "label": "organ",
                    "geometry": poly,
                    "width": 1000.0,
                    "height": 800.0,
                }
            )
    return iaf.validate(pd.DataFrame(rows))


def to_coco_raters(df: pd.DataFrame, path) -> None:
    """Write ``df`` (polygons) as one COCO file with rater keys (the layout of the LVIS
    double annotations, which kalphacv and KαLOS read: ``rater_list`` and ``rater_id``)."""
    obj = df[iaf.is_object(df)]
    items = sorted(df["item"].unique())
    image_id = {name: i + 1 for i, name in enumerate(items)}
    sizes = df.groupby("item")[["width", "height"]].first()
    raters = df.groupby("item")["annotator"].unique()
    classes = sorted(obj["label"].unique())
    cat = {c: i + 1 for i, c in enumerate(classes)}
    anns = []
    for k, row in enumerate(obj.itertuples(index=False)):
        g = row.geometry
        parts = list(g.geoms) if g.geom_type == "MultiPolygon" else [g]
        seg = [np.asarray(p.exterior.coords)[:-1].ravel().round(2).tolist() for p in parts]
        x0, y0, x1, y1 = g.bounds
        anns.append(
            {
                "id": k + 1,
                "image_id": image_id[row.item],
                "category_id": cat[row.label],
                "segmentation": seg,
                "area": float(g.area),
                "bbox": [x0, y0, x1 - x0, y1 - y0],
                "iscrowd": 0,
                "rater_id": row.annotator,
            }
        )
    data = {
        "images": [
            {
                "id": image_id[n],
                "file_name": f"{n}.jpg",
                "width": int(sizes.loc[n, "width"]),
                "height": int(sizes.loc[n, "height"]),
                "rater_list": sorted(raters[n].tolist()),
            }
            for n in items
        ],
        "annotations": anns,
        "categories": [{"id": cat[c], "name": c} for c in classes],
    }
    with open(path, "w") as f:
        json.dump(data, f)


def random_boxes(rng, n, lo=0.0, hi=1.0, smin=0.05, smax=0.3):
    """``n`` boxes (normalized x0, y0, x1, y1) with sides in [smin, smax] inside [lo, hi]."""
    w, h = rng.uniform(smin, smax, n), rng.uniform(smin, smax, n)
    x, y = rng.uniform(lo, hi - w), rng.uniform(lo, hi - h)
    return np.column_stack([x, y, x + w, y + h])


def structure_frame(rows):
    """Rows (item, annotator, label, normalized box) as a frame of 1000 x 1000 images."""
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "x0", "y0", "x1", "y1"])
    df[["x0", "y0", "x1", "y1"]] *= 1000
    return df.assign(width=1000, height=1000)


def corner_corpus(seed, mode, n_items=150, n_class_items=3, annotators=("a", "b", "c")):
    """Background boxes at random; class A tiny and in the top-left corner, in a few
    items; every annotator ignores the image: random boxes, A at random in its corner
    ("random") or on the annotator's own spot in every image ("spot")."""
    rng = np.random.default_rng(seed)
    rows = []
    with_a = set(rng.choice(n_items, n_class_items, replace=False).tolist())
    spot = {a: 0.01 + rng.uniform(0, 0.05, 2) for a in annotators}
    for i in range(n_items):
        n_bg = rng.integers(2, 6)
        for a in annotators:
            rows += [(f"i{i}", a, "bg", *bx) for bx in random_boxes(rng, n_bg)]
            if i in with_a:
                if mode == "random":
                    bx = random_boxes(rng, 1, 0.0, 0.12, 0.03, 0.05)[0]
                else:
                    s = spot[a] + rng.normal(0, 0.002, 2)
                    bx = [s[0], s[1], s[0] + 0.04, s[1] + 0.04]
                rows.append((f"i{i}", a, "A", *bx))
    return structure_frame(rows)


def cooccurring_corpus(seed, n_items=150, annotators=("a", "b", "c")):
    """Positions random given the class; a large class B drawn on the same 10 items by
    every annotator (they agree which images hold B, not where)."""
    rng = np.random.default_rng(seed)
    rows = []
    with_b = set(rng.choice(n_items, 10, replace=False).tolist())
    for i in range(n_items):
        n_bg = rng.integers(2, 6)
        for a in annotators:
            rows += [(f"i{i}", a, "bg", *bx) for bx in random_boxes(rng, n_bg)]
            if i in with_b:
                rows.append((f"i{i}", a, "B", *random_boxes(rng, 1, 0, 1, 0.6, 0.9)[0]))
    return structure_frame(rows)


def counting_corpus(seed, n_items=150, annotators=("a", "b", "c")):
    """Random drawers who know how many objects each item holds."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        n = rng.integers(1, 8)
        for a in annotators:
            rows += [(f"i{i}", a, "obj", *bx) for bx in random_boxes(rng, n)]
    return structure_frame(rows)
