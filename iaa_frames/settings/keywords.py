"""The engine keywords of a public entry point, written once.

Every view of a frame (conflicts, items, accuracy, distance samples, ...) takes the six
engine parameters of :func:`iaa_frames.tables.pairs.pair_tables` as keywords, so that
``iaf.conflicts(df, n_chance=500)`` reads like ``iaf.agreement(df, n_chance=500)``. The
function itself takes them as one
:class:`~iaa_frames.settings.parameters.MatchSettings`; :func:`engine_keywords` gives it
the public signature (its own keywords, then ``distance``, ``match_threshold``,
``n_chance``, ``seed``, ``overall``, ``progress`` with the defaults of
:data:`~iaa_frames.settings.parameters.DEFAULTS`), which ``help()``,
:func:`inspect.signature`, the documentation and
:func:`~iaa_frames.settings.validation.validate_params` see.

Examples
--------
>>> import inspect
>>> @engine_keywords
... def view(data, *, top=None, settings=DEFAULTS):
...     return top, settings.n_chance
>>> str(inspect.signature(view))
"(data, *, top=None, distance='giou', match_threshold=0.5, n_chance=2000, seed=0, overall='pooled', progress=None)"
>>> view(None, top=3, n_chance=50)
(3, 50)
>>> view(None, n_chance=0)
Traceback (most recent call last):
...
iaa_frames.errors.ParameterError: n_chance must be an integer >= 1; got 0
>>> view(None, n_chanse=50)
Traceback (most recent call last):
...
TypeError: got an unexpected keyword argument 'n_chanse'
"""

from __future__ import annotations

import functools
import inspect

from .parameters import DEFAULTS, ENGINE, settings_of
from .validation import validate_params

__all__ = ["engine_keywords"]


def engine_keywords(func=None, *, names=ENGINE):
    """``func(data, *, <own keywords>, settings=DEFAULTS)`` as an entry point taking the
    engine parameters as keywords (in the order of
    :class:`~iaa_frames.settings.parameters.MatchSettings`) instead of ``settings``.

    Parameters
    ----------
    func : callable
        Its keyword ``settings`` receives the
        :class:`~iaa_frames.settings.parameters.MatchSettings` of the engine keywords
        given (defaults for the others).
    names : tuple of str, default all six
        The engine keywords the entry point takes (``@engine_keywords(names=(...))``), for
        a function that uses only some of them (a track comparison has no ``overall``);
        the others keep their defaults in ``settings`` and are refused as keywords.

    Returns
    -------
    callable
        Same name and docstring; ``__signature__`` lists the engine keywords, which are
        checked once (:func:`~iaa_frames.settings.validation.validate_params`; a
        decorator above it adds the function's own constraints).

    Examples
    --------
    >>> @engine_keywords(names=("n_chance", "seed"))
    ... def draws(data, *, settings=DEFAULTS):
    ...     return settings.n_chance, settings.overall
    >>> str(inspect.signature(draws)), draws(None, n_chance=7)
    ('(data, *, n_chance=2000, seed=0)', (7, 'pooled'))
    >>> draws(None, overall="per_direction")
    Traceback (most recent call last):
    ...
    TypeError: got an unexpected keyword argument 'overall'
    """
    if func is None:
        return functools.partial(engine_keywords, names=names)
    unknown = sorted(set(names) - set(ENGINE))
    if unknown:
        raise TypeError(f"{unknown} are not engine parameters {ENGINE}")
    names = tuple(n for n in ENGINE if n in names)
    sig = inspect.signature(func)
    if "settings" not in sig.parameters:
        raise TypeError(f"{func.__qualname__} takes no settings keyword")
    own = [p for p in sig.parameters.values() if p.name != "settings"]
    extra = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=getattr(DEFAULTS, n))
        for n in names
    ]
    public, own_sig = sig.replace(parameters=[*own, *extra]), sig.replace(parameters=own)

    @functools.wraps(func)
    def entry(*args, **kwargs):
        engine = {n: kwargs.pop(n) for n in names if n in kwargs}
        try:
            own_sig.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(str(error)) from None
        return func(*args, **kwargs, settings=settings_of(engine))

    entry.__signature__ = public
    return validate_params()(entry)
