"""iaa_frames.memory: glibc's handle, and trimming through it (or nothing without it)."""

from __future__ import annotations

import sys

from iaa_frames import memory


class FakeLibc:
    def __init__(self):
        self.trimmed = []

    def malloc_trim(self, pad):
        self.trimmed.append(pad)
        return 1


def test_trim_memory_calls_malloc_trim_where_there_is_glibc(monkeypatch):
    fake = FakeLibc()
    monkeypatch.setattr(memory, "glibc", lambda: fake)
    assert memory.trim_memory() is True and fake.trimmed == [0]
    monkeypatch.setattr(memory, "glibc", lambda: None)
    assert memory.trim_memory() is False


def test_glibc_is_found_on_linux_and_looked_up_once():
    lib = memory.glibc()
    if sys.platform.startswith("linux"):  # the CI machine: glibc
        assert hasattr(lib, "mallopt") and hasattr(lib, "malloc_trim")
    assert memory.glibc() is lib
