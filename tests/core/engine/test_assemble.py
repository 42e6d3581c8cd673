"""The schedule of the statistics (iaa_frames.core.engine.assemble): the KS tests run beside
the cells and the bootstrap, and the result does not depend on which thread ran what."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from iaa_frames.core.engine import assemble
from iaa_frames.core.engine.alpha import PresenceCells
from iaa_frames.core.engine.cells import CellLayout
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.simulate import simulate


@pytest.fixture(scope="module")
def tables():
    return pair_tables(simulate(n_items=30, seed=3), n_chance=300, seed=3)


def _cells(tables):
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    parts = {c: assemble.component_cells(tables, layout, c) for c in assemble.COMPONENTS}
    presence = PresenceCells.build(layout, len(tables.corpus.items), tables.units, tables.coverage)
    min_chance = assemble._min_chance(assemble._chance_sources(tables, layout), layout.n_groups)
    return parts, presence, min_chance


def test_pipelined_result_is_that_of_the_cells(tables):
    parts, presence, _ = _cells(tables)
    ds = assemble.agreement_from_tables(tables, n_boot=30, seed=2)
    assert ds.identical(assemble.agreement_from_cells(tables, parts, presence, n_boot=30, seed=2))


def test_stolen_tests_equal_the_pool_s(tables):
    parts, _, min_chance = _cells(tables)
    names = assemble.TEST_ORDER
    with ThreadPoolExecutor(max_workers=1) as pool:  # the pool runs every test
        ran = assemble._Tests(pool, min_chance, 5, None)
        for name in names:
            ran.submit(name, parts[name])
        by_pool = ran.result()
    finished = []
    release = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(release.wait)  # the pool's only thread is busy: every test is stolen
        stolen = assemble._Tests(pool, min_chance, 5, finished.append)
        for name in names:
            stolen.submit(name, parts[name])
        assert not stolen.done()
        stolen.steal()
        assert stolen.done()
        release.set()
        by_caller = stolen.result()
    assert sorted(finished) == sorted(names)
    assert by_pool.keys() == by_caller.keys()
    for name in names:
        np.testing.assert_array_equal(by_pool[name], by_caller[name])
        assert np.isfinite(by_pool[name][0]).any()  # some cells tested


def test_shared_ks_draws_give_the_tests_own_draws(tables, monkeypatch):
    shared = assemble.agreement_from_tables(tables, n_boot=0, seed=4)
    monkeypatch.setattr(assemble, "MAX_SHARED_DRAWS", 0)  # every test draws its own
    own = assemble.agreement_from_tables(tables, n_boot=0, seed=4)
    assert shared.identical(own)
    assert np.isfinite(own["ks_pvalue"].values).any()


def test_the_tests_hold_their_cells_in_no_cycle(tables):
    # the cells are freed when the caller lets go of them, without waiting for the
    # cyclic garbage collector (hundreds of MB on large corpora)
    import gc
    import weakref

    parts, _, min_chance = _cells(tables)
    gc.disable()
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            tests = assemble._Tests(pool, min_chance, 0, None)
            tests.submit("localization", parts["localization"])
            tests.submit("overall", parts["overall"])
            tests.steal()
            values = tests.result()
        cells = weakref.ref(parts["localization"])
        del tests, parts
        assert cells() is None
    finally:
        gc.enable()
    assert set(values) == {"localization", "overall"}


@pytest.mark.parametrize("seed", [0, 1])
def test_replicates_share_the_sets_counts_bitwise(seed):
    """The agreement of a block of replicates with detection's count totals shared by
    overall (and localization's products without its iou columns) is each component's
    own statistics(k), bit for bit; cells whose counts differ are not shared."""
    import dataclasses

    from iaa_frames.core.engine.assemble import COMPONENTS, component_cells
    from iaa_frames.stats.bootstrap import multiplicity_blocks

    tables = pair_tables(simulate(n_items=30, seed=seed), n_chance=200, seed=seed)
    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    parts = {c: component_cells(tables, layout, c) for c in COMPONENTS}
    k = np.asfortranarray(next(multiplicity_blocks(30, 7, seed=seed)), dtype=np.float64)
    want = np.stack([parts[c].statistics(k)[2] for c in COMPONENTS], axis=1)
    shared = assemble._Replicates(parts)
    got = shared.agreement(k)
    assert shared._distance is not None
    assert got.tobytes() == want.tobytes()
    # overall's counts no longer detection's: each its own
    ovl = parts["overall"]
    other = dict(parts, overall=dataclasses.replace(ovl, within=parts["localization"].within))
    alone = assemble._Replicates(other)
    got = alone.agreement(k)
    assert alone._distance is None
    want = np.stack([other[c].statistics(k)[2] for c in COMPONENTS], axis=1)
    assert got.tobytes() == want.tobytes()
