"""The canonical order of objects (iaa_frames.core.matching.order) against numpy's lexsort, which
defines it."""

import numpy as np
import pytest

from iaa_frames.core.matching.order import canonical_order


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_items", [40, 2**40])  # the packed sort, and the lexsort it replaces
def testcanonical_order_is_the_lexsort_of_codes_then_rounded_boxes(seed, n_items):
    # the documented order, by numpy's lexsort: ties in every key (few codes, repeated
    # coordinates), -0.0 next to 0.0, NaN and inf, values equal once rounded, and objects
    # alone in their key or told apart by their first coordinate
    rng = np.random.default_rng(seed)
    n = 3000
    item = rng.integers(0, 40, n) * (n_items // 40)
    ann, lab = rng.integers(0, 3, n), rng.integers(0, 4, n)
    values = [-0.0, 0.0, 0.25, 0.5, 1 / 3, 1 / 3 + 1e-12, np.nan, np.inf, -np.inf]
    boxes = rng.choice(values, size=(n, 4))
    spread = rng.random(n) < 0.5
    boxes[spread, 0] = rng.random(spread.sum())
    expected = np.lexsort((*np.round(boxes, 9).T[::-1], lab, ann, item))
    got = canonical_order(item, ann, lab, boxes, 3, 4)
    np.testing.assert_array_equal(got, expected)
    assert len(canonical_order(item[:0], ann[:0], lab[:0], boxes[:0], 3, 4)) == 0
