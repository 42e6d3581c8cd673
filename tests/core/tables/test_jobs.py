"""Steps side by side: the blocks of pairings, their joined matching, the pool."""

import threading
import time

import numpy as np
import pytest
from helpers import TABLES

import iaa_frames as iaf
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.core.matching.pipeline import Matched, run
from iaa_frames.core.tables.jobs import (
    WORKERS,
    Jobs,
    blocks,
    joined,
    known_rows,
    locked,
    matched_once,
    spare_workers,
)
from iaa_frames.core.tables.pairs import IoUCache, tables_of_corpus
from iaa_frames.core.tables.steps import within_pairings
from iaa_frames.geometry.distances import get_distance
from iaa_frames.progress import QUIET
from iaa_frames.settings.parameters import MatchSettings


@pytest.mark.parametrize("seed", range(30))
def test_blocks_cut_the_pairings_into_balanced_consecutive_ranges(seed):
    rng = np.random.default_rng(seed)
    cost = rng.integers(0, 50, rng.integers(0, 40)) * (rng.random() < 0.9)
    n_blocks = int(rng.integers(1, 5))
    cuts = blocks(cost, n_blocks, min_cost=0)
    # consecutive, non-empty, covering every pairing once
    assert [lo for lo, _ in cuts] == ([0] if cuts else []) + [hi for _, hi in cuts[:-1]]
    assert (cuts[-1][1] if cuts else 0) == len(cost)
    assert all(hi > lo for lo, hi in cuts)
    assert len(cuts) <= max(n_blocks, 1)
    if len(cost) and cost.sum():
        # a block costs at most its share plus one pairing (brute force over the cuts)
        share = cost.sum() / n_blocks
        for lo, hi in cuts:
            assert cost[lo:hi].sum() <= share + cost.max()


def test_blocks_keep_small_work_in_one_block():
    assert blocks(np.full(10, 3), 2, min_cost=16) == [(0, 10)]
    assert len(blocks(np.full(10, 3), 2, min_cost=15)) == 2
    assert len(blocks(np.full(10, 3), 8, min_cost=10)) == 3  # 30 // 10 blocks
    assert blocks(np.zeros(0, np.int64), 2) == []


@pytest.mark.parametrize("n_blocks", [1, 2, 3, 7])
def test_joined_blocks_match_every_pairing_at_once(n_blocks):
    corpus = prepare(iaf.simulate(n_items=40, seed=3))
    slots = corpus.annotations
    a, b = within_pairings(slots)
    kw = dict(tau=0.5, distance=get_distance("giou"))
    whole = run(corpus, slots, a, b, **kw)
    cuts = blocks(slots.count[a] * slots.count[b], n_blocks, min_cost=0)
    parts = [(lo, run(corpus, slots, a[lo:hi], b[lo:hi], **kw)) for lo, hi in cuts]
    out = joined(parts)
    assert len(cuts) == min(n_blocks, len(a))
    for field in Matched.__dataclass_fields__:
        x, y = getattr(out, field), getattr(whole, field)
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), field


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_matched_once_equals_matching_every_pairing_again(kind):
    """Pairings matched before (in any order, some twice, some not at all) are taken from
    their earlier matchings: the result is bit for bit that of matching all of them in
    the order asked, and only the others are matched."""
    corpus = prepare(iaf.simulate(n_items=30, seed=4, kind=kind))
    slots = corpus.annotations
    a, b = within_pairings(slots)
    kw = dict(tau=0.5, distance=get_distance("giou"))
    rng = np.random.default_rng(0)
    want_rows = rng.permutation(len(a))[: 2 * len(a) // 3]
    x, y = a[want_rows], b[want_rows]
    whole = run(corpus, slots, x, y, **kw)
    earlier = [rng.permutation(len(a))[: len(a) // 2] for _ in range(2)]
    known = [(a[r], b[r], run(corpus, slots, a[r], b[r], **kw)) for r in earlier]
    asked = []

    def match(p, q):
        asked.append(len(p))
        return run(corpus, slots, p, q, **kw)

    n_slots = slots.empty + 1
    got = matched_once(match, known, x, y, n_slots)
    for field in Matched.__dataclass_fields__:
        u, v = getattr(got, field), getattr(whole, field)
        assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True), field
    new = int((known_rows(known, x, y, n_slots) < 0).sum())
    seen = set(np.concatenate([r for r in earlier]).tolist())
    assert new == sum(r not in seen for r in want_rows.tolist()) > 0
    assert asked == [new]
    # nothing known: one call for everything
    asked.clear()
    assert np.array_equal(matched_once(match, [], x, y, n_slots).set_overall, whole.set_overall)
    assert asked == [len(x)]


def test_joined_of_nothing_is_empty():
    assert len(joined([]).pair_a) == 0 and len(joined([]).set_n_a) == 0


def test_run_all_gives_every_result_once_in_order():
    seen, lock = [], threading.Lock()

    def call(k):
        with lock:
            seen.append(k)
        return k * k

    with Jobs(1) as jobs:
        assert jobs.run_all([(call, k) for k in range(20)]) == [k * k for k in range(20)]
    assert sorted(seen) == list(range(20))  # each call ran once, stolen or not
    assert Jobs(0).run_all([(call, 3)]) == [9]


def test_run_all_shares_the_calls_between_the_threads():
    """The calling thread takes calls from the last while the pool takes them from the
    first (taken in order, it waited on each call the pool had just started and ran
    almost none)."""
    ran_by = {}

    def call(k):
        time.sleep(0.05)  # releases the GIL, as numpy's loops do
        ran_by[k] = threading.get_ident()
        return k

    with Jobs(1) as jobs:
        assert jobs.run_all([(call, k) for k in range(8)]) == list(range(8))
    here = [k for k, t in ran_by.items() if t == threading.get_ident()]
    assert len(ran_by) == 8 and 7 in here and len(here) < 8  # the pool ran some too


def test_errors_reach_the_caller():
    def fail(k):
        raise ValueError(f"bad {k}")

    with Jobs(1) as jobs:
        with pytest.raises(ValueError, match="bad"):
            jobs.run_all([(fail, 1), (fail, 2)])
        with pytest.raises(ValueError, match="bad 3"):
            jobs.submit(fail, 3).result()
    with pytest.raises(ValueError, match="bad 4"):
        Jobs(0).submit(fail, 4).result()


def test_locked_calls_one_at_a_time():
    total = []
    update = locked(lambda n: total.append(n))
    threads = [threading.Thread(target=lambda: [update(1) for _ in range(500)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(total) == 2000


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_tables_are_the_same_side_by_side_or_in_turn(kind, monkeypatch):
    # small blocks, so that a small corpus is split as a large one is
    monkeypatch.setattr("iaa_frames.core.tables.jobs.BLOCK_MIN_COST", 1)
    corpus = prepare(iaf.simulate(n_items=60, kind=kind, seed=5))
    settings = MatchSettings(n_chance=300, seed=2)
    alone = tables_of_corpus(corpus, settings, QUIET, IoUCache())
    with Jobs(1) as jobs:
        side = tables_of_corpus(corpus, settings, QUIET, IoUCache(), jobs=jobs)
    for name in TABLES:
        x, y = getattr(alone, name), getattr(side, name)
        assert x.equals(y), name


def test_threads_only_with_a_core_to_spare():
    assert spare_workers(cores=2) == spare_workers(cores=8) == WORKERS
    assert spare_workers(cores=1) == 0
    assert Jobs(0).threads == 1 and Jobs(1).threads == 2
    assert Jobs(0).blocks == 1 and Jobs(1).blocks > 2


def test_without_threads_a_step_runs_when_asked_for():
    ran = []
    step = Jobs(0).submit(lambda k: ran.append(k) or k, 5)
    assert ran == [] and not step.done()
    assert step.result() == 5 and step.result() == 5 and ran == [5]  # once
