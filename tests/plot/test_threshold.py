"""plot.threshold_curve: every component against the match threshold, with CI bands."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from iaa_frames import plot
from iaa_frames.core.engine import agreement
from iaa_frames.errors import ParameterError
from iaa_frames.simulate import simulate

ALL = "(all)"
TAUS = [0.1, 0.3, 0.5, 0.7, 0.9]
COMPONENTS = ["detection", "classification", "localization", "overall"]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def df():
    return simulate(n_items=24, seed=5, annotators={"a": "good", "b": "sloppy", "c": "good"})


@pytest.fixture(scope="module")
def sweep(df):
    return agreement(df, match_threshold=TAUS, n_chance=300, n_boot=40, seed=1)


def lines(ax):
    return {
        ln.get_gid().split(":", 1)[1]: ln
        for ln in ax.lines
        if (ln.get_gid() or "").startswith("estimate:")
    }


def bands(ax):
    return {
        c.get_gid().split(":", 1)[1]: c
        for c in ax.collections
        if (c.get_gid() or "").startswith("ci:")
    }


def test_frame_holds_the_cell_at_every_threshold(sweep):
    f = plot.threshold_frame(sweep, label="car", annotator="b")
    assert list(f.columns) == [
        "threshold",
        "component",
        "measure",
        "agreement",
        "ci_low",
        "ci_high",
        "n_units",
        "n_chance",
        "note",
    ]
    assert f["component"].unique().tolist() == COMPONENTS
    for comp, sub in f.groupby("component"):
        assert sub["threshold"].tolist() == TAUS
        cell = sweep.sel(component=comp, label="car", annotator="b")
        np.testing.assert_array_equal(sub["agreement"], cell["agreement"].values)
        np.testing.assert_array_equal(sub["ci_low"], cell["ci_low"].values)
    assert set(f.loc[f["component"] == "classification", "measure"]) == {"alpha"}


def test_lines_and_bands_draw_the_numbers(sweep):
    ax = plot.threshold_curve(sweep)
    f = plot.threshold_frame(sweep)
    drawn = lines(ax)
    assert sorted(drawn) == sorted(COMPONENTS)
    for comp, line in drawn.items():
        sub = f[f["component"] == comp]
        np.testing.assert_array_equal(line.get_xdata(), TAUS)
        np.testing.assert_array_equal(line.get_ydata(), sub["agreement"].to_numpy())
        assert line.get_color() == plot.style.component_color(comp) or matplotlib.colors.same_color(
            line.get_color(), plot.style.component_color(comp)
        )
    for comp, band in bands(ax).items():  # each band spans its interval
        sub = f[f["component"] == comp].dropna(subset=["ci_low", "ci_high", "agreement"])
        ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
        assert ys.min() == pytest.approx(sub["ci_low"].min())
        assert ys.max() == pytest.approx(sub["ci_high"].max())
    assert ax.get_xlabel() == sweep["threshold"].attrs["long_name"]
    assert ax.get_ylabel() == sweep["agreement"].attrs["long_name"]
    legend = [t.get_text() for t in (ax.get_legend() or ax.figure.legends[0]).get_texts()]
    assert "classification α" in legend and "localization σ" in legend
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{t:g}" for t in TAUS]


def test_no_bands_without_bootstrap_and_undefined_points_are_explained(df):
    res = agreement(df, match_threshold=TAUS, n_chance=300, n_boot=0, seed=1)
    ax = plot.threshold_curve(res)
    assert bands(ax) == {}
    undefined = plot.threshold_frame(res).query("agreement != agreement")  # NaN rows
    notes = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    if len(undefined):
        assert len(notes) == 1 and notes[0].startswith("not defined:")
        for comp in undefined["component"].unique():
            assert comp in notes[0]
    else:
        assert notes == []


def test_a_gap_is_noted_with_its_reason():
    # small objects, a high gate: no chance pair reaches it (localization undefined)
    df = simulate(n_items=10, seed=1, annotators={"a": "good", "b": "good"})
    res = agreement(df, match_threshold=[0.3, 0.95], n_chance=100, n_boot=0)
    f = plot.threshold_frame(res)
    gaps = f[f["agreement"].isna()]
    assert len(gaps), "the corpus was meant to leave a threshold undefined"
    ax = plot.threshold_curve(res, width=3.5)
    note = " ".join(t.get_text() for t in ax.texts if t.get_gid() == "note").replace("\n", " ")
    assert "τ = 0.95" in note and "too few" in note
    assert "(n=" not in note  # counts left out: one reason per component


def test_one_cell_and_some_components(sweep):
    ax = plot.threshold_curve(
        sweep, label="car", annotator="a", components=["localization", "detection"]
    )
    assert sorted(lines(ax)) == ["detection", "localization"]
    assert "label car" in ax.get_title() and "annotator a" in ax.get_title()
    y = lines(ax)["localization"].get_ydata()
    np.testing.assert_array_equal(
        y, sweep["agreement"].sel(component="localization", label="car", annotator="a").values
    )


def test_draws_on_a_given_axes_and_sizes(sweep):
    _, (left, right) = plt.subplots(1, 2)
    assert plot.threshold_curve(sweep, ax=right) is right
    assert lines(right) and not left.lines
    for width in (3.5, 7.0):
        ax = plot.threshold_curve(sweep, width=width)
        assert ax.figure.get_figwidth() == width
        ax.figure.canvas.draw()
        renderer = ax.figure.canvas.get_renderer()
        legend = (ax.get_legend() or ax.figure.legends[0]).get_window_extent(renderer)
        label = ax.xaxis.label.get_window_extent(renderer)
        assert legend.y1 <= label.y0 + 0.5, "the legend overlaps the x label"
        fig_box = ax.figure.bbox
        for t in ax.texts:
            box = t.get_window_extent(renderer)
            assert box.x1 <= fig_box.x1 + 1, f"text runs off the figure: {t.get_text()!r}"


def test_errors(sweep, df):
    one = agreement(df, n_chance=100, n_boot=0)
    with pytest.raises(ParameterError, match="threshold dimension"):
        plot.threshold_curve(one)
    with pytest.raises(ParameterError, match="unknown component"):
        plot.threshold_curve(sweep, components=["speed"])
    with pytest.raises(ParameterError, match="unknown label"):
        plot.threshold_curve(sweep, label="zebra")
    with pytest.raises(ParameterError, match="unknown annotator"):
        plot.threshold_curve(sweep, annotator="zed")
    with pytest.raises(ParameterError, match="xarray.Dataset"):
        plot.threshold_curve(sweep["agreement"])


@pytest.mark.parametrize("figure", ["forest", "decomposition", "annotators"])
def test_figures_of_one_threshold_refuse_a_sweep_and_say_how(sweep, figure):
    with pytest.raises(ParameterError, match=r"sel\(threshold=0.5\)"):
        getattr(plot, figure)(sweep)
    getattr(plot, figure)(sweep.sel(threshold=0.5))  # one threshold: fine


def test_reachable_from_the_accessors(df, sweep):
    ax = sweep.iaa.plot.threshold_curve(components=["overall"])
    assert list(lines(ax)) == ["overall"]
    ax = df.iaa.plot.threshold_curve(match_threshold=TAUS, n_chance=300, n_boot=40, seed=1)
    for comp, line in lines(ax).items():
        np.testing.assert_array_equal(
            line.get_ydata(),
            sweep["agreement"].sel(component=comp, label=ALL, annotator=ALL).values,
        )
    ax = df.iaa.plot.threshold_curve(n_chance=100, n_boot=0)  # the default sweep
    np.testing.assert_allclose(
        lines(ax)["detection"].get_xdata(), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    )


def test_a_value_far_below_chance_is_drawn_at_the_edge(sweep):
    # sigma -47 at one threshold used to stretch the axis to -47; it is drawn at -1
    # (style.FLOOR) with its value written, and the note counts it
    res = sweep.copy(deep=True)
    cell = {"component": "localization", "label": "(all)", "annotator": "(all)"}
    res["agreement"].loc[{**cell, "threshold": TAUS[-1]}] = -47.0
    ax = plot.threshold_curve(res)
    assert -1.1 <= ax.get_ylim()[0] < -1.0
    marks = [t.get_text() for t in ax.findobj(plt.Text) if t.get_gid() == "off-scale"]
    assert marks == ["−47"]
    note = [t.get_text() for t in ax.findobj(plt.Text) if t.get_gid() == "note"]
    assert "1 value below −1" in note[0]
