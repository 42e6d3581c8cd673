"""Time the pairwise IoU / GIoU of iaa_frames.geometry.distances.

Run: ``python benchmarks/bench_distances.py [--box-pairs N] [--poly-pairs M] [--seed S]``

* box-box IoU and GIoU on N random box pairs (pure numpy; default 10 million);
* polygon IoU and GIoU on M random star-shaped polygon pairs (default 200 000),
  scattered so that most pairs do not overlap, plus the share that reached shapely's
  intersection.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import shapely

from iaa_frames.geometry.distances import Shapes, giou, iou


def random_boxes(rng, n):
    xy = rng.uniform(0, 1, (n, 2))
    wh = rng.uniform(0.01, 0.3, (n, 2))
    return np.hstack([xy, xy + wh])


def random_star_polygons(rng, n, k=10):
    """n star-shaped polygons with k vertices, centres uniform in [0, 5]^2.

    One vertex per angular sector of 2 pi / k keeps every gap below pi, so the centre
    sees every edge and the polygon is simple (valid).
    """
    angles = (np.arange(k) + rng.uniform(0, 1, (n, k))) * (2 * np.pi / k)
    radii = rng.uniform(0.1, 0.5, (n, k))
    centres = rng.uniform(0, 5, (n, 1, 2))
    xy = centres + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    return shapely.polygons(xy)


def timed(label, func, *args, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func(*args)
        best = min(best, time.perf_counter() - t0)
    print(f"{label:<40s} {best:8.3f} s  (best of {repeat})")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--box-pairs", type=int, default=10_000_000)
    parser.add_argument("--poly-pairs", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    a = Shapes(random_boxes(rng, args.box_pairs))
    b = Shapes(random_boxes(rng, args.box_pairs))
    timed(f"box IoU, {args.box_pairs:,} pairs", iou, a, b)
    timed(f"box GIoU, {args.box_pairs:,} pairs", giou, a, b)
    del a, b

    t0 = time.perf_counter()
    pa = Shapes.from_geometries(random_star_polygons(rng, args.poly_pairs))
    pb = Shapes.from_geometries(random_star_polygons(rng, args.poly_pairs))
    print(f"{'build polygon Shapes':<40s} {time.perf_counter() - t0:8.3f} s")
    bx = pa.boxes, pb.boxes
    overlap = (np.minimum(bx[0][:, 2], bx[1][:, 2]) > np.maximum(bx[0][:, 0], bx[1][:, 0])) & (
        np.minimum(bx[0][:, 3], bx[1][:, 3]) > np.maximum(bx[0][:, 1], bx[1][:, 1])
    )
    print(f"pairs with overlapping bounding boxes: {overlap.mean():.1%}")
    v = timed(f"polygon IoU, {args.poly_pairs:,} pairs", iou, pa, pb, repeat=1)
    timed(f"polygon GIoU, {args.poly_pairs:,} pairs", giou, pa, pb, repeat=1)
    print(f"pairs with IoU > 0: {(v > 0).mean():.1%}")


if __name__ == "__main__":
    main()
