"""Tests for iaa_frames.plot: what was drawn (artists, their data, labels, texts), on a
hand-built result with known values and on the real engine."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from results import make_pairwise, make_result  # noqa: E402

import iaa_frames as iaf  # noqa: E402
import iaa_frames.accessor  # noqa: E402,F401  registers df.iaa and res.iaa
from iaa_frames import plot  # noqa: E402
from iaa_frames.core.engine import agreement_from_tables, pairwise_from_tables  # noqa: E402
from iaa_frames.core.tables.pairs import pair_tables  # noqa: E402
from iaa_frames.errors import ParameterError  # noqa: E402
from iaa_frames.explore.items import items as item_table  # noqa: E402
from iaa_frames.plot import style  # noqa: E402
from iaa_frames.simulate import simulate  # noqa: E402

ALL = "(all)"


@pytest.fixture(scope="module")
def corpus():
    """A small box corpus with a careful, a sloppy, a missing and a mislabeling annotator,
    its tables and its result (real engine)."""
    profiles = {
        "ana": {"jitter": 0.02},
        "ben": {"jitter": 0.12},
        "cy": {"jitter": 0.02, "miss": 0.35},
        "dev": {"jitter": 0.02, "confusion": 0.4},
    }
    df = simulate(n_items=25, annotators=profiles, seed=4)
    tables = pair_tables(df, n_chance=300, seed=0)
    result = agreement_from_tables(tables, n_boot=40, seed=0)
    return df, tables, result


def by_gid(ax, gid):
    return [a for a in ax.get_children() if a.get_gid() == gid]


def texts(fig_or_ax, gid):
    return [t.get_text() for t in fig_or_ax.findobj(matplotlib.text.Text) if t.get_gid() == gid]


# ----------------------------------------------------------------------------- agreement


def test_forest_whiskers_points_and_labels_hand_built():
    ds = make_result()
    fig = plot.forest(ds, raw_iou=False)
    assert len(fig.axes) == 4
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [ALL, "car", "person", "bicycle"]  # (all), then by support
    for ax, comp in zip(fig.axes, ["detection", "classification", "localization", "overall"]):
        measure = str(ds["measure"].sel(component=comp).values)
        assert ax.get_title() == f"{comp} { {'sigma': 'σ', 'alpha': 'α'}[measure] }"
        sub = ds.sel(component=comp, annotator=ALL, label=labels)
        lo, hi = sub["ci_low"].values, sub["ci_high"].values
        finite = np.isfinite(lo) & np.isfinite(hi)
        (ci,) = by_gid(ax, "ci")
        segs = np.array(ci.get_segments())
        assert len(segs) == finite.sum()  # one whisker per label with a CI
        np.testing.assert_allclose(segs[:, 0, 0], lo[finite])
        np.testing.assert_allclose(segs[:, 1, 0], hi[finite])
        np.testing.assert_allclose(segs[:, 0, 1], np.flatnonzero(finite))
        (pts,) = by_gid(ax, "estimate")
        value = sub["agreement"].values
        np.testing.assert_allclose(pts.get_xdata(), value[np.isfinite(value)])
        (chance,) = by_gid(ax, "chance")
        assert list(chance.get_xdata()) == [0, 0]
        assert by_gid(ax, "raw_iou") == []
    assert fig.get_supxlabel().startswith(ds["agreement"].attrs["long_name"])
    # raw IoU: a panel of its own, beside localization, on an IoU axis
    fig = plot.forest(ds)
    raw_ax = fig.axes[3]
    assert raw_ax.get_title() == "raw IoU" and "IoU" in raw_ax.get_xlabel()
    sub = ds.sel(component="localization", annotator=ALL, label=labels)
    np.testing.assert_allclose(by_gid(raw_ax, "raw_iou")[0].get_xdata(), sub["raw_iou"].values)
    fig = plot.forest(ds)
    # the NaN cell (classification, bicycle) is written n/a, and has no whisker
    assert texts(fig.axes[1], "undefined") == ["n/a"]
    assert texts(fig.axes[0], "undefined") == []


def test_forest_top_n_truncation_note():
    ds = make_result(labels=[f"class_{i:04d}" for i in range(1200)])
    fig = plot.forest(ds, top=20, components=["localization"])
    ax = fig.axes[0]
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert len(shown) == 21 and shown[0] == ALL
    support = ds["n_units"].sel(component="localization", annotator=ALL).to_series().drop(ALL)
    expected = support.sort_values(ascending=False, kind="stable")
    # ties broken by name
    expected = sorted(support.index, key=lambda k: (-support[k], k))[:20]
    assert shown[1:] == expected
    (note,) = texts(fig, "note")
    assert note.startswith("+ 1,180 more labels not shown (top 20 by support")
    (ci,) = by_gid(ax, "ci")
    assert len(ci.get_segments()) == 21


def test_forest_without_cis_draws_no_whiskers(corpus):
    _, tables, _ = corpus
    res = agreement_from_tables(tables, n_boot=0)
    fig = plot.forest(res)
    assert all(by_gid(ax, "ci") == [] for ax in fig.axes)
    # three classes: nothing left out (a note may say why a cell is n/a, nothing more)
    assert not [t for t in texts(fig, "note") if "not shown" in t]
    assert all(t.startswith("n/a") for t in texts(fig, "note"))


def test_forest_on_real_result(corpus):
    _, _, res = corpus
    fig = plot.forest(res, raw_iou=False)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    for ax, comp in zip(fig.axes, res["component"].values):
        sub = res.sel(component=comp, annotator=ALL, label=labels)
        finite = (np.isfinite(sub["ci_low"]) & np.isfinite(sub["ci_high"])).values
        segs = np.array(by_gid(ax, "ci")[0].get_segments())
        assert len(segs) == int(finite.sum())
        # one segment per label with an interval, in the order of the labels
        np.testing.assert_allclose(segs[:, 0, 0], sub["ci_low"].values[finite])
        np.testing.assert_allclose(segs[:, 1, 0], sub["ci_high"].values[finite])


def test_forest_axes_argument_and_errors():
    ds = make_result()
    fig, axes = plt.subplots(1, 2)
    out = plot.forest(ds, components=["detection", "overall"], axes=axes)
    assert out is fig
    with pytest.raises(ParameterError, match="one per panel"):
        plot.forest(ds, components=["detection"], axes=axes)
    with pytest.raises(ParameterError, match="unknown component"):
        plot.forest(ds, components=["colour"])
    with pytest.raises(ParameterError, match="unknown annotator"):
        plot.forest(ds, annotator="zoe")
    with pytest.raises(ParameterError, match="top"):
        plot.forest(ds, top=0)
    with pytest.raises(ParameterError, match="xarray.Dataset"):
        plot.forest(ds.to_dataframe())


def test_forest_frame_is_what_is_drawn():
    ds = make_result()
    frame = plot.forest_frame(ds, top=2)
    assert list(frame["row"].unique()) == [ALL, "car", "person"]
    assert frame.attrs["n_hidden"] == 1
    row = frame[(frame["component"] == "overall") & (frame["row"] == "car")].iloc[0]
    assert row["agreement"] == float(
        ds["agreement"].sel(component="overall", label="car", annotator=ALL)
    )


# ---------------------------------------------------------------------- decomposition


def test_decomposition_dots_and_whiskers():
    ds = make_result()
    ax = plot.decomposition(ds)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [ALL, "car", "person", "bicycle"]
    for comp in ("detection", "classification", "localization"):
        sub = ds.sel(component=comp, annotator=ALL, label=labels)
        value = sub["agreement"].values
        (pts,) = by_gid(ax, f"estimate:{comp}")
        np.testing.assert_allclose(pts.get_xdata(), value[np.isfinite(value)])
        segs = np.array(by_gid(ax, f"ci:{comp}")[0].get_segments())
        fin = np.isfinite(sub["ci_low"].values)
        np.testing.assert_allclose(segs[:, 0, 0], sub["ci_low"].values[fin])
        np.testing.assert_allclose(segs[:, 1, 0], sub["ci_high"].values[fin])
    assert by_gid(ax, "estimate:overall") == []
    assert [t.get_text() for t in (ax.get_legend() or ax.figure.legends[0]).get_texts()][1:] == [
        "detection σ",
        "classification α",
        "localization σ",
    ]
    assert ax.get_xlabel() == "chance-corrected agreement (0 = chance, 1 = perfect)"


def test_decomposition_truncates_and_uses_given_ax():
    ds = make_result(labels=[f"c{i}" for i in range(40)])
    fig, ax = plt.subplots()
    out = plot.decomposition(ds, top=5, ax=ax)
    assert out is ax
    assert len(ax.get_yticklabels()) == 6
    assert texts(ax, "note") == [
        "+ 35 more labels not shown (top 5 by support (localization n_units))"
    ]


# ------------------------------------------------------------------------- annotators


def profiles(ax, n_components=4):
    """name -> agreement per component group (NaN where not drawn), from the artists."""
    out = {}
    for a in ax.get_children():
        gid = str(a.get_gid())
        if not gid.startswith("profile:"):
            continue
        if isinstance(a, matplotlib.lines.Line2D):
            xy = np.column_stack([a.get_xdata(), a.get_ydata()])
        else:  # everybody: one bar (segment) per component
            xy = np.array([seg.mean(axis=0) for seg in a.get_segments()])
        values = np.full(n_components, np.nan)
        values[np.rint(xy[:, 0]).astype(int)] = xy[:, 1]
        out[gid.split(":", 1)[1]] = values
    return out


def test_annotator_profiles_hand_built():
    ds = make_result(annotators=[f"a{i}" for i in range(12)])
    ax = plot.annotators(ds, top=4)
    drawn = profiles(ax)
    assert len(drawn) == 5  # everybody + 4 annotators
    assert list(drawn)[0] == ALL
    comps = ["detection", "classification", "localization", "overall"]
    # dots and intervals, no line joining the components (σ and α are different scales)
    assert all(
        ln.get_linestyle() == "None" for ln in ax.get_lines() if "profile" in str(ln.get_gid())
    )
    for name, values in drawn.items():
        expected = ds["agreement"].sel(component=comps, label=ALL, annotator=name).values
        np.testing.assert_allclose(values, expected)
        if name == ALL:
            continue
        segs = np.array(by_gid(ax, f"ci:{name}")[0].get_segments())
        np.testing.assert_allclose(
            segs[:, 0, 1], ds["ci_low"].sel(component=comps, label=ALL, annotator=name).values
        )
    assert ax.get_ylabel() == "chance-corrected agreement"
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "detection\nσ",
        "classification\nα",
        "localization\nσ",
        "overall\nσ",
    ]
    # 12 annotators, top 4: the two ends of the crowd by overall σ
    overall = ds["agreement"].sel(component="overall", label=ALL).to_series().drop(ALL)
    ranked = list(overall.sort_values(ascending=False).index)
    assert list(drawn)[1:] == ranked[:2] + ranked[-2:]
    assert texts(ax, "note") == [
        "+ 8 more annotators not shown: drawn are the 2 of highest and the 2 of lowest\n"
        "  overall σ (left and right of the dotted lines)"
    ]


def _with_extreme(ds, value=-47.0, **cell):
    """``ds`` with one cell at ``value`` (its interval around it), like a lazy annotator."""
    ds = ds.copy(deep=True)
    for var, v in (("agreement", value), ("ci_low", value * 1.5), ("ci_high", value / 2)):
        ds[var].loc[cell] = v
    return ds


def test_a_value_far_below_chance_is_drawn_at_the_edge_with_its_value():
    # one annotator at σ = -47 used to stretch the axis to -47, squeezing every other
    # value into its top 2 %; it is drawn at the floor (-1), its value written
    ds = _with_extreme(make_result(), component="overall", label=ALL, annotator="ben")
    ax = plot.annotators(ds)
    bottom, top = ax.get_ylim()
    assert -1.1 <= bottom < -1.0 and top > 1.0
    assert texts(ax, "off-scale") == ["−47"]
    (edge,) = [ln for ln in ax.get_lines() if ln.get_gid() == "off-scale"]
    assert edge.get_ydata().tolist() == [style.FLOOR]
    assert np.isnan(profiles(ax)["ben"][3])  # no dot of its own
    assert "1 value below −1: drawn at the edge of the axis" in texts(ax, "note")[0]
    # the forest and the decomposition do the same along x
    fig = plot.forest(ds, label=ALL, raw_iou=False)
    overall = fig.axes[3]
    assert overall.get_xlim()[0] >= -1.1 and texts(overall, "off-scale") == ["−47"]
    ds = _with_extreme(make_result(), -3.25, component="detection", label="car", annotator=ALL)
    ax = plot.decomposition(ds)
    assert ax.get_xlim()[0] >= -1.1 and texts(ax, "off-scale") == ["−3.25"]
    # nothing below the floor: no marks, no note, the axis from the lowest value
    plain = make_result()
    ax = plot.annotators(plain)
    low = plain["ci_low"].sel(label=ALL).min().item()
    assert texts(ax, "off-scale") == [] and ax.get_ylim()[0] == pytest.approx(min(0, low) - 0.05)


def test_value_range_and_off_scale_marks():
    assert style.value_range([0.3, -0.4]) == (-0.4, 1.0)
    assert style.value_range([0.3, -47.0, np.nan]) == (-1.0, 1.0)
    assert style.value_range([0.3, -47.0], floor=-2.0) == (-2.0, 1.0)
    fig, ax = plt.subplots()
    marks = style.off_scale(ax, [0, 1, 2, 3], [-1.0, -1.5, np.nan, -120.0], along="y")
    line, *labels = marks
    assert line.get_xdata().tolist() == [-1.0, -1.0] and line.get_ydata().tolist() == [1, 3]
    assert [t.get_text() for t in labels] == ["−1.5", "−120"]
    assert style.off_scale(ax, [0], [-0.99]) == []
    assert style.off_scale_note([-1.0, 0.5]) == ""
    assert style.off_scale_note([-2.0, -3.0]).startswith("2 values below −1")


@pytest.mark.parametrize("top", [10, 7])
def test_annotator_profiles_of_a_crowd_show_both_ends(top):
    # 200 annotators: the 10 of most support said nothing of who fails; the crowd is now
    # drawn by its ends, a dotted separator in each group, one note for what is hidden
    names = [f"w{k:03d}" for k in range(200)]
    ds = make_result(annotators=names, nan_cells=(("localization", ALL, "w007"),))
    ax = plot.annotators(ds, top=top, rank_by="localization")
    drawn = [a for a in profiles(ax) if a != ALL]
    loc = ds["agreement"].sel(component="localization", label=ALL).to_series().drop(ALL)
    ranked = list(loc.dropna().sort_values(ascending=False).index)
    n_high, n_low = top - top // 2, top // 2
    assert drawn == ranked[:n_high] + ranked[-n_low:]
    seps = by_gid(ax, "separator")
    assert len(seps) == 1 and len(seps[0].get_segments()) == 4  # one per component group
    # the separator stands between the last dot of the highest and the first of the lowest
    dots = {a.get_gid().split(":", 1)[1]: a.get_xdata()[0] for a in ax.get_lines()
            if str(a.get_gid()).startswith("profile:")}  # fmt: skip
    x_sep = seps[0].get_segments()[0][0, 0]
    assert dots[ranked[n_high - 1]] < x_sep < dots[ranked[-n_low]]
    (note,) = texts(ax, "note")
    assert note.count("not shown") == 1
    assert note.replace("\n  ", " ").startswith(
        f"+ {200 - top} more annotators not shown: drawn are the {n_high} of highest and "
        f"the {n_low} of lowest localization σ (left and right of the dotted lines); "
        "1 with localization n/a are not ranked"
    )
    plt.close("all")


@pytest.mark.parametrize("width", [3.5, 7])
def test_a_legend_of_long_names_stays_on_the_figure(width):
    # 15 annotators named "annotator_NN": at 0.95 in an entry the legend ran past the
    # figure's right edge (the last entry read "annotator_"); it takes fewer columns
    names = [f"annotator_{k:02d}" for k in range(15)]
    ax = plot.annotators(make_result(annotators=names), width=width)
    fig = ax.figure
    fig.canvas.draw()
    box = (ax.get_legend() or ax.figure.legends[0]).get_window_extent(fig.canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width
    assert (
        len((ax.get_legend() or ax.figure.legends[0]).get_texts()) == 12
    )  # chance, (all) and the 10 drawn
    plt.close("all")


def test_profile_frame_checks_rank_by():
    with pytest.raises(ParameterError, match="rank_by"):
        plot.profile_frame(make_result(), rank_by="speed")


def test_annotator_profiles_tell_failures_apart(corpus):
    _, _, res = corpus
    ax = plot.annotators(res)
    profile = profiles(ax)
    assert set(profile) == {ALL, "ana", "ben", "cy", "dev"}
    # each failing annotator is the lowest on its own component
    worst = {
        c: min(("ana", "ben", "cy", "dev"), key=lambda a: profile[a][k])
        for k, c in enumerate(["detection", "classification", "localization"])
    }
    assert worst == {"detection": "cy", "classification": "dev", "localization": "ben"}


# --------------------------------------------------------------------------- pairwise


def test_pairwise_heatmap_values_and_labels():
    m = make_pairwise(annotators=("ana", "ben", "cy", "dev"))
    ax = plot.pairwise(m)
    cells = [t.get_text() for t in ax.texts if t.get_gid() == "value"]
    values = m.values[~np.isnan(m.values)]
    assert cells == [f"{v:.2f}" for v in values]  # no value on the diagonal
    assert len(by_gid(ax, "diagonal")) == 4  # hatched, not the white of 0
    assert ax.get_xlabel() == "annotator" and ax.get_ylabel() == "annotator"
    cbar = next(c for c in ax.collections if c.get_gid() == "cells").colorbar
    assert cbar.ax.get_ylabel() == "chance-corrected agreement (σ)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ana", "ben", "cy", "dev"]
    assert ax.get_title() == "localization σ: pairs of annotators"
    # the colorbar is exactly as tall as the cells
    ax.figure.canvas.draw()
    a, c = ax.get_window_extent(), cbar.ax.get_window_extent()
    assert abs(a.height - c.height) < 1.0 and abs(a.y0 - c.y0) < 1.0


def test_pairwise_top_note_and_real_engine(corpus):
    _, tables, _ = corpus
    m = pairwise_from_tables(tables, component="classification")
    ax = plot.pairwise(m, top=2)
    assert len(ax.get_xticklabels()) == 2
    assert [" ".join(t.split()) for t in texts(ax.figure, "note")] == [
        "+ 2 more annotators not shown (top 2 by items shared with each other)"
    ]
    assert (
        "(α)" in next(c for c in ax.collections if c.get_gid() == "cells").colorbar.ax.get_ylabel()
    )
    # from tables: the same matrix
    ax2 = plot.pairwise(tables, component="classification")
    frame = plot.pairwise_frame(m)
    cells = [t.get_text() for t in ax2.texts if t.get_gid() == "value"]
    assert cells == [f"{v:.2f}" for v in frame.to_numpy().ravel() if np.isfinite(v)]


def test_pairwise_errors():
    with pytest.raises(ParameterError, match="2-D"):
        plot.pairwise(make_result()["agreement"])
    with pytest.raises(TypeError):
        plot.pairwise(make_pairwise(), n_boots=10)


# ------------------------------------------------------------------------------ items


def test_items_bars_and_counts(corpus):
    _, tables, _ = corpus
    table = item_table(tables)
    ax = plot.items(table, top=5)
    patches = [p for p in ax.patches if p.get_gid() == "item_bar"]
    assert len(patches) == 5
    np.testing.assert_allclose([p.get_width() for p in patches], table["sigma"].head(5))
    assert [t.get_text() for t in ax.get_yticklabels()] == table["item"].head(5).tolist()
    counts = texts(ax.figure.axes[1], "counts")  # header, then one cell per item
    first = table.iloc[0]
    # the ranking value first, then the counts (objects matched by nobody: items' n_unmatched)
    assert counts[:2] == ["excess\n(rank)", f"{first.excess:.2f}"]
    assert counts[6:8] == ["units", str(first.n_pairs)]
    assert counts[12:14] == ["matched\nby\nnobody", str(first.n_unmatched)]
    assert counts[18:20] == ["label\ncon-\nflicts", str(first.n_mislabeled)]
    assert "ranked by excess" in ax.figure.get_suptitle()
    assert texts(ax, "note") == [f"first 5 of {len(table)} items shown"]
    assert ax.get_xlabel() == "item agreement σ (0 = chance)"


def test_items_from_tables_and_errors(corpus):
    _, tables, _ = corpus
    ax = plot.items(tables, component="detection", top=3)
    assert "detection" in ax.figure.get_suptitle()
    with pytest.raises(ParameterError):
        plot.items("nope")


# ----------------------------------------------------------------------- distributions


def test_distributions_annotations_match_engine(corpus):
    _, tables, res = corpus
    fig = plot.distributions(tables, component="localization", by="label", top=2)
    assert len(fig.axes) == 6  # (all) + 2 classes, two panels each
    titles = [ax.get_title(loc="left").split("\n") for ax in fig.axes[::2]]
    assert [t[0] for t in titles] == plot.label_order(res)[:3]  # the result's order
    for k, (facet, *stat, n) in enumerate(titles):
        ax_e = fig.axes[2 * k + 1]
        cell = res.sel(component="localization", label=facet, annotator=ALL)
        sign = "+" if float(cell["ks_sign"]) > 0 else "−"
        ks = f"KS = {sign}{float(cell['ks']):.2f}"
        if np.isnan(float(cell["agreement"])):  # the result's n/a, on the facet too
            assert stat[0].startswith("σ = n/a")
        else:
            assert stat == [f"σ = {float(cell['agreement']):.2f} · {ks}"]
        assert n.startswith(f"n = {int(cell['n_units']):,} within")
        (gap,) = by_gid(ax_e, "ks_gap")
        (seg,) = gap.get_segments()
        if np.isfinite(float(cell["ks"])):  # the result tests only cells it defines
            np.testing.assert_allclose(abs(seg[1, 1] - seg[0, 1]), float(cell["ks"]))
        assert ax_e.get_ylabel() == ("ECDF" if k == 0 else "")
        assert {ln.get_gid() for ln in ax_e.get_lines()} == {"ecdf_within", "ecdf_between"}
    # the truncation note is under the title (the legend takes the bottom of the figure)
    assert fig.get_suptitle().split("\n")[-1] == (
        "+ 1 more label not shown (top 2 by support, classes with a σ first)"
    )
    assert len(fig.legends) == 1  # one legend for every facet


def test_distributions_show_classes_with_a_sigma_first():
    """A class drawn many times on one image leads the support ranking (matched pairs) but
    has one detection unit: its detection σ is n/a, so the facets shown are classes the
    result defines (as LVIS's wine bottles, 37 pairs on one image, hid the readable ones)."""
    df = simulate(n_items=30, annotators={"a": "good", "b": "good"}, seed=4)
    crowd = df[(df["item"] == df["item"].iloc[0]) & df["label"].notna()].copy()
    crowd = pd.concat([crowd.assign(x0=crowd["x0"] + k, x1=crowd["x1"] + k) for k in range(30)])
    crowd = crowd.assign(label="crowd", object_id=np.arange(len(crowd)) + 10_000)
    tables = pair_tables(pd.concat([df, crowd], ignore_index=True), n_chance=300)
    heads = [
        ax.get_title(loc="left").split("\n")[:2]
        for ax in plot.distributions(tables, component="detection", by="label", top=2).axes[::2]
    ]
    assert plot.label_order(tables)[1] == "crowd"  # first by support
    assert "crowd" not in [h[0] for h in heads] and len(heads) == 3
    assert all(not h[1].startswith("σ = n/a") for h in heads)


@pytest.mark.parametrize("component", ["detection", "overall"])
def test_distributions_set_components_by_annotator(corpus, component):
    _, tables, res = corpus
    fig = plot.distributions(tables, component=component, by="annotator", top=None, kind="kde")
    facets = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert len(facets) == 5
    for ax_d in facets:
        name, stat, _ = ax_d.get_title(loc="left").split("\n")
        cell = res.sel(component=component, label=ALL, annotator=name)
        assert stat.startswith(f"σ = {float(cell['agreement']):.2f}")
    assert texts(fig, "note") == []


def test_distributions_from_frame_and_errors(corpus):
    df, _, _ = corpus
    fig = plot.distributions(df, n_chance=100)
    assert len(fig.axes) == 2
    with pytest.raises(ParameterError, match="component"):
        plot.distributions(df, component="classification")
    with pytest.raises(ParameterError, match="by"):
        plot.distance_samples(df, by="item")
    with pytest.raises(ParameterError, match="kind"):
        plot.distributions(df, kind="violin")
    with pytest.raises(ParameterError, match="PairTables"):
        plot.distributions([1, 2])


# --------------------------------------------------------------------------- accessor


def test_plot_accessors_draw_the_cached_result(corpus):
    df, _, _ = corpus
    res = df.iaa.agreement(n_chance=100, n_boot=10)
    fig = df.iaa.plot.forest(n_chance=100, n_boot=10, top=2)
    assert [ax.get_title() for ax in fig.axes] == [
        "detection σ",
        "classification α",
        "localization σ",
        "raw IoU",
        "overall σ",
    ]
    for plots, kw in ((df.iaa.plot, {"n_chance": 100, "n_boot": 10}), (res.iaa.plot, {})):
        assert isinstance(plots.decomposition(**kw), matplotlib.axes.Axes)
        ax = plots.annotators(top=2, **kw)
        assert isinstance(ax, matplotlib.axes.Axes)
        ax = plots.pairwise(component="detection", **kw)
        assert ax.get_title() == "detection σ: pairs of annotators"
        assert len(plots.items(top=4, **kw).get_yticklabels()) == 4
        assert len(plots.distributions(**kw).axes) == 2
    # the result accessor's items equal the plain function on the same tables
    table = res.iaa.items(top=3)
    assert isinstance(table, pd.DataFrame) and len(table) == 3
    assert "forest()" in repr(res.iaa.plot) and "forest()" in repr(df.iaa.plot)


def test_forest_rows_are_annotators_for_a_label(corpus):
    _, _, res = corpus
    fig = plot.forest(res, label="car", components=["localization"], raw_iou=False)
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert rows == [ALL, "ana", "ben", "cy", "dev"]
    colors = plot.annotator_colors(res)
    for t in fig.axes[0].get_yticklabels():  # names in the annotators' colors
        # (light colours darkened to read on white)
        assert matplotlib.colors.same_color(t.get_color(), style.text_color(colors[t.get_text()]))
    (pts,) = by_gid(fig.axes[0], "estimate")
    expected = res["agreement"].sel(component="localization", label="car", annotator=rows).values
    np.testing.assert_allclose(pts.get_xdata(), expected[np.isfinite(expected)])
    with pytest.raises(ParameterError, match="not both"):
        plot.forest(res, label="car", annotator="ana")


def test_annotator_colors_and_label_order_are_shared(corpus):
    _, tables, res = corpus
    colors = plot.annotator_colors(res)
    assert (
        colors
        == plot.annotator_colors(tables)
        == plot.annotator_colors(["dev", "cy", "ben", "ana"])
    )
    assert len(set(colors.values())) == len(colors)  # distinct for a few annotators
    order = plot.label_order(res)
    assert order == plot.label_order(tables)
    ax = plot.decomposition(res)
    assert [t.get_text() for t in ax.get_yticklabels()] == order
    ax = plot.annotators(res)
    drawn = {a.get_gid(): a for a in ax.get_children() if str(a.get_gid()).startswith("profile:")}
    for name, color in colors.items():
        artist = drawn[f"profile:{name}"]
        got = artist.get_color() if hasattr(artist, "get_xdata") else artist.get_color()[0]
        assert matplotlib.colors.same_color(got, color)


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_figures_fit_their_width(corpus, width):
    """Every figure is drawn at the requested width and no two texts overlap."""
    _, tables, res = corpus
    figures = [
        plot.forest(res, width=width),
        plot.decomposition(res, width=width).figure,
        plot.annotators(res, width=width).figure,
        plot.pairwise(res.iaa.use_tables(tables).pairwise(), width=width).figure,
        plot.distributions(tables, by="label", width=width),
        plot.items(tables, width=width).figure,
    ]
    for fig in figures:
        assert fig.get_figwidth() == pytest.approx(width)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ticks = {
            id(t)
            for ax in fig.axes
            for t in ax.xaxis.get_ticklabels(which="both") + ax.yaxis.get_ticklabels(which="both")
        }
        shown = [
            t
            for t in fig.findobj(matplotlib.text.Text)  # matplotlib spaces ticks
            if t.get_text().strip()
            and t.get_visible()
            and t.get_gid() != "value"
            and id(t) not in ticks
        ]
        texts_of = [t.get_text() for t in shown]
        boxes = [t.get_window_extent(renderer) for t in shown]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                overlap = min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)
                assert min(overlap) <= 1.0, f"{texts_of[i]!r} overlaps another text"


# ------------------------------------------------ what the bundled sample leaves undefined


@pytest.fixture(scope="module")
def sample_result():
    from iaa_frames.io import load_sample

    return load_sample("coco").iaa.agreement(n_boot=20)


@pytest.fixture(scope="module")
def two_result():
    """Two annotators of the sample: 10 matched chance pairs, too few for classification
    (every cell n/a, with its reason)."""
    coco = iaf.sample_path("coco")
    return iaf.read_coco([coco / "ana.json", coco / "ben.json"]).iaa.agreement(n_boot=20)


def test_pairwise_default_is_a_component_with_values_on_the_sample(sample_result):
    res = sample_result
    loc = res.iaa.pairwise(component="localization").values
    off = ~np.eye(loc.shape[0], dtype=bool)
    assert np.isfinite(loc[off]).all()  # every pair's thin chance units borrowed
    ax = res.iaa.plot.pairwise()
    assert ax.get_title() == "localization σ: pairs of annotators"


def test_pairwise_says_why_a_component_is_empty(two_result):
    ax = two_result.iaa.plot.pairwise(component="classification")  # asked for: says why
    inside = " ".join(" ".join(t for t in texts(ax, "undefined") if t != "n/a").split())
    assert "too few chance units" in inside and "component='localization'" in inside
    note = " ".join(" ".join(texts(ax.figure, "note")).split())
    assert "n/a: too few chance units" in note and "ana–ben" in note


def test_annotator_profile_says_why_a_value_is_missing(two_result):
    ax = plot.annotators(two_result)
    assert texts(ax, "undefined") == ["n/a", "n/a"]  # ana and ben on classification
    # everybody undefined: no bar in the band, where it read as a value below chance
    assert not [c for c in ax.collections if c.get_gid() == "undefined"]
    (note,) = texts(ax, "note")
    note = " ".join(note.split())
    assert "too few chance units" in note and "classification of ana" in note
    assert "classification of ben" in note


def test_forest_says_why_a_value_is_missing(two_result):
    fig = plot.forest(two_result, label="car")
    assert texts(fig, "undefined")
    note = " ".join(" ".join(texts(fig, "note")).split())
    assert "n/a: too few chance units" in note and "localization of ben" in note


def test_every_figure_takes_width_and_an_axes():
    """One name for the width, and ax= (axes= for the panels of a forest plot) wherever
    a single panel is drawn; grids (forest, distributions, worst_items) return a Figure."""
    import inspect

    grids = {"forest", "distributions", "worst_items"}
    for name in (
        "forest",
        "decomposition",
        "annotators",
        "pairwise",
        "distributions",
        "items",
        "item",
        "worst_items",
        "confusion",
        "ranking",
        "threshold_curve",
    ):
        params = inspect.signature(getattr(plot, name)).parameters
        assert "width" in params and "panel_width" not in params, name
        if name not in grids:
            assert "ax" in params, name
    assert "axes" in inspect.signature(plot.forest).parameters


def test_a_returned_figure_is_shown_once_in_jupyter():
    """The plots' Figure takes itself out of pyplot's figures when shown as a cell's
    result, so that the inline backend does not show it a second time."""
    pytest.importorskip("IPython")
    import matplotlib.pyplot as plt
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats

    shell = InteractiveShell.instance()
    select_figure_formats(shell, {"png"})  # what the inline backend registers
    try:
        fig = plot.forest(make_result())
        assert plt.fignum_exists(fig.number)
        published = []
        import IPython.display

        original = IPython.display.publish_display_data
        IPython.display.publish_display_data = lambda data, **kw: published.append(data)
        try:
            fig._ipython_display_()
        finally:
            IPython.display.publish_display_data = original
        assert not plt.fignum_exists(fig.number)
        assert published and "image/png" in published[0]
        assert repr(fig).startswith("<Figure size")
    finally:
        InteractiveShell.clear_instance()
        del shell


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_pairwise_of_a_big_crowd_keeps_names_apart(width):
    """200 annotators: as many as their names fit (about 0.13 in each), natural order of
    the names, one note; no two names overlap."""
    m = make_pairwise(annotators=[str(i) for i in range(200)])
    ax = plot.pairwise(m, width=width)
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert 2 <= len(names) <= 30
    assert names == sorted(names, key=int)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_yticklabels()]
    for a, b in zip(boxes, boxes[1:]):
        assert not a.overlaps(b)
    # the x names are rotated 45°: apart when their spacing across the slant exceeds the
    # height of a line of text
    ticks = ax.get_xticklabels()
    step = np.diff([t.get_window_extent(renderer).x1 for t in ticks]).min()  # pixels
    height = ticks[0].get_fontsize() * ax.figure.dpi / 72
    assert step * np.sin(np.pi / 4) >= height
    (note,) = texts(ax.figure, "note")
    assert f"+ {200 - len(names)} more annotators not shown" in note


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_forest_note_and_x_label_do_not_overlap(width):
    """'+ N more labels not shown' under the x label, not on it, nor on a panel's labels."""
    ds = make_result(labels=[f"c{i}" for i in range(250)])
    fig = plot.forest(ds, width=width)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label = fig.get_supxlabel()
    (note,) = [t for t in fig.texts if t.get_gid() == "note"]
    xlabel = next(t for t in fig.texts if t.get_text() == label)
    a, b = xlabel.get_window_extent(renderer), note.get_window_extent(renderer)
    assert not a.overlaps(b) and a.y0 > b.y1
    for ax in fig.axes:
        for t in [ax.xaxis.label, *ax.get_xticklabels()]:
            if t.get_text():
                assert not t.get_window_extent(renderer).overlaps(a)
    assert b.y0 >= 0


def test_distribution_facets_say_sigma_is_undefined_as_the_result_does(two_result):
    """Class car of two annotators has too few localization chance units (a pooled
    class): the result's σ is NaN, and the facets say so rather than a σ of the few
    distances drawn."""
    fig = plot.distributions(two_result.iaa.tables, by="label")
    titles = {
        ax.get_title(loc="left").split("\n")[0]: ax.get_title(loc="left")
        for ax in fig.axes
        if ax.get_title(loc="left")
    }
    cell = two_result["agreement"].sel(component="localization", annotator=ALL)
    assert not np.isfinite(float(cell.sel(label="car")))
    assert "σ = n/a (< 30 chance units)" in titles["car"]
    assert np.isfinite(float(cell.sel(label="person")))
    assert "n/a" not in titles["person"]


def test_figures_on_given_axes_keep_their_room_and_their_legends_on_the_figure():
    # a legend below an Axes among others, centred on the figure when wider than its
    # Axes, squeezed both panels to slivers; the layout engine now places it (outside
    # the Axes' right edge) and the panels keep their width
    res = make_result()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
    assert plot.decomposition(res, ax=left) is left
    assert plot.annotators(res, ax=right) is right
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in (left, right):
        assert ax.get_position().width > 0.2
        box = ax.get_legend().get_window_extent(renderer)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 + 1
        assert fig.bbox.y0 <= box.y0 and box.y1 <= fig.bbox.y1 + 1
    title = right.title.get_window_extent(renderer)
    assert title.x1 <= fig.bbox.x1 + 1 and title.y1 <= fig.bbox.y1 + 1
    plt.close(fig)
