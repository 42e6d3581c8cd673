"""plot.plan: half-width against items, from iaf.plan."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import iaa_frames as iaf  # noqa: E402


@pytest.fixture(scope="module")
def plan():
    pilot = iaf.simulate(n_items=40, seed=0, annotators={"a": "good", "b": "sloppy"})
    return iaf.plan(pilot, target_halfwidth=0.02, n_outer=5)


def test_points_fit_and_plan_of_every_component_with_a_plan(plan):
    ax = iaf.plot.plan(plan)
    gids = {line.get_gid() for line in ax.lines}
    for comp in plan.table.dropna(subset=["c"])["component"]:
        assert {f"resampled:{comp}", f"fit:{comp}", f"plan:{comp}"} <= gids
        fit = next(line for line in ax.lines if line.get_gid() == f"fit:{comp}")
        x, y = fit.get_data()
        row = plan.table.set_index("component").loc[comp]
        np.testing.assert_allclose(y, np.sqrt(row["c"] ** 2 / x + row["c_chance"] ** 2 / x**2))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_not_a_plan_is_a_clear_error():
    with pytest.raises(iaf.ParameterError):
        iaf.plot.plan(iaf.simulate(n_items=3, seed=0))


@pytest.mark.parametrize("width", [3.5, 7])
def test_plan_intervals_lie_apart_and_the_legend_names_every_mark(width):
    # detection's and overall's intervals overlapped on the target line (one translucent
    # band over the other); the legend named the lines only, not the points, triangles, bars
    pilot = iaf.simulate(
        n_items=40, seed=0, annotators={"a": "good", "b": "sloppy", "c": "mislabeler"}
    )
    p = iaf.plan(pilot, target_halfwidth=0.02, n_outer=5)
    ax = iaf.plot.plan(p, width=width)
    bars = [line for line in ax.lines if str(line.get_gid()).startswith("plan_ci:")]
    assert len(bars) >= 2
    lanes = [float(line.get_ydata()[0]) for line in bars]
    assert len(set(lanes)) == len(lanes)  # one lane each
    texts = [t.get_text() for t in (ax.get_legend() or ax.figure.legends[0]).get_texts()]
    assert {"pilot resamples", "plan", "plan 95 % CI"} <= set(texts)
    fig = ax.figure
    fig.canvas.draw()
    legend = (ax.get_legend() or ax.figure.legends[0]).get_window_extent()
    assert legend.x0 >= 0 and legend.x1 <= fig.bbox.x1  # not cut at the edges
    matplotlib.pyplot.close(fig)
