"""The report's "Consensus" and "How many more" sections."""

from __future__ import annotations

import re

import iaa_frames as iaf
from iaa_frames.report.decisions import consensus_section, how_many_section


def test_the_page_has_both_sections(tmp_path):
    df = iaf.simulate(
        n_items=12, seed=0, annotators={"a": "good", "b": "mislabeler", "c": "misser"}
    )
    page = iaf.report(df, tmp_path, n_boot=50, n_chance=200).read_text(encoding="utf-8")
    for sid, title in (("consensus", "Consensus"), ("how-many", "How many more")):
        assert f'<section id="{sid}"><h2>{title}</h2>' in page
        assert f'href="#{sid}"' in page


def test_consensus_section_counts_what_the_consensus_returns():
    df = iaf.simulate(
        n_items=10, seed=1, annotators={"a": "good", "b": "mislabeler", "c": "random"}
    )
    t = iaf.pair_tables(df, n_chance=50)
    c = iaf.consensus(df)
    text = consensus_section(df, t)
    n = int(c.objects["label"].notna().sum())
    assert f"{n:,} object" in text
    assert f"{len(c.unsupported):,} cluster" in text


def test_how_many_scales_the_current_halfwidth_by_the_square_rate():
    df = iaf.simulate(n_items=20, seed=0)
    t = iaf.pair_tables(df)
    from iaa_frames.engine import agreement_from_tables

    res = agreement_from_tables(t, n_boot=50)
    text = how_many_section(t, res)
    cell = res.sel(component="localization", label="(all)", annotator="(all)")
    hw = 0.5 * float(cell["ci_high"] - cell["ci_low"])
    need = int(-(-20 * (hw / 0.02) ** 2 // 1))
    row = re.search(r"<th>localization</th>(.*?)</tr>", text).group(1)
    assert f">{need}<" in row or f">{need:,}<" in row
