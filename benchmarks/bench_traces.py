"""Time polygon IoU on detailed traces: shapely overlay vs mask IoU, and the whole agreement().

Run: ``python benchmarks/bench_traces.py [--items N] [--skip-exact] [--skip-table]``

Two annotators tracing the same contour give two nearly identical noisy polygons, the
worst case for an exact overlay (:func:`corpora.traces`). Printed:

1. Per vertex count, the cost of one pair's IoU by each method, on 1000 x 800 images:
   shapely's overlay (intersection area, as ``iaa_frames.geometry.distances`` computes it) for
   nearly identical pairs (within an item) and for pairs of different items (chance
   pairs); the mask IoU of ``iaa_frames.geometry.raster`` (rasterizing each shape once, then
   the pairs in one batch); and pycocotools (``frPyObjects`` once per shape, then
   ``mask.iou`` one call per pair) when it is installed; with the largest difference
   between the mask IoU and the exact one. ``MASK_IOU_MIN_COORDINATES`` in
   ``iaa_frames.geometry.mask_rule`` is set from this table.
2. ``iaf.agreement(corpora.traces(vertices=V))`` for V = 1,000 and 10,000, with the
   default rule (mask IoU for detailed polygons) and with every IoU exact
   (``--skip-exact`` leaves the slow one out), and the largest difference of any cell.

With an iaa_frames that has no mask IoU (e.g. ``PYTHONPATH=<older checkout>``) part 2
times that version's agreement() alone.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import shapely

import iaa_frames as iaf
from iaa_frames.geometry import distances as D

try:
    from iaa_frames.geometry import mask_rule as RULE
    from iaa_frames.geometry.raster import mask_iou, rasterize
except ImportError:  # an older iaa_frames: the rule and the masks lived elsewhere
    RULE = D
    try:
        from iaa_frames.raster import mask_iou, rasterize
    except ImportError:  # older still: no mask IoU
        rasterize = None

try:
    from pycocotools import mask as coco_mask
except ImportError:
    coco_mask = None

import corpora

WIDTH, HEIGHT = 1000, 800


def best_of(repeat, func, *args):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def exact_iou(a, b):
    inter = shapely.area(shapely.intersection(a, b))
    area_a, area_b = shapely.area(a), shapely.area(b)
    return inter / (area_a + area_b - inter)


def coco_iou(geoms, i, j):
    rles = []
    for g in geoms:
        rles.append(
            coco_mask.frPyObjects(
                [np.asarray(g.exterior.coords)[:-1].ravel().tolist()], HEIGHT, WIDTH
            )[0]
        )
    return np.array(
        [coco_mask.iou([rles[a]], [rles[b]], [0])[0, 0] for a, b in zip(i, j, strict=True)]
    )


def table(n_items, repeat):
    print(f"IoU of one pair (microseconds), {n_items} items x 2 traces, {WIDTH} x {HEIGHT} px")
    head = (
        f"{'vertices':>8s} {'overlay same':>13s} {'overlay chance':>15s} "
        f"{'mask/shape':>11s} {'mask/pair':>10s} {'masks, all':>11s}"
    )
    if coco_mask is not None:
        head += f" {'coco, all':>10s}"
    print(head + f" {'max |mask - exact|':>19s}")
    for v in (16, 64, 128, 256, 1_000, 4_000, 10_000):
        g = corpora.traces(n_items=n_items, vertices=v, seed=1)["geometry"].to_numpy()
        g = np.array(
            [p if p.geom_type == "Polygon" else max(p.geoms, key=lambda q: q.area) for p in g],
            dtype=object,
        )
        i = np.arange(0, len(g), 2)  # annotator A
        j = i + 1  # annotator B, same item
        k = np.roll(j, 1)  # annotator B, another item (a chance pair)
        pi, pj = np.concatenate([i, i]), np.concatenate([j, k])
        n = len(pi)
        t_same, exact_same = best_of(repeat, exact_iou, g[i], g[j])
        t_chance, exact_chance = best_of(repeat, exact_iou, g[i], g[k])
        t_raster, masks = best_of(repeat, rasterize, g, WIDTH, HEIGHT)
        t_pairs, got = best_of(repeat, mask_iou, masks, pi, masks, pj)
        err = np.abs(got - np.concatenate([exact_same, exact_chance])).max()
        line = (
            f"{v:8d} {t_same / len(i) * 1e6:13.1f} {t_chance / len(i) * 1e6:15.1f} "
            f"{t_raster / len(g) * 1e6:11.1f} {t_pairs / n * 1e6:10.1f} "
            f"{(t_raster + t_pairs) / n * 1e6:11.1f}"
        )
        if coco_mask is not None:
            t_coco, _ = best_of(1, coco_iou, g, pi, pj)
            line += f" {t_coco / n * 1e6:10.1f}"
        print(line + f" {err:19.2e}")
    print("(masks, all / coco, all: rasterizing every shape once plus every pair, per pair)")
    print(
        f"rule in {RULE.__name__}: mask IoU when the two shapes have more than "
        f"{getattr(RULE, 'MASK_IOU_MIN_COORDINATES', 'n/a')} coordinates together\n"
    )


def agreement(vertices, n_items, skip_exact):
    df = corpora.traces(n_items=n_items, vertices=vertices)
    t_mask, res = best_of(1, iaf.agreement, df)
    has_rule = hasattr(RULE, "MASK_IOU_MIN_COORDINATES")
    label = "default rule (mask IoU)" if has_rule else "this iaa_frames (no mask IoU)"
    print(
        f"agreement(), {n_items} items x 2 traces of {vertices:,} vertices, {label}: "
        f"{t_mask:7.2f} s"
    )
    if not has_rule or skip_exact:
        return
    saved = RULE.MASK_IOU_MIN_COORDINATES
    RULE.MASK_IOU_MIN_COORDINATES = np.inf
    try:
        t_exact, exact = best_of(1, iaf.agreement, df)
    finally:
        RULE.MASK_IOU_MIN_COORDINATES = saved
    diff = np.nanmax(np.abs(res["agreement"].values - exact["agreement"].values))
    print(
        f"agreement(), {n_items} items x 2 traces of {vertices:,} vertices, every IoU exact:"
        f"  {t_exact:7.2f} s   (largest difference of a cell: {diff:.1e})"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--skip-exact",
        action="store_true",
        help="do not time agreement() with every IoU exact (slow at 10,000)",
    )
    parser.add_argument("--skip-table", action="store_true")
    args = parser.parse_args(argv)
    iaf.agreement(corpora.traces(n_items=3, vertices=50))  # imports and first-call costs
    if not args.skip_table and rasterize is not None:
        table(args.items, args.repeat)
    for v in (1_000, 10_000):
        agreement(v, args.items, args.skip_exact)


if __name__ == "__main__":
    main()
