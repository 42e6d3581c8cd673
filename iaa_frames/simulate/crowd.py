"""Sparse crowds: many workers of mixed quality, a few of them on each image.

Crowdsourced box data sets look like this: a pool of 100-200 workers, each image seen by
3-7 of them, each worker seeing a handful of images. :func:`simulate_crowd` draws such a
crowd on top of :func:`~iaa_frames.simulate.generate.simulate_with_truth`: the workers'
profiles come from a mixture of presets, and each image draws its number of workers
uniformly in ``per_item`` and then its workers uniformly without replacement (one seeded
stream, independent of the annotators' own streams, so the drawings of a worker on an
image do not depend on who else was assigned to it).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.settings.validation import unknown_keyword_message

from .annotators import stream
from .generate import simulate_with_truth
from .limits import check_counts, check_size
from .profiles import PRESETS

__all__ = ["CROWD_MIX", "Crowd", "simulate_crowd"]

#: The default mixture of worker presets (shares of the pool).
CROWD_MIX = {"good": 0.45, "sloppy": 0.2, "misser": 0.15, "mislabeler": 0.1, "random": 0.1}

_CROWD_STREAM = 7  # stream key of the assignment and the profile draw


class Crowd(NamedTuple):
    """What :func:`simulate_crowd` returns.

    Attributes
    ----------
    annotations : pandas.DataFrame
        The tidy frame (as :func:`simulate_with_truth`), only the assigned (image, worker)
        pairs, each with its coverage row when the worker drew nothing.
    truth : pandas.DataFrame
        The true objects.
    workers : pandas.DataFrame
        ``annotator`` and ``profile`` (the preset name) of every worker of the pool.
    """

    annotations: pd.DataFrame
    truth: pd.DataFrame
    workers: pd.DataFrame


def _check_mix(mix):
    if not isinstance(mix, Mapping) or not mix:
        raise ParameterError(f"mix must be a non-empty dict {{preset: share}}, got {mix!r}")
    unknown = sorted(set(mix) - set(PRESETS))
    if unknown:
        raise ParameterError(f"mix: unknown presets {unknown}; valid presets: {list(PRESETS)}")
    share = np.asarray(list(mix.values()), dtype=float)
    if not (np.isfinite(share).all() and (share >= 0).all() and share.sum() > 0):
        raise ParameterError(f"mix: shares must be non-negative with a positive sum, got {mix!r}")
    return list(mix), share / share.sum()


def simulate_crowd(
    *,
    n_items: int = 200,
    n_workers: int = 150,
    per_item: tuple[int, int] = (3, 7),
    mix: Mapping[str, float] | None = None,
    seed: int = 0,
    **options,
) -> Crowd:
    """A sparse crowd of simulated workers with known truth.

    Parameters
    ----------
    n_items : int, default 200
        Number of images.
    n_workers : int, default 150
        Size of the pool, workers ``"w000"``, ``"w001"``, ...
    per_item : (int, int), default (3, 7)
        Smallest and largest number of workers per image (uniform, inclusive).
    mix : dict {preset: share}, optional
        Shares of the presets in the pool (default :data:`CROWD_MIX`); each worker draws
        its preset from it.
    seed : int, default 0
        Seed of the truth, of the workers' drawings, of the profiles and of the assignment.
    **options
        Passed on to :func:`simulate_with_truth` (``kind``, ``classes``,
        ``objects_per_item``, ``image_size``, ...).

    Returns
    -------
    Crowd

    Raises
    ------
    ParameterError
        For a bad parameter (as :func:`simulate_with_truth`), or more rows than
        :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS` (every worker draws every
        image before the assignment keeps a few).
    TypeError
        For a keyword neither this function nor :func:`simulate_with_truth` takes.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate_crowd
    >>> crowd = simulate_crowd(n_items=20, n_workers=30, seed=0)
    >>> per_image = crowd.annotations.groupby("item")["annotator"].nunique()
    >>> bool(per_image.between(3, 7).all())
    True
    """
    if set(options) - set(_KEYWORDS.parameters) - {"annotators"}:  # refused below
        error = TypeError("unexpected keyword")
        raise TypeError(
            unknown_keyword_message(
                simulate_crowd, _KEYWORDS, options, error, name="simulate_crowd"
            )
        )
    n_items, n_workers, seed = check_counts(
        n_items=(n_items, 1), n_workers=(n_workers, 1), seed=(seed, 0)
    )
    if (
        not isinstance(per_item, tuple | list)
        or len(per_item) != 2
        or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in per_item)
        or not 1 <= per_item[0] <= per_item[1] <= n_workers
    ):
        raise ParameterError(
            f"per_item must be (min, max) integers with 1 <= min <= max <= n_workers "
            f"({n_workers}), got {per_item!r}"
        )
    if "annotators" in options:
        raise ParameterError("simulate_crowd draws its own annotators: use mix=, not annotators=")
    presets, share = _check_mix(CROWD_MIX if mix is None else mix)
    per = options.get("objects_per_item", 4)
    per = per if isinstance(per, int | float) and not isinstance(per, bool) else 1
    per = float(per) if np.isfinite(per) and per >= 0 else 1.0  # else refused below
    per = 1.0 if options.get("layout") == "single_center" else per
    # every worker draws every image before the assignment keeps a few: the rows of
    # simulate_with_truth, and a key per (image, worker)
    check_size(
        "simulate_crowd",
        float(n_items) * (per + n_workers * (max(per, 1.0) + 1.0)),
        n_items=n_items,
        n_workers=n_workers,
        objects_per_item=options.get("objects_per_item", 4),
    )
    rng = stream(seed, _CROWD_STREAM)
    width = max(3, len(str(n_workers - 1)))
    names = np.array([f"w{k:0{width}d}" for k in range(n_workers)], dtype=object)
    profile = np.asarray(presets, dtype=object)[rng.choice(len(presets), n_workers, p=share)]
    # each image: k workers, the k smallest of n_workers uniform keys
    k = rng.integers(per_item[0], per_item[1] + 1, n_items)
    rank = np.argsort(np.argsort(rng.random((n_items, n_workers)), axis=1), axis=1)
    item, worker = np.nonzero(rank < k[:, None])
    sim = simulate_with_truth(
        n_items=n_items,
        annotators=dict(zip(names.tolist(), profile.tolist(), strict=True)),
        seed=seed,
        **options,
    )
    a = sim.annotations
    item_names = np.sort(pd.unique(sim.annotations["item"].to_numpy(dtype=object)))
    assigned = pd.MultiIndex.from_arrays([item_names[item], names[worker]])
    keep = pd.MultiIndex.from_arrays(
        [a["item"].to_numpy(dtype=object), a["annotator"].to_numpy(dtype=object)]
    ).isin(assigned)
    annotations = a[keep].reset_index(drop=True)
    workers = pd.DataFrame(
        {"annotator": pd.array(names, dtype="str"), "profile": pd.array(profile, dtype="str")}
    )
    return Crowd(annotations, sim.truth, workers)


def _keywords() -> inspect.Signature:
    """The keywords :func:`simulate_crowd` takes: its own and those of
    :func:`simulate_with_truth` it passes on (all but ``annotators``)."""
    own = [
        p
        for p in inspect.signature(simulate_crowd).parameters.values()
        if p.kind is not p.VAR_KEYWORD
    ]
    passed = [
        p
        for name, p in inspect.signature(simulate_with_truth).parameters.items()
        if name not in {q.name for q in own} | {"annotators"}
    ]
    return inspect.Signature(own + passed)


_KEYWORDS = _keywords()
