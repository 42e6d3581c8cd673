"""The class names of a YOLO export: YOLO labels hold class indices, the names live apart.

Darknet exports list them one per line (``classes.txt``, ``obj.names``), Ultralytics in
the ``names`` of ``data.yaml``, which :func:`read_yolo_classes` reads without a YAML
library (flow list, block list or ``index: name`` mapping; nothing else of YAML).
:func:`class_names` resolves the ``classes=`` argument of :func:`~iaa_frames.io.read_yolo`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from iaa_frames.errors import ParameterError

from .paths import check_file, reader_error
from .values import line_names

__all__ = ["class_names", "read_yolo_classes"]

_CLASS_FILES = ("classes.txt", "obj.names", "data.yaml", "dataset.yaml")


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def _strip_comment(line: str) -> str:
    # a '#' starts a comment unless it is inside quotes
    out, quote = [], None
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out).rstrip()


def _yaml_names(path: Path, text: str) -> list[str]:
    """The ``names`` of a YOLO data.yaml: a flow list ``[a, b]``, a block list ``- a``, or
    a mapping ``0: a``. Nothing else of YAML is interpreted."""
    lines = [_strip_comment(line) for line in text.splitlines()]
    for n, line in enumerate(lines):
        m = re.match(r"^names\s*:\s*(.*)$", line)
        if not m:
            continue
        rest = m.group(1).strip()
        if rest:
            if not (rest.startswith("[") and rest.endswith("]")):
                raise reader_error(
                    path,
                    f"line {n + 1}",
                    "names must be a list [a, b, ...], a block list "
                    "or a mapping 0: a; pass classes=[...] instead",
                )
            items = re.findall(r"""\s*('[^']*'|"[^"]*"|[^,]+)\s*(?:,|$)""", rest[1:-1])
            return [_unquote(x) for x in items if _unquote(x)]
        names: dict[int, str] = {}
        block: list[str] = []
        for k, sub in enumerate(lines[n + 1 :], start=n + 2):
            if not sub.strip():
                continue
            if not sub[0].isspace() and not sub.lstrip().startswith("-"):
                break
            s = sub.strip()
            if s.startswith("- "):
                block.append(_unquote(s[2:]))
            elif re.match(r"^\d+\s*:", s):
                key, _, val = s.partition(":")
                names[int(key)] = _unquote(val)
            else:
                why = f"cannot read {s!r} as a class name; pass classes=[...] instead"
                raise reader_error(path, f"line {k}", why)
        if block and names:
            raise reader_error(path, f"line {n + 1}", "names mixes a list and a mapping")
        if names:
            if sorted(names) != list(range(len(names))):
                why = f"names keys must be 0..{len(names) - 1}, got {sorted(names)}"
                raise reader_error(path, f"line {n + 1}", why)
            return [names[i] for i in range(len(names))]
        if block:
            return block
        raise reader_error(path, f"line {n + 1}", "names is empty")
    raise reader_error(path, None, "no 'names:' entry")


def read_yolo_classes(path) -> list[str]:
    """Class names from ``classes.txt``/``obj.names`` (one per line) or a YOLO ``data.yaml``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "data.yaml"
    >>> _ = p.write_text("path: .\\nnames:\\n  0: cat\\n  1: dog\\n")
    >>> read_yolo_classes(p)
    ['cat', 'dog']
    """
    path = check_file(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise reader_error(path, None, "not UTF-8 text") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        names = _yaml_names(path, text)
    else:
        names = line_names(path, text)
    if not names:
        raise reader_error(path, None, "no class names")
    if len(set(names)) < len(names):  # two class indices would be one label
        first: dict = {}
        k, name = next((k, n) for k, n in enumerate(names) if first.setdefault(n, k) != k)
        why = (
            f"the class name {name!r} is given twice (classes {first[name]} and {k}): the "
            "objects of the two classes would be one label; rename one, or pass classes="
        )
        raise reader_error(path, None, why)
    return names


def class_names(classes, dirs) -> dict:
    """The class names of ``read_yolo(classes=...)`` for each annotator of ``dirs`` (pairs
    (annotator, directory)), as {annotator: names or None}: a list, a mapping {index:
    name}, or a file to read, the same for every annotator; by default each annotator's
    own class file (in its export directory, else its parent), so that two exports with
    their own ``classes.txt`` keep their own names. Some annotators with a class file and
    others without would compare names with indices: a ReaderError."""
    if classes is None:
        out, found, files = {}, {}, {}
        for ann, d in dirs:
            here = [
                c / name for c in (d, d.parent) for name in _CLASS_FILES if (c / name).is_file()
            ]
            path = here[0] if here else None
            if path is not None and path not in found:
                found[path] = read_yolo_classes(path)
            out[ann] = None if path is None else found[path]
            files[ann] = path
        without = [a for a, _ in dirs if out[a] is None]
        if without and len(without) < len(dirs):
            named = next(a for a, _ in dirs if out[a] is not None)
            raise reader_error(
                dict(dirs)[without[0]],
                None,
                f"annotator {without[0]!r} has no class file (classes.txt, obj.names, "
                f"data.yaml) while {named!r} has {files[named]}: their labels would be "
                "class indices beside class names; pass classes= to name them",
            )
        return {a: out[a] for a, _ in dirs}
    if isinstance(classes, (str, os.PathLike)):
        names = read_yolo_classes(classes)
    elif isinstance(classes, Mapping):
        if not all(isinstance(k, int) for k in classes):
            raise ParameterError("classes as a mapping must map class indices (int) to names")
        names = dict(classes)
    elif isinstance(classes, Sequence):
        names = list(classes)
        if not all(isinstance(c, str) and c for c in names):
            raise ParameterError("classes must hold non-empty strings")
    else:
        raise ParameterError(
            f"classes must be a list of names, a mapping, or a path, got {type(classes).__name__}"
        )
    return {a: names for a, _ in dirs}
