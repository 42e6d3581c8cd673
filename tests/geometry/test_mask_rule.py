"""The rule of which pairs get the mask IoU (iaa_frames.geometry.mask_rule)."""

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.distances import Shapes
from iaa_frames.geometry.mask_rule import MASK_IOU_MIN_COORDINATES, masked_pairs, uses_mask_iou


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_masked_pairs_is_the_rule_of_uses_mask_iou_on_taken_rows(seed):
    """Rows of boxes and polygons of 5 to 800 coordinates, image sizes known or not:
    masked_pairs on indices agrees with uses_mask_iou on the rows taken."""
    rng = np.random.default_rng(seed)
    n = 30
    geoms = np.empty(n, dtype=object)
    for i in range(n):
        if rng.random() < 0.3:
            continue  # a plain box
        k = int(rng.choice([4, 40, 240, 260, 400, 800]))
        ang = np.linspace(0, 2 * np.pi, k, endpoint=False)
        c = rng.uniform(0.2, 0.8, 2)
        geoms[i] = shapely.Polygon(np.c_[np.cos(ang), np.sin(ang)] * 0.1 + c)
    boxes = rng.uniform(0, 0.5, (n, 4))
    boxes[:, 2:] += boxes[:, :2]
    poly = np.array([g is not None for g in geoms])
    boxes[poly] = shapely.bounds(geoms[poly])
    size = np.where(rng.random((n, 1)) < 0.2, np.nan, [[640.0, 480.0]])
    shapes = Shapes(boxes, geoms, np.repeat(size, 2, axis=1)[:, :2])
    ia, ib = rng.integers(0, n, (2, 400))
    expected = uses_mask_iou(shapes.take(ia), shapes.take(ib))
    np.testing.assert_array_equal(masked_pairs(shapes, ia, ib), expected)
    coords = shapes.n_coords()
    assert not expected[coords[ia] + coords[ib] <= MASK_IOU_MIN_COORDINATES].any()


def test_without_image_sizes_no_pair_is_masked():
    circle = shapely.Point(0.5, 0.5).buffer(0.3, quad_segs=200)
    s = Shapes.from_geometries([circle, circle])
    assert masked_pairs(s, np.array([0, 1]), np.array([1, 0])).tolist() == [False, False]
