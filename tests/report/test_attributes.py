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
