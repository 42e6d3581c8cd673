"""The KS tests' replicates shared by the groups of cells a process tests
(:func:`iaa_frames.dask.ks.group_tests`)."""

from __future__ import annotations

import threading

import numpy as np

from iaa_frames.stats.kstest import DEFAULT_RESAMPLES, ks_multiplicities_bytes

__all__ = ["forget_multiplicities", "shared_multiplicities"]

#: The replicates' multiplicities drawn in this process (a worker, or the driver without a
#: cluster), by (n_items, seed): every group of cells of every sigma component tests on
#: the same ones (same items, same seed). Drawn by each group, they cost a draw over all
#: the corpus's items per group: groups x items in all, which grows with the square of
#: the corpus (20 groups of a 9.33M-box corpus drew 500k items x 199 replicates each,
#: 0.5 s of CPU a draw).
_DRAWS: dict = {}
_DRAWS_LOCK = threading.Lock()


def shared_multiplicities(n_items: int, seed: int) -> np.ndarray:
    """The multiplicities of the KS tests' replicates on ``n_items`` items
    (:func:`iaa_frames.stats.kstest.ks_multiplicities_bytes`, one byte a value: 199 bytes
    an item), drawn once in this process and kept until :func:`forget_multiplicities`
    (or a draw for other items or another seed).

    Examples
    --------
    >>> k = shared_multiplicities(5, 0)
    >>> k.shape, k is shared_multiplicities(5, 0)
    ((199, 5), True)
    >>> forget_multiplicities()
    """
    key = (int(n_items), int(seed))
    with _DRAWS_LOCK:  # two threads of one worker: the first draws, the other waits
        if key not in _DRAWS:
            _DRAWS.clear()  # one table at a time
            _DRAWS[key] = ks_multiplicities_bytes(key[0], DEFAULT_RESAMPLES, key[1])
        return _DRAWS[key]


def forget_multiplicities() -> None:
    """Release the multiplicities :func:`shared_multiplicities` keeps (run on every worker
    when the tests of a frame are done)."""
    with _DRAWS_LOCK:
        _DRAWS.clear()
