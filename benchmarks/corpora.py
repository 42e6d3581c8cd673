"""Corpora shaped like real projects, for the benchmarks and the chance-baseline study.

* :func:`lvis_like`: the shapes of the real LVIS double annotations (:data:`LVIS`):
  hundreds of long-tailed classes that come in groups, small objects, polygons of 9 to
  hundreds of vertices, some of several parts; two raters, the second tracing the
  first's objects anew, with misses, extra objects and a few label slips.
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


#: Distributions of the real LVIS v1.0 val double annotations (the 200-image subset of
#: 3,521 polygons, LVIS annotations CC BY 4.0; measured on the file, which is not part of
#: the project): vertices per object median 21, 90th percentile 63, maximum 884
#: (log-normal, log mean 3.11, log sd 0.79); 394 objects (11.2 %) of several parts
#: (2: 240, 3: 97, 4: 32, 5+: 25); sqrt(object area / image area) log-normal (log mean
#: -3.05, log sd 1.10: median 0.043, 1st percentile 0.005, 99th 0.58); box aspect ratio
#: log sd 0.75; objects per image and rater mean 9.5, median 5, 90th percentile 21,
#: maximum 101; 274 classes, the count of the class of rank r about
#: exp(4.58 - (r / 24.6) ** 0.585) (102 for the first, 20 for the 50th, 64 classes of at
#: most 2 objects); an image holds 0.62 distinct classes per object (objects of one class
#: come together); images mostly 640 pixels wide, a quarter of them portrait; rater r2
#: drew 1 % more objects than r1.
LVIS = {
    "log_vertices": (3.11, 0.79),
    "multi_part": 0.112,
    "extra_part": 0.4,
    "log_size": (-3.05, 1.10),
    "log_aspect_sd": 0.75,
    "class_rank": (24.6, 0.585),
    "same_class": 0.5,
    "dispersion": 0.8,
}


def lvis_like(
    *,
    n_images=200,
    n_classes=274,
    objects_per_image=9.5,
    shapes="lvis",
    vertices=24,
    jitter=None,
    miss=0.08,
    extra=0.09,
    slip=0.05,
    seed=0,
) -> pd.DataFrame:
    """Two raters of a long-tailed, small-object polygon corpus (LVIS-shaped).

    ``shapes="lvis"`` (default) draws what the real LVIS double annotations hold
    (:data:`LVIS`): vertex counts, multi-part objects, object sizes and aspect ratios,
    objects per image, class frequencies; rater ``r2`` traces each of ``r1``'s objects
    anew (as many vertices as a tracing of its own draws, each on ``r1``'s outline and
    moved by ``jitter`` of the object's size, 0.025 by default: localization agreement
    about that of the real file), misses ``miss`` of them, adds ``extra``
    objects of its own and gives ``slip`` of them another class.

    ``shapes="stars"`` is the first generator, kept for the corpora it made (golden
    results): simple star polygons of ``vertices`` vertices, sides log-uniform between 1 %
    and 25 % of the image side, Poisson object counts, a Zipf law of exponent 1.1, and a
    redraw by vertex jitter (``jitter`` 0.04 by default; ``extra`` is not used).
    """
    rng = np.random.default_rng(seed)
    if shapes == "stars":
        W, H, item, lab1, truth, lab2, redraw, item2 = _stars(
            rng, n_images, n_classes, objects_per_image, vertices, jitter or 0.04, miss, slip
        )
    elif shapes == "lvis":
        W, H, item, lab1, truth, lab2, redraw, item2 = _lvis(
            rng, n_images, n_classes, objects_per_image, jitter or 0.025, miss, extra, slip
        )
    else:
        raise ValueError(f"shapes must be 'lvis' or 'stars', not {shapes!r}")
    names = np.array([f"class_{c:03d}" for c in range(n_classes)], dtype=object)
    rows = []
    for rater, geom, lab, at in (("r1", truth, lab1, item), ("r2", redraw, lab2, item2)):
        rows.append(
            pd.DataFrame(
                {
                    "item": [f"img_{i:05d}" for i in at],
                    "annotator": rater,
                    "label": names[lab],
                    "geometry": geom,
                    "width": W[at].astype(float),
                    "height": H[at].astype(float),
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


def _stars(rng, n_images, n_classes, objects_per_image, vertices, jitter, miss, slip):
    """The first generator's images, objects and redraw (``shapes="stars"``)."""
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
    return W, H, item, label, truth, label2[keep], redraw[keep], item[keep]


def _lvis(rng, n_images, n_classes, objects_per_image, jitter, miss, extra, slip):
    """Images, objects and the second tracing with the distributions of :data:`LVIS`."""
    portrait = rng.random(n_images) < 0.25
    short = rng.choice([480, 427, 428, 426, 425], n_images)
    W = np.where(portrait, short, 640)
    H = np.where(portrait, 640, short)
    scale, power = LVIS["class_rank"]
    freq = np.exp(-((np.arange(1, n_classes + 1) / scale) ** power))
    freq /= freq.sum()

    def objects(counts):
        """Each image's objects and classes: an object after the first repeats the class
        of an earlier object of its image (uniformly chosen) with probability
        ``same_class``, else draws one from ``freq``."""
        at = np.repeat(np.arange(n_images), counts)
        label = rng.choice(n_classes, len(at), p=freq)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        rank = np.arange(len(at)) - first
        copy = (rank > 0) & (rng.random(len(at)) < LVIS["same_class"])
        source = np.where(copy, first + np.floor(rng.random(len(at)) * rank).astype(np.int64), -1)
        source = np.where(copy, source, np.arange(len(at)))
        while (source != source[source]).any():  # follow the copies to a drawn class
            source = source[source]
        return at, label[source]

    r = LVIS["dispersion"]
    counts = 1 + rng.negative_binomial(r, r / (r + objects_per_image - 1), n_images)
    item, label = objects(counts)
    m = len(item)
    size = np.exp(rng.normal(*LVIS["log_size"], m)).clip(0.003, 0.7)
    aspect = np.exp(rng.normal(0, LVIS["log_aspect_sd"], m))
    # a star of radii U(0.6, 1) covers about 0.64 pi rx ry
    rxy = size**2 * W[item] * H[item] / (0.64 * np.pi)
    rx = np.minimum(np.sqrt(rxy * aspect), W[item] / 2)
    ry = np.minimum(np.sqrt(rxy / aspect), H[item] / 2)
    cx = rng.uniform(rx, W[item] - rx)
    cy = rng.uniform(ry, H[item] - ry)
    parts = np.where(
        rng.random(m) < LVIS["multi_part"], 2 + rng.geometric(1 - LVIS["extra_part"], m) - 1, 1
    )
    truth, outline, owner = _parted_stars(rng, cx, cy, rx, ry, parts)
    # rater 2: its own tracing of each outline, misses, extra objects, label slips
    keep = rng.random(m) >= miss
    part_keep = keep[owner]
    traced = _retrace(
        rng, outline[part_keep], owner[part_keep], np.flatnonzero(keep), rx, ry, jitter
    )
    label2 = np.where(rng.random(m) < slip, rng.choice(n_classes, m, p=freq), label)[keep]
    n_extra = rng.binomial(counts, extra)
    extra_item, extra_label = objects(n_extra)
    e = len(extra_item)
    esize = np.exp(rng.normal(*LVIS["log_size"], e)).clip(0.003, 0.7)
    erxy = esize**2 * W[extra_item] * H[extra_item] / (0.64 * np.pi)
    erx = np.minimum(np.sqrt(erxy), W[extra_item] / 2)
    ery = np.minimum(np.sqrt(erxy), H[extra_item] / 2)
    added, _, _ = _parted_stars(
        rng,
        rng.uniform(erx, W[extra_item] - erx),
        rng.uniform(ery, H[extra_item] - ery),
        erx,
        ery,
        np.ones(e, np.int64),
    )
    redraw = np.concatenate([traced, added])
    item2 = np.concatenate([item[keep], extra_item])
    return W, H, item, label, truth, np.concatenate([label2, extra_label]), redraw, item2


def _vertex_counts(rng, n, parts):
    """Vertices of each part: an object's count (log-normal, :data:`LVIS`) shared by its
    parts, at least 4 a part."""
    total = np.exp(rng.normal(*LVIS["log_vertices"], n)).round().clip(6, 900).astype(np.int64)
    return np.maximum(total // parts, 4)


def _rings(points, part):
    """Polygons of ring vertices ``points`` (grouped by ``part``, in order), one per part."""
    return shapely.polygons(shapely.linearrings(points, indices=part))


def _objects_of(polygons, owner, n):
    """One geometry per object from its parts: the part itself, or a MultiPolygon."""
    multi = shapely.multipolygons(polygons, indices=owner)
    single = np.bincount(owner, minlength=n) == 1
    out = multi.copy()
    out[single] = shapely.get_geometry(multi[single], 0)
    return out


def _parted_stars(rng, cx, cy, rx, ry, parts):
    """Objects of ``parts`` disjoint star-shaped parts side by side across the object's
    width, with :func:`_vertex_counts` vertices each.

    Returns
    -------
    objects : one (Multi)Polygon per object
    outline : each part's Polygon
    owner : the object of each part
    """
    n = len(cx)
    owner = np.repeat(np.arange(n), parts)
    k = np.repeat(_vertex_counts(rng, n, parts), parts)
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(parts) - parts, parts)
    prx = rx[owner] / parts[owner]
    pcx = cx[owner] + (2 * slot - parts[owner] + 1) * prx * 1.15
    prx = prx / 1.15
    part = np.repeat(np.arange(len(owner)), k)
    angle = rng.uniform(0, 2 * np.pi, len(part))
    angle = angle[np.lexsort((angle, part))]
    radius = rng.uniform(0.6, 1.0, len(part))
    points = np.column_stack(
        [
            pcx[part] + prx[part] * radius * np.cos(angle),
            cy[owner][part] + ry[owner][part] * radius * np.sin(angle),
        ]
    )
    outline = _rings(points, part)
    return _objects_of(outline, owner, n), outline, owner


def _retrace(rng, outline, owner, kept, rx, ry, jitter):
    """A second tracing of every part: points of its own count along the outline, moved by
    a smooth offset of ``jitter`` of the object's size (three random harmonics along the
    outline, so that the tracing stays a simple ring, as a hand's does), made valid; one
    geometry per kept object."""
    per_object = np.bincount(owner, minlength=len(rx))[kept]
    k = np.repeat(_vertex_counts(rng, len(kept), per_object), per_object)
    part = np.repeat(np.arange(len(outline)), k)
    start = rng.random(len(outline))  # where the tracing begins on the outline
    step = np.arange(len(part)) - np.repeat(np.cumsum(k) - k, k)
    at = (start[part] + step / k[part]) % 1.0
    points = shapely.get_coordinates(
        shapely.line_interpolate_point(
            shapely.get_exterior_ring(outline)[part], at, normalized=True
        )
    )
    scale = np.column_stack([rx[owner], ry[owner]])[part]
    harmonic = np.arange(1, 4)
    amplitude = rng.normal(0, jitter, (len(outline), 2, 3)) / harmonic
    phase = rng.uniform(0, 2 * np.pi, (len(outline), 2, 3))
    wave = np.cos(2 * np.pi * harmonic * at[:, None, None] + phase[part])
    points = points + (amplitude[part] * wave).sum(axis=2) * 2 * scale
    local = np.searchsorted(kept, owner)
    return shapely.make_valid(_objects_of(_rings(points, part), local, len(kept)))


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
