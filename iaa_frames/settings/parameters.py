"""The engine parameters, declared once: their names, defaults and validation.

Every entry point that builds pair tables or an agreement result (``iaf.agreement``,
``df.iaa.*``, ``iaf.items``, ``iaf.report``, the plots that compute, the CLI, the dask
path) takes the same six parameters. Their defaults live in :data:`DEFAULTS`; public
signatures spell them out as ``distance=DEFAULTS.distance`` and so on. Their constraints
are declared once (:data:`iaa_frames.settings.validation.ENGINE_CONSTRAINTS`): a public
entry point is decorated with :func:`~iaa_frames.settings.validation.validate_params`,
which checks them at the boundary, and passes one :class:`MatchSettings`
(:func:`settings_of` its keywords) inward; nothing below checks them again.
:class:`MatchSettings` built directly checks its values with the same constraints.

=====================  ============  ===================================================
parameter              default       meaning
=====================  ============  ===================================================
``distance``           ``"giou"``    distance between matched objects (a registered name,
                                     a :class:`~iaa_frames.geometry.distances.Distance` or a
                                     callable)
``match_threshold``    ``0.5``       τ: an assigned pair of objects is matched when its
                                     IoU >= τ; a sequence of thresholds gives a
                                     ``threshold`` dimension
``n_chance``           ``2000``      most chance units a stratum aims at (see
                                     :mod:`iaa_frames.core.chance`)
``seed``               ``0``         seed of the chance sample (and of the bootstrap)
``overall``            ``"pooled"``  how the set distance averages best matches
                                     (``"pooled"`` or ``"per_direction"``)
``progress``           ``None``      progress bars: ``None`` shows them on long work only
``n_boot``             ``200``       cluster-bootstrap replicates of an agreement result
                                     (:data:`DEFAULT_N_BOOT`; 0: no intervals)
=====================  ============  ===================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from .validation import ENGINE_CONSTRAINTS, OVERALL, Integer, Progress

__all__ = [
    "DEFAULTS",
    "DEFAULT_N_BOOT",
    "ENGINE",
    "OVERALL",
    "MatchSettings",
    "check_int",
    "check_progress",
    "checked_settings",
    "engine_kwargs",
    "not_default",
    "settings_of",
]

#: Cluster-bootstrap replicates of an agreement result (and of the annotator ranking).
DEFAULT_N_BOOT = 200


def check_int(value, name: str, *, low: int = 0) -> int:
    """``value`` as an int, or a uniform error when it is not an integer >= ``low``; an
    engine parameter (``n_boot``, ``n_chance``, ``seed``) is also held to the engine's
    upper bound (:data:`~iaa_frames.settings.validation.ENGINE_CONSTRAINTS`), so that no
    entry point checking it here runs a billion replicates or allocates for them.

    Examples
    --------
    >>> check_int(3, "n_boot")
    3
    >>> check_int(-1, "seed")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: seed must be an integer >= 0; got -1
    >>> check_int(10**9, "n_boot")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: n_boot must be at most 100,000 (it sizes what is held in memory); got 1000000000
    """
    engine = ENGINE_CONSTRAINTS.get(name)
    if isinstance(engine, Integer) and engine.high is not None:
        Integer(low, high=engine.high, why=engine.why).check(name, value)
    return Integer(low).check(name, value)


def check_progress(progress) -> bool | None:
    """``progress`` when it is None, True or False; a uniform error otherwise."""
    return Progress().check("progress", progress)


@dataclass(frozen=True)
class MatchSettings:
    """The six engine parameters, validated once (see the module table).

    Built directly, it checks every value with the constraints of
    :data:`~iaa_frames.settings.validation.ENGINE_CONSTRAINTS`; at a validated public
    boundary :func:`settings_of` builds it without checking again.

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
        for f in fields(self):
            value = ENGINE_CONSTRAINTS[f.name].check(f.name, getattr(self, f.name))
            object.__setattr__(self, f.name, value)

    @classmethod
    def _checked(cls, values: Mapping) -> MatchSettings:
        """Settings of values already checked at the boundary: normalized only."""
        made = object.__new__(cls)
        for f in fields(cls):
            value = values.get(f.name, f.default)
            object.__setattr__(made, f.name, ENGINE_CONSTRAINTS[f.name].normalize(value))
        return made

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
            from iaa_frames.errors import ParameterError

            from .thresholds import SEQUENCE_HINT

            raise ParameterError(
                f"match_threshold must be a number in [0, 1]; got "
                f"{list(self.match_threshold)!r} ({SEQUENCE_HINT})"
            )
        return self

    def as_kwargs(self) -> dict:
        """The parameters as keywords."""
        return asdict(self)


#: The names of the engine parameters, in the order of :class:`MatchSettings`.
ENGINE = tuple(f.name for f in fields(MatchSettings))


def settings_of(params: Mapping, *, strict: bool = False) -> MatchSettings:
    """The :class:`MatchSettings` of the engine parameters in ``params`` (e.g. a public
    entry point's ``locals()``; missing ones take their defaults), which the boundary
    (:func:`~iaa_frames.settings.validation.validate_params`) has checked: normalized,
    not checked again.

    Examples
    --------
    >>> settings_of({"n_chance": 50, "match_threshold": [0.5, 0.3], "other": 1})
    MatchSettings(distance='giou', match_threshold=(0.3, 0.5), n_chance=50, seed=0, overall='pooled', progress=None)
    >>> settings_of({"n_chanse": 50}, strict=True)
    Traceback (most recent call last):
    ...
    TypeError: got an unexpected keyword argument 'n_chanse'
    """
    if strict:
        for name in params:
            if name not in ENGINE:
                raise TypeError(f"got an unexpected keyword argument {name!r}")
    return MatchSettings._checked(params)


def checked_settings(**values) -> MatchSettings:
    """The :class:`MatchSettings` of a public entry point's engine keywords, each checked
    once (``settings = checked_settings(distance=distance, ...)`` at the top of its body).

    :data:`DEFAULTS` itself when every value is its default (of the same type), which
    needs no check: a call with the defaults, or an entry point called by another one
    on pair tables, checks nothing again.

    Examples
    --------
    >>> checked_settings(n_chance=2000, seed=0) is DEFAULTS
    True
    >>> checked_settings(match_threshold=[0.7, 0.3]).match_threshold
    (0.3, 0.7)
    >>> checked_settings(seed=False)
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: seed must be an integer >= 0; got False
    """
    return MatchSettings(**values) if not_default(values) else DEFAULTS


def not_default(params: Mapping) -> dict:
    """The engine parameters among ``params`` (e.g. an entry point's ``locals()``) whose
    value is not their default (of :data:`DEFAULTS`, of the same type).

    Examples
    --------
    >>> not_default({"n_chance": 50, "seed": 0, "top": 3, "progress": False})
    {'n_chance': 50, 'progress': False}
    """
    out = {}
    for name, value in engine_kwargs(params).items():
        default = getattr(DEFAULTS, name)
        if type(value) is not type(default) or value != default:
            out[name] = value
    return out


def engine_kwargs(params: Mapping) -> dict:
    """The engine parameters among ``params`` (e.g. an entry point's ``locals()``), as
    keywords to pass on.

    Examples
    --------
    >>> engine_kwargs({"n_chance": 50, "top": 3, "seed": 1})
    {'n_chance': 50, 'seed': 1}
    """
    return {name: params[name] for name in ENGINE if name in params}


#: The defaults of every entry point.
DEFAULTS = MatchSettings()
