"""glibc's allocator, where there is one: the handle (:func:`glibc`) and giving freed memory
back to the system (:func:`trim_memory`). Elsewhere (another C library, another system)
both do nothing."""

from __future__ import annotations

import ctypes
import sys

__all__ = ["glibc", "trim_memory"]

_GLIBC: list = []  # the handle (or None), looked up once


def glibc():
    """glibc (with ``mallopt`` and ``malloc_trim``), or None on another C library or
    system.

    Examples
    --------
    >>> lib = glibc()
    >>> lib is None or hasattr(lib, "malloc_trim")
    True
    """
    if not _GLIBC:
        lib = None
        if sys.platform.startswith("linux"):
            try:
                lib = ctypes.CDLL("libc.so.6")
                lib.mallopt, lib.malloc_trim  # noqa: B018 (glibc only)
            except (OSError, AttributeError):
                lib = None
        _GLIBC.append(lib)
    return _GLIBC[0]


def trim_memory() -> bool:
    """Give the memory freed by the process's threads back to the system (glibc's
    ``malloc_trim``); True when done, False where there is no glibc.

    glibc serves each thread from an arena of its own and keeps what a thread frees there:
    without this, the memory a worker thread freed stays in the process, and what is
    computed next adds to it (1M boxes, agreement(n_boot=200): a peak RSS of 1.83 GB,
    against 1.75 GB trimmed, as without threads). dask's workers trim their memory the
    same way.

    Examples
    --------
    >>> trim_memory() == (glibc() is not None)
    True
    """
    lib = glibc()
    if lib is None:
        return False
    lib.malloc_trim(0)
    return True
