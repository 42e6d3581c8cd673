"""The docstring of an accessor method: that of the function it calls.

Every accessor method (``df.iaa.X``, ``res.iaa.X``, ``df.iaa.plot.X``, ``res.iaa.plot.X``)
is written out with its keywords (so that ``help()``, :func:`inspect.signature`, jedi and
mypy see them) and calls the function it stands for: ``df.iaa.sigma(n_chance=500)`` is
``iaf.sigma(df, n_chance=500)``. :func:`doc_from` gives it that function's docstring;
its examples run once, under the function (the root ``conftest.py`` skips the copy).

Examples
--------
>>> import iaa_frames as iaf
>>> class Frame:
...     def __init__(self, df):
...         self._df = df
...
...     @doc_from(iaf.sigma)
...     def sigma(self, *, component="localization"):
...         return iaf.sigma(self._df, component=component)
>>> Frame.sigma.__doc__ == iaf.sigma.__doc__, Frame.sigma._doc_from is iaf.sigma
(True, True)
"""

from __future__ import annotations

import functools
import inspect
import types
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from iaa_frames.settings.validation import unknown_keyword_message

__all__ = ["CALLED_AS", "deprecated_name", "doc_from", "keywords_checked"]


#: A method: the decorators return what they are given, as static tools (jedi, mypy) see it.
_F = TypeVar("_F", bound=Callable[..., Any])

#: How the methods of each accessor class are called, for the messages that name them.
CALLED_AS = {
    "IAAAccessor": "df.iaa",
    "ResultAccessor": "res.iaa",
    "FramePlots": "df.iaa.plot",
    "ResultPlots": "res.iaa.plot",
}


def doc_from(func):
    """Decorate a method with the docstring of ``func``, the function it calls, and with
    :func:`keywords_checked`.

    Parameters
    ----------
    func : callable
        The function the method stands for.

    Returns
    -------
    callable
        The decorator: the method (:func:`keywords_checked`), its ``__doc__`` that of
        ``func`` and its ``_doc_from`` ``func``.
    """

    def decorate(method: _F) -> _F:
        method.__doc__ = func.__doc__
        method._doc_from = func
        return keywords_checked(method)

    return decorate


def _calling(method, check):
    def called(self, *args, **kwargs):
        check(self, kwargs)
        return method(self, *args, **kwargs)

    return called


def keywords_checked(method: _F) -> _F:
    """Decorate an accessor method: a keyword it does not take is a :class:`TypeError`
    naming the method as it was called (``df.iaa.agreement()``, :data:`CALLED_AS`) and the
    nearest keywords it takes (:func:`~iaa_frames.settings.validation.unknown_keyword_message`),
    where Python would name ``AgreementMethods.agreement()`` and suggest nothing.

    The method keeps its written-out signature (:func:`inspect.signature` follows
    ``__wrapped__``; jedi and mypy read the ``def``), its docstring and its module: the
    wrapper runs in the method's module globals, so that doctest finds its examples there.

    Parameters
    ----------
    method : function
        An accessor method (``self`` first); one taking ``**kwargs`` is returned as it is.

    Returns
    -------
    function
    """
    sig = inspect.signature(method)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return method
    names = frozenset(sig.parameters)

    def check(owner, kwargs):
        if names.issuperset(kwargs):
            return
        where = CALLED_AS.get(type(owner).__name__, type(owner).__name__)
        message = unknown_keyword_message(
            method, sig, kwargs, TypeError(), name=f"{where}.{method.__name__}"
        )
        raise TypeError(message)

    made = _calling(method, check)
    called = types.FunctionType(
        made.__code__, method.__globals__, method.__name__, None, made.__closure__
    )
    functools.update_wrapper(called, method)
    return called  # type: ignore[return-value]


def deprecated_name(obj, name: str, renamed: dict[str, str]):
    """The attribute of ``obj`` under its new name, for an accessor's ``__getattr__``:
    a former name of ``renamed`` warns (:class:`FutureWarning`, naming the new one); any
    other name raises :class:`AttributeError`.

    Examples
    --------
    >>> import warnings
    >>> class Frame:
    ...     def quality(self):
    ...         return 1
    ...
    ...     def __getattr__(self, name):
    ...         return deprecated_name(self, name, {"annotators": "quality"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     Frame().annotators()
    1
    >>> str(caught[0].message)
    '.annotators() is deprecated and will be removed; use .quality()'
    """
    if name in renamed:
        new = renamed[name]
        warnings.warn(
            f".{name}() is deprecated and will be removed; use .{new}()",
            FutureWarning,
            stacklevel=3,
        )
        return getattr(obj, new)
    raise AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")
