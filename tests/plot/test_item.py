"""Tests for iaa_frames.plot.item: every object, pair and conflict of the item view
(tested in test_item_view.py) is drawn, images (path and array) go under the shapes, the
grid of the worst items follows the item ranking."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.image import AxesImage

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.item import item_view
from iaa_frames.plot import ANNOTATOR_PALETTE, annotator_colors
from iaa_frames.plot.item import item, worst_items

matplotlib.use("Agg")
plt = matplotlib.pyplot

ITEM = "img_00019.jpg"


@pytest.fixture(scope="module")
def sample():
    df = iaf.load_sample("coco")
    return df, iaf.pair_tables(df, n_chance=100)


def test_everything_is_drawn(sample):
    _df, t = sample
    view = item_view(t, ITEM)
    ax = item(t, ITEM)
    outlines = [p for p in ax.patches if (p.get_gid() or "").startswith("shape:")]
    n_parts = sum(
        len(getattr(g, "geoms", [g])) if g is not None else 1 for g in view.objects["geometry"]
    )
    assert len(outlines) == n_parts
    colors = annotator_colors(t.corpus.annotators)
    for p in outlines:
        name = p.get_gid().split(":", 1)[1]
        np.testing.assert_allclose(p.get_edgecolor()[:3], matplotlib.colors.to_rgb(colors[name]))
    links = [ln for ln in ax.lines if ln.get_gid() == "pair"]
    assert len(links) == len(view.pairs)
    marks = [
        ln.get_gid().split(":", 1)[1]
        for ln in ax.lines
        if (ln.get_gid() or "").startswith("conflict:")
    ]
    want = view.conflicts["kind"].value_counts().to_dict()
    assert pd.Series(marks).value_counts().to_dict() == want
    assert ax.get_legend() is not None
    plt.close("all")


def test_reference_mode_links_only_reference_pairs(sample):
    _, t = sample
    view = item_view(t, ITEM, reference="ana")
    assert ((view.pairs["annotator_a"] == "ana") | (view.pairs["annotator_b"] == "ana")).all()
    assert set(view.conflicts["kind"]) <= {"missed", "extra", "label", "low_overlap"}
    ax = item(t, ITEM, reference="ana")
    assert len([ln for ln in ax.lines if ln.get_gid() == "pair"]) == len(view.pairs)
    plt.close("all")


def test_image_path_and_array(sample, tmp_path):
    from PIL import Image

    _, t = sample
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 255, size=(72, 128, 3), dtype=np.uint8)  # a thumbnail
    path = tmp_path / "img.png"
    Image.fromarray(arr).save(path)
    for image in (path, str(path), arr, arr[..., 0]):
        ax = item(t, ITEM, image=image)
        images = [a for a in ax.get_children() if isinstance(a, AxesImage)]
        assert len(images) == 1
        assert images[0].get_extent() == [0, 1280.0, 720.0, 0]  # stretched to the item
        plt.close("all")
    with pytest.raises(FileNotFoundError, match="nope.png"):
        item(t, ITEM, image=tmp_path / "nope.png")
    with pytest.raises(ParameterError, match="image must be"):
        item(t, ITEM, image=np.zeros((3, 4, 5)))


def test_blank_canvas_unknown_size_and_errors():
    rows = [
        {"item": "x", "annotator": "a", "label": "car", "x0": 10, "y0": 10, "x1": 50, "y1": 40},
        {"item": "x", "annotator": "b", "label": "bus", "x0": 12, "y0": 10, "x1": 50, "y1": 42},
        {"item": "x", "annotator": "c"},
    ]
    df = iaf.from_records(rows)
    view = item_view(df, "x")
    assert not view.size_known and (view.width, view.height) == (50.0, 42.0)
    assert view.annotators == ["a", "b", "c"]
    ax = item(df, "x")
    assert any(p.get_gid() == "canvas" for p in ax.patches)
    assert "image size unknown" in ax.get_title(loc="left")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "c (drew nothing)" in legend and "labels differ" in legend
    tags = [t.get_text() for t in ax.texts if t.get_gid() == "tag"]
    assert tags == ["bus / car"]
    plt.close("all")
    with pytest.raises(ParameterError, match="not in the annotation frame"):
        item(df, "y")
    with pytest.raises(ParameterError, match="colour"):
        item(df, "x", colors={"a": "red"})


def test_colors_consistent_across_items(sample):
    df, _ = sample
    colors = annotator_colors(df["annotator"].unique())
    for name in (ITEM, "img_00002.jpg"):
        ax = df.iaa.plot.item(name, n_chance=5)
        for p in ax.patches:
            gid = p.get_gid() or ""
            if gid.startswith("shape:"):
                np.testing.assert_allclose(
                    p.get_edgecolor()[:3], matplotlib.colors.to_rgb(colors[gid.split(":", 1)[1]])
                )
        plt.close("all")


def test_worst_items_grid_follows_ranking(sample):
    _, t = sample
    fig = worst_items(t, n=4, ncols=2)
    ranking = iaf.items(t, top=4)["item"].tolist()
    titles = [
        ax.get_title(loc="left").split("\n")
        for ax in fig.axes
        if ax.get_visible() and ax.get_title(loc="left")
    ]
    assert [t[0] for t in titles] == ranking
    # each panel shows the value it is ranked by, and the grid says so
    excess = iaf.items(t, top=4)["excess"].tolist()
    assert [t[1].split(" · ")[0] for t in titles] == [f"excess {v:.2f}" for v in excess]
    assert "ranked by excess" in fig.get_suptitle()
    assert len(fig.legends) == 1
    plt.close("all")
    with pytest.raises(ParameterError, match="n must be"):
        worst_items(t, n=0)


@pytest.mark.parametrize("width", [3.5, 7.0])
def test_worst_items_titles_and_legend_fit(sample, width):
    """No panel title runs into a neighbour's, and the legend stays on the figure."""
    _, t = sample
    fig = worst_items(t, n=6, width=width)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    shown = [ax for ax in fig.axes if ax.get_visible()]
    boxes = [ax._left_title for ax in shown]  # the loc="left" titles (matplotlib has no getter)
    extents = [b.get_window_extent(renderer) for b in boxes]
    for i, a in enumerate(extents):
        for b in extents[i + 1 :]:
            assert not a.overlaps(b)
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width + 0.5
    assert abs(fig.get_figwidth() - width) < 1e-9
    plt.close(fig)


def test_worst_items_legend_names_only_the_annotators_drawn():
    """A crowd: the legend lists the annotators of the panels, not all 40 (which collapsed
    the layout), and no "(all)"."""
    rng = np.random.default_rng(0)
    names = [f"w{i}" for i in range(40)]
    df = iaf.simulate(n_items=40, seed=0, annotators=dict.fromkeys(names, "sloppy"))
    keep = {it: set(rng.choice(names, 3, replace=False)) for it in df["item"].unique()}
    df = df[[a in keep[i] for i, a in zip(df["item"], df["annotator"])]].reset_index(drop=True)
    fig = worst_items(df, n=4, n_chance=200)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    drawn = {
        str(a.get_gid()).split(":", 1)[1]
        for ax in fig.axes
        for a in ax.get_children()
        if str(a.get_gid()).startswith("shape:")
    }
    people = [x for x in labels if x in names]
    assert set(people) == drawn and len(people) <= 12
    assert "(all)" not in labels
    plt.close(fig)


def test_item_draws_skeletons():
    # issue #26: keypoint rows are drawn as their skeletons (edges between labelled joints,
    # visible joints filled, occluded hollow), not as their boxes
    from matplotlib.patches import Rectangle

    from iaa_frames.geometry.kinds import KEYPOINTS
    from iaa_frames.simulate import KeypointProfile, simulate_keypoints

    df = simulate_keypoints(
        n_items=4, annotators={"a": KeypointProfile(), "b": KeypointProfile(jitter=0.2)}, seed=0
    )
    first = df["item"].iloc[0]
    ax = iaf.plot.item(df, first, progress=False)
    shown = df[(df["item"] == first) & df["kp_area"].notna()]
    v = shown[[f"kp_{j}_v" for j in KEYPOINTS.keypoints]].to_numpy()
    edges = sum(int(r[a] > 0 and r[b] > 0) for r in v for a, b in KEYPOINTS.skeleton)
    lines = [ln for ln in ax.lines if str(ln.get_gid()).startswith("shape:")]
    assert len(lines) == edges
    boxes = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_gid() != "canvas"]
    assert boxes == []
    # the legend says what filled and hollow joints are (it named the annotators only)
    texts = {t.get_text() for t in ax.get_legend().get_texts()}
    assert "joint visible" in texts
    assert ("joint occluded" in texts) == bool((v == 1).any())
    plt.close(ax.figure)


def _edge_frame():
    """Two annotators' boxes touching the image's top edge and its right edge."""
    rows = []
    for a, d in (("a", 0.0), ("b", 2.0)):
        rows.append(("img", a, "traffic_light", 10 + d, 0.0, 60 + d, 40.0, 640, 480))
        rows.append(("img", a, "fire_hydrant", 600 + d, 200.0, 638.0, 260.0, 640, 480))
        rows.append(("img", a, "car", 200 + d, 200.0, 300 + d, 300.0, 640, 480))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    return pd.DataFrame(rows, columns=cols)


def _inside(tag, box, tol=1.0):
    t = tag.get_window_extent()
    return (
        t.x0 >= box.x0 - tol and t.x1 <= box.x1 + tol and t.y0 >= box.y0 - tol
        and t.y1 <= box.y1 + tol
    )  # fmt: skip


@pytest.mark.parametrize("width", [3.5, 7])
def test_tags_stay_inside_the_axes(width):
    # a tag above an object at the top edge stood over the title (LVIS, the crowd), one
    # at the right edge ran out of the panel
    ax = item(_edge_frame(), "img", width=width, n_chance=10)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_window_extent()
    tags = [t for t in ax.texts if t.get_gid() == "tag"]
    assert len(tags) == 3
    assert all(_inside(t, box) for t in tags)
    plt.close(fig)


@pytest.mark.parametrize("width", [3.5, 7])
def test_worst_items_tags_stay_under_their_titles(sample, width):
    _, t = sample
    fig = worst_items(t, n=6, width=width)
    fig.canvas.draw()
    for ax in (a for a in fig.axes if a.get_visible() and a.get_title(loc="left")):
        box = ax.get_window_extent()
        for tag in (t for t in ax.texts if t.get_gid() == "tag"):
            e = tag.get_window_extent()
            if e.width > box.width:  # wider than a portrait panel: from its left edge
                assert abs(e.x0 - box.x0) <= 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1
            else:
                assert _inside(tag, box)
    plt.close(fig)


@pytest.mark.parametrize("width", [3.5, 7])
def test_worst_items_of_a_crowd_keeps_its_panels(width):
    # 40-odd annotators named in a two-column legend collapsed the panels at 3.5 in
    # ('constrained_layout not applied'); one entry now says each has its colour and style
    import warnings

    crowd = iaf.simulate_crowd(n_items=40, n_workers=60, seed=0).annotations
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the layout warning
        fig = worst_items(crowd, n=6, width=width, n_chance=200)
        fig.canvas.draw()
    panels = [a for a in fig.axes if a.get_visible() and a.get_title(loc="left")]
    assert all(a.get_window_extent().height / fig.dpi > 0.6 for a in panels)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    # (annotators of one colour differ in line style: test_annotators_beyond_the_palette_...)
    assert any(t.endswith("annotators, one colour and line style each") for t in texts)
    plt.close(fig)


def test_cross_marks_stay_in_the_panel():
    # a row of marks (one per annotator without a match) ran out of the panel's left edge
    # and above its top, into the neighbours and titles
    rows = [("img", a, "car", 2.0, 0.0, 30.0, 20.0, 640, 480) for a in ("a",)]
    rows += [("img", a, "car", 300.0, 300.0, 400.0, 400.0, 640, 480) for a in "abcdef"]
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    ax = item(pd.DataFrame(rows, columns=cols), "img", width=3.5, n_chance=10)
    marks = [ln for ln in ax.lines if str(ln.get_gid()).startswith("conflict:")]
    assert len(marks) >= 5
    for m in marks:
        x, y = m.get_xdata()[0], m.get_ydata()[0]
        assert 0 < x < 640 and 0 < y < 480
    plt.close(ax.figure)


def _crowded_frame(n=40, seed=0):
    """``n`` groups of two annotators' boxes scattered over a small image (every fifth
    with differing labels): far more tags than fit at 3.5 in."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        x, y = rng.uniform(0, 560), rng.uniform(0, 420)
        w, h = rng.uniform(20, 80), rng.uniform(20, 60)
        for a, d in (("a", 0), ("b", 2)):
            label = f"class_{k:02d}" if (a == "a" or k % 5) else f"other_{k:02d}"
            rows.append(("img", a, label, x + d, y, x + w + d, y + h, 640, 480))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize("width", [3.5, 7])
def test_tags_of_a_crowded_item_do_not_overlap(width):
    # 40 groups on one item: the tags drawn at their groups' corners ran into each other
    ax = item(_crowded_frame(), "img", width=width, n_chance=10)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_window_extent()
    tags = [t for t in ax.texts if t.get_gid() == "tag"]
    boxes = [t.get_window_extent() for t in tags]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (a, b)
    assert all(_inside(t, box) for t in tags)
    title = " ".join(ax.get_title(loc="left").split())
    left_out = 40 - len(tags)
    if left_out:
        assert f"{left_out} of 40 label tags left out (no room)" in title
    else:
        assert "left out" not in title
    # the tags of differing labels (every fifth group) are placed first: all drawn
    assert sum(" / " in t.get_text() for t in tags) == 8
    plt.close(fig)


@pytest.mark.parametrize("width", [3.5, 7])
def test_worst_items_of_a_crowded_corpus_keep_titles_apart(width):
    # the line saying how many tags were left out ran into the next panel's title at 3.5 in
    frames = []
    for k in range(4):
        f = _crowded_frame(n=30, seed=k)
        f["item"] = f"img_{k}"
        f.loc[f.index[::7], "x1"] += 25  # some low overlap: the items rank differently
        frames.append(f)
    fig = worst_items(pd.concat(frames, ignore_index=True), n=4, width=width, n_chance=20)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title(loc="left")]
    titles = [ax._left_title.get_window_extent() for ax in panels]
    for i, a in enumerate(titles):
        for b in titles[i + 1 :]:
            assert not a.overlaps(b), (a, b)
    # 30 groups on a small panel: some tags have no room; one line of the figure's title
    # says how many, for the grid (a line in each panel's title squeezed the panels)
    n_tags = sum(t.get_gid() == "tag" for ax in panels for t in ax.texts)
    title = " ".join(fig.get_suptitle().split())
    m = re.search(r"(\d+) of (\d+) label tags left out \(no room\)$", title)
    assert m and int(m[1]) > 0 and int(m[2]) - int(m[1]) == n_tags
    assert not any("left out" in ax.get_title(loc="left") for ax in panels)
    for ax in panels:
        boxes = [t.get_window_extent() for t in ax.texts if t.get_gid() == "tag"]
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    plt.close(fig)


def _busy_frame():
    """15 annotators (some missing objects, some mislabelling) on items of 8 objects with
    long class names: hundreds of conflicts and long label tags."""
    profiles = ["good", "sloppy", "misser", "mislabeler", "lazy-center"] * 3
    annotators = {f"annotator_{i:02d}": p for i, p in enumerate(profiles)}
    classes = ["traffic_light_pedestrian", "fire_hydrant_industrial", "parking_meter_old"]
    return iaf.simulate(n_items=3, annotators=annotators, classes=classes, objects_per_item=8,
                        image_size=(640, 480), seed=1)  # fmt: skip


@pytest.mark.parametrize("width", [3.5, 7])
def test_title_of_a_busy_item_stays_in_its_panel(width):
    # the conflict summary was one line ("632 unmatched (object, annotator) · 90 label ·
    # 315 low overlap") that ran past the panel's right edge, and the figure's, at 3.5 in
    ax = item(_busy_frame(), "img_00000", width=width, n_chance=50)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = ax._left_title.get_window_extent(renderer)
    box = ax.get_window_extent(renderer)  # a landscape image: the drawn box spans the cell
    assert box.x0 - 1 <= title.x0 and title.x1 <= box.x1 + 1
    assert 0 <= title.x0 and title.x1 <= fig.bbox.x1 and title.y1 <= fig.bbox.y1
    assert title.y0 >= box.y1  # above the panel, not over it
    # nothing is lost by the wrapping: every count of the summary is in the title
    counts = item_view(_busy_frame(), "img_00000", n_chance=50).conflicts["kind"].value_counts()
    text = " ".join(ax.get_title(loc="left").split())
    assert counts["unmatched"] > 100  # busy indeed
    words = {"unmatched": "unmatched (object, annotator)", "low_overlap": "low overlap"}
    for kind, n in counts.items():
        assert f"{n} {words.get(kind, kind)}" in text
    # the label tags stay in the panel too (differing labels wider than it: a label a line)
    tags = [t for t in ax.texts if t.get_gid() == "tag"]
    assert tags and all(_inside(t, box) for t in tags)
    plt.close(fig)


@pytest.mark.parametrize("width", [3.5, 7])
def test_tags_stay_in_the_panel_when_saved_at_another_dpi(width):
    # tags were placed in points from their groups at the screen's dpi: saved at 200 dpi,
    # the layout gave the Axes another size and the tags drifted out of place
    ax = item(_busy_frame(), "img_00001", width=width, n_chance=50)
    fig = ax.figure
    fig.set_dpi(200)  # as savefig(dpi=200) draws it, measured at that dpi
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    tags = [t for t in ax.texts if t.get_gid() == "tag"]
    assert tags
    for tag in tags:
        e = tag.get_window_extent(renderer)
        assert box.x0 - 2 <= e.x0 and e.x1 <= box.x1 + 2 and box.y0 - 2 <= e.y0
        assert e.y1 <= box.y1 + 2
    plt.close(fig)


def test_b6_a_crowded_item_is_drawn_against_one_annotator():
    """#41 B6: 400 annotators on an item drew every pair (80,000 links and marks); beyond
    MAX_LINKED annotators the item is drawn against one of them, and its title says so."""
    from iaa_frames.plot.item import MAX_LINKED, crowd_reference

    n = MAX_LINKED + 8
    rng = np.random.default_rng(0)
    x = np.tile([10.0, 200.0], n) + rng.normal(0, 3, 2 * n)
    df = pd.DataFrame(
        {
            "item": ["a", "b"] * n,
            "annotator": np.repeat([f"w{k:02d}" for k in range(n)], 2),
            "label": "cat",
            "x0": x,
            "y0": x,
            "x1": x + 60,
            "y1": x + 60,
            "width": 400.0,
            "height": 400.0,
        }
    )
    df = df.drop(index=[3])  # w01 misses "b": the others keep most objects there
    t = iaf.pair_tables(df, n_chance=100)
    full = item_view(t, "b")
    assert len(full.pairs) == (n - 1) * (n - 2) // 2  # every pair: the square of the crowd
    ref = crowd_reference(full)
    assert ref == "w00"  # most objects, then most pairs, then name
    ax = item(t, "b", legend=False)
    links = [ln for ln in ax.lines if ln.get_gid() == "pair"]
    assert 0 < len(links) <= n - 2  # the pairs with the reference only
    assert f"{n - 1} annotators: against {ref}" in " ".join(ax.get_title(loc="left").split())
    plt.close("all")


def _style(artist):
    """(rgb, dash pattern) of an outline or a legend handle: what tells annotators apart."""
    rgb = matplotlib.colors.to_hex(
        artist.get_edgecolor() if hasattr(artist, "get_edgecolor") else artist.get_color()
    )
    offset, dashes = artist._unscaled_dash_pattern  # the public getter says "--" for any
    return rgb, (offset, tuple(dashes) if dashes else None)


def test_annotators_beyond_the_palette_differ_in_line_style():
    # 20 annotators (the palette has 9) drawing three boxes alike (no conflicts: every
    # outline in the annotator's own style, none dashed as unmatched)
    rng = np.random.default_rng(0)
    names = [f"w{i:02d}" for i in range(20)]
    rows = [
        {"item": "x", "annotator": a, "label": "car", "x0": x + dx, "y0": 20 + dy,
         "x1": x + 80 + dx, "y1": 90 + dy, "width": 400, "height": 120}
        for a in names
        for x in (10, 150, 290)
        for dx, dy in [rng.uniform(-1, 1, 2)]
    ]  # fmt: skip
    ax = item(iaf.from_records(rows), "x", n_chance=20)
    drawn: dict = {}
    for p in ax.patches:
        gid = p.get_gid() or ""
        if gid.startswith("shape:") and not p.get_fill():
            drawn.setdefault(gid.split(":", 1)[1], set()).add(_style(p))
    assert sorted(drawn) == names
    assert all(len(v) == 1 for v in drawn.values())  # one style per annotator
    legend = ax.get_legend()
    handles = {t.get_text(): h for t, h in zip(legend.get_texts(), legend.legend_handles)}
    shown = {a: _style(handles[a]) for a in names}
    solid = (0, None)
    for looks in ({a: next(iter(v)) for a, v in drawn.items()}, shown):
        assert len(set(looks.values())) == len(names)  # every pair differs
        # the first nine as always: the palette's colours, solid
        for a, color in zip(names, ANNOTATOR_PALETTE):
            assert looks[a] == (color.lower(), solid)
        assert all(looks[a][1] != solid for a in names[len(ANNOTATOR_PALETTE) :])
    assert shown == {a: next(iter(v)) for a, v in drawn.items()}  # the legend as drawn
    # a legend long enough to show a whole period of the longest pattern
    assert legend.handlelength > 3


def test_annotators_of_distinct_colours_stay_solid():
    rows = [
        {"item": "x", "annotator": a, "label": "car", "x0": 10, "y0": 10, "x1": 50, "y1": 40}
        for a in "abc"
    ]
    ax = item(iaf.from_records(rows), "x", colors={"a": "red", "b": "red", "c": "blue"})
    styles = {
        p.get_gid(): _style(p)[1] for p in ax.patches if (p.get_gid() or "").startswith("shape:")
    }
    assert styles["shape:a"] == styles["shape:c"] == (0, None)
    assert styles["shape:b"] != (0, None)  # a user's colour given twice: told apart too
