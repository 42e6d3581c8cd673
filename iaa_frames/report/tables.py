"""The report's HTML tables: the headline, the classes and annotators (top rows by
support), the hardest items and the parameters; :func:`html_table` writes any frame as an
escaped table.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from iaa_frames.explore.compact import COUNT_COLUMNS, numeric_text
from iaa_frames.explore.views import by_annotator, by_label, symbol
from iaa_frames.plot.rows import ranked

from .formatting import cell_text, component_name, fmt, plural
from .levels import against_chance

__all__ = ["headline_html", "html_table", "items_html", "params_table", "summary_table"]


def html_table(
    frame: pd.DataFrame,
    *,
    index_name: str | None = None,
    classes: str = "",
    reasons: pd.DataFrame | None = None,
    notes_id: str = "",
) -> str:
    """An escaped HTML table; numbers right-aligned, floats with 3 decimals.

    With ``reasons`` (a frame of the same shape, ``""`` where there is nothing to say),
    a cell with a reason carries it on hover (``title=``) and a footnote marker, and the
    reasons are listed, numbered, under the table: a reader of the page, printed or not,
    learns why a number is "n/a". ``notes_id`` makes the footnote ids unique in a page.

    Examples
    --------
    >>> html_table(pd.DataFrame({"x": [0.5]}, index=["a"]), index_name="k")
    '<table class=""><thead><tr><th>k</th><th class=num>x</th></tr></thead><tbody><tr><th>a</th><td class=num>0.500</td></tr></tbody></table>'
    >>> page = html_table(pd.DataFrame({"x": ["n/a"]}, index=["a"]),
    ...                   reasons=pd.DataFrame({"x": ["too few units"]}, index=["a"]))
    >>> 'title="too few units"' in page and "<li id=" in page
    True
    """
    columns = []
    for col in frame.columns:
        values = frame[col]
        if pd.api.types.is_bool_dtype(values):
            columns.append([(str(v), False) for v in values])
        elif pd.api.types.is_integer_dtype(values):  # a nullable integer's NA is "n/a"
            columns.append([("n/a" if pd.isna(v) else str(v), True) for v in values])
        elif pd.api.types.is_float_dtype(values):
            columns.append([(fmt(v, 3), True) for v in values])
        else:
            texts = ["" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)
                     for v in values]  # fmt: skip
            num = numeric_text(texts)
            columns.append([(t, num) for t in texts])
    # a column of numbers has its header right-aligned too, over its numbers
    head = "".join(
        [f"<th>{html.escape(str(index_name))}</th>"] if index_name is not None else []
    ) + "".join(
        f"<th{' class=num' if any(n for _, n in col) else ''}>{html.escape(str(c))}</th>"
        for c, col in zip(frame.columns, columns)
    )
    numbered: dict = {}  # reason -> its footnote number
    rows = []
    for i, idx in enumerate(frame.index):
        cells = (
            [f"<th{_long(str(idx))}>{html.escape(str(idx))}</th>"] if index_name is not None else []
        )
        for j, (text, num) in enumerate(col[i] for col in columns):
            why = ""
            if reasons is not None and frame.columns[j] in reasons.columns:
                why = str(reasons[frame.columns[j]].iloc[i] or "")
            attrs = " class=num" if num else _long(text)
            mark = ""
            if why:
                k = numbered.setdefault(why, len(numbered) + 1)
                attrs += f' title="{html.escape(why)}"'
                mark = f'<sup><a href="#{notes_id}note-{k}">{k}</a></sup>'
            cells.append(f"<td{attrs}>{html.escape(text)}{mark}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = (
        f'<table class="{html.escape(classes)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    if numbered:
        table += (
            "<ol class=notes>"
            + "".join(
                f'<li id="{notes_id}note-{k}" value={k}>{html.escape(why)}</li>'
                for why, k in numbered.items()
            )
            + "</ol>"
        )
    return table


#: A word of more characters than this (a label or an annotator of up to 1,000) may
#: break anywhere in a table cell (class ``long``): it made the page scroll sideways.
LONG_WORD = 40


def _long(text: str) -> str:
    """`` class=long`` for a cell whose text holds a word longer than :data:`LONG_WORD`."""
    return " class=long" if any(len(w) > LONG_WORD for w in text.split()) else ""


#: Why a column of the headline is "n/a" where the figure does not apply.
NOT_APPLICABLE = {
    "KS": "KS compares distances; classification compares labels (differ or not), not a "
    "distance: no KS",
    "raw IoU": "raw IoU is the mean IoU of matched object pairs: a localization figure",
    "presence α": "presence α is a detection figure (objects present or absent)",
    "n chance": "no chance units in this cell",
}


def summary_table(result, dim, top):
    """The classes (``dim="label"``) or annotators of the report: agreement [CI] per
    component, and the counts, "(all)" and the ``top`` rows by support, those with an
    interval first (:func:`iaa_frames.plot.rows.ranked`); how many rows were left out;
    and the reason of every "n/a", or the note of a defined cell (a class's borrowed
    chance baseline says what it assumes), as a frame of the table's shape for
    :func:`html_table`.

    The columns are those of ``res.iaa.table(by=dim)`` but ``notes`` (the reasons are
    footnotes here); ``attrs["caption"]`` names each component's measure, as that table's
    title does.
    """
    # the rows by support, those that are read first (as the figures rank them)
    other = "annotator" if dim == "label" else "label"
    shown, hidden, n_unread = ranked(result, dim, top, fixed_dim=other)
    wide = (by_label if dim == "label" else by_annotator)(result).reindex(shown)
    out = pd.DataFrame(index=pd.Index(wide.index, name=dim))
    why = pd.DataFrame(index=out.index)
    comps = [str(c) for c in result["component"].values]
    for c in comps:
        v, lo, hi = (
            wide.get(f"{c}_{k}", pd.Series(np.nan, index=wide.index))
            for k in ("agreement", "ci_low", "ci_high")
        )
        out[c] = [cell_text(float(a), float(b), float(d)) for a, b, d in zip(v, lo, hi)]
        note = wide.get(f"{c}_note", pd.Series("", index=wide.index)).fillna("").astype(str)
        # the reason of an "n/a", and what a defined cell assumes (a borrowed baseline)
        why[c] = [(n or "undefined") if t == "n/a" else n for t, n in zip(out[c], note)]
    for c, name in COUNT_COLUMNS.items():
        if c in comps:
            n = wide.get(f"{c}_n_units", pd.Series(np.nan, index=wide.index))
            out[name] = [str(int(x)) if math.isfinite(float(x)) else "0" for x in n]
    what = "class" if dim == "label" else "annotator"
    out.attrs["caption"] = (
        f"Agreement [95% CI] per {what} ("
        + ", ".join(component_name(result, c) for c in comps)
        + "); pairings: detection units (pairs of two annotations of an item); "
        "matched pairs: localization units (matched object pairs)."
    )
    out.attrs["reasons"] = why
    out.attrs["n_unread"] = n_unread
    return out, hidden


def params_table(result, tables, elapsed, version):
    """The result's attrs (the parameters), the package version and the time taken."""
    # the Dataset's own title is not the page's: left out
    rows = {k: result.attrs[k] for k in result.attrs if k != "title"}
    rows.setdefault("iaa_frames_version", version)
    rows["computed in" if tables is not None else "report made in"] = f"{elapsed:.1f} s"
    frame = pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=list(rows))
    return html_table(frame, index_name="parameter")


def headline_html(result, head):
    """The headline table: each component's agreement [CI], reading against chance, KS,
    raw IoU, presence α, units and note (``head`` is :func:`iaa_frames.explore.views.headline`;
    no note column when no component has one)."""
    rows, why = [], []
    for comp, r in head.iterrows():
        measure = symbol(r.get("measure", ""))
        ks = (
            f"{'+' if r.get('ks_sign', 0) > 0 else '−'}{fmt(r['ks'])}"
            if math.isfinite(float(r.get("ks", np.nan)))
            else "n/a"
        )
        undefined = str(r.get("note", "") or "") or "undefined"
        agree_text = cell_text(float(r["agreement"]), float(r["ci_low"]), float(r["ci_high"]))
        raw_text, pres_text = fmt(r.get("raw_iou")), fmt(r.get("presence_alpha"))
        nc_text = str(int(r["n_chance"])) if math.isfinite(float(r["n_chance"])) else "—"
        why.append(
            {
                "agreement": undefined if agree_text == "n/a" else "",
                "vs chance": "",
                "KS": (NOT_APPLICABLE["KS"] if measure == "α" else undefined)
                if ks == "n/a"
                else "",
                "raw IoU": (NOT_APPLICABLE["raw IoU"] if comp != "localization" else undefined)
                if raw_text == "n/a"
                else "",
                "presence α": (NOT_APPLICABLE["presence α"] if comp != "detection" else undefined)
                if pres_text == "n/a"
                else "",
                "n chance": NOT_APPLICABLE["n chance"] if nc_text == "—" else "",
            }
        )
        rows.append(
            {
                "component": comp,
                "measure": measure,
                "agreement": agree_text,
                "vs chance": against_chance(r["agreement"], r["ci_low"], r["ci_high"]),
                "KS": ks,
                "raw IoU": raw_text,
                "presence α": pres_text,
                "n units": str(int(r["n_units"])) if math.isfinite(float(r["n_units"])) else "0",
                "n chance": nc_text,
                "notes": str(r.get("note", "") or ""),
            }
        )
    frame = pd.DataFrame(rows).set_index("component")
    if not frame["notes"].str.len().any():  # an empty column says nothing
        frame = frame.drop(columns="notes")
    reasons = pd.DataFrame(why, index=frame.index).reindex(columns=frame.columns, fill_value="")
    return html_table(
        frame, index_name="component", classes="headline", reasons=reasons, notes_id="head-"
    )


#: The report's headings of the item table's columns (the words of the figures and of
#: "Where they disagree": "unmatched" there counts an object once per annotator without a
#: match for it; an item's objects no other annotator matched are "matched by nobody").
ITEM_HEADINGS = {
    "n_pairs": "units",
    "n_unmatched": "matched by nobody",
    "n_mislabeled": "label conflicts",
    "n_annotators": "annotators",
    "n_objects": "objects",
    "mean_distance": "mean distance",
    "chance_percentile": "chance percentile",
}


def items_html(item_table, item_detection, n=15):
    """The ``n`` hardest items on localization and on detection (tables of
    :func:`iaa_frames.explore.items.items`): those whose excess is positive (more
    disagreement than the corpus mean), a note counting the others."""
    cols = [
        "item",
        "sigma",
        "mean_distance",
        "chance_percentile",
        "n_pairs",
        "n_unmatched",
        "n_mislabeled",
        "n_annotators",
        "n_objects",
    ]
    parts = []
    for name, t in (("localization", item_table), ("detection", item_detection)):
        parts.append(f"<h3>{html.escape(name)}</h3>")
        # the hard items only: those carrying more disagreement than the corpus mean
        hard = t[t["excess"].to_numpy(dtype=float) > 0] if "excess" in t else t
        shown = hard[cols].head(n).set_index("item").rename(columns=ITEM_HEADINGS)
        if len(shown):
            parts.append(html_table(shown, index_name="item", classes="items"))
        easy = len(t) - len(hard)
        if easy:
            parts.append(
                "<p class=note>No item carries more disagreement than the corpus mean; "
                "items.csv holds all.</p>"
                if hard.empty
                else f"<p class=note>{plural(easy, 'more item')} "
                f"{'carries' if easy == 1 else 'carry'} no more disagreement than the corpus "
                "mean (excess ≤ 0): not listed; items.csv holds all.</p>"
            )
    return "".join(parts)
