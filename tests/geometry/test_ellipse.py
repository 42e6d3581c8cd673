"""Tests for iaa_frames.geometry.ellipse: the polygon of an ellipse has its area, its
orientation, and an IoU equal to the ellipses' to 1e-4 (against polygons of 20,000
vertices, which are exact to about 1e-8)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from iaa_frames.geometry.ellipse import ELLIPSE_VERTICES, ellipse_ring


def _fine(cx, cy, rx, ry, angle, n=20_000):
    phi = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x, y = rx * np.cos(phi), ry * np.sin(phi)
    a = math.radians(angle)
    return shapely.Polygon(
        np.column_stack(
            [cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)]
        )
    )


def _iou(a, b):
    return a.intersection(b).area / a.union(b).area


@pytest.mark.parametrize(
    ("rx", "ry", "angle"), [(2.0, 1.0, 0.0), (30.0, 7.5, 33.0), (5.0, 5.0, 200.0)]
)
def test_the_polygon_has_the_ellipses_area(rx, ry, angle):
    ring = ellipse_ring(3.0, -4.0, rx, ry, angle)
    assert ring.shape == (ELLIPSE_VERTICES, 2)
    assert shapely.Polygon(ring).area == pytest.approx(math.pi * rx * ry, rel=1e-12)
    np.testing.assert_allclose(ring.mean(axis=0), [3.0, -4.0], atol=1e-9)


def test_a_positive_angle_turns_x_towards_y_clockwise_on_an_image():
    ring = ellipse_ring(0.0, 0.0, 10.0, 1.0, 30.0)
    far = ring[np.argmax(np.hypot(*ring.T))]
    # the long axis at 30 degrees from x towards y (y down on an image: clockwise)
    assert math.degrees(math.atan2(abs(far[1]), abs(far[0]))) == pytest.approx(30.0, abs=3.0)
    assert np.sign(far[0]) == np.sign(far[1])


def test_iou_of_overlapping_ellipses_is_theirs_to_1e_4():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(60):
        a = (*rng.uniform(0, 100, 2), *rng.uniform(5, 55, 2), rng.uniform(0, 180))
        b = (a[0] + rng.normal(0, 15), a[1] + rng.normal(0, 15),
             a[2] * math.exp(rng.normal(0, 0.3)), a[3] * math.exp(rng.normal(0, 0.3)),
             a[4] + rng.normal(0, 20))  # fmt: skip
        got = _iou(shapely.Polygon(ellipse_ring(*a)), shapely.Polygon(ellipse_ring(*b)))
        worst = max(worst, abs(got - _iou(_fine(*a), _fine(*b))))
    assert worst < 1e-4
