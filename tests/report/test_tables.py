"""report.tables: the headline's note column, and n/a of nullable integers."""

from __future__ import annotations

import pandas as pd

import iaa_frames as iaf
from iaa_frames.explore.views import headline
from iaa_frames.report.tables import headline_html, html_table


def _head(html):
    return html[html.index("<thead>") : html.index("</thead>")]


def test_headline_has_a_note_column_only_when_a_component_has_a_note():
    # on the bundled sample no component has a note: the column was empty on every row
    res = iaf.agreement(iaf.load_sample("coco"), n_boot=0)
    assert "<th>note</th>" not in _head(headline_html(res, headline(res)))
    few = iaf.agreement(iaf.simulate(n_items=3, seed=0), n_boot=0, n_chance=10)
    assert headline(few)["note"].str.len().any()
    assert "<th>note</th>" in _head(headline_html(few, headline(few)))


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
