"""Classification against matched chance pairs (iaa_frames.core.engine.labels), on corpora
drawn like real data (tests/support/realistic.py: classes in their own regions and
sizes, few small objects), not with iaf.simulate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from realistic import BANDS, corpus

import iaa_frames as iaf
from iaa_frames.core.engine.labels import FEW_DISAGREEMENTS_NOTE

ALL = iaf.ALL
#: Classes whose regions and sizes overlap enough that unrelated objects of two classes
#: meet (two sizes, one band shared by three classes).
MIXED = {
    "car": ((0.4, 0.9), 0.16, 0.14, 1.0),
    "van": ((0.4, 0.9), 0.20, 0.17, 1.0),
    "truck": ((0.4, 0.9), 0.26, 0.22, 0.7),
    "sky": ((0.0, 0.3), 0.40, 0.20, 0.6),
}


def _agreement(df, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # copies of items: blind annotators look alike
        return iaf.agreement(df, progress=False, **kwargs)


def test_identical_annotators_agree_fully_in_every_defined_cell():
    df = corpus(60, {"a": "same", "b": "same", "c": "same"}, seed=1, classes=MIXED)
    res = _agreement(df, n_boot=50).sel(component="classification")
    value = res["agreement"].values
    assert np.isfinite(res["agreement"].sel(label=ALL)).all()  # every annotator
    assert np.nanmin(value) == 1.0
    assert (res["observed"].values[np.isfinite(value)] == 0).all()


def test_image_blind_annotators_are_not_read_as_agreeing_under_class_priors():
    # the audit's corpus: classes in horizontal bands with their own sizes. Krippendorff's
    # alpha (label_alpha) reads blind annotators as agreeing; the headline is NaN where
    # chance pairs never disagree, and otherwise its interval holds 0
    big = {k: (v[0], 3 * v[1], 3 * v[2], v[3]) for k, v in BANDS.items()}
    df = corpus(
        150, {"a": "blind", "b": "blind", "c": "blind"}, seed=3, classes=big, objects=(2, 4)
    )
    res = _agreement(df, n_boot=100).sel(component="classification")
    assert float(res["label_alpha"].sel(label=ALL, annotator=ALL)) > 0.8
    value, low, high = (res[v].values for v in ("agreement", "ci_low", "ci_high"))
    note = res["note"].values.astype(str)
    defined = np.isfinite(value)
    assert (low[defined] <= 0).all() or np.isnan(low[defined]).all()
    few = np.char.startswith(note, FEW_DISAGREEMENTS_NOTE)
    assert few[0, 0], note[0, 0]  # "(all)": labels follow the bands
    assert (defined | (note != "")).all()


@pytest.mark.parametrize(
    "classes", [MIXED, {"small": ((0.1, 0.9), 0.2, 0.2, 1.0), "big": ((0.1, 0.9), 0.3, 0.3, 1.0)}]
)
def test_image_blind_annotators_score_zero_on_average(classes):
    # classes that unrelated objects of each other do meet: the expected disagreement is
    # well defined and blind annotators' within pairs are matched like chance pairs
    got, label_alpha = [], []
    for seed in range(8):
        df = corpus(150, {"a": "blind", "b": "blind", "c": "blind"}, seed=10 + seed,
                    classes=classes, objects=(2, 4))  # fmt: skip
        res = _agreement(df, n_boot=0).sel(component="classification", label=ALL)
        got.append(res["agreement"].values)
        label_alpha.append(float(res["label_alpha"].sel(annotator=ALL)))
    got = np.array(got)
    assert np.isfinite(got[:, 0]).all()
    # the mean over seeds of every annotator cell: 0 within its standard error (x3)
    mean = np.nanmean(got, axis=0)
    se = np.nanstd(got, axis=0) / np.sqrt(len(got))
    assert (np.abs(mean) < 3 * se + 0.05).all(), (mean, se)


def test_jitter_ladder_keeps_labels_and_a_mislabeler_lowers_classification():
    # labels copied from the truth whatever the jitter: classification stays at 1;
    # an annotator relabelling half of its objects at random drops, alone
    df = corpus(80, {"a": "same", "b": "jitter:0.05", "c": "jitter:0.1"}, seed=4, classes=MIXED)
    rng = np.random.default_rng(0)
    mislabel = (df["annotator"] == "c").to_numpy() & (rng.random(len(df)) < 0.5)
    df.loc[mislabel, "label"] = rng.choice(list(MIXED), size=int(mislabel.sum()))
    res = _agreement(df, n_boot=100).sel(component="classification", label=ALL)
    a, b, c = (float(res["agreement"].sel(annotator=x)) for x in "abc")
    assert c < min(a, b) - 0.1
    pw = iaf.pairwise(df, component="classification", progress=False)
    assert float(pw.sel(annotator_a="a", annotator_b="b")) == 1.0
    assert float(pw.sel(annotator_a="a", annotator_b="c")) < 0.9


@st.composite
def class_priors(draw):
    """2-4 classes, each with a band of its own (or the whole height), a size and a prior
    weight: the structures under which marginal-based alpha reads blind annotators as
    agreeing."""
    n = draw(st.integers(2, 4))
    out = {}
    for k in range(n):
        top = draw(st.sampled_from((0.0, 0.1, 0.3, 0.5)))
        height = draw(st.sampled_from((0.3, 0.5, 0.9 - top)))
        size = draw(st.sampled_from((0.1, 0.2, 0.35)))
        aspect = draw(st.sampled_from((0.6, 1.0, 1.6)))
        out[f"c{k}"] = (
            (top, min(top + height, 1.0)),
            size,
            size / aspect,
            draw(st.sampled_from((0.5, 1.0))),
        )
    return out


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(classes=class_priors(), seed=st.integers(0, 1000))
def test_image_blind_annotators_are_at_chance_under_any_class_prior(classes, seed):
    df = corpus(150, {"a": "blind", "b": "blind", "c": "blind"}, seed=seed, classes=classes,
                objects=(2, 4))  # fmt: skip
    res = _agreement(df, n_boot=100).sel(label=ALL, annotator=ALL)
    for component in ("detection", "classification", "localization", "overall"):
        cell = res.sel(component=component)
        value = float(cell["agreement"])
        if not np.isfinite(value):
            assert str(cell["note"].item()) != ""  # NaN says why
            continue
        low, high = float(cell["ci_low"]), float(cell["ci_high"])
        # at chance: the interval holds 0, or the figure is near it
        assert (low <= 0 <= high) or abs(value) < 0.1, (component, value, low, high)


@pytest.mark.parametrize("seed", [0, 1])
def test_replicate_statistics_read_only_the_columns_they_need(seed):
    """A block of replicates multiplies the columns the statistics read (the groups'
    counts, pooled class cells' counts, every disagreement), with the same values bit
    for bit as the whole within sums, with and without pooled class cells."""
    from iaa_frames.core.engine import CellLayout
    from iaa_frames.core.engine.assemble import component_cells
    from iaa_frames.stats.bootstrap import multiplicity_blocks

    n_classes = 12
    df = iaf.simulate(
        n_items=40,
        classes=[f"c{c}" for c in range(n_classes)],
        class_weights=1.0 / np.arange(1, n_classes + 1) ** 1.5,
        seed=seed,
    )
    tables = iaf.pair_tables(df, n_chance=300, seed=seed)
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    cells = component_cells(tables, layout, "classification")
    k = np.asfortranarray(next(multiplicity_blocks(40, 9, seed=seed)), dtype=np.float64)
    for pooled in (cells.pooled, np.zeros_like(cells.pooled), np.ones_like(cells.pooled)):
        part = type(cells)(**{**cells.__dict__, "pooled": pooled})
        got = part.statistics(k)
        whole = type(cells)(**{**cells.__dict__, "pooled": pooled})
        whole.__dict__["_read_columns"] = np.arange(2 * part.n_cells)  # every column
        want = whole.statistics(k)
        assert len(part._read_columns) < 2 * part.n_cells or pooled.all()
        for a, b in zip(got, want):
            assert a.tobytes() == b.tobytes()


def test_classification_interval_is_corrected_for_the_pair_level_noise_of_chance(monkeypatch):
    # classification's expected disagreement is a mean over matched chance pairs: the
    # item bootstrap counts their pair-level noise three times (stats.intervals
    # .pair_level_shrink), and the interval is narrowed for it as the sigma components'
    # are; without the correction the width is the raw one
    from iaa_frames.core.engine import assemble
    from iaa_frames.stats import intervals

    df = iaf.simulate(
        n_items=60, seed=1, annotators={"a": "good", "b": "mislabeler", "c": "sloppy"}
    )
    t = iaf.pair_tables(df, seed=0, progress=False)
    got = iaf.agreement_from_tables(t, n_boot=200, seed=0)

    def without_pairs(jackknife, pair_variance, **kw):
        return intervals.interval_scale(jackknife, np.zeros_like(pair_variance), **kw)

    monkeypatch.setattr(assemble, "interval_scale", without_pairs)
    raw = iaf.agreement_from_tables(t, n_boot=200, seed=0)
    width = (got.ci_high - got.ci_low).sel(label="(all)", annotator="(all)")
    raw_width = (raw.ci_high - raw.ci_low).sel(label="(all)", annotator="(all)")
    ratio = (width / raw_width).to_series()
    assert ratio["classification"] < 0.95
    assert (ratio <= 1 + 1e-12).all() and (ratio >= np.sqrt(1 / 3) - 1e-12).all()
    np.testing.assert_array_equal(got.agreement.values, raw.agreement.values)
