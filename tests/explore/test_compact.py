"""The compact table (``res.iaa.table``): cells equal the result, counts are integers, rows
sorted by support then natural order, every "n/a" carries its reason."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.compact import AgreementTable, agreement_table, natural_key

CELL = re.compile(r"^-?\d\.\d\d( \[-?\d\.\d\d, -?\d\.\d\d\])?$")


@pytest.fixture(scope="module")
def res():
    return iaf.load_sample("coco").iaa.agreement(n_boot=50)


def test_natural_key_orders_numbers_as_numbers_and_ignores_case():
    names = ["10", "100", "2", "0", "1"]
    assert sorted(names, key=natural_key) == ["0", "1", "2", "10", "100"]
    classes = ["car", "Christmas_tree", "air_conditioner", "Bus"]
    assert sorted(classes, key=natural_key) == ["air_conditioner", "Bus", "car", "Christmas_tree"]
    assert sorted(["w10", "w9", "w100"], key=natural_key) == ["w9", "w10", "w100"]


@pytest.mark.parametrize("by", ["label", "annotator"])
def test_cells_are_the_result_rounded(res, by):
    t = res.iaa.table(by=by)
    assert isinstance(t, AgreementTable)
    other = "annotator" if by == "label" else "label"
    for name in t.frame.index:
        for comp in res["component"].values:
            cell = res.sel(component=comp, **{by: name, other: "(all)"})
            v, lo, hi = (float(cell[k]) for k in ("agreement", "ci_low", "ci_high"))
            text = t.frame.loc[name, str(comp)]
            if np.isfinite(v):
                assert CELL.match(text), text
                assert text.startswith(f"{v:.2f}")
                if np.isfinite(lo):
                    assert text == f"{v:.2f} [{lo:.2f}, {hi:.2f}]"
            else:
                assert text == "n/a"
                assert str(cell["note"].values) in t.frame.loc[name, "notes"]


def test_counts_are_integers_and_rows_sorted_by_support(res):
    t = res.iaa.table(by="label")
    assert t.frame["matched pairs"].dtype == np.int64
    assert t.frame["pairings"].dtype == np.int64
    assert t.frame.index[0] == "(all)"
    pairs = t.frame["matched pairs"].to_numpy()[1:]
    assert (np.diff(pairs) <= 0).all()
    expected = res["n_units"].sel(component="localization", annotator="(all)")
    for name, n in t.frame["matched pairs"].items():
        assert n == int(expected.sel(label=name))


def test_ties_and_name_sort_are_natural():
    df = iaf.simulate(n_items=30, seed=1, annotators={str(k): "good" for k in (0, 1, 2, 10, 100)})
    res = df.iaa.agreement(n_boot=0, n_chance=200)
    by_name = res.iaa.table(by="annotator", sort="name")
    assert by_name.frame.index.tolist() == ["(all)", "0", "1", "2", "10", "100"]
    by_support = res.iaa.table(by="annotator").frame
    support = by_support["matched pairs"].to_numpy()[1:]
    names = by_support.index[1:].tolist()
    keys = [(-s, natural_key(n)) for s, n in zip(support, names)]
    assert keys == sorted(keys)


def test_every_na_has_its_reason_in_text_and_on_hover():
    # two annotators of the sample: classification has too few matched chance pairs
    coco = iaf.sample_path("coco")
    res = iaf.read_coco([coco / "ana.json", coco / "ben.json"]).iaa.agreement(n_boot=20)
    t = res.iaa.table(by="annotator")
    missing = [
        (i, c)
        for i in t.frame.index
        for c in res["component"].values
        if t.frame.loc[i, str(c)] == "n/a"
    ]
    assert missing, "two annotators of the sample: classification undefined"
    page = t._repr_html_()
    for i, c in missing:
        reason = str(res["note"].sel(component=c, label="(all)", annotator=i).values)
        assert reason and f"{c}: {reason}" in t.frame.loc[i, "notes"]
        assert f'title="{reason}"' in page.replace("&#x27;", "'")
    assert page.count("n/a<sup>*</sup>") == len(missing)
    assert "too few chance units" in repr(t)


def test_pairs_equal_the_pairwise_matrices(res):
    t = res.iaa.table(by="pair")
    assert len(t) == 6  # 4 annotators
    det = res.iaa.pairwise(component="detection")
    for (a, b), text in t.frame["detection"].items():
        assert natural_key(a) < natural_key(b)
        cell = det.sel(annotator_a=a, annotator_b=b)
        low, high = float(cell["ci_low"]), float(cell["ci_high"])
        assert text == f"{float(cell):.2f} [{low:.2f}, {high:.2f}]"
    assert "95% CI" in t.title
    # every pair's localization is defined: its thin chance units borrowed
    loc = res.iaa.pairwise()
    assert (t.frame["localization"] != "n/a").all()
    assert set(loc["chance_source"].values[~np.eye(4, dtype=bool)]) == {"borrowed"}


def test_pairs_of_chosen_annotators(res):
    """by="pair" takes annotators= as pairwise() does (needed beyond 1,000 annotators):
    the pairs of those annotators, each equal to its row of the full table."""
    names = [str(a) for a in res["annotator"].values if str(a) != "(all)"][:3]
    some = res.iaa.table(by="pair", annotators=names)
    assert len(some) == 3 and set(some.frame.index) <= set(res.iaa.table(by="pair").frame.index)
    full = res.iaa.table(by="pair").frame
    assert some.frame.equals(full.loc[some.frame.index])
    # from the full matrices, agreement_table keeps the same pairs
    mats = {c: res.iaa.pairwise(component=c) for c in res["component"].values}
    assert agreement_table(mats, by="pair", annotators=names).frame.equals(some.frame)
    with pytest.raises(ParameterError, match="annotators= chooses the pairs of by='pair'"):
        res.iaa.table(by="label", annotators=names)


def test_top_and_component_rows(res):
    t = res.iaa.table(by="label", top=1)
    assert t.frame.index.tolist() == ["(all)", "bicycle"] and t.n_hidden == 2
    assert "+ 2 more rows" in repr(t)
    head = res.iaa.table(by="component")
    assert head.frame.index.tolist() == ["detection", "classification", "localization", "overall"]
    assert head.frame["measure"].tolist() == ["σ", "α", "σ", "σ"]
    assert head.frame["n units"].dtype == np.int64


def test_bad_arguments(res):
    with pytest.raises(ParameterError, match="by must be one of"):
        res.iaa.table(by="class")
    with pytest.raises(ParameterError, match="sort must be one of"):
        res.iaa.table(sort="size")
    with pytest.raises(ParameterError, match="pairwise matrices"):
        agreement_table(res, by="pair")
    with pytest.raises(ParameterError, match="digits"):
        agreement_table(res, digits=-1)
    assert isinstance(agreement_table(res).to_frame(), pd.DataFrame)


def _alignments(page):
    """(header alignments, alignments of each body row) of a ``_repr_html_`` table."""

    def cells(html):
        return re.findall(r'<t[hd] style="text-align:(left|right)[^"]*"[^>]*>', html)

    head = page[page.index("<thead>") : page.index("</thead>")]
    rows = re.findall(r"<tr>(.*?)</tr>", page[page.index("<tbody>") :])
    return cells(head), [cells(r) for r in rows]


@pytest.mark.parametrize("by", ["label", "annotator", "component"])
def test_names_left_numbers_right(res, by):
    # the row names were centred (a header cell), the headers centred over right-aligned
    # numbers, and the "0.86 [0.81, 0.89]" cells wrapped in two lines beside the notes
    t = res.iaa.table(by=by)
    head, rows = _alignments(t._repr_html_())
    n_index = t.frame.index.nlevels
    numbers = [c for c in t.frame.columns if c not in ("notes", "measure")]
    want = ["left"] * n_index + ["right" if c in numbers else "left" for c in t.frame.columns]
    assert head == want
    assert rows and all(r == want for r in rows)
    assert (
        "text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap" in t._repr_html_()
    )


def test_the_table_is_a_dataframe_that_exports(res, tmp_path):
    """to_csv, to_latex, .loc, [] and pd.DataFrame() work; a slice keeps its title and
    its numbers, and its HTML gives each row the reason of its own row."""
    t = res.iaa.table(by="label")
    assert isinstance(t, pd.DataFrame)
    t.to_csv(tmp_path / "t.csv")
    back = pd.read_csv(tmp_path / "t.csv", index_col=0, keep_default_na=False)
    assert back.index.tolist() == t.index.tolist()
    assert back["localization"].tolist() == t["localization"].tolist()
    assert "\\begin{tabular}" in t.to_latex()
    assert type(t["localization"]) is pd.Series
    assert type(pd.DataFrame(t)) is pd.DataFrame and pd.DataFrame(t).equals(t.frame)
    last = t.loc[[t.index[-1]]]
    assert isinstance(last, AgreementTable) and last.title == t.title
    html = last._repr_html_()
    assert html.count("<tr>") == 2 and str(t.index[-1]) in html
    # the reason of the last row shows on the last row's slice, not on the first row's
    numbers = t.numbers.copy()
    numbers.loc[t.index[-1], ("localization", "note")] = "a reason of the last row"
    last.numbers = numbers
    first = t.loc[[t.index[0]]]
    first.numbers = numbers
    assert 'title="a reason of the last row"' in last._repr_html_()
    assert "a reason of the last row" not in first._repr_html_()
