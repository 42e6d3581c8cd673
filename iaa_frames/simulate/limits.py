"""What every simulator checks the same way: the seed, the counts, the numbers, and the
size of the corpus it would build.

The counts and the seed go through the package's one integer check
(:func:`iaa_frames.settings.parameters.check_int`, the constraint
:class:`~iaa_frames.settings.validation.Integer`: an integer, not a bool, at least the
minimum; a seed at most :data:`~iaa_frames.settings.validation.MAX_SEED`). A simulated
corpus is built in memory at once, so each simulator estimates the rows it would build
before drawing anything and refuses more than :data:`MAX_SIMULATED_ROWS`
(:func:`check_size`), instead of a ``MemoryError`` after minutes of allocation.

Examples
--------
>>> check_counts(n_items=(3, 1), seed=(0, 0))
[3, 0]
>>> check_counts(n_items=(True, 1))
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: n_items must be an integer >= 1; got True
>>> check_size("simulate", 4e9, n_items=10**9, objects_per_item=4)
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: simulate(n_items=1000000000, objects_per_item=4) would build about 4,000,000,000 rows (the objects and coverage rows of every annotator, and the truth), more than MAX_SIMULATED_ROWS = 20,000,000, the most a simulated corpus holds in memory (about 400 bytes a row); ask for fewer items or objects, or simulate several corpora (other seeds) and concatenate them
"""

from __future__ import annotations

import math
import numbers

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import check_int

__all__ = [
    "MAX_SIMULATED_ROWS",
    "check_counts",
    "check_names",
    "check_number",
    "check_size",
    "corpus_rows",
]

#: The most rows a simulator builds (objects and coverage rows of every annotator, plus
#: the true objects): a corpus is held in memory at once, at about 400 bytes a row at peak
#: (boxes; polygons and keypoints more), so 20 million rows need about 8 GB.
MAX_SIMULATED_ROWS = 20_000_000


def check_counts(**given: tuple[object, int]) -> list[int]:
    """Each ``name=(value, low)`` checked as an integer (not a bool) >= ``low`` (a
    ``seed`` also at most :data:`~iaa_frames.settings.validation.MAX_SEED`), in order.

    Raises
    ------
    ParameterError
        Naming the first parameter that is not such an integer, and its value.
    """
    return [check_int(value, name, low=low) for name, (value, low) in given.items()]


def check_names(names) -> None:
    """Annotator names: non-empty strings, distinct, other than ``'(all)'``
    (:data:`~iaa_frames.frame.schema.ALL`, which names every annotator).

    Examples
    --------
    >>> check_names(["a", 1])
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: annotator names must be non-empty strings, got 1
    """
    names = list(names)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ParameterError(f"annotator names must be non-empty strings, got {name!r}")
        if name == ALL:
            raise ParameterError(f"the annotator name {ALL!r} is reserved")
    if len(set(names)) != len(names):
        raise ParameterError(f"annotator names must be distinct, got {names!r}")


def check_number(
    value, name: str, *, low: float = 0.0, high: float = math.inf, below: bool = False
) -> float:
    """``value`` as a float when it is a finite real number (not a bool) in
    ``[low, high]`` (``[low, high)`` with ``below``).

    Examples
    --------
    >>> check_number(0.5, "miss", high=1.0, below=True)
    0.5
    >>> check_number("0.1", "noise")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: noise must be a finite number >= 0.0; got '0.1'
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    try:
        ok = ok and math.isfinite(value) and low <= value
    except OverflowError:  # an int too large for a float
        ok = False
    ok = ok and (value < high if below else value <= high)
    if not ok:
        bound = "" if high == math.inf else f" and {'<' if below else '<='} {high}"
        raise ParameterError(f"{name} must be a finite number >= {low}{bound}; got {value!r}")
    return float(value)


def check_size(function: str, rows: float, **named) -> None:
    """Refuse a corpus of more than :data:`MAX_SIMULATED_ROWS` rows before anything is
    drawn.

    Parameters
    ----------
    function : str
        The simulator, for the message.
    rows : float
        The rows the call would build (an estimate from its parameters, as a float so
        that no product overflows).
    **named
        The parameters that make ``rows``, shown as ``name=value``.

    Raises
    ------
    ParameterError
        Naming the function, the parameters, the rows and the cap.
    """
    if rows <= MAX_SIMULATED_ROWS:
        return
    shown = ", ".join(f"{k}={v!r}" for k, v in named.items())
    raise ParameterError(
        f"{function}({shown}) would build about {rows:,.0f} rows (the objects and coverage "
        f"rows of every annotator, and the truth), more than MAX_SIMULATED_ROWS = "
        f"{MAX_SIMULATED_ROWS:,}, the most a simulated corpus holds in memory (about 400 "
        "bytes a row); ask for fewer items or objects, or simulate several corpora (other "
        "seeds) and concatenate them"
    )


def corpus_rows(n_items: int, profiles, objects_per_item: float, layout: str) -> float:
    """The rows :func:`simulate_with_truth` is expected to build: the true objects, and
    per annotator its redrawn objects (at least a coverage row per item) and its false
    positives (a float: no product overflows)."""
    per = 1.0 if layout == "single_center" else float(objects_per_item)
    drawn = sum(max(per, 1.0) + p.false_positives for p in profiles)
    return float(n_items) * (per + drawn)
