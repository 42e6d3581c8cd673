"""Tests for iaa_frames.explore.confusion and its figure: counts against the pair tables, the
orientations, row shares, and the classification α against the engine and the
independent ``krippendorff`` package."""

from __future__ import annotations

import krippendorff
import matplotlib
import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.confusion import confusion, label_alpha
from iaa_frames.plot.confusion import confusion as plot_confusion

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def tables():
    return iaf.pair_tables(iaf.load_sample("coco"), n_chance=100)


def test_symmetric_counts_every_pair_twice(tables):
    m = confusion(tables)
    w = tables.localization_within
    assert m.to_numpy().sum() == 2 * len(w) == 2 * m.attrs["n_pairs"]
    np.testing.assert_array_equal(m.to_numpy(), m.to_numpy().T)
    labels = tables.corpus.labels
    la, lb = labels[tables.corpus.label[w["object_a"]]], labels[tables.corpus.label[w["object_b"]]]
    assert np.trace(m.to_numpy()) == 2 * int((la == lb).sum())
    assert list(m.index) == sorted(m.index) == list(m.columns)


def test_reference_orientation(tables):
    m = confusion(tables, reference="ana", annotator="dev")
    assert (m.index.name, m.columns.name) == ("ana", "dev")
    c = iaf.conflicts(tables, reference="ana", low_overlap=None)
    flips = c[(c["kind"] == "label") & (c["annotator_b"] == "dev")]
    off = m.to_numpy().sum() - np.trace(m.to_numpy())
    assert off == len(flips)
    for (a, b), n in flips.groupby(["label_a", "label_b"]).size().items():
        assert m.loc[a, b] == n
    # the reference's own rows over all annotators sum to its matched objects
    acc = iaf.accuracy(tables, reference="ana")
    allm = confusion(tables, reference="ana")
    assert allm.to_numpy().sum() == int(acc["n_matched"].sel(label="(all)", annotator="(all)"))


def test_annotator_rows_and_normalize(tables):
    m = confusion(tables, annotator="chloe")
    w = tables.localization_within
    code = list(tables.corpus.annotators).index("chloe")
    n = int(((w["annotator_a"] == code) | (w["annotator_b"] == code)).sum())
    assert m.to_numpy().sum() == n
    s = confusion(tables, annotator="chloe", normalize=True)
    np.testing.assert_allclose(s.sum(axis=1), 1.0)
    np.testing.assert_allclose(s.to_numpy(), m.to_numpy() / m.to_numpy().sum(axis=1, keepdims=True))


def test_label_alpha_equals_engine_and_krippendorff(tables):
    a = label_alpha(tables)
    res = iaf.agreement_from_tables(tables)
    engine = res["label_alpha"].sel(component="classification", annotator="(all)").to_series()
    pd.testing.assert_series_equal(a, engine.reindex(a.index), check_names=False, rtol=1e-12)
    # independent: krippendorff's reliability matrix, annotators x clusters
    u = tables.units
    mat = np.full((len(tables.corpus.annotators), u["cluster"].max() + 1), np.nan)
    mat[u["annotator"].to_numpy(), u["cluster"].to_numpy()] = u["label"].to_numpy()
    ref = krippendorff.alpha(reliability_data=mat, level_of_measurement="nominal")
    assert a["(all)"] == pytest.approx(ref, rel=1e-10)
    for code, name in enumerate(tables.corpus.labels):
        binary = np.where(np.isnan(mat), np.nan, (mat == code).astype(float))
        ref = krippendorff.alpha(reliability_data=binary, level_of_measurement="nominal")
        assert a[name] == pytest.approx(ref, rel=1e-10)


def test_attrs_and_errors(tables):
    m = confusion(tables, reference="ana")
    assert m.attrs["alpha"] == pytest.approx(label_alpha(tables)["(all)"])
    assert set(m.attrs["alpha_by_label"]) == set(m.index)
    with pytest.raises(ParameterError, match="differ"):
        confusion(tables, reference="ana", annotator="ana")
    with pytest.raises(ParameterError, match="annotator must be one of"):
        confusion(tables, annotator="zed")
    with pytest.raises(ParameterError, match="normalize"):
        confusion(tables, normalize="rows")


def test_single_class_and_no_pairs():
    df = iaf.simulate(n_items=5, classes=["car"], annotators={"a": "good", "b": "good"}, seed=0)
    m = confusion(df, n_chance=10)
    assert m.shape == (1, 1)
    assert np.isnan(label_alpha(df, n_chance=10)["(all)"])  # no variation: undefined
    solo = iaf.simulate(n_items=3, annotators={"a": "good"}, seed=0)
    with pytest.raises(iaf.NotComparableError, match="two annotators"):
        confusion(solo, n_chance=5)


def test_plot_cells_alpha_and_top(tables):
    ax = plot_confusion(tables, reference="ana")
    counts = [t for t in ax.texts if t.get_gid() == "count"]
    assert len(counts) == 9
    m = confusion(tables, reference="ana")
    assert sorted(int(t.get_text().replace(",", "")) for t in counts) == sorted(
        m.to_numpy().ravel().tolist()
    )
    alphas = [t.get_text() for t in ax.texts if t.get_gid() == "alpha"]
    want = label_alpha(tables)
    assert alphas == [f"{want[c]:.2f}" for c in m.index]
    matplotlib.pyplot.close("all")
    many = iaf.simulate(
        n_items=60,
        classes=[f"c{i:02d}" for i in range(20)],
        annotators={"a": "good", "b": "mislabeler"},
        seed=0,
    )
    ax = plot_confusion(many, top=5, n_chance=20)
    assert len(ax.get_yticklabels()) == 5
    assert any(t.get_gid() == "note" and "15 more classes" in t.get_text() for t in ax.texts)
    with pytest.raises(ParameterError, match="counts"):
        plot_confusion(confusion(tables, normalize=True))
    matplotlib.pyplot.close("all")
