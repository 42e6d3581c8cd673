"""Progress bars: ``tqdm.auto`` where it works, quiet for short runs.

``tqdm.auto`` picks the widget bar of ``tqdm.notebook`` inside a Jupyter kernel, which needs
``ipywidgets``; without it, importing ``tqdm.auto`` in a kernel warns
``TqdmWarning: IProgress not found``. This module imports the notebook bar only when
``ipywidgets`` can be imported, and the plain text bar otherwise, so that neither
``import iaa_frames`` nor a first computation prints a warning in a plain kernel.

Every bar waits :data:`DELAY` seconds before it appears: a run shorter than that prints
nothing.

Examples
--------
>>> from iaa_frames.progress import tqdm
>>> with tqdm(total=3, desc="demo") as bar:  # done within the delay: prints nothing
...     _ = bar.update(3)
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["DELAY", "in_notebook", "tqdm"]

#: Seconds a bar waits before it is shown (shorter runs print nothing).
DELAY = 1.0


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
