"""plot.pairwise: the colour bar."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import iaa_frames as iaf  # noqa: E402


@pytest.mark.parametrize("vmin", [-0.2571428571428571, -0.25, -0.3])
def test_colour_bar_is_drawn_for_any_vmin(vmin):
    # the report's vmin is the lowest pair of all panels (-0.257 on a 200-worker crowd):
    # its tick rounded to -0.26 lay below the norm, and the bar came out empty (with
    # "invalid value encountered in scalar multiply")
    pw = iaf.pairwise(iaf.load_sample("coco"), component="detection")
    ax = iaf.plot.pairwise(pw, vmin=vmin, width=3.5)
    cells = next(c for c in ax.collections if c.get_gid() == "cells")
    cbar = cells.colorbar
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ax.figure.canvas.draw()
    low, high = cbar.ax.get_ylim()
    assert vmin - 1e-12 <= low and high <= 1.0 + 1e-12
    assert all(vmin - 1e-12 <= t <= 1.0 + 1e-12 for t in cbar.get_ticks())
    assert np.isfinite(np.asarray(cbar.solids.get_array(), dtype=float)).all()
    matplotlib.pyplot.close(ax.figure)
