"""Tests for iaa_frames.report.figures: the layout of the report's figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import iaa_frames as iaf  # noqa: E402
from iaa_frames.explore.items import items  # noqa: E402
from iaa_frames.report import figures  # noqa: E402
from iaa_frames.report.pair_choice import PAIRS  # noqa: E402

ALL = "(all)"


def draw(df, n_chance):
    """Every figure of the report of ``df``, by key; their captions by key; the pair
    matrices."""
    tables = iaf.pair_tables(df, n_chance=n_chance)
    result = iaf.agreement(df, n_chance=n_chance, n_boot=0)
    comps = ("detection", "classification", "localization")
    pw = {c: iaf.pairwise(df, component=c, n_chance=n_chance) for c in comps}
    kept = {}
    mp = pytest.MonkeyPatch()
    mp.setattr(figures, "svg", lambda fig, key: kept.setdefault(key, fig) and key)
    try:
        figs = figures.draw_figures(tables, result, pw, items(tables, component="localization"), 20)
    finally:
        mp.undo()
    return kept, {key: caption for key, _, _, caption in figs}, pw


@pytest.fixture(scope="module")
def drawn():
    """Every figure of the report of the bundled sample, by key."""
    kept, _, _ = draw(iaf.load_sample("coco"), 200)
    yield kept
    matplotlib.pyplot.close("all")


def test_heatmaps_start_at_the_top_of_their_figure(drawn):
    # three square panels in a 7 x 3 in figure sat in its middle: a blank strip above them
    fig = drawn["pairwise"]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == [
        "detection σ",
        "classification α",
        "localization σ",
    ]
    top = max(ax.title.get_window_extent(renderer).y1 for ax in panels)
    assert fig.bbox.y1 - top < 0.12 * fig.dpi
    # a note (n/a reasons; none where every pair is defined) stays under the x labels
    low = min(ax.xaxis.label.get_window_extent(renderer).y0 for ax in panels)
    for note in [t for t in fig.texts if t.get_gid() == "note"]:
        assert note.get_window_extent(renderer).y1 <= low
    # every panel names the same annotators, in the same order (its columns; the rows
    # are named once, left of the first panel)
    names = {tuple(t.get_text() for t in ax.get_xticklabels()) for ax in panels}
    assert len(names) == 1
    assert tuple(t.get_text() for t in panels[0].get_yticklabels()) in names


def test_annotator_caption_names_only_a_difference_it_shows():
    # "detection: lowest B (0.98 against 0.98 for everybody)" on a 250-class corpus
    from results import make_result

    res = make_result(annotators=("A", "B", "C"))
    cell = {"component": "detection", "label": "(all)"}
    res["agreement"].loc[{**cell, "annotator": ["(all)", "A", "B", "C"]}] = [
        0.984,
        0.99,
        0.981,
        0.99,
    ]
    res["agreement"].loc[{"component": "localization", "label": "(all)",
                          "annotator": ["(all)", "A", "B", "C"]}] = [0.80, 0.85, 0.70, 0.9]  # fmt: skip
    text = figures.caption_annotators(res)
    assert "detection: lowest" not in text
    assert "localization: lowest B (0.70 against 0.80 for everybody)" in text


def test_pair_caption_says_when_no_pair_stands_out():
    # "closest pair A–B (1.00), furthest A–B (1.00)" with three equal pairs
    from results import make_pairwise

    m = make_pairwise(annotators=("A", "B", "C"))
    m = m.copy(data=m.values * 0 + 0.998)
    assert "detection: every pair 1.00" in figures.caption_pairwise({"detection": m})
    text = figures.caption_pairwise({"detection": make_pairwise(annotators=("A", "B", "C"))})
    assert "closest pair" in text and "furthest" in text


@pytest.fixture(scope="module")
def sparse():
    """The report's figures of a sparse crowd (200 workers, 3 per item): most pairs of
    workers never meet."""
    crowd = iaf.simulate_crowd(n_items=150, n_workers=200, per_item=(3, 3), seed=1)
    kept, captions, pw = draw(crowd.annotations, 500)
    yield kept["pairwise"], captions["pairwise"], pw
    matplotlib.pyplot.close("all")


def _defined_pairs(pw, names):
    """Cells defined off the diagonal, over the three components, among ``names``."""
    import numpy as np

    total = 0
    for m in pw.values():
        v = m.sel({m.dims[0]: names, m.dims[1]: names}).values
        total += int(np.isfinite(v[~np.eye(len(names), dtype=bool)]).sum())
    return total


def test_sparse_crowd_heatmaps_show_annotators_who_share_items(sparse):
    import numpy as np

    fig, caption, pw = sparse
    panels = [ax for ax in fig.axes if ax.get_title()]
    names = [t.get_text() for t in panels[0].get_yticklabels()]
    assert 2 < len(names) < 200
    # the choice before: the busiest annotators (support of the first panel), as many
    m = pw["detection"]
    units = np.nan_to_num(m["n_units"].values)
    busiest = np.argsort(-(units.sum(0) + units.sum(1)), kind="stable")[: len(names)]
    before = [str(v) for v in m[m.dims[0]].values[busiest]]
    assert _defined_pairs(pw, names) > _defined_pairs(pw, before)
    # the drawn cells are those of the matrices
    cells = next(c for c in panels[1].collections if c.get_gid() == "cells")
    drawn = np.ma.filled(cells.get_array(), np.nan).reshape(len(names), len(names))
    c = pw["classification"]
    np.testing.assert_array_equal(drawn, c.sel({c.dims[0]: names, c.dims[1]: names}).values)
    # one note says how many are hidden and how they were chosen
    (note,) = [t for t in fig.texts if t.get_gid() == "note"]
    assert "more annotators not shown" in note.get_text()
    assert "items shared with each other" in " ".join(note.get_text().split())


def test_sparse_crowd_pair_caption_names_only_drawn_pairs(sparse):
    import re

    fig, caption, _ = sparse
    panels = [ax for ax in fig.axes if ax.get_title()]
    names = {t.get_text() for t in panels[0].get_yticklabels()}
    pairs = re.findall(r"(w\d+)–(w\d+)", caption)
    assert pairs  # the caption names the closest and furthest pair of a component
    assert all(a in names and b in names for a, b in pairs), (pairs, names)


def _crowd(n):
    """``n`` annotators who all annotate every item, of five kinds (dense pairs)."""
    profiles = ["good", "sloppy", "misser", "mislabeler", "lazy-center"]
    annotators = {f"annotator_{i:02d}": profiles[i % 5] for i in range(n)}
    return iaf.simulate(n_items=40, annotators=annotators, objects_per_item=4, seed=2)


def _overlaps(labels, renderer):
    boxes = [t.get_window_extent(renderer) for t in labels if t.get_visible() and t.get_text()]
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.overlaps(b)]


@pytest.mark.parametrize("n", [15, 25, 40])
def test_pair_panels_of_many_annotators_keep_their_names_apart(n):
    # three panels at 7 in fitted about 10 names: with 15 and more, the names at 45°
    # overlapped; beyond 16, the two ends are drawn and the note and caption say so
    kept, captions, pw = draw(_crowd(n), 100)
    fig = kept["pairwise"]
    for other in kept.values():
        if other is not fig:
            matplotlib.pyplot.close(other)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 3
    names = [t.get_text() for t in panels[0].get_yticklabels()]
    assert len(names) == min(n, PAIRS) and len(set(names)) == len(names)
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == names
        xs = ax.get_xticklabels()
        assert _overlaps(xs, renderer) == []
        assert _overlaps(ax.get_yticklabels(), renderer) == []
        assert min(t.get_fontsize() for t in xs) >= 5.0  # the floor: still readable
        # the names stay on the figure
        for t in xs + ax.get_yticklabels():
            if t.get_visible() and t.get_text():
                e = t.get_window_extent(renderer)
                assert e.x0 >= -1 and e.x1 <= fig.bbox.x1 + 1 and e.y0 >= -1
    # the rows are named once, left of the first panel
    assert all(not t.get_visible() or not t.get_text() for t in panels[1].get_yticklabels())
    (note,) = [t for t in fig.texts if t.get_gid() == "note"]
    said = " ".join(note.get_text().split())
    caption = " ".join(captions["pairwise"].split())
    matplotlib.pyplot.close(fig)
    if n <= PAIRS:
        assert "not shown" not in said and "not shown" not in caption
        return
    left = n - PAIRS
    for text in (said, caption):
        assert f"{left} more annotators not shown" in text
        assert "8 of highest and the 8 of lowest mean agreement with the others" in text
    # the two ends are those of the ranking by mean agreement, apart at dotted lines
    import numpy as np

    comps = ("detection", "classification", "localization")
    stack = np.stack([pw[c].values for c in comps]).astype(float)
    stack[:, np.eye(n, dtype=bool)] = np.nan
    finite = np.isfinite(stack)
    mean = np.where(finite, stack, 0).sum(axis=(0, 2)) / finite.sum(axis=(0, 2))
    order = [str(v) for v in pw["detection"].annotator_a.values[np.argsort(-mean, kind="stable")]]
    assert names == order[:8] + order[-8:]
    assert all(sum(ln.get_gid() == "ends" for ln in ax.lines) == 2 for ax in panels)


def test_forest_caption_names_only_classes_the_reading_reads():
    """#42 item 8: on LVIS the caption named the highest and lowest classes among ones
    resting on 1-2 items, which the Reading says it does not read."""
    import numpy as np

    from iaa_frames.report.diagnosis import reading

    result = iaf.load_sample("coco").iaa.agreement(n_boot=20)
    # "person" rests on too few items: the highest detection, and no interval
    result["agreement"].loc[{"component": "detection", "label": "person", "annotator": ALL}] = 1.0
    for v in ("ci_low", "ci_high"):
        result[v].loc[{"label": "person"}] = np.nan
    text = figures.caption_forest(result)
    assert "person" not in text and "not read" in text
    said = " ".join(reading(result))
    assert "(person) are not read" in said


def test_hardest_items_are_only_the_hard_ones():
    from iaa_frames.report.tables import items_html

    tables = iaf.pair_tables(iaf.load_sample("coco"), n_chance=200)
    loc, det = items(tables, component="localization"), items(tables, component="detection")
    page = items_html(loc, det)
    easy = loc[~(loc["excess"] > 0)]["item"]  # excess ≤ 0, or none (no units)
    assert len(easy) and not any(f">{name}<" in page.split("<h3>detection")[0] for name in easy)
    assert f"{len(easy)} more items carry no more disagreement than the corpus mean" in page
    _, captions, _ = draw(iaf.load_sample("coco"), 200)
    assert f"The other {len(easy)} items carry no more disagreement" in captions["items"]


def test_missing_glyphs_said_once_for_the_report():
    """Chinese class names without a CJK font: matplotlib warned "Glyph … missing from
    font(s)" for every character of every figure; the report says once which classes
    (a warning, and a sentence under the first figure) and its figures say nothing more."""
    import warnings

    from iaa_frames.plot.fonts import MissingGlyphWarning, missing_characters

    df = iaf.simulate(n_items=12, seed=0, classes=("猫咪", "car"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tables = iaf.pair_tables(df, n_chance=50)
        result = iaf.agreement(df, n_chance=50, n_boot=0)
        comps = ("detection", "classification", "localization")
        pw = {c: iaf.pairwise(df, component=c, n_chance=50) for c in comps}
    no_font = bool(missing_characters("猫咪"))
    assert ("猫咪" in figures.glyph_note(result)) is no_font
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figs = figures.draw_figures(tables, result, pw, items(tables, component="localization"), 20)
    raw = [w for w in caught if "missing from font" in str(w.message)]
    said = [w for w in caught if issubclass(w.category, MissingGlyphWarning)]
    assert raw == []
    assert len(said) == (1 if no_font else 0)
    forest_caption = next(caption for key, _, _, caption in figs if key == "agreement")
    assert ("猫咪" in forest_caption) is no_font
