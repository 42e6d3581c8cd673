"""Tests for iaa_frames.geometry.ellipse: the polygon of an ellipse has its area, its
orientation, and an IoU equal to the ellipses' to 1e-4 (against polygons of 20,000
vertices, which are exact to about 1e-8); annotators of ellipses agree as annotators of
any shape do (identical 1, a jitter ladder, chance for blind drawing)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
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


def _cells(n_items=60, seed=0):
    """Items of 1-3 cells (ellipses), each class with its own region and size: 'round'
    cells small on the left, 'long' ones large on the right of a 200 x 120 image."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_items):
        for _ in range(rng.integers(1, 4)):
            label = str(rng.choice(["round", "long"]))
            x = rng.uniform(15, 85) + (100 if label == "long" else 0)
            r = (rng.uniform(6, 9), rng.uniform(5, 8)) if label == "round" else (
                rng.uniform(14, 20), rng.uniform(5, 8))  # fmt: skip
            out.append((f"img{i:03d}", label, x, rng.uniform(20, 100), *r, rng.uniform(0, 180)))
    return out


def _frame(drawn):
    """The tidy frame of ``{annotator: [(item, label, cx, cy, rx, ry, angle), ...]}``."""
    rows = [
        {
            "item": item,
            "annotator": who,
            "label": label,
            "width": 200.0,
            "height": 120.0,
            "geometry": shapely.Polygon(ellipse_ring(cx, cy, rx, ry, angle)),
        }  # fmt: skip
        for who, cells in drawn.items()
        for item, label, cx, cy, rx, ry, angle in cells
    ]
    return pd.DataFrame(rows)


def _all(df, **kw):
    res = iaf.agreement(df, n_chance=1000, n_boot=0, seed=0, **kw)
    return res["agreement"].sel(label="(all)", annotator="(all)").to_series().round(3).to_dict()


def test_ellipse_annotators_identical_jittered_and_blind():
    """#45 item 4 at the level of agreement: identical ellipses agree fully; moving the
    centres by more lowers localization step by step; an annotator who draws each class's
    usual ellipse where the class usually is, without looking, is at chance on detection
    and localization."""
    truth = _cells()
    same = _all(_frame({"ana": truth, "ben": truth}))
    # classes in their own regions: unrelated images' matched cells share their class too,
    # so labels cannot be told from chance (n/a, never a 1 by fiat)
    assert math.isnan(same.pop("classification"))
    assert same == {"detection": 1.0, "localization": 1.0, "overall": 1.0}
    rng = np.random.default_rng(1)
    loc = []
    for shift in (0.5, 1.5, 3.0):
        moved = [(i, lab, cx + rng.normal(0, shift), cy + rng.normal(0, shift), *rest)
                 for i, lab, cx, cy, *rest in truth]  # fmt: skip
        loc.append(_all(_frame({"ana": truth, "ben": moved}), match_threshold=0.3)["localization"])
    assert 1 > loc[0] > loc[1] > loc[2] > 0, loc
    blind = [(i, *c[1:]) for (i, *_), c in zip(truth, _cells(seed=2), strict=False)]
    # at tau = 0.5 a blind cell almost never matches (localization n/a, too few units)
    got = _all(_frame({"ana": truth, "cy": blind}), match_threshold=0.1)
    assert abs(got["detection"]) < 0.1 and abs(got["localization"]) < 0.15, got
