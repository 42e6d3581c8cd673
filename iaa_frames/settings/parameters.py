"""The engine parameters, declared once: their names, defaults and validation.

Every entry point that builds pair tables or an agreement result (``iaf.agreement``,
``df.iaa.*``, ``iaf.items``, ``iaf.report``, the plots that compute, the CLI, the dask
path) takes the same six parameters. Their defaults live in :data:`DEFAULTS`; public
signatures spell them out as ``distance=DEFAULTS.distance`` and so on, and build one
:class:`MatchSettings` from their keywords, which validates every value once.

=====================  ============  ===================================================
parameter              default       meaning
=====================  ============  ===================================================
``distance``           ``"giou"``    distance between matched objects (a registered name,
                                     a :class:`~iaa_frames.geometry.distances.Distance` or a
                                     callable)
``match_threshold``    ``0.5``       τ: an assigned pair of objects is matched when its
                                     IoU >= τ; a sequence of thresholds gives a
                                     ``threshold`` dimension
``n_chance``           ``2000``      target number of chance units of the uniform stratum
``seed``               ``0``         seed of the chance sample (and of the bootstrap)
``overall``            ``"pooled"``  how the set distance averages best matches
                                     (``"pooled"`` or ``"per_direction"``)
``progress``           ``None``      progress bars: ``None`` shows them on long work only
=====================  ============  ===================================================
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass

import numpy as np

from iaa_frames.errors import ParameterError

__all__ = ["DEFAULTS", "OVERALL", "MatchSettings", "check_int", "check_progress"]

#: The set-distance averages of the ``overall`` component.
OVERALL = ("pooled", "per_direction")


def check_int(value, name: str, *, low: int = 0) -> int:
    """``value`` as an int, or a uniform error when it is not an integer >= ``low``.

    Examples
    --------
    >>> check_int(3, "n_boot")
    3
    >>> check_int(-1, "seed")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: seed must be an integer >= 0; got -1
    """
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Integral)
        or value < low
    ):
        raise ParameterError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def check_progress(progress) -> bool | None:
    """``progress`` when it is None, True or False; a uniform error otherwise."""
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"progress must be None, True or False; got {progress!r}")
    return None if progress is None else bool(progress)


@dataclass(frozen=True)
class MatchSettings:
    """The six engine parameters, validated once (see the module table).

    Examples
    --------
    >>> s = MatchSettings(match_threshold=[0.7, 0.3])
    >>> s.thresholds, s.several
    ((0.3, 0.7), True)
    >>> MatchSettings(overall="mean")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: overall must be one of ('pooled', 'per_direction'); got 'mean'
    """

    distance: object = "giou"
    match_threshold: object = 0.5
    n_chance: int = 2000
    seed: int = 0
    overall: str = "pooled"
    progress: bool | None = None

    def __post_init__(self):
        from iaa_frames.geometry.distances import (
            get_distance,  # the registry lives with the distances
        )

        from .thresholds import check_thresholds

        get_distance(self.distance)  # raises for an unknown name
        thresholds, scalar = check_thresholds(self.match_threshold)
        object.__setattr__(self, "match_threshold", thresholds[0] if scalar else thresholds)
        object.__setattr__(self, "n_chance", check_int(self.n_chance, "n_chance", low=1))
        object.__setattr__(self, "seed", check_int(self.seed, "seed"))
        if self.overall not in OVERALL:
            raise ParameterError(f"overall must be one of {OVERALL}; got {self.overall!r}")
        object.__setattr__(self, "progress", check_progress(self.progress))

    @property
    def several(self) -> bool:
        """True when ``match_threshold`` is a sequence (a ``threshold`` dimension)."""
        return isinstance(self.match_threshold, tuple)

    @property
    def thresholds(self) -> tuple[float, ...]:
        """The thresholds, sorted and distinct (one for a single number)."""
        return self.match_threshold if self.several else (self.match_threshold,)

    def single(self) -> MatchSettings:
        """These settings, checked to hold one threshold (for the functions that build the
        tables of one threshold)."""
        if self.several:
            from .thresholds import SEQUENCE_HINT

            raise ParameterError(
                f"match_threshold must be a number in [0, 1]; got "
                f"{list(self.match_threshold)!r} ({SEQUENCE_HINT})"
            )
        return self

    def as_kwargs(self) -> dict:
        """The parameters as keywords."""
        return asdict(self)


#: The defaults of every entry point.
DEFAULTS = MatchSettings()
