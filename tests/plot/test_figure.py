"""The layout without rendering (iaa_frames.plot.figure.laid_out)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Polygon

from iaa_frames.plot.figure import laid_out, subplots


def _panels(n_shapes=40):
    """Two panels of clipped polygons, titles, a legend below and a marker outside the
    Axes (clip_on=False: in the layout, never hidden)."""
    rng = np.random.default_rng(0)
    fig, axes = subplots(1, 2, figsize=(7, 3), layout="constrained")
    for k, ax in enumerate(axes):
        for _ in range(n_shapes):
            ax.add_patch(Polygon(rng.uniform(-0.5, 1.5, (30, 2)), alpha=0.3))
        ax.plot([0, 1], [0, 1], label="a line")
        ax.plot([1.3], [0.5], "o", clip_on=False)
        ax.set_title(f"panel {k} with a title long enough to wrap " * (k + 1))
        ax.set_xlabel("x")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig, axes


def _layout(fig, renderer):
    return np.array(
        [ax.get_position().bounds for ax in fig.axes]
        + [ax.get_tightbbox(renderer).bounds for ax in fig.axes]
        + [ax.title.get_window_extent(renderer).bounds for ax in fig.axes]
    )


@pytest.mark.parametrize("passes", [1, 3])
def test_laid_out_gives_the_layout_of_full_draws_and_hides_nothing_after(passes):
    # the same figure twice: laid out, or drawn in full, as many times (constrained
    # layout settles over draws: titles are placed while drawing)
    fig, axes = _panels()
    visible = [a.get_visible() for ax in axes for a in ax.get_children()]
    for _ in range(passes):
        fast = _layout(fig, laid_out(fig))
    assert [a.get_visible() for ax in axes for a in ax.get_children()] == visible
    plt.close(fig)
    fig, _ = _panels()
    for _ in range(passes):
        fig.canvas.draw()
        full = _layout(fig, fig.canvas.get_renderer())
    np.testing.assert_array_equal(fast, full)
    plt.close(fig)


def test_laid_out_keeps_artists_outside_the_axes_in_the_layout():
    # a marker drawn outside its Axes widens the tight box: laid_out must not hide it
    fig, ax = subplots(figsize=(3, 3))
    ax.plot([0, 1], [0, 1])
    (outside,) = ax.plot([1.5], [0.5], "o", markersize=30, clip_on=False)
    ax.set_xlim(0, 1)
    with_marker = ax.get_tightbbox(laid_out(fig)).x1
    outside.set_visible(False)
    without = ax.get_tightbbox(laid_out(fig)).x1
    assert with_marker > without
    plt.close(fig)
