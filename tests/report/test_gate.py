"""Tests for iaa_frames.report.gate: when the match threshold τ explains low detection
and localization, on hand-built results (tests/support/results.py) whose values are set; the
reading of simulated jitter and random corpora is in tests/report/test_diagnosis.py."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from results import make_result

from iaa_frames.frame.schema import ALL
from iaa_frames.report import reading
from iaa_frames.report.gate import NEAR_GATE, gate_evidence, gate_text


def _with(values):
    """A hand-built result whose pooled D, C, L are given, without intervals."""
    ds = make_result(nan_cells=())
    for c, v in zip(("detection", "classification", "localization"), values):
        ds["agreement"].loc[dict(component=c, label=ALL, annotator=ALL)] = v
    ds["ci_low"][:] = np.nan
    ds["ci_high"][:] = np.nan
    return ds


def _overall(sentences):
    return next(s for s in sentences if s.startswith("Overall reading"))


def _gated(values, raw_iou, tau=0.5, cis=None):
    """A hand-built result at threshold ``tau`` whose pooled D, C, L and raw IoU are set."""
    ds = _with(values).assign_coords(threshold=tau)
    ds["raw_iou"].loc[dict(component="localization", label=ALL, annotator=ALL)] = raw_iou
    for c, (lo, hi) in (cis or {}).items():
        ds["ci_low"].loc[dict(component=c, label=ALL, annotator=ALL)] = lo
        ds["ci_high"].loc[dict(component=c, label=ALL, annotator=ALL)] = hi
    return ds


@pytest.mark.parametrize(
    "raw, gated",
    [
        (0.5 + 0.5 * NEAR_GATE - 0.01, True),  # matched pairs crowd at the gate
        (0.5 + 0.5 * NEAR_GATE + 0.01, False),  # they do not: the old diagnosis
        (0.85, False),
        (float("nan"), False),
    ],
)
def test_gate_rule_on_the_raw_iou_of_matched_pairs(raw, gated):
    ds = _gated((0.3, 0.95, 0.05), raw)
    assert (gate_evidence(ds) is not None) == gated
    text = _overall(reading(ds))
    assert ("because of the match threshold" in text) == gated
    assert ("threshold curve" in text) == gated
    if gated:
        assert f"({raw:.2f}) sits just above the gate τ = 0.5" in text


def test_gate_rule_needs_detection_above_chance_and_a_threshold():
    # detection at chance: random annotators also match only at the gate, nothing to say
    ds = _gated((0.02, 0.95, 0.01), 0.58, cis={"detection": (-0.03, 0.07)})
    assert gate_evidence(ds) is None
    # without a threshold coordinate (a result of unknown τ) or at τ = 0: no gate rule
    assert gate_evidence(_with((0.3, 0.95, 0.05))) is None
    assert gate_evidence(_gated((0.3, 0.95, 0.05), 0.1, tau=0.0)) is None
    # detection high: the diagnosis table applies (loose drawing guidelines)
    assert gate_evidence(_gated((0.9, 0.95, 0.3), 0.55)) is None


def test_gate_rule_with_a_sweep_follows_detection_at_lower_thresholds():
    at_05 = _gated((0.3, 0.95, 0.05), 0.85)  # raw IoU far from the gate
    rises = xr.concat([_gated((0.9, 0.95, 0.3), 0.7, tau=0.3), at_05], dim="threshold")
    ev = gate_evidence(at_05, sweep=rises)
    assert ev["lower_tau"] == 0.3 and ev["lower_detection"] == pytest.approx(0.9)
    text = _overall(reading(rises))  # a result with a threshold dimension is read at 0.5
    assert "detection rises from 0.30 at τ = 0.5 to 0.90 at τ = 0.3" in text
    # flat at lower thresholds: not the gate, even with matched pairs at the gate
    at_05 = _gated((0.3, 0.95, 0.05), 0.55)
    flat = xr.concat([_gated((0.32, 0.95, 0.1), 0.4, tau=0.3), at_05], dim="threshold")
    assert gate_evidence(at_05, sweep=flat) is None
    assert "because of the match threshold" not in " ".join(reading(flat))


def test_gate_rule_with_intervals_needs_them_apart():
    at_05 = _gated((0.3, 0.95, 0.05), 0.85, cis={"detection": (0.25, 0.35)})
    lower = _gated((0.45, 0.95, 0.2), 0.7, tau=0.3, cis={"detection": (0.4, 0.5)})
    assert gate_evidence(at_05, sweep=xr.concat([lower, at_05], dim="threshold")) is not None
    lower = _gated((0.45, 0.95, 0.2), 0.7, tau=0.3, cis={"detection": (0.34, 0.56)})
    assert gate_evidence(at_05, sweep=xr.concat([lower, at_05], dim="threshold")) is None


def test_gate_text_for_a_class_has_no_numbers():
    ev = {"tau": 0.5, "raw_iou": 0.59, "detection": 0.3}
    ev |= {"lower_tau": float("nan"), "lower_detection": float("nan")}
    assert not any(ch.isdigit() for ch in gate_text(ev, short=True))
    assert "0.59" in gate_text(ev) and "τ = 0.5" in gate_text(ev)
