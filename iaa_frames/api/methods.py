"""Accessor methods built from the functions they wrap, not typed again.

``df.iaa.sigma`` is :func:`iaa_frames.sigma` applied to the frame, ``df.iaa.plot.forest``
is ``res.iaa.plot.forest`` of the frame's (cached) agreement result, and so on. The
helpers here make such a method from the function: its signature (without the first
parameter, the frame or the result), its name and its docstring are the function's, so
``help()``, ``inspect.signature`` and completion in Jupyter show the real parameters.

=========================  ==========================================================
:func:`method`             ``func(first, **kw)`` as a method of ``self._<attr>``
:func:`with_engine`        a signature with the engine parameters appended (the
                           keyword parameters of an engine entry point)
:func:`engine_method`      a method with the engine parameters that computes through
                           one :class:`~iaa_frames.settings.parameters.MatchSettings`
=========================  ==========================================================

Examples
--------
>>> import inspect
>>> import iaa_frames as iaf
>>> class Frame:
...     def __init__(self, df):
...         self._df = df
...     sigma = method(iaf.sigma)
>>> list(inspect.signature(Frame.sigma).parameters)[:3]
['self', 'component', 'n_boot']
>>> Frame.sigma.__doc__ == iaf.sigma.__doc__
True
"""

from __future__ import annotations

import inspect

from iaa_frames.settings.parameters import DEFAULTS, ENGINE, settings_of
from iaa_frames.settings.validation import validate_params

__all__ = ["engine_method", "method", "method_signature", "with_engine"]

_KW = inspect.Parameter.KEYWORD_ONLY
_SELF = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _own(sig: inspect.Signature) -> list[inspect.Parameter]:
    """The parameters after the first (the frame or result), without ``**kwargs`` and
    ``settings``."""
    return [
        p
        for p in list(sig.parameters.values())[1:]
        if p.kind is not p.VAR_KEYWORD and p.name != "settings"
    ]


def _named(call, name: str, doc: str | None, sig: inspect.Signature, qualname: str | None = None):
    call.__name__ = name
    call.__qualname__ = qualname or name
    call.__doc__ = doc
    call.__signature__ = sig
    return call


def method(
    func,
    *,
    attr: str = "_df",
    name: str | None = None,
    doc: str | None = None,
    source=None,
    drop=(),
):
    """A method ``self.<name>(**kw)`` that is ``func(self.<attr>, **kw)``.

    Parameters
    ----------
    func : callable
        Its first parameter takes the object the accessor holds (the frame or the
        result); the others are the method's.
    attr : str, default "_df"
        The accessor's attribute holding that object.
    name, doc : str, optional
        The method's name and docstring (default: the function's).
    source : callable, optional
        ``source(self)`` gives the first argument instead of ``self.<attr>``.
    drop : sequence of str
        Parameters of ``func`` the method does not take (their defaults are used).

    Returns
    -------
    function
        With the signature of ``func`` minus its first parameter (``self`` instead).
    """
    sig = method_signature(func)
    if drop:
        sig = sig.replace(parameters=[p for p in sig.parameters.values() if p.name not in drop])
    first = source or (lambda self: getattr(self, attr))

    def call(self, *args, **kwargs):
        return func(first(self), *args, **kwargs)

    doc = func.__doc__ if doc is None else doc
    return _named(call, name or func.__name__, doc, sig)


def method_signature(func) -> inspect.Signature:
    """The signature of ``func`` with ``self`` instead of its first parameter.

    >>> def f(df, *, top=None):
    ...     pass
    >>> str(method_signature(f))
    '(self, *, top=None)'
    """
    sig = inspect.signature(func)
    return sig.replace(parameters=[_SELF, *list(sig.parameters.values())[1:]])


def with_engine(func, engine=None, **defaults) -> inspect.Signature:
    """The signature ``(self, *, <func's own keywords>, <engine keywords>)``.

    Parameters
    ----------
    func : callable
        Its first parameter (the frame, tables or result) is dropped, and ``**kwargs``.
    engine : callable, optional
        The function whose keyword parameters named in :data:`ENGINE` (and ``n_boot``)
        are appended in its order, e.g. :func:`iaa_frames.agreement`; by default the
        six engine parameters in the order of
        :class:`~iaa_frames.settings.parameters.MatchSettings`, defaults
        :data:`~iaa_frames.settings.parameters.DEFAULTS`. Those ``func`` already has
        are kept in place.
    **defaults
        Other defaults of engine parameters (e.g. a sweep of ``match_threshold``).

    Returns
    -------
    inspect.Signature

    Examples
    --------
    >>> def view(tables, *, top=None):
    ...     pass
    >>> str(with_engine(view, n_chance=50))
    "(self, *, top=None, distance='giou', match_threshold=0.5, n_chance=50, seed=0, overall='pooled', progress=None)"
    """
    own = _own(inspect.signature(func))
    have = {p.name for p in own}
    if engine is None:
        extra = [inspect.Parameter(n, _KW, default=getattr(DEFAULTS, n)) for n in ENGINE]
    else:
        extra = [
            p
            for p in inspect.signature(engine).parameters.values()
            if p.name in ENGINE or p.name == "n_boot"
        ]
    extra = [
        p.replace(default=defaults.get(p.name, p.default)) for p in extra if p.name not in have
    ]
    return inspect.Signature([_SELF, *own, *extra])


def engine_method(
    sig: inspect.Signature, run, *, name: str, doc: str | None, constraints=None, attr="_df"
):
    """A method of signature ``sig`` that checks its parameters once
    (:func:`~iaa_frames.settings.validation.validate_params`) and calls
    ``run(self.<attr>, settings, **others)``: the engine parameters as one
    :class:`~iaa_frames.settings.parameters.MatchSettings`, the others (``n_boot`` among
    them) as keywords.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.api import results
    >>> sig = with_engine(results.tables)
    >>> m = engine_method(sig, results.tables, name="tables", doc="The tables.")
    >>> class Frame:
    ...     def __init__(self, df):
    ...         self._df = df
    ...     tables = m
    >>> Frame(iaf.simulate(n_items=4, seed=0)).tables(n_chance=20).params["n_chance_target"]
    20
    """

    def checked(self, **kwargs):
        bound = sig.bind(self, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        del given["self"]
        others = {k: v for k, v in given.items() if k not in ENGINE}
        return run(getattr(self, attr), settings_of(given), **others)

    checked.__signature__ = sig
    return _named(validate_params(constraints)(checked), name, doc, sig)
