"""iaa_frames.geometry.kinds.mask: masks traced into polygons, against the union of their
pixel squares (shapely's overlay)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from iaa_frames.geometry.kinds import mask as mask_module
from iaa_frames.geometry.kinds.mask import mask_to_geometry, masks_to_geometries


def _pixel_union(m):
    r, c = np.nonzero(m)
    return shapely.union_all(shapely.box(c, r, c + 1, r + 1)) if len(r) else None


def _noisy_masks(seed, n=400):
    # salt-and-pepper masks: parts touching at corners, holes touching their part's
    # outline or each other at a corner, islands in holes
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        h, w = rng.integers(1, 20, 2)
        out.append(rng.random((h, w)) < rng.random())
    return out


def _same(got, m):
    want = _pixel_union(m)
    if want is None:
        return got is None
    parts = lambda g: len(getattr(g, "geoms", [g]))  # noqa: E731
    return (
        shapely.is_valid(got)
        and got.area == m.sum()
        and got.geom_type == want.geom_type
        and parts(got) == parts(want)
        and got.equals(want)
    )


@pytest.mark.parametrize("canvas", [mask_module.TRACE_CANVAS_PIXELS, 300])
def test_traced_polygons_are_the_union_of_pixel_squares(monkeypatch, canvas):
    monkeypatch.setattr(mask_module, "TRACE_CANVAS_PIXELS", canvas)  # one or many canvases
    masks = _noisy_masks(0)
    got = masks_to_geometries(masks)
    assert all(_same(g, m) for g, m in zip(got, masks, strict=True))


def test_one_mask_and_origins():
    masks = _noisy_masks(1, n=50)
    for m in masks:
        assert _same(mask_to_geometry(m), m)
    origins = np.random.default_rng(2).integers(0, 50, (len(masks), 2))
    got = masks_to_geometries(masks, origins)
    for g, m, (r, c) in zip(got, masks, origins, strict=True):
        want = _pixel_union(m)
        assert (g is None) if want is None else g.equals(shapely.affinity.translate(want, c, r))


def test_vertices_only_where_the_outline_turns():
    m = np.zeros((6, 8), bool)
    m[1:5, 1:7] = True  # a rectangle of 24 pixels
    m[2, 3] = False  # with a hole of one pixel
    g = mask_to_geometry(m)
    assert len(g.exterior.coords) == 5 and len(g.interiors[0].coords) == 5
