"""Shared areas of polygons from their edges (``iaa_frames.geometry.shared_area``) against
the GEOS overlay, on the pairs the matcher really overlays.

Usage::

    python benchmarks/bench_shared_area.py --coco PATH [--repeat 5]

Runs ``read_coco`` + ``agreement(n_boot=200)`` once on the COCO file (e.g. the LVIS double
annotations, ``rater_list`` / ``rater_id``), recording the polygon pairs whose shared area
the IoU needs (within items and in the chance sample), then times on exactly those pairs,
in this process, ``shapely.area(shapely.intersection(a, b))`` against
:func:`~iaa_frames.geometry.shared_area.shared_areas` on the edges of the distinct shapes
(built once per shape, as the matcher's cache holds them), ``--repeat`` times each in
turn; prints the CPU seconds (the least of the runs), the one-time cost per shape (edges
and the validity check) and the largest difference in IoU.
"""

from __future__ import annotations

import argparse
import resource
import sys
import warnings
from pathlib import Path

import numpy as np
import shapely


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def recorded_pairs(path: Path):
    """The (a, b) geometries of every pair whose shared area agreement() computes."""
    import iaa_frames as iaf
    import iaa_frames.geometry.overlap as overlap

    seen = []
    real = overlap._shared_without_overlay

    def recording(a, b, rows, pa, pb, inter):
        seen.append((pa, pb))
        return real(a, b, rows, pa, pb, inter)

    overlap._shared_without_overlay = recording
    try:
        frame = iaf.read_coco(path, rater_key="rater_id", rater_list_key="rater_list")
        iaf.agreement(frame, n_boot=200, progress=False)
    finally:
        overlap._shared_without_overlay = real
    return np.concatenate([p for p, _ in seen]), np.concatenate([q for _, q in seen])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coco", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not Path(args.coco).exists():
        sys.exit(f"skipped: {args.coco} does not exist (pass the real file's path)")
    warnings.simplefilter("ignore")
    from iaa_frames.geometry.clip import RingEdges
    from iaa_frames.geometry.shared_area import shared_areas

    pa, pb = recorded_pairs(Path(args.coco))
    both = np.concatenate([pa, pb])
    _, first, inverse = np.unique([id(g) for g in both], return_index=True, return_inverse=True)
    distinct = both[first]
    c0 = cpu()
    edges = RingEdges.from_geometries(distinct)
    c1 = cpu()
    valid = shapely.is_valid(distinct)
    c2 = cpu()
    ia, ib = inverse[: len(pa)], inverse[len(pa) :]
    ba, bb = shapely.bounds(pa), shapely.bounds(pb)
    rect = np.column_stack([np.maximum(ba[:, :2], bb[:, :2]), np.minimum(ba[:, 2:], bb[:, 2:])])
    geos, ours = [], []
    for _ in range(args.repeat):
        t0 = cpu()
        want = shapely.area(shapely.intersection(pa, pb))
        t1 = cpu()
        got = shared_areas(edges, ia, edges, ib, rect)
        t2 = cpu()
        geos.append(t1 - t0)
        ours.append(t2 - t1)
    union = shapely.area(pa) + shapely.area(pb)
    gap = np.abs(want / (union - want) - got / (union - got))
    print(
        f"{len(pa):,} pairs of {len(distinct):,} shapes ({int(valid.sum()):,} valid), "
        f"{np.diff(edges.offset).mean():.1f} edges a shape"
    )
    print(f"once per shape: edges {c1 - c0:.3f} s, validity {c2 - c1:.3f} s CPU")
    print(
        f"CPU, least of {args.repeat}: GEOS overlay {min(geos):.3f} s, shared_areas "
        f"{min(ours):.3f} s (x{min(geos) / min(ours):.1f})"
    )
    print(f"IoU difference: max {gap.max():.1e}, median {np.median(gap):.1e}")


if __name__ == "__main__":
    main()
