"""iaa_frames.heap: glibc's thresholds raised in a block and one arena for the process's
threads, a worker's own settings back after it."""

from __future__ import annotations

import gc
import sys
import threading
import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames import heap

#: One arena for every thread, then the thresholds, then transparent huge pages refused
#: (asked first), when the first block starts.
HUGE_OFF = [
    ("prctl", heap.PR_GET_THP_DISABLE, 0),
    ("prctl", heap.PR_SET_THP_DISABLE, 1),
]
BLOCK = [
    ("mallopt", heap.M_ARENA_MAX, 1),
    ("mallopt", heap.M_MMAP_THRESHOLD, heap.BLOCK_MMAP_THRESHOLD),
    ("mallopt", heap.M_TRIM_THRESHOLD, heap.BLOCK_TRIM_THRESHOLD),
    *HUGE_OFF,
]
#: Huge pages allowed again, then the free memory of the heap handed back, when the last
#: block ends.
HUGE_ON = ("prctl", heap.PR_SET_THP_DISABLE, 0)
TRIM = ("malloc_trim", 0)


class FakeLibc:
    """Records the allocator calls instead of making them."""

    def __init__(self, huge_pages_refused=0):
        self.calls = []
        self.refused = huge_pages_refused

    def prctl(self, option, arg, *rest):
        assert rest == (0, 0, 0)
        self.calls.append(("prctl", option, arg))
        if option == heap.PR_GET_THP_DISABLE:
            return self.refused
        self.refused = arg
        return 0

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    fake = FakeLibc()
    monkeypatch.setattr(heap, "glibc", lambda: fake)
    return fake


def test_block_values():
    """glibc's adaptive ceiling: 32 MiB and 64 MiB on 64-bit Linux (its malloc.c:
    ``DEFAULT_MMAP_THRESHOLD_MAX`` is 4 MiB times the size of a long, the adaptive trim
    threshold twice the mmap threshold); in a block the mmap threshold at that ceiling,
    the trim threshold above it (the two threads' frees meet in one heap)."""
    assert heap.BLOCK_MMAP_THRESHOLD == heap.ADAPTIVE_MMAP_CEILING
    assert heap.BLOCK_TRIM_THRESHOLD == 256 << 20 > heap.ADAPTIVE_TRIM_CEILING
    if np.dtype(np.int_).itemsize == 8 and sys.platform.startswith("linux"):  # LP64
        assert heap.ADAPTIVE_MMAP_CEILING == 32 << 20
        assert heap.ADAPTIVE_TRIM_CEILING == 64 << 20


def test_a_worker_gets_its_own_settings_back(libc, monkeypatch):
    """A process started with MALLOC_TRIM_THRESHOLD_ (a dask worker) gets the values it
    was started with back (glibc's fixed mmap threshold: 128 KiB), under which glibc gives
    free memory back itself."""
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    with heap.large_heap():
        assert libc.calls == BLOCK
        with heap.large_heap():  # nested: nothing more
            pass
        assert len(libc.calls) == 5
    assert libc.calls[5:] == [
        ("mallopt", heap.M_MMAP_THRESHOLD, 128 << 10),
        ("mallopt", heap.M_TRIM_THRESHOLD, 65536),
        HUGE_ON,
        TRIM,
    ]


def test_restores_a_given_mmap_threshold_even_after_an_error(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "4096")
    with pytest.raises(ZeroDivisionError), heap.large_heap():
        raise ZeroDivisionError("in the task")
    assert libc.calls[-4:] == [
        ("mallopt", heap.M_MMAP_THRESHOLD, 4096),
        ("mallopt", heap.M_TRIM_THRESHOLD, 1000),
        HUGE_ON,
        TRIM,
    ]
    assert libc.refused == 0
    with heap.large_heap():  # the depth went back to 0: the next block sets again
        assert libc.calls[-5:] == BLOCK


@pytest.mark.parametrize("trim", [None, "not a number"])
def test_elsewhere_the_ceiling_of_glibcs_adaptive_thresholds(libc, monkeypatch, trim):
    """A user's process (glibc adapts its thresholds, and stops once one is set): after
    the block, the values its adaptation ends at."""
    if trim is None:
        monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    else:
        monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", trim)
    with heap.large_heap():
        assert libc.calls == BLOCK
    assert libc.calls[5:] == [
        ("mallopt", heap.M_MMAP_THRESHOLD, heap.ADAPTIVE_MMAP_CEILING),
        ("mallopt", heap.M_TRIM_THRESHOLD, heap.ADAPTIVE_TRIM_CEILING),
        HUGE_ON,
        TRIM,
    ]


@pytest.mark.parametrize(
    "env",
    [{"MALLOC_ARENA_MAX": "4"}, {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.malloc.x=1"}],
)
def test_a_users_own_arena_limit_is_kept(libc, monkeypatch, env):
    """A process started with its own limit of arenas keeps it: only the thresholds."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with heap.large_heap():
        assert libc.calls == BLOCK[1:]


def test_a_process_that_refused_huge_pages_itself_keeps_refusing(monkeypatch):
    """A process that refused transparent huge pages before the block (its own
    ``prctl``, or a parent's: the setting is inherited) is not asked to take them back
    after it; neither is one whose kernel cannot say (``prctl`` answers -1 before Linux
    3.15)."""
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    for answer in (1, -1):
        fake = FakeLibc(huge_pages_refused=answer)
        monkeypatch.setattr(heap, "glibc", lambda fake=fake: fake)
        with heap.large_heap():
            assert fake.calls == BLOCK[:3] + HUGE_OFF[:1]
        assert [c for c in fake.calls if c[0] == "prctl"] == HUGE_OFF[:1]
        assert fake.refused == answer


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl")
def test_huge_pages_are_refused_inside_the_block_and_allowed_after():
    """The real call: inside the block the process refuses transparent huge pages (1M
    boxes: 2.5-2.7 s of system time against 0.9-1.1 s, the kernel zeroing pages of 2 MiB
    at first touch); after it, the process is as it was."""
    libc = heap.glibc()
    if libc is None:
        pytest.skip("no glibc")
    before = libc.prctl(heap.PR_GET_THP_DISABLE, 0, 0, 0, 0)
    if before != 0:
        pytest.skip("huge pages already refused here, or a kernel that cannot say")
    with heap.large_heap():
        assert libc.prctl(heap.PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1
        with heap.large_heap():
            pass
        assert libc.prctl(heap.PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1
    assert libc.prctl(heap.PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0


def test_nothing_but_the_collectors_pause_without_glibc(monkeypatch):
    monkeypatch.setattr(heap, "glibc", lambda: None)
    assert gc.isenabled()
    with heap.large_heap(pause_collector=True):
        assert float(np.ones(10).sum()) == 10.0
        assert not gc.isenabled()
    assert gc.isenabled()
    with heap.large_heap():
        assert gc.isenabled()


def test_the_collector_is_paused_in_the_block_and_runs_again_after(libc):
    assert gc.isenabled()
    with heap.large_heap(pause_collector=True):
        assert not gc.isenabled()
        with heap.large_heap(pause_collector=True):
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still runs
        with heap.large_heap():  # a block that leaves the collector alone, inside
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), heap.large_heap(pause_collector=True):
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_a_block_that_does_not_pause_leaves_the_collector_running(libc):
    """A dask worker's blocks (``large_heap()``), even around one that pauses it."""
    with heap.large_heap():
        assert gc.isenabled()
        with heap.large_heap(pause_collector=True):
            assert not gc.isenabled()
        assert gc.isenabled()
    assert gc.isenabled()


def test_a_collector_paused_before_the_block_stays_paused(libc):
    gc.disable()
    try:
        with heap.large_heap(pause_collector=True):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_block_runs_no_collection_and_the_collector_runs_again_after(libc):
    runs = []

    def count(phase, info):
        if phase == "start":
            runs.append(info["generation"])

    gc.collect()  # young generation empty: no collection as the block starts
    gc.callbacks.append(count)
    try:
        with heap.large_heap(pause_collector=True):
            cycles = [[] for _ in range(20_000)]  # thirty young collections' worth
            for a in cycles:
                a.append(a)  # each a cycle, for the collector
            del cycles
            inside = list(runs)
        assert inside == []
        more = [[] for _ in range(1_000)]
        del more
        assert runs  # after the block, the collector runs by itself
    finally:
        gc.callbacks.remove(count)


def test_the_engine_computes_inside_the_collectors_pause():
    """Between its first and last block, ``agreement`` on polygons (whose hulls and rings
    are shapely objects by the hundred) runs no collection: with the young generation's
    threshold at 100 objects, the second of two calls (the first imports what it uses)
    ran 121 collections without the pause, and 2 with it (outside the blocks)."""
    df = iaf.simulate(n_items=40, kind="polygon", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iaf.agreement(df, n_boot=20, progress=False)
        runs, threshold = [], gc.get_threshold()

        def count(phase, info):
            if phase == "start":
                runs.append(info["generation"])

        gc.callbacks.append(count)
        gc.set_threshold(100, 1, 1)
        try:
            iaf.agreement(df, n_boot=20, progress=False)
        finally:
            gc.set_threshold(*threshold)
            gc.callbacks.remove(count)
    assert len(runs) <= 10


def test_threads_set_once_and_restore_when_the_last_leaves(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    inside, leave = threading.Barrier(3), threading.Event()

    def task():
        with heap.large_heap():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=task) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()  # both inside
    assert libc.calls == BLOCK
    leave.set()
    for t in threads:
        t.join()
    assert libc.calls[:5] == BLOCK
    assert [c[0] for c in libc.calls[5:]] == ["mallopt", "mallopt", "prctl", "malloc_trim"]


def test_the_engine_works_in_one_block(libc, monkeypatch):
    """``agreement`` raises the thresholds once for both of its steps (tables and
    statistics, nested blocks inside) and lowers them, and trims the heap, once at the
    end."""
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    df = iaf.simulate(n_items=6, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iaf.agreement(df, n_boot=0, progress=False)
    assert libc.calls[:5] == BLOCK
    assert len(libc.calls) == 9 and libc.calls[-2:] == [HUGE_ON, TRIM]
    libc.calls.clear()
    tables = iaf.pair_tables(df, n_chance=50)
    assert libc.calls[:5] == BLOCK and len(libc.calls) == 9 and libc.calls[-2:] == [HUGE_ON, TRIM]
    libc.calls.clear()
    iaf.agreement_from_tables(tables, n_boot=0, progress=False)
    assert libc.calls[:5] == BLOCK and len(libc.calls) == 9 and libc.calls[-2:] == [HUGE_ON, TRIM]


#: The agreement of a small class-structured corpus (classes in their own bands and sizes,
#: 3 faithful annotators, 12 items), its values as bytes: run in a fresh process.
_AGREEMENT = """
import hashlib, sys, warnings
sys.path.insert(0, {support!r})
warnings.simplefilter("ignore")
import numpy as np, iaa_frames as iaf, realistic
df = realistic.corpus(12, dict.fromkeys("abc", "jitter:0.05"), seed=4, objects=(2, 6))
ds = iaf.agreement(df, n_boot=50, n_chance=300, seed=0, progress=False)
h = hashlib.sha256()
for name in sorted(ds.data_vars):
    v = ds[name].values
    h.update(name.encode() + (v.tobytes() if v.dtype != object else repr(v.tolist()).encode()))
print(h.hexdigest())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's MALLOC_PERTURB_")
def test_the_engine_reads_no_memory_it_did_not_write():
    """The block reuses freed memory instead of fresh zeroed pages: a read of memory the
    engine never wrote (``np.empty`` left unfilled) would then change its numbers. glibc's
    ``MALLOC_PERTURB_`` fills every block it hands out with a byte pattern: the agreement
    is the same bit for bit with it, with the other pattern, and without the block."""
    import os
    import pathlib
    import subprocess

    code = _AGREEMENT.format(support=str(pathlib.Path(__file__).parent / "support"))

    def run(**env):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()

    plain = run()
    assert len(plain) == 64
    assert run(MALLOC_PERTURB_="165") == plain
    assert run(MALLOC_PERTURB_="90") == plain
    # the block off: glibc's own adaptive thresholds from the start
    off = code.replace(
        "import numpy as np, iaa_frames as iaf, realistic",
        (
            "import numpy as np, iaa_frames as iaf, realistic\n"
            "import iaa_frames.heap as heap\nheap.glibc = lambda: None"
        ),
    )
    assert "heap.glibc = lambda: None" in off
    out = subprocess.run([sys.executable, "-c", off], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == plain


#: A heap left with holes: 256 arrays of 1 MiB (below the block's mmap threshold: from
#: the heap) freed, each below an 8 KiB array kept alive, which pins the memory under it
#: against the trim threshold; the resident memory in MiB before and after the block.
_HOLES = """
import numpy as np, psutil
import iaa_frames.heap as heap
rss = lambda: psutil.Process().memory_info().rss >> 20
kept = []
with heap.large_heap():
    big = []
    for _ in range(256):
        big.append(np.ones(1 << 17))
        kept.append(np.ones(1024))
    del big
    inside = rss()
print(inside, rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_heaps_free_memory_goes_back_when_the_last_block_ends():
    """Freed arrays below a live block are not returned by the trim threshold (only the
    top of the heap is): the end of the block hands them back (``malloc_trim``)."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _HOLES], capture_output=True, text=True, check=True)
    inside, after = map(int, out.stdout.split())
    assert inside - after >= 200  # of the 256 MiB freed inside the block


#: Two blocks in turn, as two calls of the engine: in each, a step on the engine's second
#: thread holds 16 MiB (below the block's mmap threshold: from an arena) while it reads
#: glibc's statistics of every arena (``malloc_info``); printed, the arenas that grew by
#: 8 MiB or more in each block.
_ARENAS = """
import ctypes, os, re, sys, tempfile
import numpy as np
import iaa_frames.heap as heap
from iaa_frames.core.side_thread import SideThread
libc = heap.glibc()
libc.fopen.restype = ctypes.c_void_p
path = tempfile.mkstemp()[1]

def sizes():
    f = ctypes.c_void_p(libc.fopen(path.encode(), b"w"))
    libc.malloc_info(0, f)
    libc.fclose(f)
    text = open(path).read()
    pattern = r'<heap nr="(\\d+)">.*?<system type="current" size="(\\d+)"/>'
    return {int(n): int(size) for n, size in re.findall(pattern, text, re.S)}

def held():
    block = np.ones(1 << 21)  # 16 MiB
    return sizes(), float(block.sum())

for _ in range(2):
    before = sizes()
    with heap.large_heap(), SideThread() as side:
        during = side.submit(held).result()[0]
    print(sorted(n for n, size in during.items() if size - before.get(n, 0) >= 8 << 20))
os.unlink(path)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_info")
@pytest.mark.parametrize("own_limit", [False, True])
def test_the_engines_second_thread_allocates_from_the_main_arena(own_limit):
    """The engine's second thread is attached to the main arena, call after call (a
    process that has imported pandas holds a second arena, which threads started anew
    would take in turn): memory freed by either thread serves the other, and no heap is
    mapped and unmapped for the second thread over and over (1M boxes: 0.5-2 s less
    system time, a lower peak). A process started with its own limit of arenas keeps it:
    the thread then has an arena of its own."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "GLIBC_TUNABLES")}
    if own_limit:
        env["MALLOC_ARENA_MAX"] = "8"
    out = subprocess.run(
        [sys.executable, "-c", _ARENAS], env=env, capture_output=True, text=True, check=True
    )
    grew = [line.strip("[]").split(", ") for line in out.stdout.splitlines()]
    assert len(grew) == 2
    if own_limit:  # its own arena, which the second block finds free already
        assert grew[0] != [""] and all("0" not in arenas for arenas in grew)
    else:
        assert grew == [["0"], ["0"]]


def test_glibc_is_found_on_linux_and_looked_up_once():
    lib = heap.glibc()
    if sys.platform.startswith("linux"):  # the CI machine: glibc
        assert hasattr(lib, "mallopt")
    assert heap.glibc() is lib


def test_the_old_name_imports_with_a_warning():
    sys.modules.pop("iaa_frames.dask.heap", None)
    with pytest.warns(FutureWarning, match="iaa_frames.heap"):
        from iaa_frames.dask import heap as old
    assert old is heap


def test_the_dask_engine_leaves_the_collector_running(monkeypatch):
    """A dask computation's blocks do not pause the collector: a worker's tasks may
    follow one another in several threads without a moment outside a block."""
    pytest.importorskip("dask")
    paused = []
    monkeypatch.setattr(gc, "disable", lambda: paused.append(1))
    df = iaf.simulate(n_items=8, kind="polygon", seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iaf.agreement(iaf.dask.from_pandas(df, npartitions=2), n_chance=200, n_boot=0)
        assert paused == []
        iaf.agreement(df, n_chance=200, n_boot=0, progress=False)  # the in-memory engine
    assert paused
