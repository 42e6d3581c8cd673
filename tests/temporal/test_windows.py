"""iaa_frames.temporal.windows: a subset's jackknife, the intervals' acceleration and
width (BCa with the width correction of ``iaf.agreement``)."""

import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.core.engine import CellLayout
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.temporal.windows import SubsetCells


@pytest.fixture(scope="module")
def tables():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pair_tables(iaf.simulate(n_items=30, seed=3), n_chance=300)


def _direct(tables, layout, items):
    """Every component's agreement of the subset ``items`` built anew."""
    cells = SubsetCells.build(tables, layout, items)
    return np.stack([cells.parts[c].statistics()[2] for c in COMPONENTS])


def test_the_jackknife_is_the_subset_without_each_item(tables):
    """Brute force: replicate i is the subset's agreement built without item i. Detection,
    classification and overall exactly; localization within 1e-2 (its chance stays
    post-stratified to the whole subset's pairs, as in the bootstrap's replicates)."""
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    items = np.arange(30) < 8
    jack, n_clusters = SubsetCells.build(tables, layout, items).jackknife(items)
    assert jack.shape == (8, len(COMPONENTS), layout.n_cells) and n_clusters == 8
    loc = COMPONENTS.index("localization")
    for i in range(8):
        without = items.copy()
        without[i] = False
        direct = _direct(tables, layout, without)
        assert np.array_equal(np.isfinite(jack[i]), np.isfinite(direct))
        exact = [c for c in range(len(COMPONENTS)) if c != loc]
        np.testing.assert_array_equal(jack[i][exact], direct[exact])
        np.testing.assert_allclose(jack[i][loc], direct[loc], atol=1e-2, equal_nan=True)


def test_a_group_leaves_whole(tables):
    """With groups, a replicate drops a whole group of the subset's items: three groups
    of the 9 items, three replicates, each the subset without its group."""
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    items = np.arange(30) < 9
    clusters = np.arange(30) // 3  # groups 0, 1, 2 in the subset
    jack, n_clusters = SubsetCells.build(tables, layout, items).jackknife(items, clusters)
    assert len(jack) == 3 and n_clusters == 3
    det = COMPONENTS.index("detection")
    for g in range(3):
        without = items & (clusters != g)
        np.testing.assert_array_equal(jack[g][det], _direct(tables, layout, without)[det])


def test_window_intervals_are_bca_with_the_width_correction():
    """The result says its method, and every window interval holds its estimate. (How
    often a blind annotator's window interval misses 0:
    ``tests/temporal/test_audit_blind_windows_kinds.py``.)"""
    df = iaf.simulate_drift(n_items=60, freq="1h", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = iaf.agreement_over_time(df, freq="5h", n_chance=200, n_boot=100, seed=1)
    assert res.attrs["ci_method"] == "bca"
    assert "BCa" in res["ci_low"].attrs["long_name"]
    cell = res.sel(component="detection", label="(all)", annotator="(all)")
    value, low, high = (cell[v].values for v in ("agreement", "ci_low", "ci_high"))
    assert np.isfinite(low).all() and (low <= value).all() and (value <= high).all()
    assert (high <= 1).all() and (high - low > 0)[value < 1].all()


def test_a_window_of_one_group_says_why_it_has_no_interval():
    """Groups are resampled whole: a window whose items are all of one group (a video)
    has no interval, and every defined cell says why (it had NaN bounds with no note for
    localization, and detection's bounds from the chance side alone)."""
    from iaa_frames.temporal.over_time import ONE_GROUP_NOTE

    df = iaf.simulate_drift(n_items=60, freq="1h", seed=0)
    items = sorted(df["item"].unique())
    df["group"] = df["item"].map({it: f"g{i // 10}" for i, it in enumerate(items)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = iaf.agreement_over_time(df, freq="5h", n_chance=200, n_boot=30, seed=1)
    defined = np.isfinite(res["agreement"].values)
    assert defined.any()
    assert np.isnan(res["ci_low"].values[defined]).all()
    notes = res["note"].values[defined]
    assert all(note.startswith("interval not reported: ") for note in notes)
    assert (notes == ONE_GROUP_NOTE).sum() > notes.size / 2  # others: fewer than 4 items
    # windows of two groups and more keep their intervals
    df["group"] = df["item"].map({it: f"g{i % 3}" for i, it in enumerate(items)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = iaf.agreement_over_time(df, freq="5h", n_chance=200, n_boot=30, seed=1)
    cell = res.sel(component="detection", label="(all)", annotator="(all)")
    assert np.isfinite(cell["ci_low"].values).all()
