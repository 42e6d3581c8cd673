"""The report's figures: each figure of :mod:`iaa_frames.plot` drawn as inline SVG, with a
caption that names what stands out (the best and worst classes, annotators and pairs).

:func:`draw_figures` draws every figure a report shows; a figure that fails becomes a
warning and a line of text in its place, not a broken report. :func:`svg` turns a
Matplotlib figure into markup for one HTML page.

Over 400 lines: the captions are made beside the figures they describe (a caption names
what its figure drew, so that they are made together in :func:`draw_figures`).
"""

from __future__ import annotations

import html
import io
import math
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from iaa_frames.core.engine.result import MEASURES
from iaa_frames.errors import IAAWarning
from iaa_frames.explore.views import cell_value, symbol
from iaa_frames.frame.schema import ALL
from iaa_frames.plot.fonts import MissingGlyphWarning, missing_characters
from iaa_frames.plot.rows import unread
from iaa_frames.plot.style import short_name

from .formatting import fmt, isolate, plural
from .pair_choice import pair_annotators

__all__ = [
    "caption_annotators",
    "caption_distributions",
    "caption_forest",
    "caption_items",
    "caption_pairwise",
    "draw_figures",
    "glyph_note",
    "one_glyph_warning",
    "svg",
]


def svg(fig, name: str) -> str:
    """The figure as inline SVG markup (no XML prolog, DOCTYPE, metadata or namespaces
    declarations: the HTML parser supplies them), and close it.

    Element ids are prefixed with ``name``, so that the figures of one page never share
    one.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> svg(plt.figure(figsize=(1, 1)), "f").startswith("<svg")
    True
    """
    import matplotlib
    import matplotlib.pyplot as plt

    for artist in fig.findobj():
        artist.set_gid(None)  # plot gids repeat within a figure; SVG ids must not
        if artist.get_rasterized():  # colorbars are rasterized by default: keep vectors
            artist.set_rasterized(False)
    buf = io.StringIO()
    with (
        matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}),
        warnings.catch_warnings(),
    ):
        # the report says once which names no font draws (glyph_note), not once a figure
        warnings.simplefilter("ignore", MissingGlyphWarning)
        fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.04)
    plt.close(fig)
    markup = buf.getvalue()
    markup = markup[markup.index("<svg") :]
    markup = re.sub(r"<metadata>.*?</metadata>", "", markup, flags=re.S)
    markup = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", markup)
    # ids unique across the figures of one page (matplotlib numbers them per figure)
    markup = re.sub(r'\bid="', f'id="{name}-', markup)
    markup = re.sub(r'href="#', f'href="#{name}-', markup)
    markup = markup.replace("url(#", f"url(#{name}-")
    return markup


def _extremes(result, dim, component):
    """(best, worst) coordinate of ``dim`` (not "(all)") on a component, with values;
    only among the coordinates that are read (:func:`iaa_frames.plot.rows.unread`: the
    rule of the reading)."""
    other = "annotator" if dim == "label" else "label"
    v = result["agreement"].sel(component=component, **{other: ALL}).to_series()
    not_read = set(unread(result, dim))
    v = v[[str(i) != ALL and str(i) not in not_read for i in v.index]].dropna()
    if v.empty:
        return None
    # named as the figure writes them (a long name cut at an ellipsis)
    hi, lo = isolate(short_name(v.idxmax())), isolate(short_name(v.idxmin()))
    return (hi, float(v.max())), (lo, float(v.min()))


def caption_forest(result):
    """Caption of the forest plot: the highest and lowest class of each component."""
    parts = []
    for c in ("detection", "classification", "localization"):
        ext = _extremes(result, "label", c)
        if ext and ext[0][0] != ext[1][0]:
            (hi, vh), (lo, vl) = ext
            parts.append(f"{c}: highest {hi} ({fmt(vh)}), lowest {lo} ({fmt(vl)})")
    raw = cell_value(result, "localization", var="raw_iou")
    text = (
        "Agreement of each class, one panel per component, with 95% bootstrap "
        "intervals; the dashed line is chance (0)."
    )
    if parts:
        text += " " + "; ".join(parts) + "."
    n_unread = len(unread(result, "label"))
    if n_unread:  # as the reading says
        text += (
            f" Classes are ranked by support, those with an interval first; "
            f"{plural(n_unread, 'class', 'classes')} resting on fewer than 4 items (no "
            f"interval) {'is' if n_unread == 1 else 'are'} not read"
            + (" and not named here." if parts else ".")
        )
    if math.isfinite(raw):
        text += (
            f" The raw IoU panel shows the uncorrected mean IoU of matched pairs "
            f"({fmt(raw)} pooled), on its own axis."
        )
    return text


#: Annotators drawn in the profiles: a bigger crowd by its two ends.
_PROFILES = 10


def caption_annotators(result):
    """Caption of the annotator profiles: the lowest annotator where below everybody."""
    names = [str(a) for a in result["annotator"].values if str(a) != ALL]
    if len(names) < 2:
        return "Only one annotator: there is no profile to compare."
    parts = []
    for c in ("detection", "classification", "localization", "overall"):
        ext = _extremes(result, "annotator", c)
        pooled = cell_value(result, c)
        # only a difference the two decimals show ("0.98 against 0.98" said nothing)
        if ext and math.isfinite(pooled) and round(ext[1][1], 2) < round(pooled, 2):
            parts.append(
                f"{c}: lowest {ext[1][0]} ({fmt(ext[1][1])} against {fmt(pooled)} for everybody)"
            )
    who = (
        f"Each of the {plural(len(names), 'annotator')}"
        if len(names) <= _PROFILES
        else f"The {_PROFILES - _PROFILES // 2} highest and the {_PROFILES // 2} lowest of the "
        f"{len(names):,} annotators by overall agreement (apart at the dotted lines)"
    )
    text = (
        f"{who} across the components "
        "(black bar: everybody, its grey band the interval), each with its 95% bootstrap "
        "interval; no line joins the components, σ and α being different scales."
    )
    return text + (" " + "; ".join(parts) + "." if parts else "")


def caption_pairwise(pw, names=None, left_out: str = ""):
    """Caption of the pair heatmaps: the closest and furthest pair of each component.

    ``names``: the annotators drawn (default all); only their pairs are named.
    ``left_out``: the figure's note saying which annotators are not drawn
    (:func:`pair_annotators`), repeated in the caption.
    """
    texts = []
    for c, m in pw.items():
        if names is not None:
            have = set(m[m.dims[0]].values.tolist())
            shown = [a for a in names if a in have]
            m = m.sel({m.dims[0]: shown, m.dims[1]: shown})
        v = m.to_series().dropna()
        v = v[[a < b for a, b in v.index]]
        if len(v) and f"{fmt(v.max())}" == f"{fmt(v.min())}":  # no pair stands out
            texts.append(f"{c}: every pair {fmt(v.max())}")
        elif len(v):
            (a, b), (x, y) = (
                tuple(isolate(short_name(n)) for n in p) for p in (v.idxmax(), v.idxmin())
            )
            texts.append(
                f"{c}: closest pair {a}–{b} ({fmt(v.max())}), furthest {x}–{y} ({fmt(v.min())})"
            )
    text = (
        "Agreement of every pair of annotators (hatched diagonal: an annotator with "
        "itself, no value). " + ("; ".join(texts) + "." if texts else "")
    )
    if left_out:  # "+ 24 more annotators not shown: drawn are ..."
        text += " " + left_out.removeprefix("+ ").strip() + "."
    return text


def caption_distributions(result, comp):
    """Caption of a distance figure: what the distances are, and the pooled σ and KS."""
    s = cell_value(result, comp)
    k = cell_value(result, comp, var="ks") * cell_value(result, comp, var="ks_sign")
    n, nc = cell_value(result, comp, var="n_units"), cell_value(result, comp, var="n_chance")
    what = (
        "distances of matched object pairs"
        if comp == "localization"
        else "detection distances (1 − F1) of pairs of annotations"
    )
    text = (
        f"Within-item {what} (colored) against chance: the same pipeline on "
        "annotations of different items (grey). The black segment is the KS gap."
    )
    if math.isfinite(s) and math.isfinite(n):
        text += (
            f" Pooled: σ = {fmt(s)}, KS = {k:+.2f}, {int(n):,} within-item units "
            f"against {int(nc):,} chance units."
        )
    return text


def caption_items(item_table, n_easy: int = 0):
    """Caption of the hardest items: how they are ranked, and the first; ``n_easy``
    items carrying no more disagreement than the corpus mean are not drawn."""
    if item_table.empty:
        return "No item has within-item units."
    top = item_table.iloc[0]
    text = (
        f"Items ranked by the disagreement they carry beyond the corpus mean (units x "
        f"(item mean distance − corpus mean)); the bar is the item's own σ. First: "
        f"{isolate(top['item'])} ({int(top['n_pairs'])} units, σ = {fmt(top['sigma'])})."
    )
    if n_easy:
        text += (
            f" The other {plural(n_easy, 'item')} "
            f"{'carries' if n_easy == 1 else 'carry'} no more disagreement than the "
            f"corpus mean and {'is' if n_easy == 1 else 'are'} not drawn."
        )
    return text


def glyph_note(result, items=()) -> str:
    """A sentence naming the classes and annotators of ``result`` and the ``items`` with
    characters no installed font draws (the figures show them as boxes), or "".

    Examples
    --------
    >>> import xarray as xr
    >>> glyph_note(xr.Dataset(coords={"label": ["(all)", "car"], "annotator": ["a"]}))
    ''
    """
    names = {}
    for dim, what in (("label", "class"), ("annotator", "annotator")):
        if dim in result.coords:
            for v in result[dim].values:
                if str(v) != ALL and missing_characters(v):
                    names[str(v)] = what
    for v in items:
        if str(v) not in names and missing_characters(v):
            names[str(v)] = "item"
    if not names:
        return ""
    chars = "".join(dict.fromkeys("".join(missing_characters(n) for n in names)))
    shown = ", ".join(f"{what} {isolate(short_name(n))}" for n, what in list(names.items())[:6])
    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
    return (
        f"No installed font has the characters {chars} of {shown}{more}: the figures draw "
        "them as boxes (a font that has them, e.g. Noto Sans CJK, draws them)."
    )


@contextmanager
def one_glyph_warning() -> Iterator[None]:
    """The figures drawn inside say once which characters no font draws: the first
    :class:`~iaa_frames.plot.fonts.MissingGlyphWarning` passes (the report's own,
    :func:`glyph_note`, said before any figure is drawn), not the one each figure gives
    when it is laid out; every other warning passes, each once.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with one_glyph_warning():
    ...         warnings.warn("the report's", MissingGlyphWarning)
    ...         warnings.warn("a figure's", MissingGlyphWarning)
    >>> [str(w.message) for w in seen]
    ["the report's"]
    """
    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:  # said even when a figure fails
        seen, glyphs = set(), False
        for w in caught:
            if issubclass(w.category, MissingGlyphWarning):
                if glyphs:
                    continue
                glyphs = True
            key = (w.category, str(w.message), w.filename, w.lineno)
            if key not in seen:
                seen.add(key)
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def draw_figures(tables, result, pw, item_table, top, *, pairs_note: str = ""):
    """Every figure of the report, as ``(key, title, markup, caption)`` tuples.

    Parameters
    ----------
    tables : PairTables or None
        The report's pair tables; None for a report of a Dataset (the figures that need
        the tables are left out).
    result : xarray.Dataset
        The agreement result.
    pw : dict
        Component -> annotator x annotator DataArray (:func:`iaa_frames.pairwise`).
    item_table : pandas.DataFrame or None
        The localization table of :func:`iaa_frames.explore.items.items`.
    top : int
        Classes shown.
    pairs_note : str, default ""
        Which annotators ``pw`` leaves out and why
        (:func:`~iaa_frames.report.pair_choice.pair_section_annotators`), first in the
        caption of the pair heatmaps.
    """
    import matplotlib.pyplot as plt

    from iaa_frames import plot

    figs = []
    glyphs = glyph_note(result, tables.corpus.items if tables is not None else ())
    if glyphs:  # said once, here and under the first figure, not by every figure
        warnings.warn(glyphs, MissingGlyphWarning, stacklevel=3)

    def add(key, title, caption, make):
        # a callable caption is made after the figure: it names what the figure drew
        try:
            fig = make()
            if callable(caption):
                caption = caption()
        except Exception as exc:  # a figure must not sink the report; say what failed
            plt.close("all")
            if callable(caption):  # nothing drawn: no pair to name
                caption = ""
            warnings.warn(
                f"the figure {title!r} could not be drawn: {type(exc).__name__}: {exc}",
                IAAWarning,
                stacklevel=3,
            )
            figs.append(
                (
                    key,
                    title,
                    f'<p class="warn">This figure could not be drawn: '
                    f"{html.escape(type(exc).__name__)}: "
                    f"{html.escape(str(exc))}</p>",
                    caption,
                )
            )
            return
        fig = getattr(fig, "figure", fig)
        figs.append((key, title, svg(fig, key), caption))

    add(
        "agreement",
        "Agreement by class",
        f"{caption_forest(result)} {glyphs}".strip(),
        lambda: plot.forest(result, top=top),
    )
    add(
        "decomposition",
        "Decomposition by class",
        "Detection, classification and localization of each class side by side, classes "
        "in order of support (matched pairs).",
        lambda: plot.decomposition(result, top=top),
    )
    add(
        "annotators",
        "Annotator profiles",
        caption_annotators(result),
        lambda: plot.annotators(result, top=_PROFILES),
    )

    drawn = {}  # the annotators the heatmaps drew, for their caption

    def heatmaps():
        import numpy as np

        from iaa_frames.plot import style
        from iaa_frames.plot.figure import laid_out
        from iaa_frames.plot.pairwise import heatmap_ticks

        # the panels' ticks and the note at the figure sizes of the plots
        with style.theme():
            comps = [c for c in ("detection", "classification", "localization") if c in pw]
            # the same annotators in every panel: all of up to 16, else the two ends of a
            # dense crowd or those who share items in a sparse one, said in the note
            names, split, left_out = pair_annotators([pw[c] for c in comps])
            drawn["names"], drawn["left_out"] = names, left_out
            # the row of square panels, close together (compressed layout), in a figure
            # about as tall as they are: the names beside them (about 0.55 em a character
            # at 7 pt), the colour bar, the titles and x labels around them (a little
            # short rather than tall: the layout then narrows the panels, where a tall
            # figure left blank strips above and below them)
            names_in = 0.55 * max((len(str(a)) for a in names), default=1) * 7 / 72
            panel = (7.0 - names_in - 0.35 - 0.8) / max(len(comps), 1)
            fig, axes = style.subplots(
                1,
                len(comps),
                figsize=(7.0, panel + names_in + 0.55),
                layout="compressed",
                squeeze=False,
            )
            finite = np.concatenate([np.ravel(pw[c].values) for c in comps])
            finite = finite[np.isfinite(finite)]
            # one scale for all, down to the floor of agreement axes (lower: the lowest color)
            vmin = max(min(-0.25, float(finite.min()) if finite.size else 0.0), style.FLOOR)
            reasons = [left_out] if left_out else []
            for k, (ax, c) in enumerate(zip(axes[0], comps)):
                m = pw[c]
                m = m.sel({m.dims[0]: names, m.dims[1]: names})
                plot.pairwise(m, ax=ax, top=None, vmin=vmin, colorbar=k == len(comps) - 1)
                ax.set_title(f"{c} {symbol(MEASURES.get(c, 'sigma'))}")
                if split is not None:  # the two ends of the crowd, apart
                    for line in (ax.axhline, ax.axvline):
                        line(split - 0.5, color="0.15", lw=1.0, ls=":", gid="ends")
                for t in list(ax.texts):  # the notes of the panels: one note under the figure
                    if t.get_gid() == "note":
                        lines = []  # the note's lines, its wrapped continuations joined back
                        for line in t.get_text().split("\n"):
                            if line.startswith("  ") and lines:
                                lines[-1] += " " + line.strip()
                            else:
                                lines.append(line)
                        for line in lines:
                            shared = line.startswith("+ ")  # "+ N more annotators not shown"
                            text = line if shared else f"{c}: {line}"
                            if text not in reasons:
                                reasons.append(text)
                        t.remove()
                if k:  # the rows are those of the first panel: their names once
                    ax.set_ylabel("")
                    ax.tick_params(axis="y", which="major", labelleft=False)
            last = next(a for a in axes[0][-1].collections if a.get_gid() == "cells")
            if last.colorbar is not None:
                measures = sorted({symbol(MEASURES.get(c, "sigma")) for c in comps}, reverse=True)
                last.colorbar.set_label(f"chance-corrected agreement ({', '.join(measures)})")
            # names sized to the cells the layout gave (one size for the panels; upright
            # when slanted ones would overlap, every k-th when even 5 pt would)
            laid_out(fig)  # the layout, the cells not drawn
            cell = min(
                ax.get_position().width * fig.get_figwidth() / max(len(names), 1) for ax in axes[0]
            )
            for ax in axes[0]:
                heatmap_ticks(ax, cell)
            text = "\n".join(reasons)
            fig.set_figheight(fig.get_figheight() + style.note_room(fig, text))  # room for it
            style.note(fig, text)
            return fig

    def pairs_caption():  # who is left out of pw, then what the heatmaps drew
        panels = {c: pw[c] for c in ("detection", "classification", "localization") if c in pw}
        text = caption_pairwise(panels, drawn.get("names"), drawn.get("left_out", ""))
        return f"{pairs_note} {text}" if pairs_note else text

    if tables is None:  # a report of a Dataset: no pair tables
        return figs
    add(
        "pairwise",
        "Annotator pairs",
        pairs_caption,
        heatmaps,
    )
    for comp in ("localization", "detection"):
        add(
            f"distributions_{comp}",
            f"Distances: {comp}",
            caption_distributions(result, comp),
            lambda comp=comp: plot.distributions(tables, component=comp, by="label", top=3),
        )
    # the hard items only: those carrying more disagreement than the corpus mean
    hard = item_table[item_table["excess"].to_numpy(dtype=float) > 0]
    if hard.empty:
        none = "<p>No item carries more disagreement than the corpus mean.</p>"
        figs.append(("items", "Hardest items", none, ""))
    else:
        add("items", "Hardest items", caption_items(hard, len(item_table) - len(hard)),
            lambda: plot.items(hard, top=15))  # fmt: skip
    return figs
