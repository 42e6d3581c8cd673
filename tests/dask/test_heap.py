"""iaa_frames.dask.heap: glibc's thresholds raised for a task and restored after it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from iaa_frames.dask import heap


class FakeLibc:
    """Records the allocator calls instead of making them."""

    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1


@pytest.fixture
def libc(monkeypatch):
    fake = FakeLibc()
    monkeypatch.setattr(heap, "glibc", lambda: fake)
    return fake


def test_raised_in_the_block_and_restored_after_it(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    with heap.large_heap():
        assert libc.calls == [
            ("mallopt", heap.M_MMAP_THRESHOLD, 32 << 20),
            ("mallopt", heap.M_TRIM_THRESHOLD, 1 << 30),
        ]
        with heap.large_heap():  # nested: nothing more
            pass
        assert len(libc.calls) == 2
    # the worker's own settings back (glibc's fixed mmap threshold: 128 KiB), under which
    # glibc gives free memory back itself: no malloc_trim
    assert libc.calls[2:] == [
        ("mallopt", heap.M_MMAP_THRESHOLD, 128 << 10),
        ("mallopt", heap.M_TRIM_THRESHOLD, 65536),
    ]


def test_restores_a_given_mmap_threshold_even_after_an_error(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "4096")
    with pytest.raises(ZeroDivisionError), heap.large_heap():
        raise ZeroDivisionError("in the task")
    assert libc.calls[-2:] == [
        ("mallopt", heap.M_MMAP_THRESHOLD, 4096),
        ("mallopt", heap.M_TRIM_THRESHOLD, 1000),
    ]
    assert heap._depth == 0


def test_nothing_outside_a_worker_environment(libc, monkeypatch):
    """Without MALLOC_TRIM_THRESHOLD_ glibc adapts its thresholds itself: left alone."""
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with heap.large_heap():
        pass
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "not a number")
    with heap.large_heap():
        pass
    assert libc.calls == []


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
    assert [c[0] for c in libc.calls] == ["mallopt", "mallopt"]
    leave.set()
    for t in threads:
        t.join()
    assert [c[0] for c in libc.calls] == ["mallopt"] * 4


def test_the_real_allocator_keeps_results(monkeypatch):
    """With glibc itself (where present): the same arrays, the thresholds restored."""
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    rng = np.random.default_rng(0)
    want = [rng.random(10**6).sum() for _ in range(3)]
    rng = np.random.default_rng(0)
    with heap.large_heap():
        got = [rng.random(10**6).sum() for _ in range(3)]
    assert got == want


def test_glibc_is_found_on_linux_and_looked_up_once():
    import sys

    lib = heap.glibc()
    if sys.platform.startswith("linux"):  # the CI machine: glibc
        assert hasattr(lib, "mallopt")
    assert heap.glibc() is lib
