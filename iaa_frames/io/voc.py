"""Reader for Pascal VOC XML (one file per image, one directory per annotator)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from iaa_frames.errors import ReaderError

from .builder import FrameBuilder, finish
from .item_keys import ItemKeys
from .paths import annotator_dirs, check_dir, reader_error
from .safe_xml import parse_xml
from .values import xml_float

__all__ = ["read_voc"]


def _xml_files(d):
    sub = d / "Annotations"
    if sub.is_dir():
        d = sub
    return sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() == ".xml")


def read_voc(
    dir_per_annotator, *, item_key="name", on_invalid: str = "raise", return_dropped: bool = False
):
    """Read Pascal VOC XML annotations, one directory per annotator.

    Parameters
    ----------
    dir_per_annotator : mapping {annotator: directory} or directory
        Either a mapping, or a parent directory whose subdirectories are the annotators
        (each named after its annotator). A directory that holds ``.xml`` files itself and
        no subdirectory is read as the annotation of one annotator named after the
        directory. Inside an annotator's directory, the ``.xml`` files are read from an
        ``Annotations/`` subdirectory when there is one (the VOCdevkit layout), else from
        the directory itself.
    item_key : {"name", "stem", "path"} or callable, default "name"
        How the image ``<filename>`` becomes the ``item`` (see
        :mod:`iaa_frames.io.item_keys`).
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable objects (zero area, inverted, missing or non-numeric coordinates, no
        name): raise a ReaderError naming file and object, or drop them, counted, with a
        warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. ``item`` is the ``<filename>`` of the image (the XML
        file stem when absent), ``width``/``height`` come from ``<size>`` (0 means
        unknown: NaN), each ``<object>`` gives a box from ``<bndbox>`` (``xmin``, ``ymin``,
        ``xmax``, ``ymax``, kept exactly as written: VOC's 1-based pixel convention is not
        shifted) labelled with ``<name>``; ``difficult``, ``truncated`` and ``occluded``
        (booleans) and ``pose`` are kept as columns. A file with no ``<object>`` is a
        coverage row.

    Raises
    ------
    ReaderError
        Missing directory, an annotator directory without ``.xml`` files, an empty or
        malformed file, XML with entity declarations (XXE, billion laughs), missing or
        non-numeric coordinates; the message names the file and the object
        (``object[2] (name='dog')``).

    Notes
    -----
    The ``<part>`` elements of the VOC person layout (head, hand, foot boxes inside a
    person), objects without ``<bndbox>`` and a second ``<bndbox>`` of an object
    (``extra_bndbox``: the first is read) are skipped, counted and reported in a
    DroppedRowsWarning.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "ana").mkdir()
    >>> _ = (root / "ana" / "a.xml").write_text(
    ...     "<annotation><filename>a.jpg</filename>"
    ...     "<size><width>100</width><height>80</height><depth>3</depth></size>"
    ...     "<object><name>cat</name><difficult>0</difficult>"
    ...     "<bndbox><xmin>10</xmin><ymin>20</ymin><xmax>40</xmax><ymax>60</ymax></bndbox>"
    ...     "</object></annotation>")
    >>> read_voc(root)[["item", "annotator", "label", "x0", "y0", "x1", "y1", "difficult"]]
        item annotator label    x0    y0    x1    y1  difficult
    0  a.jpg       ana   cat  10.0  20.0  40.0  60.0      False
    """
    if isinstance(dir_per_annotator, Mapping):
        dirs = annotator_dirs(dir_per_annotator, "read_voc")
    else:
        root = check_dir(dir_per_annotator)
        if (root / "Annotations").is_dir():
            dirs = [(root.name, root)]  # one VOCdevkit-style directory: one annotator
        else:
            dirs = annotator_dirs(root, "read_voc")
            own = _xml_files(root)
            if own and dirs:
                raise reader_error(
                    root,
                    None,
                    "holds both .xml files and subdirectories: "
                    "pass a mapping {annotator: directory}",
                )
            if own:
                dirs = [(root.name, root)]
            elif not dirs:
                raise reader_error(root, None, "no annotator subdirectories and no .xml files")
    b = FrameBuilder("voc", on_invalid=on_invalid)
    keys = ItemKeys(item_key)
    for annotator, d in dirs:
        files = _xml_files(d)
        if not files:
            raise reader_error(d, None, f"no .xml files for annotator {annotator!r}")
        for path in files:
            if path.stat().st_size == 0:
                raise reader_error(path, None, "the file is empty")
            _read_file(path, annotator, b, keys, d)
    return finish(b, on_invalid=on_invalid, return_dropped=return_dropped)


def _flag(path, entry, obj, name):
    raw = obj.findtext(name)
    if raw is None or raw.strip() == "":
        return None
    raw = raw.strip().lower()
    if raw in ("0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise reader_error(path, entry, f"<{name}> must be 0 or 1, got {raw!r}")


def _read_file(path, annotator, b: FrameBuilder, keys: ItemKeys, scope):
    root = parse_xml(path)
    if root.tag != "annotation":
        why = f"not a VOC annotation: the root element is <{root.tag}>, expected <annotation>"
        raise reader_error(path, None, why)
    f = b.add_file(path)
    source = (root.findtext("filename") or "").strip()
    item = keys(source, scope=scope, path=path, entry="<filename>") if source else path.stem
    size = root.find("size")
    w = h = math.nan
    if size is not None:
        w = xml_float(path, "<size>", size, "width", attr=False, required=False)
        h = xml_float(path, "<size>", size, "height", attr=False, required=False)
        w = math.nan if w == 0 else w
        h = math.nan if h == 0 else h
        if w < 0 or h < 0:
            raise reader_error(path, "<size>", "negative image size")
    b.cover(item, annotator, width=w, height=h, file_idx=f, entry="<annotation>")
    for k, obj in enumerate(root.findall("object")):
        name = (obj.findtext("name") or "").strip()
        entry = f"object[{k}]" + (f" (name={name!r})" if name else "")
        try:
            _object(path, f, b, obj, name, entry, item, annotator, w, h)
        except ReaderError as exc:
            b.entry_failed(exc, path, entry, item=item, annotator=annotator, record={"name": name})


def _object(path, f, b, obj, name, entry, item, annotator, w, h):
    if not name:
        raise reader_error(path, entry, "missing <name>")
    bb = obj.find("bndbox")
    who = {"item": item, "annotator": annotator}
    if bb is None:
        why = "an <object> without <bndbox>"
        b.drop(path, entry, "unsupported_shape", why, **who, record={"name": name})
        return
    x0 = xml_float(path, entry, bb, "xmin", attr=False)
    y0 = xml_float(path, entry, bb, "ymin", attr=False)
    x1 = xml_float(path, entry, bb, "xmax", attr=False)
    y1 = xml_float(path, entry, bb, "ymax", attr=False)
    extras = {
        "difficult": _flag(path, entry, obj, "difficult"),
        "truncated": _flag(path, entry, obj, "truncated"),
    }
    occ = _flag(path, entry, obj, "occluded")
    if occ is not None:
        extras["occluded"] = occ
    pose = obj.findtext("pose")
    if pose is not None:
        extras["pose"] = pose.strip()
    kw = dict(width=w, height=h, file_idx=f, entry=entry, extras=extras)
    b.add_box(item, annotator, name, x0, y0, x1, y1, **kw)
    for j, extra in enumerate(obj.findall("bndbox")[1:], start=1):
        why = (
            "a second <bndbox> in one <object> (VOC writes one box per object): the first "
            "was read; write each box as its own <object>"
        )
        rec = {"object": name, **{c.tag: (c.text or "").strip() for c in extra}}
        b.drop(path, f"{entry} bndbox[{j}]", "extra_bndbox", why, **who, record=rec)
    for j, part in enumerate(obj.findall("part")):
        pname = (part.findtext("name") or "").strip()
        why = f"a <part> ({pname or 'unnamed'}) of an object (VOC person layout): only objects are read"
        rec = {"object": name, "part": pname}
        b.drop(path, f"{entry} part[{j}]", "unsupported_shape", why, **who, record=rec)
