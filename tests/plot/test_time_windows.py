"""plot.over_time: the points are the windows' agreement and intervals, rings mark
exactly the flagged components."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import iaa_frames as iaf  # noqa: E402
from iaa_frames.errors import ParameterError  # noqa: E402


@pytest.fixture(scope="module")
def res():
    df = iaf.simulate_drift(n_items=96, seed=3)
    return iaf.agreement_over_time(df, freq="D", n_chance=200, n_boot=50, seed=1)


def test_frame_holds_the_result(res):
    f = iaf.plot.over_time_frame(res, components=["overall"])
    cell = res.sel(label="(all)", annotator="(all)", component="overall")
    np.testing.assert_array_equal(f["agreement"], cell["agreement"].values)
    np.testing.assert_array_equal(f["ci_high"], cell["ci_high"].values)
    assert f["n_items"].tolist() == res["n_items"].values.tolist()
    assert f["recalibrate"].all() == bool(cell["recalibrate"])


@pytest.mark.parametrize("width", [7, 3.5])
def test_rings_mark_the_flagged_components(res, width):
    ax = iaf.plot.over_time(res, width=width)
    rings = {
        a.get_gid().split(":")[1] for a in ax.collections if str(a.get_gid()).startswith("recal")
    }
    flags = res["recalibrate"].sel(label="(all)", annotator="(all)").to_series()
    assert rings == set(flags.index[flags.to_numpy()])
    assert len(ax.get_xticklabels()) == res.sizes["window"]
    matplotlib.pyplot.close(ax.figure)


def test_wrong_input(res):
    with pytest.raises(ParameterError, match="agreement_over_time"):
        iaf.plot.over_time(res.isel(window=-1, drop=True).drop_vars("recalibrate"))
    with pytest.raises(ParameterError, match="unknown label"):
        iaf.plot.over_time(res, label="dog")


@pytest.mark.parametrize("width", [7, 3.5])
def test_the_panel_keeps_an_inch_of_height(res, width):
    # at 3.5 in the slanted dates, two legend rows and the note left the data 0.74 in
    ax = iaf.plot.over_time(res, width=width)
    fig = ax.figure
    fig.canvas.draw()
    assert ax.get_window_extent().height / fig.dpi >= 1.2
    matplotlib.pyplot.close(fig)


def test_a_value_far_below_chance_is_drawn_at_the_edge(res):
    # one window at sigma -47 used to stretch the axis; it is drawn at -1 (style.FLOOR)
    low = res.copy(deep=True)
    cell = {"component": "overall", "label": "(all)", "annotator": "(all)"}
    at = {**cell, "window": low["window"].values[0]}
    for var, value in (("agreement", -47.0), ("ci_low", -60.0), ("ci_high", -30.0)):
        low[var].loc[at] = value
    ax = iaf.plot.over_time(low, components=["overall"])
    assert -1.1 <= ax.get_ylim()[0] < -1.0
    marks = [t.get_text() for t in ax.findobj(plt.Text) if t.get_gid() == "off-scale"]
    assert marks == ["−47"]
    note = [t.get_text() for t in ax.findobj(plt.Text) if t.get_gid() == "note"]
    assert "1 value below −1" in note[0]
