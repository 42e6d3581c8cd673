"""Tests for iaa_frames.plot.tick_fit: heatmap names kept apart, short ones left slanted."""

from __future__ import annotations

import matplotlib
import pytest

from iaa_frames.plot.tick_fit import MIN_TICK_PT, fit_heatmap_ticks, overlapping

matplotlib.use("Agg")
plt = matplotlib.pyplot


def _heatmap(names, side):
    fig, ax = plt.subplots(figsize=(side + 1.5, side + 1.5), layout="constrained")
    n = len(names)
    ax.pcolormesh(range(n + 1), range(n + 1), [[0.0] * n] * n)
    ax.set_aspect("equal")
    ax.set_xticks([k + 0.5 for k in range(n)], names, rotation=45, ha="right",
                  rotation_mode="anchor")  # fmt: skip
    ax.set_yticks([k + 0.5 for k in range(n)], names)
    fig.canvas.draw()
    return fig, ax


@pytest.mark.parametrize("n", [8, 16, 24])
def test_long_names_stand_upright_and_apart(n):
    fig, ax = _heatmap([f"annotator_{k:02d}" for k in range(n)], 2.0)
    renderer = fig.canvas.get_renderer()
    assert overlapping(ax.get_xticklabels(), renderer) > 0  # at 45°, as drawn
    size = fit_heatmap_ticks(ax, renderer)
    assert overlapping(ax.get_xticklabels(), renderer) == 0
    assert overlapping(ax.get_yticklabels(), renderer) == 0
    assert all(t.get_rotation() == 90 for t in ax.get_xticklabels())
    assert MIN_TICK_PT <= size <= 10
    plt.close(fig)


def test_short_names_keep_their_slant_and_size():
    fig, ax = _heatmap(["ana", "ben", "chloe", "dev"], 2.0)
    before = ax.get_yticklabels()[0].get_fontsize()
    size = fit_heatmap_ticks(ax, fig.canvas.get_renderer())
    assert size == before == ax.get_yticklabels()[0].get_fontsize()
    assert all(t.get_rotation() == 45 for t in ax.get_xticklabels())
    plt.close(fig)


def test_the_font_stops_at_its_floor():
    # 60 names in 1 in: no size fits; the floor holds, the names stay readable
    fig, ax = _heatmap([f"w{k:03d}" for k in range(60)], 1.0)
    assert fit_heatmap_ticks(ax, fig.canvas.get_renderer()) == MIN_TICK_PT
    plt.close(fig)
