"""The report's "Consensus" and "How many more" sections."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from thin_corpora import three_annotators_on_few_items

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
    from iaa_frames.core.engine import agreement_from_tables

    res = agreement_from_tables(t, n_boot=50)
    text = how_many_section(t, res)
    cell = res.sel(component="localization", label="(all)", annotator="(all)")
    hw = 0.5 * float(cell["ci_high"] - cell["ci_low"])
    need = int(-(-20 * (hw / 0.02) ** 2 // 1))
    row = re.search(r"<th>localization</th>(.*?)</tr>", text).group(1)
    assert f">{need}<" in row or f">{need:,}<" in row


def _two_raters_who_swap_labels():
    """Two annotators who draw the same boxes; b calls every other car a bus."""
    import pandas as pd

    rows = []
    for i in range(6):
        for a in ("a", "b"):
            label = "bus" if (a == "b" and i % 2) else "car"
            d = 3.0 * i  # items of their own, not copies of one another
            rows.append((f"img{i}", a, label, 10.0 + d, 10.0, 50.0 + d, 40.0 + d, 100, 100))
            rows.append((f"img{i}", a, "car", 70.0 - d, 60.0, 95.0, 90.0 - d, 100, 100))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    return pd.DataFrame(rows, columns=cols)


def test_a_tied_vote_says_so_and_shows_both_labels():
    # two raters of equal weight who disagree on a label: margin 0, the winner is one of
    # the two; the table must not present it as the consensus without a word
    df = _two_raters_who_swap_labels()
    text = consensus_section(df, iaf.pair_tables(df, n_chance=50))
    split = text[text.index("Label splits") : text.index("Below the quorum")]
    assert "<th>labels drawn</th>" in split
    assert "bus, car" in split or "car, bus" in split
    assert 'title="a tie: the labels drawn carry the same weight' in split


def test_how_many_names_the_model_half_width_beside_the_bootstrap_one():
    # next_items' model has its own half-width; the section must not print it as if it
    # were the bootstrap half-width of the table above
    from iaa_frames.core.engine import agreement_from_tables
    from iaa_frames.decisions.next_items import interval_gains

    df = iaf.simulate(n_items=20, seed=0)
    t = iaf.pair_tables(df, n_chance=200)
    res = agreement_from_tables(t, n_boot=50)
    text = how_many_section(t, res)
    cell = res.sel(component="localization", label="(all)", annotator="(all)")
    boot = 0.5 * float(cell["ci_high"] - cell["ci_low"])
    model = interval_gains(t, "localization")[1]["halfwidth"]
    assert f"half-width now is {model:.3f}, against {boot:.3f} from the bootstrap" in text
    assert re.search(r"<td class=num>[0-9.]+ %</td>", text)  # gains as percentages, not 3 decimals


def test_how_many_without_bootstrap_says_why_each_cell_is_missing():
    from iaa_frames.core.engine import agreement_from_tables

    df = iaf.simulate(n_items=10, seed=0)
    t = iaf.pair_tables(df, n_chance=100)
    text = how_many_section(t, agreement_from_tables(t, n_boot=0))
    table = text[: text.index("The items whose next")]
    assert "&lt;NA&gt;" not in table  # a nullable integer's NA is written n/a
    assert table.count("n/a<sup>") == table.count("n/a") == 12  # 4 components x 3 columns
    assert "n_boot=0 (no bootstrap)" in table


def test_objects_accepted_on_one_annotator_alone_are_counted_as_such():
    # two raters, b misses one object of three on every item: the objects only a drew are
    # likely real (p_real 0.92) and accepted; the section must not let them pass for
    # agreement (LVIS: 711 of 2,116)
    rows = []
    for i in range(12):
        for k in range(3):
            box = (10.0 + 25 * k, 10.0 + 2 * i, 30.0 + 25 * k, 40.0 + 2 * i)
            for a in ("a", "b"):
                if not (a == "b" and k == i % 3):
                    rows.append((f"img{i}", a, "car", *box, 100, 100))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "width", "height"]
    df = pd.DataFrame(rows, columns=cols)
    c = iaf.consensus(df)
    alone = int((c.objects.dropna(subset=["label"])["support"] == 1).sum())
    assert alone == 12
    text = consensus_section(df, iaf.pair_tables(df, n_chance=50))
    assert f"{alone:,} accepted object" in text and "a consensus of one" in text


def test_a_target_already_met_is_footnoted():
    # detection ±0.05 on the sample needs 29 items of the 40 it has: say it is reached
    from iaa_frames.core.engine import agreement_from_tables

    df = iaf.load_sample("coco")
    t = iaf.pair_tables(df)
    res = agreement_from_tables(t, n_boot=100)
    text = how_many_section(t, res)
    cell = res.sel(label="(all)", annotator="(all)")
    hw = 0.5 * (cell["ci_high"] - cell["ci_low"]).to_series()
    row = re.search(r"<th>detection</th>(.*?)</tr>", text).group(1)
    assert (hw["detection"] <= 0.05) == ("reached" in row)
    assert hw["detection"] <= 0.05  # the case this test is about


def test_a_presence_model_the_corpus_cannot_fit_is_said_not_hidden():
    """Three items of three annotators: the fitted p_real threshold was about 1e-13 (and
    was written "at least 0.00", with clusters listed below it). The clusters' counts do
    not identify the model: the consensus falls back to a majority of the weight, and the
    section says so instead of quoting a threshold."""
    df = three_annotators_on_few_items(1, 3, item="img")
    c = iaf.consensus(df)
    assert np.isnan(c.params["p_threshold"]) and c.params["quorum"] == 0.5
    text = consensus_section(df, iaf.pair_tables(df, n_chance=50))
    assert "the threshold that maximises" not in text
    assert "at least 0.5 of the weight" in text and "fell back" in text


def test_the_section_names_the_box_fusion_the_consensus_used():
    """The default fusion removes each annotator's estimated edge bias before a
    Huber-weighted mean; the section said "the weighted mean" whatever the fusion."""
    df = iaf.load_sample("coco")
    text = consensus_section(df, iaf.pair_tables(df, n_chance=50))
    assert "estimated bias of every edge removed" in text
    assert "Boxes are the weighted mean" not in text


def test_how_many_on_few_items_says_no_interval_once():
    """A cell on fewer than 4 items: "no interval: rests on 3 items (fewer than 4)", not
    "no interval: interval not reported: rests on ..."."""
    df = iaf.simulate(n_items=3, seed=0)
    t = iaf.pair_tables(df, n_chance=300)
    text = how_many_section(t, iaf.agreement_from_tables(t, n_boot=30, progress=False))
    assert "no interval: rests on 3 items (fewer than 4)" in text
    assert "no interval: interval not reported" not in text
