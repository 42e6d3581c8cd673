"""Benchmark: reading COCO RLE masks, against pycocotools' decode of the same masks.

Run: ``python benchmarks/bench_masks.py [--masks N]``

Writes a COCO file of N RLE masks (compressed ``counts`` strings, as pycocotools encodes
them: discs of radius 20-100 px, and blobs with holes and several parts) on images of 640 x 480 and
1280 x 960, then, in this process, best of five, CPU time (``time.process_time``):

- ``pycocotools.mask.decode`` of every mask (the full image-sized bitmap each);
- ``iaf.read_coco`` of the file: parsing, our decode of the runs into the crop of the
  columns a mask spans (:func:`iaa_frames.io.masks.rle_crop`), the tracing of the exact
  pixel polygons (:func:`iaa_frames.geometry.kinds.mask.masks_to_geometries`) and the
  frame's validation;

and checks that the IoU of every within-image pair of read masks equals
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


if __name__ == "__main__":
    main()
