"""The "Attributes" section of the report (iaa_frames.report.attributes): shown, with its
numbers and attributes.csv, when the frame declares attribute columns; absent otherwise."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.report.attributes import attribute_table

ALL = "(all)"


@pytest.fixture(scope="module")
def frame():
    annotators = {
        "a": "good",
        "b": "good",
        "c": {"preset": "good", "attribute_flip": {"color": 0.4}},
    }
    return iaf.simulate(
        n_items=30,
        annotators=annotators,
        attributes={"occluded": [False, True], "color": ["red", "green", "blue"]},
        seed=0,
    )


def test_report_shows_the_attributes_and_writes_their_table(frame, tmp_path):
    page = iaf.report(frame, tmp_path, n_chance=100, n_boot=30).read_text()
    assert '<section id="attributes"><h2>Attributes</h2>' in page
    assert page.index('id="by-annotator"') < page.index('id="attributes"')
    ds = iaf.attribute_agreement(frame, n_chance=100, n_boot=30)
    table, _ = attribute_table(ds)
    for text in table["α [95% CI]"]:
        assert text in page
    csv = pd.read_csv(tmp_path / "attributes.csv")
    cell = csv[(csv["attribute"] == "color") & (csv["label"] == ALL) & (csv["annotator"] == ALL)]
    want = float(ds["alpha"].sel(attribute="color", label=ALL, annotator=ALL))
    assert float(cell["alpha"].iloc[0]) == pytest.approx(want)
    assert "α per annotator" in page  # three annotators
    assert table.loc["color", "n pairs"] == int(
        ds["n_pairs"].sel(attribute="color", label=ALL, annotator=ALL)
    )


def test_no_section_without_declared_attributes(frame, tmp_path):
    plain = frame.copy()
    plain.attrs = {}
    page = iaf.report(plain, tmp_path, n_chance=100, n_boot=0).read_text()
    assert 'id="attributes"' not in page
    assert not (tmp_path / "attributes.csv").exists()


def test_agreement_is_a_percentage_and_every_missing_number_says_why():
    # one attribute without variation (α undefined), no bootstrap (no interval anywhere)
    df = iaf.simulate(
        n_items=10,
        seed=1,
        annotators={"a": "good", "b": "good", "c": "good"},
        attributes={"occluded": [False, True], "color": ["red", "blue"]},
    )
    df["color"] = "red"
    ds = iaf.attribute_agreement(df, n_chance=100, n_boot=0)
    table, reasons = attribute_table(ds)
    assert table.loc["color", "α [95% CI]"] == "n/a"
    assert "no variation" in reasons.loc["color", "α [95% CI]"]
    assert table.loc["color", "agreement [95% CI]"] == "100 %"  # a share, shown as one
    assert "n_boot=0" in reasons.loc["color", "agreement [95% CI]"]
    assert "n_boot=0" in reasons.loc["occluded", "α [95% CI]"]


def test_per_annotator_rows_are_annotators_capped_with_a_note(tmp_path):
    from iaa_frames.report.attributes import MAX_ANNOTATORS, attribute_section

    crowd = iaf.simulate_crowd(n_items=60, n_workers=MAX_ANNOTATORS + 20, per_item=(3, 5),
                               seed=0, attributes={"occluded": [False, True]})  # fmt: skip
    df = crowd.annotations
    t = iaf.pair_tables(df, n_chance=100)
    body, _ = attribute_section(df, t, n_boot=0, seed=0)
    per = body[body.index("α per annotator") :]
    header = per[per.index("<thead>") : per.index("</thead>")]
    assert header.count("</th>") == 2  # annotator, occluded: annotators are rows, not columns
    assert per.count("<tr>") == MAX_ANNOTATORS + 1
    assert "more annotators not shown" in per
    assert per.count("n/a") == per.count("n/a<sup>")  # every n/a with its reason
