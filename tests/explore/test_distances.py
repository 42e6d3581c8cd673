"""Tests for iaa_frames.explore.distances: the distances behind each cell are the engine's
(σ and KS recomputed from them equal the result's), faceted by class and annotator, and
the ECDF gap is where the KS statistic says."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from iaa_frames.core.engine import agreement_from_tables
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.distances import distance_samples, sample_summary, tables_of
from iaa_frames.frame.schema import ALL
from iaa_frames.simulate import simulate


@pytest.fixture(scope="module")
def corpus():
    profiles = {
        "ana": {"jitter": 0.02},
        "ben": {"jitter": 0.12},
        "cy": {"jitter": 0.02, "miss": 0.35},
    }
    df = simulate(n_items=20, annotators=profiles, seed=4)
    tables = pair_tables(df, n_chance=300, seed=0)
    return df, tables, agreement_from_tables(tables, n_boot=0)


def test_long_form_counts_every_pairing_once_per_annotator(corpus):
    _, tables, _ = corpus
    s = distance_samples(tables, component="detection", by="annotator")
    assert list(s.columns) == ["facet", "sample", "distance", "weight"]
    sw = tables.sets_within
    # every pairing counts for each of its two annotators, and once for "(all)"
    n_all = int((sw["label"] == -1).sum())
    counts = s[s["sample"] == "within"].groupby("facet").size()
    assert counts[ALL] == n_all
    assert counts.drop(ALL).sum() == 2 * n_all
    assert s.attrs["long_name"] == "1 − F1 of the matching"


@pytest.mark.parametrize(
    "component, by", [("localization", "label"), ("detection", "annotator"), ("overall", None)]
)
def test_summary_is_the_engines_cell(corpus, component, by):
    """σ, KS and the unit counts recomputed from the samples equal the result's cells."""
    _, tables, res = corpus
    summary = sample_summary(distance_samples(tables, component=component, by=by))
    assert summary.index[0] == ALL
    for facet, row in summary.iterrows():
        where = {"label": ALL, "annotator": ALL}
        if by is not None:
            where[by] = facet
        cell = res.sel(component=component, **where)
        if not np.isfinite(float(cell["agreement"])):
            continue
        assert row["sigma"] == pytest.approx(float(cell["agreement"]), abs=1e-12)
        assert row["ks"] == pytest.approx(float(cell["ks"]), abs=1e-12)
        assert row["n_within"] == int(cell["n_units"])


def test_gap_is_where_the_ecdfs_are_furthest_apart():
    rng = np.random.default_rng(1)
    within, between = rng.uniform(0, 0.6, 50), rng.uniform(0.2, 1.0, 80)
    s = pd.DataFrame(
        {
            "facet": ALL,
            "sample": ["within"] * 50 + ["between"] * 80,
            "distance": np.r_[within, between],
        }
    )
    row = sample_summary(s).loc[ALL]
    # an independent oracle: scipy's two-sample KS statistic and where it is attained
    ref = ks_2samp(within, between)
    assert row["ks"] == pytest.approx(ref.statistic)
    assert row["gap_within"] - row["gap_between"] == pytest.approx(ref.statistic)
    assert row["gap_at"] == pytest.approx(ref.statistic_location)
    assert (row["n_within"], row["n_between"]) == (50, 80)


def test_tables_of_and_errors(corpus):
    df, tables, _ = corpus
    assert tables_of(tables) is tables
    # a frame's tables come from its cache (built once per content and parameters)
    assert tables_of(df, n_chance=300, seed=0) is df.iaa.tables(n_chance=300, seed=0)
    with pytest.raises(ParameterError, match="PairTables"):
        tables_of([1, 2])
    with pytest.raises(ParameterError, match="component"):
        distance_samples(tables, component="classification")
    with pytest.raises(ParameterError, match="by"):
        distance_samples(tables, by="item")
