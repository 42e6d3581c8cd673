"""Tests for iaa_frames.report.threshold, the "Match threshold" section: the table holds
the pooled cell of every component at every threshold, the section shows it as
"agreement [CI]" with the figure and how to read it, and the threshold the rest of the
report is at is 0.5 or the nearest one. (The section inside a whole report is tested in
test_report.py.)"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import iaa_frames as iaf  # noqa: E402
from iaa_frames.frame.schema import ALL  # noqa: E402
from iaa_frames.report.threshold import (  # noqa: E402
    READING,
    report_threshold,
    threshold_section,
    threshold_table,
)


@pytest.fixture(scope="module")
def sweep():
    return iaf.agreement(
        iaf.simulate(n_items=10, seed=1), n_chance=80, n_boot=20, match_threshold=[0.3, 0.5, 0.7]
    )


def test_report_threshold_is_half_or_the_nearest():
    assert report_threshold([0.3, 0.5, 0.7]) == 0.5
    assert report_threshold([0.6, 0.8]) == 0.6
    assert report_threshold([0.4, 0.6]) == 0.4  # a tie: the lower one
    assert report_threshold([0.9]) == 0.9


def test_table_is_the_pooled_cell_at_every_threshold(sweep):
    table = threshold_table(sweep)
    assert len(table) == 4 * 3
    for row in table.itertuples(index=False):
        cell = sweep.sel(threshold=row.threshold, component=row.component, label=ALL, annotator=ALL)
        assert row.agreement == pytest.approx(float(cell["agreement"]), nan_ok=True)
        assert row.ci_low == pytest.approx(float(cell["ci_low"]), nan_ok=True)
        assert row.n_units == float(cell["n_units"])


def test_section_shows_every_threshold_as_agreement_with_its_interval(sweep):
    seen = []

    def svg(fig, name):
        seen.append(name)
        matplotlib.pyplot.close(fig)
        return "<svg id=x></svg>"

    body, files = threshold_section(sweep, svg=svg, shown_at=0.5)
    assert seen == ["threshold"] and "<svg id=x></svg>" in body
    assert READING in body and "the rest of this report is at τ = 0.5" in body
    for tau in ("0.3", "0.5", "0.7"):
        assert f"τ = {tau}" in body
    shown = 0
    for tau in (0.3, 0.5, 0.7):
        for comp in ("detection", "classification", "localization", "overall"):
            cell = sweep.sel(threshold=tau, component=comp, label=ALL, annotator=ALL)
            value, lo, hi = (float(cell[v]) for v in ("agreement", "ci_low", "ci_high"))
            if np.isfinite(value) and np.isfinite(lo):
                assert f"<td class=num>{value:.2f} [{lo:.2f}, {hi:.2f}]</td>" in body
                shown += 1
    assert shown >= 8
    assert list(files) == ["thresholds.csv"]
    assert files["thresholds.csv"].equals(threshold_table(sweep))
