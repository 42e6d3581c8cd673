"""simulate_crowd: sparse crowds of mixed quality with known truth."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.simulate import CROWD_MIX, simulate_crowd


def test_every_image_has_between_min_and_max_workers_of_the_pool():
    crowd = simulate_crowd(n_items=60, n_workers=40, per_item=(3, 7), seed=1)
    per_image = crowd.annotations.groupby("item")["annotator"].nunique()
    assert len(per_image) == 60
    assert per_image.between(3, 7).all() and per_image.nunique() > 1
    assert set(crowd.annotations["annotator"]) <= set(crowd.workers["annotator"])
    assert set(crowd.workers["profile"]) <= set(CROWD_MIX)
    # a worker sees a handful of images: 60 * 5 / 40 on average
    per_worker = crowd.annotations.groupby("annotator")["item"].nunique()
    assert 5 < per_worker.mean() < 10
    iaf.validate(crowd.annotations)


def test_a_workers_drawings_do_not_depend_on_the_assignment():
    """The same (image, worker) draws the same objects whatever else was assigned."""
    a = simulate_crowd(n_items=20, n_workers=30, per_item=(3, 7), seed=4).annotations
    b = simulate_crowd(n_items=20, n_workers=30, per_item=(2, 3), seed=4).annotations
    key = ["item", "annotator"]
    both = a.merge(b[key].drop_duplicates(), on=key)
    again = b.merge(a[key].drop_duplicates(), on=key)
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1"]
    pd.testing.assert_frame_equal(
        both[cols].sort_values(cols).reset_index(drop=True),
        again[cols].sort_values(cols).reset_index(drop=True),
    )


def test_deterministic_and_checked():
    one = simulate_crowd(n_items=10, n_workers=12, seed=2)
    two = simulate_crowd(n_items=10, n_workers=12, seed=2)
    pd.testing.assert_frame_equal(one.annotations, two.annotations)
    for kwargs in (
        {"per_item": (0, 3)},
        {"per_item": (5, 3)},
        {"per_item": (3, 20), "n_workers": 10},
        {"mix": {"genius": 1.0}},
        {"mix": {"good": -1.0}},
        {"annotators": {"a": "good"}},
    ):
        with pytest.raises(iaf.ParameterError):
            simulate_crowd(n_items=5, **{"n_workers": 12, **kwargs})
