"""report.tables: the headline's notes column, n/a of nullable integers, and the words of
the tables (those of ``res.iaa.table()``)."""

from __future__ import annotations

import re

import pandas as pd

import iaa_frames as iaf
from iaa_frames.explore.views import by_annotator, by_label, headline
from iaa_frames.report.tables import headline_html, html_table, summary_table


def _head(html):
    return html[html.index("<thead>") : html.index("</thead>")]


def test_headline_has_a_note_column_only_when_a_component_has_a_note():
    # on the bundled sample no component has a note: the column was empty on every row
    res = iaf.agreement(iaf.load_sample("coco"), n_boot=0)
    assert "<th>notes</th>" not in _head(headline_html(res, headline(res)))
    few = iaf.agreement(iaf.simulate(n_items=3, seed=0), n_boot=0, n_chance=10)
    assert headline(few)["note"].str.len().any()
    assert "<th>notes</th>" in _head(headline_html(few, headline(few)))


def test_a_nullable_integer_na_is_written_na():
    page = html_table(pd.DataFrame({"n": pd.array([3, None], dtype="Int64")}))
    assert ">n/a<" in page and "&lt;NA&gt;" not in page


def test_numbers_written_as_text_are_right_aligned_with_their_header():
    # the headline's KS ("+0.96", "n/a"), counts and "0.86 [0.81, 0.89]" cells are text:
    # they were left-aligned, and every header left-aligned over right-aligned numbers
    frame = pd.DataFrame(
        {
            "agreement": ["0.86 [0.81, 0.89]", "n/a"],
            "vs chance": ["above chance", "n/a"],
            "KS": ["+0.96", "−0.10"],
            "n": ["1,207", "—"],
            "share": [0.5, 0.25],
        },
        index=["detection", "classification"],
    )
    page = html_table(frame, index_name="component")
    head = _head(page)
    assert "<th>component</th><th class=num>agreement</th><th>vs chance</th>" in head
    assert "<th class=num>KS</th><th class=num>n</th><th class=num>share</th>" in head
    body = page[page.index("<tbody>") :]
    assert body.count("<td class=num>") == 8 and body.count("<td>") == 2


def _headers(page):
    return re.findall(r"<th(?: class=num)?>([^<]*)</th>", _head(page))


def test_the_report_tables_use_the_words_of_the_table():
    # #42: the table said "pairings", "matched pairs", "label", "notes"; the report
    # "n (detection)", "class", "note", "agreement [95% CI]" for the same numbers
    res = iaf.agreement(iaf.simulate(n_items=6, seed=0), n_boot=20, n_chance=50)
    for dim, views in (("label", by_label), ("annotator", by_annotator)):
        table = res.iaa.table(by=dim)
        shown, _ = summary_table(res, dim, top=20)
        page = html_table(shown, index_name=dim, reasons=shown.attrs["reasons"])
        # the same columns, in the same order; the notes are the HTML table's footnotes
        assert _headers(page) == [table.index.name, *table.columns.drop("notes")]
        assert set(shown.index) == set(table.index)
        # the CSV files hold the numbers under the result's names, as the table's .numbers
        csv_columns = set(views(res).columns)
        assert {f"{c}_{v}" for c, v in table.numbers.columns} <= csv_columns
    component = res.iaa.table(by="component")
    head = _headers(headline_html(res, headline(res)))
    assert head[0] == component.index.name
    assert set(component.columns.drop("notes")) <= set(head)
