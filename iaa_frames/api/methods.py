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

import warnings

__all__ = ["deprecated_name", "doc_from"]


def doc_from(func):
    """Decorate a method with the docstring of ``func``, the function it calls.

    Parameters
    ----------
    func : callable
        The function the method stands for.

    Returns
    -------
    callable
        The decorator: the method itself, its ``__doc__`` that of ``func`` and its
        ``_doc_from`` ``func``.
    """

    def decorate(method):
        method.__doc__ = func.__doc__
        method._doc_from = func
        return method

    return decorate


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
