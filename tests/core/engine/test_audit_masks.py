"""Audit: agreement of pixel masks read from COCO files (RLE, ``iscrowd`` RLE, polygons).

Corpora like real segmentation data: five classes, each in a region and a size of its own
(a wide "road" band, small "speck" masks of a few pixels, "donut" masks with a hole),
written as compressed RLE (``pycocotools.mask.encode``), uncompressed ``iscrowd`` RLE and
polygons, mixed. Image-blind annotators draw a fresh scene of the corpus's kind on every
item: their cells have agreement 0 in expectation.
"""

import json

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf

mask_utils = pytest.importorskip("pycocotools.mask")

W, H = 320, 240
#: class -> (centre x, centre y, spread x, spread y) and (width, height), fractions of the image
CLASSES = {
    "road": ((0.5, 0.85, 0.05, 0.03), (0.8, 0.25)),
    "car": ((0.5, 0.7, 0.25, 0.05), (0.12, 0.08)),
    "person": ((0.3, 0.6, 0.2, 0.08), (0.03, 0.12)),
    "speck": ((0.5, 0.2, 0.3, 0.1), (0.012, 0.015)),
    "donut": ((0.75, 0.3, 0.1, 0.08), (0.2, 0.25)),
}
CATEGORIES = {name: i + 1 for i, name in enumerate(CLASSES)}


def _scene(rng):
    """1 to 5 ellipses (label, x, y, semi-axis x, semi-axis y) from the classes' regions."""
    out = []
    for _ in range(rng.integers(1, 6)):
        label = list(CLASSES)[rng.integers(len(CLASSES))]
        (cx, cy, sx, sy), (w, h) = CLASSES[label]
        x = np.clip(rng.normal(cx, sx), 0.02, 0.98) * W
        y = np.clip(rng.normal(cy, sy), 0.02, 0.98) * H
        f = np.exp(rng.normal(0.0, 0.25))
        out.append((label, x, y, max(w * W * f / 2, 1.0), max(h * H * f / 2, 1.0)))
    return out


def _bitmap(label, x, y, a, b):
    """The ellipse's pixels (a ring for "donut"), at least one pixel."""
    yy, xx = np.mgrid[0:H, 0:W]
    r = ((xx + 0.5 - x) / a) ** 2 + ((yy + 0.5 - y) / b) ** 2
    m = r <= 1
    if label == "donut":
        m &= r > 0.3
    if not m.any():
        m[int(np.clip(y, 0, H - 1)), int(np.clip(x, 0, W - 1))] = True
    return m


def _segmentation(obj, style):
    """A COCO segmentation of the object: compressed RLE, uncompressed RLE (crowd) or a
    24-vertex polygon ("donut" is always a mask: a polygon has no hole)."""
    label, x, y, a, b = obj
    m = _bitmap(*obj)
    if style == "poly" and label != "donut":
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        xy = np.column_stack([np.clip(x + a * np.cos(t), 0, W), np.clip(y + b * np.sin(t), 0, H)])
        return [xy.ravel().round(2).tolist()], m, 0
    if style == "crowd":
        flat = m.ravel(order="F").astype(np.int8)
        edges = np.flatnonzero(np.diff(flat)) + 1
        runs = np.diff(np.r_[0, edges, flat.size])
        counts = ([0] if flat[0] else []) + runs.tolist()
        return {"size": [H, W], "counts": counts}, m, 1
    rle = mask_utils.encode(np.asfortranarray(m.astype(np.uint8)))
    return {"size": [H, W], "counts": rle["counts"].decode()}, m, 0


def _coco(scenes, rng, tmp_path, name):
    """One annotator's COCO file of the scenes (one per item)."""
    anns = []
    for i, objs in enumerate(scenes):
        for obj in objs:
            seg, m, crowd = _segmentation(
                obj, rng.choice(["rle", "poly", "crowd"], p=[0.5, 0.3, 0.2])
            )
            ys, xs = np.nonzero(m)
            bbox = [float(xs.min()), float(ys.min()), float(np.ptp(xs) + 1), float(np.ptp(ys) + 1)]
            anns.append(
                {"id": len(anns) + 1, "image_id": i + 1, "category_id": CATEGORIES[obj[0]],
                 "segmentation": seg, "bbox": bbox, "area": float(m.sum()), "iscrowd": crowd}
            )  # fmt: skip
    doc = {
        "images": [
            {"id": i + 1, "file_name": f"img{i}.jpg", "width": W, "height": H}
            for i in range(len(scenes))
        ],
        "categories": [{"id": v, "name": k} for k, v in CATEGORIES.items()],
        "annotations": anns,
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def blind_masks(seed, tmp_path, *, n_items=30, n_annotators=4):
    """Every annotator image-blind, masks read with ``iaf.read_coco``."""
    rng = np.random.default_rng(seed)
    paths = {}
    for a in range(n_annotators):
        scenes = [_scene(rng) for _ in range(n_items)]
        paths[f"blind{a}"] = _coco(scenes, rng, tmp_path, f"s{seed}_blind{a}")
    return iaf.read_coco(paths)


def test_hole_and_crowd_rle_read_with_the_pixel_iou_of_pycocotools(tmp_path):
    """A ring mask (compressed RLE) and its filled disc (uncompressed ``iscrowd`` RLE): the
    IoU of the polygons read is pycocotools' mask IoU."""
    rng = np.random.default_rng(0)
    ring = ("donut", 60.0, 50.0, 30.0, 25.0)
    disc = ("car", 60.0, 50.0, 30.0, 25.0)
    a = _coco([[ring]], rng, tmp_path, "ring")
    doc = json.loads(a.read_text())
    seg, m_disc, _ = _segmentation(disc, "crowd")
    doc["annotations"][0].update(segmentation=seg, iscrowd=1)
    b = tmp_path / "disc.json"
    b.write_text(json.dumps(doc))
    df = iaf.read_coco({"A": a, "B": b})
    ga, gb = df.geometry.iloc[0], df.geometry.iloc[1]
    enc = [
        mask_utils.encode(np.asfortranarray(m.astype(np.uint8))) for m in (_bitmap(*ring), m_disc)
    ]
    expected = mask_utils.iou([enc[0]], [enc[1]], [0])[0, 0]
    assert ga.intersection(gb).area / ga.union(gb).area == pytest.approx(expected)
    assert len(ga.interiors) == 1


def test_identical_mask_annotators_score_one_and_renaming_changes_nothing(tmp_path):
    """A copy of a blind annotator agrees with it perfectly on detection, localization and
    overall; renaming annotators, labels and items and shuffling the rows change no cell."""
    df = blind_masks(3, tmp_path, n_items=20, n_annotators=2)
    df = pd.concat(
        [
            df,
            df[df.annotator == "blind0"].assign(
                annotator="copy", object_id=lambda d: "c" + d.object_id
            ),
        ]
    )
    p = iaf.pairwise(df, component="detection", n_boot=50, seed=1)
    cell = p.sel(annotator_a="blind0", annotator_b="copy")
    assert float(cell) == pytest.approx(1.0)
    # no item disagrees: 20 items cannot show that none ever would (the rule of rare
    # disagreements: at most 1 - p_U = 0.83 below, p_U the Clopper-Pearson bound of 20)
    assert float(cell.ci_high) == pytest.approx(1.0)
    assert 0.8 < float(cell.ci_low) < 1.0
    two = iaf.agreement(df[df.annotator != "blind1"], n_boot=50, seed=1)
    for comp in ("detection", "localization", "overall"):
        assert float(
            two.agreement.sel(component=comp, label="(all)", annotator="(all)")
        ) == pytest.approx(1.0)

    base = iaf.agreement(df, n_boot=50, seed=1)[["agreement", "ci_low", "ci_high", "note"]]
    ann = {"blind0": "zed", "blind1": "alpha", "copy": "m"}
    lab = {k: f"x{len(CLASSES) - i}" for i, k in enumerate(CLASSES)}
    renamed = df.assign(
        annotator=df.annotator.map(ann), label=df.label.map(lab), item="q" + df.item
    ).sample(frac=1.0, random_state=4)
    res = iaf.agreement(renamed, n_boot=50, seed=1)[["agreement", "ci_low", "ci_high", "note"]]
    res = res.assign_coords(
        annotator=[{v: k for k, v in ann.items()}.get(a, a) for a in res.annotator.values],
        label=[{v: k for k, v in lab.items()}.get(x, x) for x in res.label.values],
    )
    a, b = base.to_dataframe(), res.to_dataframe().loc[base.to_dataframe().index]
    for col in ("agreement", "ci_low", "ci_high"):
        np.testing.assert_allclose(a[col], b[col], rtol=1e-12, atol=1e-12)
    assert (a.note.fillna("") == b.note.fillna("")).all()


def test_every_na_cell_of_blind_masks_has_a_note(tmp_path):
    """Classification (classes never overlap by chance), localization of tiny masks (no
    match): every n/a cell says why."""
    res = iaf.agreement(blind_masks(5, tmp_path), n_boot=50, seed=5)
    t = res[["agreement", "note"]].to_dataframe()
    na = t[t.agreement.isna()]
    assert len(na) > 0
    assert na.note.map(lambda s: isinstance(s, str) and len(s) > 10).all()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "detection intervals of image-blind annotators miss 0 about twice the nominal 5 %: "
        "9 of 100 (all)-label cells here, 28 of 260 over 52 mask corpora, both sides; boxes "
        "of the same objects miss alike (not mask-specific). It is the small corpus: blind "
        "box corpora of 30 items cover 90-92 % in every component, with BCa or the "
        "percentile, those of 40 items 93-95 %; the estimates are heavy-tailed there "
        "(docs/validation/coverage.md, 'Blind annotators whose objects often meet by luck')"
    ),
)
def test_blind_mask_detection_intervals_cover_zero(tmp_path):
    """Blind annotators whose wide "road" masks match by luck on most items: each
    detection cell (label "(all)", every annotator and "(all)") covers 0 in about 95 % of
    corpora; at most 7 misses of 100 cells (5 expected)."""
    misses = total = 0
    for seed in range(100, 120):
        res = iaf.agreement(blind_masks(seed, tmp_path), n_boot=100, seed=seed)
        det = res.sel(component="detection", label="(all)")
        for ann in det.annotator.values:
            c = det.sel(annotator=ann)
            total += 1
            misses += not float(c.ci_low) <= 0.0 <= float(c.ci_high)
    assert total == 100
    assert misses <= 7, f"{misses} of {total} blind detection cells miss 0"
