"""plot.pairwise: the colour bar."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from results import make_pairwise  # noqa: E402

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


def test_a_pair_far_below_chance_takes_the_lowest_colour_not_the_scale():
    # one pair at sigma -47 used to set vmin = -47: every negative pair looked like chance
    pw = iaf.pairwise(iaf.load_sample("coco"), component="detection").copy()
    a, b = pw["annotator_a"].values[:2]
    pw.loc[{"annotator_a": a, "annotator_b": b}] = -47.0
    ax = iaf.plot.pairwise(pw, width=3.5)
    cells = next(c for c in ax.collections if c.get_gid() == "cells")
    assert cells.norm.vmin == iaf.plot.style.FLOOR
    assert cells.colorbar.extend == "min"  # the bar says lower values exist
    plain = iaf.pairwise(iaf.load_sample("coco"), component="detection")
    ax = iaf.plot.pairwise(plain, width=3.5)
    cells = next(c for c in ax.collections if c.get_gid() == "cells")
    assert cells.colorbar.extend == "neither" and cells.norm.vmin >= -1.0
    matplotlib.pyplot.close("all")


def _blank_above(fig) -> float:
    """Inches between the figure's top and the highest artist drawn."""
    fig.canvas.draw()
    return fig.get_figheight() - fig.get_tightbbox(fig.canvas.get_renderer()).y1


@pytest.mark.parametrize("width", [3.5, 7])
@pytest.mark.parametrize("n", [4, 200])
def test_no_blank_strip_above_the_heatmap(width, n):
    # the square panel sat in the middle of a 0.86 x width figure: a blank strip above it;
    # and the note under the Axes (hidden annotators, why cells are n/a) stood out to the
    # right of a narrow panel, the layout shrinking the panel to a third of the figure
    m = make_pairwise(annotators=[f"w{k:03d}" for k in range(n)])
    rows = np.arange(0, n - 1, 2)
    values, note = m.values.copy(), m["note"].values.copy()
    values[rows, rows + 1] = values[rows + 1, rows] = np.nan
    note[rows, rows + 1] = note[rows + 1, rows] = (
        "too few chance units (n=3: the whole chance population)"
    )
    m = m.copy(data=values).assign_coords(note=(m.dims, note))
    ax = iaf.plot.pairwise(m, width=width)
    fig = ax.figure
    assert _blank_above(fig) < 0.1
    title = ax.title.get_window_extent()
    assert fig.bbox.y1 - title.y1 < 0.15 * fig.dpi  # the panel's top near the figure's
    # the panel takes the width left by the names and the colour bar
    assert ax.get_window_extent().width / fig.dpi > 0.4 * width
    notes = [t for t in fig.texts if t.get_gid() == "note"]
    assert len(notes) == 1
    if n == 4:
        assert "n/a: too few chance units" in notes[0].get_text()
    else:  # those shown are chosen among the defined pairs: none of them is n/a
        assert "more annotators not shown" in notes[0].get_text()
        assert "n/a" not in notes[0].get_text()
    matplotlib.pyplot.close(fig)


def _old_choice(m, top):
    """The choice before: the ``top`` annotators of most support (n_units summed)."""
    units = np.nan_to_num(m["n_units"].values)
    return np.argsort(-(units.sum(0) + units.sum(1)), kind="stable")[:top]


def _defined_off_diagonal(values):
    return int(np.isfinite(values[~np.eye(len(values), dtype=bool)]).sum())


def test_a_sparse_crowd_is_shown_by_annotators_who_share_items():
    crowd = iaf.simulate_crowd(n_items=150, n_workers=200, per_item=(3, 3), seed=1)
    m = iaf.pairwise(crowd.annotations, component="classification", n_chance=500)
    frame = iaf.plot.pairwise_frame(m, top=20)
    assert len(frame) == 20 and frame.attrs["n_hidden"] == len(m[m.dims[0]]) - 20
    old = _old_choice(m, 20)
    new = _defined_off_diagonal(frame.to_numpy())
    assert new > _defined_off_diagonal(m.values[np.ix_(old, old)])
    # the drawn matrix is the DataArray's, rows and columns in the same order
    names = list(frame.index)
    np.testing.assert_array_equal(frame.to_numpy(), m.sel(annotator_a=names, annotator_b=names))


@pytest.mark.parametrize("n", [4, 24])
@pytest.mark.parametrize("width", [3.5, 7.0])
def test_heatmap_names_do_not_overlap_and_stay_on_the_figure(n, width):
    """The visible contract of the names beside the cells: neighbours apart (by their
    drawn extents), the title inside the figure."""
    import matplotlib.pyplot as plt
    import xarray as xr

    names = [f"annotator_{k:02d}" for k in range(n)]
    m = xr.DataArray(
        np.full((n, n), 0.5),
        dims=("annotator_a", "annotator_b"),
        coords={"annotator_a": names, "annotator_b": names},
        attrs={"long_name": "agreement"},
    )
    ax = iaf.plot.pairwise(m, top=None, width=width)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        shown = [t for t in labels if t.get_visible() and t.get_text()]
        assert len(shown) >= n // 2
        boxes = [t.get_window_extent(renderer) for t in shown]
        for t, a, b in zip(shown, boxes, boxes[1:]):
            if t.get_rotation() % 90:  # slanted: the lines lie a line's height apart
                gap = abs(b.x0 - a.x0) * np.sin(np.radians(t.get_rotation()))
                assert gap >= t.get_fontsize() * fig.dpi / 72, "slanted names overlap"
            else:
                assert not a.overlaps(b), "neighbouring names overlap"
    title = ax.title.get_window_extent(renderer)
    assert fig.bbox.x0 <= title.x0 and title.x1 <= fig.bbox.x1 and title.y1 <= fig.bbox.y1
    plt.close(fig)
