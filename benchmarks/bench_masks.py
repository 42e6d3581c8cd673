"""Benchmark: reading COCO RLE masks, against pycocotools' decode of the same masks.

Run: ``python benchmarks/bench_masks.py [--masks N] [--coco FILE]``

Writes a COCO file of N RLE masks (compressed ``counts`` strings, as pycocotools encodes
them: discs of radius 20-100 px, and blobs with holes and several parts) on images of 640 x 480 and
1280 x 960, then, in this process, best of five, CPU time (``time.process_time``):

- ``pycocotools.mask.decode`` of every mask (the full image-sized bitmap each);
- ``iaf.read_coco`` of the file: parsing, our decode of the runs into the crop of the
  columns a mask spans (:func:`iaa_frames.io.masks.rle_crop`), the tracing of the exact
  pixel polygons (:func:`iaa_frames.geometry.kinds.mask.masks_to_geometries`) and the
  frame's validation;

With ``--coco FILE`` (a COCO file of polygons, e.g. the real LVIS double annotations),
its polygons are rasterized by pycocotools (``frPyObjects``, the parts merged) into RLE
masks of real objects on their images' sizes, written as a COCO file of RLEs, and timed
the same way.

It checks that the IoU of every within-image pair of read masks equals
``pycocotools.mask.iou`` of the original RLEs (the masks are not approximated on the way).
Issue #39 asks for reading at most 3x pycocotools' decode.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import shapely

import iaa_frames as iaf

warnings.simplefilter("ignore", DeprecationWarning)  # pycocotools under numpy 2
from pycocotools import mask as mask_utils  # noqa: E402


def make_masks(n: int, width: int, height: int, seed: int = 0):
    """``n`` RLE masks, four per image, two annotators: discs and blurred blobs."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:height, :width]
    images, anns = [], []
    for k in range(n):
        i = k // 4
        if k % 4 == 0:
            images.append(
                {"id": i + 1, "file_name": f"im{i}.jpg", "width": width, "height": height}
            )
        r = rng.uniform(20, 100)
        cx, cy = rng.uniform(r, width - r), rng.uniform(r, height - r)
        m = ((xx - cx) ** 2 + (yy - cy) ** 2) < r * r
        if k % 2:  # a blob: blurred noise thresholded inside the disc (holes, parts)
            y0, x0 = int(cy - r), int(cx - r)
            side = int(2 * r) + 1
            noise = rng.random((side // 4 + 6, side // 4 + 6))
            blur = sum(
                noise[i : i + side // 4 + 1, j : j + side // 4 + 1]
                for i in range(5)
                for j in range(5)
            )
            blob = np.kron(blur > np.quantile(blur, 0.4), np.ones((4, 4), bool))[:side, :side]
            window = m[y0 : y0 + side, x0 : x0 + side]
            m[y0 : y0 + side, x0 : x0 + side] = window & blob[: window.shape[0], : window.shape[1]]
        rle = mask_utils.encode(np.asfortranarray(m.astype(np.uint8)))
        rle["counts"] = rle["counts"].decode()
        anns.append(
            {
                "id": k + 1,
                "image_id": i + 1,
                "category_id": 1,
                "segmentation": rle,
                "area": float(m.sum()),
                "bbox": [float(v) for v in mask_utils.toBbox(rle)],
                "iscrowd": 0,
                "rater_id": f"a{k % 2}",
            }
        )
    return {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "disc"}]}


def masks_of_polygons(path):
    """The COCO file at ``path`` with every polygon segmentation rasterized into one
    compressed RLE (pycocotools: ``frPyObjects`` of its parts, merged), crowd RLEs kept."""
    coco = json.loads(Path(path).read_text())
    size = {im["id"]: (im["height"], im["width"]) for im in coco["images"]}
    anns = []
    for a in coco["annotations"]:
        seg = a.get("segmentation")
        h, w = size[a["image_id"]]
        if isinstance(seg, list) and seg:
            rle = mask_utils.merge(mask_utils.frPyObjects(seg, h, w))
        elif isinstance(seg, dict):
            rle = seg if isinstance(seg.get("counts"), str) else None
            if rle is None:
                rle = mask_utils.frPyObjects(seg, h, w)
        else:
            continue
        if isinstance(rle["counts"], bytes):
            rle = {"size": rle["size"], "counts": rle["counts"].decode()}
        anns.append({**a, "segmentation": rle})
    return {**coco, "annotations": anns}


def best_cpu(func, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        out = func()
        best = min(best, time.process_time() - t)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--masks", type=int, default=400)
    ap.add_argument("--coco", help="a COCO file of polygons, rasterized into real masks")
    ap.add_argument("--rater-key", default="rater_id")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    print(f"{args.masks} RLE masks; CPU ms per mask, best of 5")
    print(f"{'image':>10} {'decode':>8} {'read_coco':>10} {'ratio':>6} {'IoU max diff':>13}")
    for width, height in [(640, 480), (1280, 960)]:
        coco = make_masks(args.masks, width, height)
        path = tmp / f"masks_{width}.json"
        path.write_text(json.dumps(coco))
        rles = [
            {"size": a["segmentation"]["size"], "counts": a["segmentation"]["counts"].encode()}
            for a in coco["annotations"]
        ]
        t_dec, _ = best_cpu(lambda rles=rles: [mask_utils.decode(r) for r in rles])
        t_read, df = best_cpu(lambda path=path: iaf.read_coco(path))
        # every within-image pair: the IoU of the read polygons against pycocotools'
        by_id = df.set_index("object_id")["geometry"]
        diffs = []
        for k in range(0, len(rles), 4):
            for a in range(k, k + 4):
                for b in range(a + 1, k + 4):
                    ref = mask_utils.iou([rles[a]], [rles[b]], [0])[0, 0]
                    ga, gb = by_id[a + 1], by_id[b + 1]
                    inter = shapely.area(shapely.intersection(ga, gb))
                    ours = inter / (ga.area + gb.area - inter)
                    diffs.append(abs(ours - ref))
        n = len(rles)
        print(
            f"{width}x{height:<5} {t_dec * 1e3 / n:8.3f} {t_read * 1e3 / n:10.3f} "
            f"{t_read / t_dec:6.2f} {max(diffs):13.1e}"
        )
    if args.coco:
        real_masks(args.coco, tmp, args.rater_key)


def real_masks(source, tmp, rater_key):
    """Time and check the masks of the polygons of ``source`` (:func:`masks_of_polygons`)."""
    coco = masks_of_polygons(source)
    path = tmp / "real_masks.json"
    path.write_text(json.dumps(coco))
    anns = coco["annotations"]
    rles = [
        {"size": a["segmentation"]["size"], "counts": a["segmentation"]["counts"].encode()}
        for a in anns
    ]
    t_dec, _ = best_cpu(lambda: [mask_utils.decode(r) for r in rles])
    t_read, df = best_cpu(lambda: iaf.read_coco(path, rater_key=rater_key))
    by_id = df.dropna(subset=["label"]).set_index("object_id")["geometry"]
    ids = [a["id"] for a in anns]
    by_image: dict = {}
    for k, a in enumerate(anns):
        by_image.setdefault(a["image_id"], []).append(k)
    diffs = []
    for ks in by_image.values():  # every pair of overlapping boxes within an image
        for x, a in enumerate(ks):
            for b in ks[x + 1 :]:
                ga, gb = by_id.get(ids[a]), by_id.get(ids[b])
                if ga is None or gb is None or not ga.intersects(gb):
                    continue
                ref = mask_utils.iou([rles[a]], [rles[b]], [0])[0, 0]
                inter = shapely.area(shapely.intersection(ga, gb))
                diffs.append(abs(inter / (ga.area + gb.area - inter) - ref))
    n = len(rles)
    print(
        f"{'real':>10} {t_dec * 1e3 / n:8.3f} {t_read * 1e3 / n:10.3f} "
        f"{t_read / t_dec:6.2f} {max(diffs, default=0.0):13.1e}  "
        f"({n} masks, {len(diffs)} overlapping pairs)"
    )


if __name__ == "__main__":
    main()
