"""One validation mechanism at the public boundary: :func:`validate_params`.

Modelled on scikit-learn's ``validate_params``: a public entry point declares the
constraint of each parameter it checks; the decorator binds the call to the function's
signature, checks every declared parameter once and raises
:class:`~iaa_frames.errors.ParameterError` naming the parameter and what was expected.
The engine parameters (:data:`ENGINE_CONSTRAINTS`: ``distance``, ``match_threshold``,
``n_chance``, ``seed``, ``overall``, ``progress``, and ``n_boot``) are declared here once
and checked wherever a decorated function takes them, also when they arrive through
``**kwargs``. The decorated function keeps its explicit signature and docstring
(``inspect.signature`` and ``help()`` show them); below it, one
:class:`~iaa_frames.settings.parameters.MatchSettings` is passed inward and nothing is
checked again: a decorated function called from inside another one does not validate
again (scikit-learn's ``prefer_skip_nested_validation``).

Examples
--------
>>> @validate_params({"top": Integer(1, none=True)})
... def view(data, *, top=None, n_chance=2000):
...     return top, n_chance
>>> view(None, top=3)
(3, 2000)
>>> view(None, top=0)
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: top must be None or an integer >= 1; got 0
>>> view(None, n_chance=0)
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: n_chance must be an integer >= 1; got 0
"""

from __future__ import annotations

import contextvars
import difflib
import functools
import inspect
import numbers

import numpy as np

from iaa_frames.errors import ParameterError

__all__ = [
    "ANNOTATORS",
    "Annotators",
    "ENGINE_CONSTRAINTS",
    "MAX_SEED",
    "OVERALL",
    "Constraint",
    "DistanceSpec",
    "Integer",
    "KEYWORD_REMEDIES",
    "OneOf",
    "Progress",
    "SINGLE_THRESHOLD",
    "TOP",
    "Thresholds",
    "below_boundary",
    "unknown_keyword_message",
    "validate_params",
]

#: The set-distance averages of the ``overall`` component.
OVERALL = ("pooled", "per_direction")


class Constraint:
    """What one parameter accepts: :meth:`check` raises a :class:`ParameterError`
    naming the parameter and :attr:`expected`; :meth:`normalize` gives the value the
    code below uses (the value itself unless said otherwise)."""

    expected = "a valid value"

    def accepts(self, value) -> bool:  # pragma: no cover - every constraint overrides it
        raise NotImplementedError

    def check(self, name: str, value):
        """``value`` normalized, or :class:`ParameterError` when it is not accepted."""
        if not self.accepts(value):
            raise ParameterError(f"{name} must be {self.expected}; got {value!r}")
        return self.normalize(value)

    def normalize(self, value):
        return value


class Integer(Constraint):
    """An integer (not a bool) >= ``low``; None too when ``none``.

    >>> Integer(0).check("seed", 3)
    3
    >>> Integer(1).expected, Integer(0, none=True).expected
    ('an integer >= 1', 'None or an integer >= 0')
    """

    def __init__(
        self,
        low: int = 0,
        *,
        high: int | None = None,
        none: bool = False,
        expected: str | None = None,
        why: str = "it sizes what is held in memory",
    ):
        self.low, self.high, self.none, self.why = low, high, none, why
        self.expected = expected or ("None or " if none else "") + f"an integer >= {low}"

    def check(self, name: str, value):
        """As :meth:`Constraint.check`; an integer above ``high`` is refused by its own
        message, which says ``why`` (by default: ``high`` bounds what a parameter may
        allocate)."""
        if self.high is not None and self.accepts(value) and value > self.high:
            raise ParameterError(
                f"{name} must be at most {self.high:,} ({self.why}); got {value!r}"
            )
        return super().check(name, value)

    def accepts(self, value) -> bool:
        if value is None:
            return self.none
        return (
            not isinstance(value, (bool, np.bool_))
            and isinstance(value, numbers.Integral)
            and value >= self.low
        )

    def normalize(self, value):
        return None if value is None else int(value)


class OneOf(Constraint):
    """One of a few values.

    >>> OneOf(("pooled", "per_direction")).check("overall", "pooled")
    'pooled'
    """

    def __init__(self, choices):
        self.choices = tuple(choices)
        self.expected = f"one of {self.choices}"

    def accepts(self, value) -> bool:
        return any(
            value is c or (isinstance(value, str) and isinstance(c, str) and value == c)
            for c in self.choices
        )


class Progress(Constraint):
    """``None`` (bars on long work only), ``True`` or ``False``.

    >>> Progress().check("progress", np.bool_(True))
    True
    """

    expected = "None, True or False"

    def accepts(self, value) -> bool:
        return value is None or isinstance(value, (bool, np.bool_))

    def normalize(self, value):
        return None if value is None else bool(value)


class Thresholds(Constraint):
    """A match threshold in [0, 1] or a non-empty sequence of them
    (:func:`iaa_frames.settings.thresholds.check_thresholds` says what is wrong);
    normalized to a float, or a sorted tuple of distinct floats. With ``single``, one
    number only (the functions that build the tables of one threshold).

    >>> Thresholds().check("match_threshold", [0.7, 0.3])
    (0.3, 0.7)
    >>> Thresholds(single=True).check("match_threshold", [0.7, 0.3])
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: match_threshold must be a number in [0, 1]; got [0.3, 0.7] (several thresholds are accepted by agreement(), sigma(), ks(), alpha(), pairwise() and report(), which add a 'threshold' dimension; pair_tables_by_threshold() gives the tables of each)
    """

    expected = "a number in [0, 1] or a sequence of them"

    def __init__(self, *, single: bool = False):
        self.single = single

    def check(self, name: str, value):
        from .thresholds import SEQUENCE_HINT, check_thresholds

        thresholds, scalar = check_thresholds(value)
        if self.single and not scalar:
            raise ParameterError(
                f"{name} must be a number in [0, 1]; got {list(thresholds)!r} ({SEQUENCE_HINT})"
            )
        return thresholds[0] if scalar else thresholds

    def normalize(self, value):
        return self.check("match_threshold", value)


class DistanceSpec(Constraint):
    """A registered distance name, a :class:`~iaa_frames.geometry.distances.Distance` or
    a callable (:func:`iaa_frames.geometry.distances.get_distance` says what is wrong).

    >>> DistanceSpec().check("distance", "giou")
    'giou'
    """

    expected = "a registered distance name, a Distance or a callable"

    def check(self, name: str, value):
        from iaa_frames.geometry.distances import get_distance

        get_distance(value)  # raises for an unknown name or another type
        return value


class Annotators(Constraint):
    """None, or a collection of annotator names (a list, tuple, set, array, Index or
    Series): a single string or number is refused, not read as its characters.

    >>> Annotators().check("annotators", ("b", "a"))
    ('b', 'a')
    >>> Annotators().check("annotators", "ab")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: annotators must be None or a list of annotator names (e.g. ['ana', 'ben']); got 'ab'
    """

    expected = "None or a list of annotator names (e.g. ['ana', 'ben'])"

    def accepts(self, value) -> bool:
        if value is None:
            return True
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            return False
        return getattr(value, "ndim", 1) == 1


#: ``top``: how many rows a view keeps.
TOP = Integer(1, none=True, expected="a positive integer or None")

#: ``annotators``: whose pairs a pairwise table holds.
ANNOTATORS = Annotators()

#: The constraint of a function that builds the tables of one threshold.
SINGLE_THRESHOLD = {"match_threshold": Thresholds(single=True)}

#: The most bootstrap replicates a call takes: each replicate reweights every table of
#: the corpus, and beyond this a run would take days or exhaust memory.
MAX_N_BOOT = 100_000
#: The most chance pairs a call asks for (their tables are held in memory: about 100
#: bytes a pair).
MAX_N_CHANCE = 10_000_000

#: The largest seed: a seed is kept as a signed 64-bit integer (the result's ``seed`` attr,
#: which ``to_netcdf`` writes, and the tables' parameters).
MAX_SEED = 2**63 - 1

#: The constraints of the engine parameters, declared once.
ENGINE_CONSTRAINTS: dict[str, Constraint] = {
    "distance": DistanceSpec(),
    "match_threshold": Thresholds(),
    "n_chance": Integer(1, high=MAX_N_CHANCE),
    "seed": Integer(0, high=MAX_SEED, why="a seed is kept as a signed 64-bit integer"),
    "overall": OneOf(OVERALL),
    "progress": Progress(),
    "n_boot": Integer(0, high=MAX_N_BOOT),
}

#: The parameters of :class:`~iaa_frames.settings.parameters.MatchSettings`, which check
#: themselves when it is built.
_SETTINGS = ("distance", "match_threshold", "n_chance", "seed", "overall", "progress")

_INSIDE = contextvars.ContextVar("iaa_frames_validated", default=False)


def below_boundary() -> bool:
    """True while a function decorated with :func:`validate_params` runs: its
    parameters were checked, nothing below checks them again.

    >>> below_boundary()
    False
    """
    return _INSIDE.get()


def validate_params(constraints: dict[str, Constraint] | None = None, *, engine: bool = True):
    """Decorate a public entry point: check its parameters once, at the boundary.

    Parameters
    ----------
    constraints : dict of str to Constraint, optional
        The function's own parameters and their constraints; the engine parameters
        (:data:`ENGINE_CONSTRAINTS`) the function takes are added. A name the function
        does not take is an error when decorating.
    engine : bool, default True
        False for an entry point whose body builds the
        :class:`~iaa_frames.settings.parameters.MatchSettings` of its engine keywords
        (``MatchSettings(distance=distance, ...)``), which checks them: the six
        parameters of ``MatchSettings`` are then left to it, so that each is checked
        once; ``n_boot`` and the function's own constraints are checked here.

    Returns
    -------
    callable
        The decorator. The decorated function has the same signature, name and
        docstring; ``validated.constraints`` lists what it checks. The values passed on
        are the caller's (validation does not convert them), so behaviour is unchanged.
    """
    own = dict(constraints or {})

    def decorate(func):
        sig = inspect.signature(func)
        params = sig.parameters
        unknown = sorted(set(own) - set(params))
        if unknown:
            raise TypeError(f"{func.__qualname__} has no parameters {unknown}")
        skipped = () if engine else _SETTINGS
        checked = [
            n for n in ENGINE_CONSTRAINTS if n in params and n not in own and n not in skipped
        ]
        var_kw = next((p.name for p in params.values() if p.kind is p.VAR_KEYWORD), None)

        @functools.wraps(func)
        def validated(*args, **kwargs):
            if _INSIDE.get():
                return func(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(unknown_keyword_message(func, sig, kwargs, error)) from None
            given = bound.arguments
            table = {n: ENGINE_CONSTRAINTS[n] for n in checked} | own
            for name, constraint in table.items():
                if name in given:
                    constraint.check(name, given[name])
            for name, value in given.get(var_kw, {}).items():  # engine params via **kwargs
                if name in ENGINE_CONSTRAINTS and name not in own and name not in skipped:
                    ENGINE_CONSTRAINTS[name].check(name, value)
            token = _INSIDE.set(True)
            try:
                return func(*args, **kwargs)
            finally:
                _INSIDE.reset(token)

        validated.constraints = {n: ENGINE_CONSTRAINTS[n] for n in checked} | own
        return validated

    return decorate


#: Keywords users reach for that a function does not take, and what to write instead:
#: (function name, keyword) -> the remedy.
KEYWORD_REMEDIES = {
    ("forest", "by"): (
        "forest draws one row per label; label=L draws one row per annotator on the "
        "label L, annotator=A one row per label for the annotator A"
    ),
}


def unknown_keyword_message(
    func, sig: inspect.Signature, kwargs: dict, error: TypeError, *, name: str | None = None
) -> str:
    """The message of a call ``func(**kwargs)`` refused by ``sig``: the function named
    (``name``: as the caller wrote it, ``df.iaa.agreement``), and for a keyword it does
    not take, the nearest ones it does ("did you mean"), else what it takes and the
    remedy of :data:`KEYWORD_REMEDIES`.

    Examples
    --------
    >>> def agreement(df, *, n_chance=2000, n_boot=200): ...
    >>> sig = inspect.signature(agreement)
    >>> unknown_keyword_message(agreement, sig, {"n_chanse": 5}, TypeError("x"))
    "agreement() got an unexpected keyword argument 'n_chanse'; did you mean 'n_chance'?"
    >>> unknown_keyword_message(agreement, sig, {"tau": 5}, TypeError("x"), name="df.iaa.agreement")
    "df.iaa.agreement() got an unexpected keyword argument 'tau'; it takes df, n_chance, n_boot"
    """
    called = name or func.__name__
    taken = [
        n for n, p in sig.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if taken and taken[0] == "self":
        taken = taken[1:]
    unknown = [k for k in kwargs if k not in sig.parameters]
    if not unknown or any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return f"{called}(): {error}"
    near = difflib.get_close_matches(unknown[0], taken, n=2, cutoff=0.6)
    hint = (
        f"; did you mean {' or '.join(map(repr, near))}?"
        if near
        else f"; it takes {', '.join(taken)}"
    )
    remedy = KEYWORD_REMEDIES.get((func.__name__, unknown[0]))
    hint += f" ({remedy})" if remedy else ""
    return f"{called}() got an unexpected keyword argument {unknown[0]!r}{hint}"
