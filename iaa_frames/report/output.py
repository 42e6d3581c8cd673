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
  ``.iaa-frames-report`` file (a header line says it is ours: a user's file of that name
  is refused, never overwritten), so that the next report there replaces them, and
  removes the files of an earlier report that the new one does not write.
* :func:`staged` writes a report's files into a temporary folder inside the output
  folder and moves them in only when every one is written: a report that fails (a full
  disk, a read-only folder, an error while rendering) leaves the earlier report whole,
  never a folder half old, half new. An output path that cannot be created or written
  is a :class:`~iaa_frames.errors.ParameterError` naming it and the reason.

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

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd  # noqa: F401  (the module doctest)

from iaa_frames.errors import ParameterError
from iaa_frames.io.paths import output_error
from iaa_frames.io.safe_csv import neutralise, write_csv

__all__ = [
    "MANIFEST",
    "MANIFEST_HEADER",
    "claim",
    "neutralise",
    "output_path",
    "record",
    "staged",
    "write_csv",
]

#: The file, in an output folder, that lists the files the reports wrote there.
MANIFEST = ".iaa-frames-report"


#: The first line of :data:`MANIFEST`: a file of that name without it is not ours.
MANIFEST_HEADER = "# iaa-frames report: the files of the last report written in this folder"


def _plain_name(name: str) -> bool:
    """Whether ``name`` is one file name inside the folder (no separator, no ``..``)."""
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0:")


def _written(out_dir: Path, names=()) -> set:
    """The files an earlier report wrote in ``out_dir``, from its manifest. A file named
    like the manifest that is not one (no header line; a manifest of an older version
    lists only names this report writes, ``names``) is a :class:`ParameterError`: it is
    the user's, and neither read nor overwritten."""
    manifest = out_dir / MANIFEST
    if not manifest.exists() and not manifest.is_symlink():
        return set()
    foreign = ParameterError(
        f"{manifest} exists and is not the manifest of an iaa-frames report: it is not "
        "overwritten; write the report into a new or empty directory (--out), or move "
        "the file away"
    )
    if manifest.is_symlink() or not manifest.is_file():
        raise foreign
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        raise foreign from None
    if lines and lines[0] == MANIFEST_HEADER:
        return {line for line in lines[1:] if line and _plain_name(line)}
    listed = {line for line in lines if line}
    if not listed <= set(names):  # an older manifest lists report files only
        raise foreign
    return listed


def claim(out_dir, names) -> None:
    """Refuse to write ``names`` into ``out_dir`` when one of them exists there and was not
    written by an earlier report (:func:`record`), or when a file named like the manifest
    is not one.

    Raises
    ------
    ParameterError
        Naming the file, which is left untouched.
    """
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        return
    mine = _written(out_dir, names)
    clash = [n for n in names if n not in mine and (out_dir / n).exists()]
    if clash:
        more = f" (and {len(clash) - 1} more: {', '.join(clash[1:4])})" if len(clash) > 1 else ""
        raise ParameterError(
            f"{out_dir / clash[0]} exists and was not written by an iaa-frames report{more}: "
            "it is not overwritten; write the report into a new or empty directory "
            "(--out), or move the file away"
        )


def record(out_dir, names, *, replace: bool = False) -> None:
    """Add ``names`` to the files the reports wrote in ``out_dir`` (the manifest). With
    ``replace`` (a new report), ``names`` become its files: those an earlier report wrote
    there that this one does not (the ``items.csv`` of another corpus, say) are removed,
    so that the folder never mixes two reports. Call :func:`claim` first."""
    out_dir = Path(out_dir)
    names = set(names)
    old = _written(out_dir, names)
    if replace:
        for name in sorted(old - names):
            path = out_dir / name
            if _plain_name(name) and path.is_file() and not path.is_symlink():
                path.unlink()
    else:
        names |= old
    text = MANIFEST_HEADER + "\n" + "".join(n + "\n" for n in sorted(names))
    (out_dir / MANIFEST).write_text(text, encoding="utf-8")


def output_path(path) -> Path:
    """``path`` as the absolute path of an output folder, checked before anything is
    written: ``~`` stands for the home folder (as in pandas), so that every writer puts
    the files in one place (the netCDF library expands a leading ``~`` of a relative path
    itself: ``report(df, "~/r")`` made ``./~/r`` and wrote ``agreement.nc`` under the home
    folder). An empty path (a blank ``--out``, an unset shell variable) is a
    ParameterError, never the working folder by accident; so is a path the system refuses
    to look at (a name too long, a NUL character), naming it and the reason.

    Examples
    --------
    >>> output_path("~/r") == Path.home() / "r"
    True
    """
    try:
        text = os.fspath(path)
    except TypeError:
        raise ParameterError(
            f"the output folder must be a path (str or os.PathLike); got {path!r}"
        ) from None
    text = os.fsdecode(text)
    if not text.strip():
        raise ParameterError(
            f"the output folder is empty ({text!r}): name a folder (--out DIR; '.' for the "
            "working folder)"
        )
    if "\0" in text:  # no system takes it: Python's ValueError, not a reason a user reads
        raise ParameterError(f"the output folder {text!r} holds a NUL character: no path can")
    out = Path(text)
    try:
        out = out.expanduser()
    except RuntimeError:  # no home folder to expand "~" to: the path as written
        pass
    out = out.absolute()
    try:
        out.exists()
    except OSError as exc:  # a name too long, a loop of links
        raise output_error(out, exc, "create") from None
    return out


def _missing_folders(out_dir: Path) -> list:
    """The folders of ``out_dir`` (itself and its parents) that do not exist yet, the
    deepest first: those that creating it makes."""
    missing = []
    for folder in (out_dir, *out_dir.parents):
        if folder.exists() or folder.is_symlink():
            break
        missing.append(folder)
    return missing


def output_dir(path) -> Path:
    """``path`` as an output folder: created if missing; a ParameterError naming it when
    it is a file or cannot be created."""
    out_dir = output_path(path)
    if out_dir.exists() and not out_dir.is_dir():
        raise ParameterError(
            f"{out_dir} exists and is not a directory: choose a folder for the output"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(out_dir, exc, "create") from None
    return out_dir


@contextmanager
def staged(out_dir, names) -> Iterator[Path]:
    """A temporary folder inside ``out_dir`` to write the report's files ``names`` into;
    when the block ends without an error they replace the earlier report's files in one
    step each (:func:`os.replace`), its manifest is written (:func:`record`'s) and the
    files of an earlier report that this one does not write are removed. On an error
    nothing in ``out_dir`` changes. An OSError becomes a ParameterError naming the path.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> with staged(out, ["a.csv"]) as tmp:
    ...     _ = (tmp / "a.csv").write_text("x")
    >>> sorted(p.name for p in out.iterdir())
    ['.iaa-frames-report', 'a.csv']
    """
    names = list(dict.fromkeys(names))
    out_dir = output_path(out_dir)
    claim(out_dir, names)
    created = _missing_folders(out_dir)
    out_dir = output_dir(out_dir)
    try:
        with _removed_on_error(created):
            with _staging(out_dir, names) as tmp:
                yield tmp
    except OSError as exc:
        raise output_error(out_dir, exc) from None


@contextmanager
def _removed_on_error(created) -> Iterator[None]:
    """Remove the folders ``created`` (deepest first) if the block fails and they are
    still empty: a failed report leaves no folder it made behind."""
    try:
        yield
    except BaseException:
        for folder in created:
            try:
                folder.rmdir()  # only an empty folder: never a file of anyone's
            except OSError:
                break
        raise


@contextmanager
def _staging(out_dir: Path, names) -> Iterator[Path]:
    """The temporary folder of :func:`staged`, its files moved into ``out_dir`` when the
    block ends without an error, removed in every case."""
    tmp = Path(tempfile.mkdtemp(prefix=".iaa-frames-staging-", dir=out_dir))
    try:
        yield tmp
        old = _written(out_dir, names)
        text = MANIFEST_HEADER + "\n" + "".join(n + "\n" for n in sorted(names))
        (tmp / MANIFEST).write_text(text, encoding="utf-8")
        for name in names:
            path = out_dir / name
            if (tmp / name).is_file():
                os.replace(tmp / name, path)
            elif name in old and path.is_file() and not path.is_symlink():
                path.unlink()  # an earlier report's file this one did not write again
        os.replace(tmp / MANIFEST, out_dir / MANIFEST)
        for name in sorted(old - set(names)):  # an earlier report's other files
            path = out_dir / name
            if _plain_name(name) and path.is_file() and not path.is_symlink():
                path.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
