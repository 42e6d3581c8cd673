"""The files the report writes: CSV tables safe to open in a spreadsheet, and an output
folder whose other files are never overwritten.

* :func:`write_csv` (of :mod:`iaa_frames.io.safe_csv`, the one CSV writer of the package)
  writes every CSV table (the report's tables, the command line's ``dropped.csv``, the
  writers' ``image_sizes.csv``) with text cells that a spreadsheet would run as a formula
  (beginning with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed: a
  label ``=HYPERLINK(...)``) prefixed with a single quote, as the OWASP "CSV Injection"
  page recommends, and a text holding a carriage return quoted; numbers, negative ones
  included, stay numbers.
* :func:`claim` refuses an output folder holding a file of a name the report writes that
  an earlier report did not write (``items.csv`` of the user's own, say), before anything
  is written; :func:`record` lists what a report wrote in the folder's
  ``.iaa-frames-report`` file, so that the next report there replaces them.

Examples
--------
>>> import pandas as pd
>>> neutralise(pd.DataFrame({"label": ["=1+2", "cat", "-x"], "n": [-1, 2, 3]}))
   label  n
0  '=1+2 -1
1    cat  2
2    '-x  3
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd  # noqa: F401  (the module doctest)

from iaa_frames.errors import ParameterError
from iaa_frames.io.safe_csv import neutralise, write_csv

__all__ = ["MANIFEST", "claim", "neutralise", "record", "write_csv"]

#: The file, in an output folder, that lists the files the reports wrote there.
MANIFEST = ".iaa-frames-report"


def _written(out_dir: Path) -> set:
    manifest = out_dir / MANIFEST
    if not manifest.is_file():
        return set()
    return {line for line in manifest.read_text(encoding="utf-8").splitlines() if line}


def claim(out_dir, names) -> None:
    """Refuse to write ``names`` into ``out_dir`` when one of them exists there and was not
    written by an earlier report (:func:`record`).

    Raises
    ------
    ParameterError
        Naming the file, which is left untouched.
    """
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        return
    mine = _written(out_dir)
    clash = [n for n in names if n not in mine and (out_dir / n).exists()]
    if clash:
        more = f" (and {len(clash) - 1} more: {', '.join(clash[1:4])})" if len(clash) > 1 else ""
        raise ParameterError(
            f"{out_dir / clash[0]} exists and was not written by an iaa-frames report{more}: "
            "it is not overwritten; write the report into a new or empty directory "
            "(--out), or move the file away"
        )


def record(out_dir, names) -> None:
    """Add ``names`` to the files the reports wrote in ``out_dir``."""
    out_dir = Path(out_dir)
    listed = sorted(_written(out_dir) | set(names))
    (out_dir / MANIFEST).write_text("".join(n + "\n" for n in listed), encoding="utf-8")
