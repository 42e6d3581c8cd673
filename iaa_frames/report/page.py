"""The report page: its sections, in order, and the HTML document around them.

A section is ``(id, title, builder)`` in :data:`SECTIONS`; a builder takes the report's
:class:`Context` and returns HTML. :func:`render_page` writes the whole document: one
file, styles inline, no external asset.
"""

from __future__ import annotations

import html

from .diagnosis import reading
from .formatting import plural
from .tables import (
    headline_html,
    html_table,
    items_html,
    params_table,
    summary_table,
)

__all__ = ["RESULT_SECTIONS", "SECTIONS", "Context", "render_page"]

# the pair heatmaps (three panels of up to 16 names each) take the 900 px of a figure
# on screen: drawn 7 in wide (672 px), their names would be 5-6 pt at 1:1
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
thead th{background:#f3f3f3}
figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
svg{max-width:100%;height:auto}.note{color:#666;font-style:italic}.warn{color:#a33}
ul.reading li{margin:.3em 0}nav a{margin-right:1em}
ol.notes{font-size:.85em;color:#555;margin:.2em 0 1em}td[title]{cursor:help}
sup a{text-decoration:none;color:#a33}
dl.howto dt{font-weight:600;margin-top:.5em}dl.howto dd{margin-left:1.2em;color:#333}
figure svg{max-width:900px}
#fig-pairwise svg{width:100%}
p,li,dd,figcaption,.long{overflow-wrap:anywhere}
"""


_HOW_TO_READ = """
<dl class=howto>
<dt>σ (sigma)</dt><dd>1 − mean within-item distance / mean chance distance. The chance
distance is what the <em>same</em> pipeline gives for annotations of two different items by
two different annotators. 1: perfect agreement; 0: no better than annotations of unrelated
items; negative: systematic disagreement (never clipped). Used for detection (distance
1 − F1 of the matching of two annotators' objects), localization (distance of matched
object pairs) and overall (Braylan et al.'s set distance). σ has no conventional
thresholds: read it against chance (its interval) and against the other components.</dd>
<dt>α (alpha)</dt><dd>Agreement of the labels of matched objects: 1 − observed / expected
label disagreement, observed the share of matched object pairs whose labels differ and
expected that share among matched pairs of unrelated items (the same chance rule as σ; so
classes that keep to their own places or sizes are not read as agreement). Krippendorff's
conventions: α ≥ 0.8 to rely on the data, ≥ 0.667 for tentative conclusions.
Krippendorff's own α, from the label marginals, is in agreement.nc as
<code>label_alpha</code>.</dd>
<dt>KS</dt><dd>Kolmogorov–Smirnov statistic of the within-item against the chance
distances: the largest gap between their cumulative distributions (0 to 1), signed + when
within-item distances are smaller (agreement). A KS well above σ means most pairs agree
and a minority of items carries the disagreement.</dd>
<dt>n units</dt><dd>Within-item units behind a figure: pairs of annotations of an item
(detection, overall), matched object pairs (localization), clusters with at least two
members (classification).</dd>
<dt>n chance</dt><dd>Distinct chance units (pairs of annotations of different items, or
their matched object pairs) behind the expected disagreement.</dd>
<dt>95% CI</dt><dd>Cluster-bootstrap interval: items resampled with replacement;
bias-corrected and accelerated, its width corrected for the noise of chance pairs and
widened by Student's t where few items carry the variance. At most 1.</dd>
<dt>raw IoU</dt><dd>Mean IoU of matched pairs, uncorrected: the figure annotation tools
show. An easy corpus gives a high raw IoU to annotators who never looked at the image;
σ does not.</dd>
<dt>presence α</dt><dd>Nominal α over clusters with the values present/absent, shown for
comparison with tools that report it. It is not the detection figure because it is broken
by construction: a cluster exists only because somebody drew it, so no unit is ever
absent for everybody, and with independent misses presence α is about 0 whatever the miss
rate (2% or 30%). Detection σ compares with chance instead.</dd>
<dt>chance_percentile (items)</dt><dd>Share of chance distances at or below the item's mean
distance: 0.4 means the item's average pair is as far apart as the 40th percentile of
unrelated pairs.</dd>
</dl>
"""


class Context:
    """Everything a report section may draw on (see :data:`SECTIONS`)."""

    def __init__(self, **values):
        self.__dict__.update(values)


def _section_reading(ctx):
    return (
        "<ul class=reading>"
        + "".join(
            f"<li>{html.escape(x)}</li>"
            for x in reading(ctx.result, sweep=getattr(ctx, "sweep", None))
        )
        + "</ul>"
    )


def _section_how_to_read(ctx):
    return _HOW_TO_READ


def _section_headline(ctx):
    return headline_html(ctx.result, ctx.head)


#: Figures shown in a section of their own rather than under "Figures".
_OWN_SECTION = {"items": "items"}


def _figure_html(key, ftitle, body, caption, heading=True):
    head = f"<h3>{html.escape(ftitle)}</h3>" if heading else ""
    return (
        f'<figure id="fig-{html.escape(key)}">{head}{body}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _section_figures(ctx):
    return "".join(
        _figure_html(key, ftitle, body, caption)
        for key, ftitle, body, caption in ctx.figures
        if key not in _OWN_SECTION
    )


def _section_by_label(ctx):
    table, hidden = summary_table(ctx.result, "label", ctx.top)
    note = (
        (
            f"<p class=note>{plural(hidden, 'more class', 'more classes')} not shown (top "
            f"{ctx.top} by support"
            + ("; classes with an interval first" if table.attrs.get("n_unread") else "")
            + "); by_label.csv holds all.</p>"
        )
        if hidden
        else ""
    )
    return (
        f"<p class=note>{html.escape(table.attrs['caption'])}</p>"
        + html_table(table, index_name="label", reasons=table.attrs["reasons"], notes_id="label-")
        + note
    )


def _section_by_annotator(ctx):
    table, hidden = summary_table(ctx.result, "annotator", 50)
    n_annotators = ctx.result.sizes.get("annotator", 1) - 1
    pair = (
        "<p class=note>With two annotators each annotator's row equals (all): an "
        "annotator's figures come from the pairs of annotations that involve it, and the "
        "only pair involves both.</p>"
        if n_annotators == 2
        else ""
    )
    note = (
        (
            f"<p class=note>{plural(hidden, 'more annotator')} not shown; by_annotator.csv "
            "holds all.</p>"
        )
        if hidden
        else ""
    )
    return (
        pair
        + f"<p class=note>{html.escape(table.attrs['caption'])}</p>"
        + html_table(table, index_name="annotator", reasons=table.attrs["reasons"], notes_id="ann-")
        + note
    )


def _section_items(ctx):
    figure = "".join(
        _figure_html(key, ftitle, body, caption, heading=False)
        for key, ftitle, body, caption in ctx.figures
        if _OWN_SECTION.get(key) == "items"
    )
    return figure + (
        "<p>The tables rank items the same way (<em>excess</em> = units × (item mean "
        "distance − corpus mean)), on localization and on detection: <em>sigma</em> is the "
        "item's own agreement, <em>matched by nobody</em> its objects no other annotator "
        "has a match for, <em>label conflicts</em> its clusters whose members carry "
        "different labels. All items: items.csv.</p>"
        + items_html(ctx.item_table, ctx.item_detection)
    )


def _section_parameters(ctx):
    more = (
        ""
        if ctx.tables is None
        else ", pairwise.csv, items.csv, conflicts.csv, conflict_counts.csv"
    )
    return (
        params_table(ctx.result, ctx.tables, ctx.elapsed, ctx.version)
        + "<p>Files: agreement.nc (the result Dataset), agreement.csv, headline.csv, "
        f"by_label.csv, by_annotator.csv{more}.</p>"
    )


#: The sections of the report page, in order: ``(id, title, builder)``; a builder takes
#: the report context (``df``, ``tables``, ``result``, ``head``, ``figures``,
#: ``item_table``, ``item_detection``, ``pairwise``, ``top``, ...) and returns HTML. To add
#: a section, insert an entry (e.g. before "parameters").
SECTIONS = [
    ("headline", "Headline", _section_headline),
    ("summary", "Reading", _section_reading),
    ("figures", "Figures", _section_figures),
    ("by-label", "By class", _section_by_label),
    ("by-annotator", "By annotator", _section_by_annotator),
    ("items", "Hardest items", _section_items),
    ("disagree", "Where they disagree", lambda ctx: ctx.disagree_html),
    ("consensus", "Consensus", lambda ctx: ctx.consensus_html),
    ("how-many", "How many more", lambda ctx: ctx.how_many_html),
    ("how-to-read", "How to read this", _section_how_to_read),
    ("parameters", "Parameters", _section_parameters),
]


def render_page(ctx, title, *, intro=None, sections=None) -> str:
    """The HTML document: title, intro, a link to each section, the sections, a footer.

    Parameters
    ----------
    ctx : Context
        What the sections draw on.
    title : str
    intro : str, optional
        The paragraph under the title; by default the corpus's counts (``ctx.tables``).
    sections : list, optional
        ``(id, title, builder)`` entries; default :data:`SECTIONS`.
    """
    if intro is None:
        c = ctx.tables.corpus
        n_obj = len(c.objects)
        n_cov = len(ctx.df) - n_obj
        intro = (
            f"{plural(len(c.items), 'item')}, {plural(len(c.annotators), 'annotator')}, "
            f"{plural(len(c.labels), 'class', 'classes')}, {plural(n_obj, 'object')} "
            f"and {plural(n_cov, 'coverage row')} (an annotator reviewed an item and "
            "drew nothing)."
        )
    sections = [(sid, name, build(ctx)) for sid, name, build in (sections or SECTIONS)]
    nav = (
        "<nav>"
        + "".join(f'<a href="#{sid}">{html.escape(name)}</a>' for sid, name, _ in sections)
        + "</nav>"
    )
    body = "".join(
        f'<section id="{sid}"><h2>{html.escape(name)}</h2>{content}</section>'
        for sid, name, content in sections
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(intro)}</p>{nav}{body}"
        f"<footer><p class=note>iaa_frames {html.escape(str(ctx.version))}</p></footer>"
        "</body></html>\n"
    )


#: Sections of a report made from an agreement Dataset alone (no pair tables).
RESULT_SECTIONS = [
    entry
    for entry in SECTIONS
    if entry[0]
    in ("headline", "summary", "figures", "by-label", "by-annotator", "how-to-read", "parameters")
]
