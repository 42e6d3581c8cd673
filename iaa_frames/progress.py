"""Progress bars: ``tqdm.auto`` where it works, quiet for short runs.

``tqdm.auto`` picks the widget bar of ``tqdm.notebook`` inside a Jupyter kernel, which needs
``ipywidgets``; without it, importing ``tqdm.auto`` in a kernel warns
``TqdmWarning: IProgress not found``. This module imports the notebook bar only when
``ipywidgets`` can be imported, and the plain text bar otherwise, so that neither
``import iaa_frames`` nor a first computation prints a warning in a plain kernel.

Every bar waits :data:`DELAY` seconds before it appears: a run shorter than that prints
nothing.

The engine's bars (:class:`Bars`) follow three rules, so that a bar read in a notebook
means what it says:

* **one bar per stage** ("within-item matching", "chance index", "chance pairings",
  "per-class chance matching", "bootstrap", "KS tests"), opened one after the other and
  never nested (a notebook's text output cannot redraw two lines);
* **the total is known when the bar opens** and never changes; a stage whose amount of
  work is only found while it runs (the chance strata, drawn until their targets are met)
  counts its steps instead (:class:`Steps`);
* **every bar that finishes ends at its total**, exactly once.

``progress=None`` (the default of every entry point) opens them all with the delay: only
a stage that lasts over :data:`DELAY` seconds is shown. ``progress=True`` shows every bar
at once, ``progress=False`` none.

Examples
--------
>>> from iaa_frames.progress import Bars, tqdm
>>> with tqdm(total=3, desc="demo") as bar:  # done within the delay: prints nothing
...     _ = bar.update(3)
>>> import io
>>> out = io.StringIO()
>>> with Bars(True, file=out).bar(total=4, desc="demo", unit="step") as bar:
...     _ = bar.update(4)
>>> "demo: 100%" in out.getvalue()
True
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["DELAY", "QUIET", "Bars", "QuietBar", "Steps", "in_notebook", "tqdm"]

#: Seconds a bar waits before it is shown (shorter runs print nothing).
DELAY = 2.0


def in_notebook() -> bool:
    """True inside a Jupyter kernel (not a terminal IPython, Qt console or Spyder)."""
    if "ipykernel.zmqshell" not in sys.modules:
        return False
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    name = type(shell).__name__.lower()
    return "zmq" in name and "qt" not in name and "spyder" not in name


def _base():
    if in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        try:
            from tqdm.notebook import IProgress
            from tqdm.notebook import tqdm as notebook_tqdm

            if IProgress is not None:
                return notebook_tqdm
        except ImportError:  # a broken ipywidgets install: fall back to text
            pass
    from tqdm.std import tqdm as text_tqdm

    return text_tqdm


_Base = _base()


class tqdm(_Base):  # noqa: N801  (tqdm's own name, so that call sites read as usual)
    """``tqdm`` (notebook widget or text) with ``delay`` defaulting to :data:`DELAY`."""

    def __init__(self, *args, delay: float = DELAY, **kwargs):
        super().__init__(*args, delay=delay, **kwargs)


class Bars:
    """The progress bars of one computation: how they show, and what their names start with.

    Parameters
    ----------
    progress : bool, optional
        ``None``: every bar waits :data:`DELAY` seconds before it appears (a short stage
        prints nothing); ``True``: shown at once; ``False``: none.
    prefix : str, default ""
        Put before every bar's name (the threshold of a sweep, say).
    file : file-like, optional
        Where text bars are written (default ``sys.stderr``).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bars = Bars(True, prefix="τ = 0.5: ", file=out)
    >>> with bars.bar(total=2, desc="demo", unit="pair") as bar:
    ...     _ = bar.update(2)
    >>> "τ = 0.5: demo: 100%" in out.getvalue()
    True
    >>> out = io.StringIO()
    >>> with Bars(None, file=out).bar(total=2, desc="demo") as bar:  # short: silent
    ...     _ = bar.update(2)
    >>> out.getvalue()
    ''
    """

    def __init__(self, progress: bool | None = None, *, prefix: str = "", file=None):
        self.progress = progress
        self.prefix = prefix
        self.file = file

    @property
    def enabled(self) -> bool:
        """False when no bar is ever shown (``progress=False``)."""
        return self.progress is not False

    def bar(self, *, total: int, desc: str, unit: str = "it", **kwargs):
        """A bar over ``total`` units of work (fixed: the total never changes); with
        ``progress=False``, a :class:`QuietBar`."""
        if not self.enabled:
            return QuietBar(total=int(total), desc=self.prefix + desc)
        if self.file is not None:
            kwargs.setdefault("file", self.file)
        return tqdm(
            total=int(total),
            desc=self.prefix + desc,
            unit=unit,
            disable=not self.enabled,
            delay=0 if self.progress else DELAY,
            **kwargs,
        )

    def steps(self, names, *, desc: str) -> Steps:
        """A bar over the named steps of a stage whose work is only known while it runs."""
        return Steps(self, names, desc=desc)


#: No bars at all.
QUIET = Bars(False)


class QuietBar:
    """The bar of ``progress=False``: it counts as a bar does and shows nothing. No
    ``tqdm`` is made (the first of a process makes tqdm's lock, a
    :mod:`multiprocessing` semaphore: 8 ms with its import, even for a disabled bar).

    Examples
    --------
    >>> with Bars(False).bar(total=3, desc="demo") as bar:
    ...     bar.update(2)
    >>> bar.n, bar.total
    (2, 3)
    """

    def __init__(self, *, total: int, desc: str = ""):
        self.total, self.desc, self.n = total, desc, 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> QuietBar:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close()


class Steps:
    """One bar over the named steps of a stage, for work whose size is only known as it
    runs (the strata of the chance sample are drawn until their targets are met).

    The total is fixed when the bar opens: every step is worth :attr:`SCALE` units. The
    bar moves to the start of a step when it begins (:meth:`start`; steps a run skips
    are passed over, never gone back to), within a step as its parts report
    (:meth:`part`), and to its total when the stage ends without error.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Bars(True, file=out).steps(["one", "two", "three"], desc="demo") as steps:
    ...     steps.start("one")
    ...     steps.part(1, 2)
    ...     steps.start("three")  # "two" was not needed
    >>> steps.bar.n == steps.bar.total == 3 * Steps.SCALE
    True
    >>> "demo: 100%" in out.getvalue()
    True
    """

    #: Units of the bar per step.
    SCALE = 1000

    def __init__(self, bars: Bars, names, *, desc: str):
        self.names = list(names)
        self._step = 0
        self.bar = bars.bar(
            total=len(self.names) * self.SCALE,
            desc=desc,
            unit="step",
            bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]",
        )

    def _move(self, n: int) -> None:
        if n > self.bar.n:  # never back, never past the total
            self.bar.update(min(n, self.bar.total) - self.bar.n)

    def start(self, name: str) -> None:
        """Step ``name`` begins (the bar moves to its start)."""
        self._step = self.names.index(name)
        self.bar.set_postfix_str(f"{name} ({self._step + 1}/{len(self.names)})", refresh=False)
        self._move(self._step * self.SCALE)

    def part(self, done: int, total: int) -> None:
        """``done`` of ``total`` parts of the current step are done."""
        frac = min(done / total, 1.0) if total > 0 else 1.0
        self._move(int(self._step * self.SCALE + (self.SCALE - 1) * frac))

    def close(self, completed: bool = True) -> None:
        """Close the bar, at its total when the stage ``completed``."""
        if completed:
            self._move(self.bar.total)
        self.bar.close()

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(completed=kind is None)
