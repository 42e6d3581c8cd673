"""Reader for CVAT for images 1.1 XML exports."""

from __future__ import annotations

import math


from ._common import (
    FrameBuilder,
    files_and_annotators,
    finish,
    iterparse_xml,
    reader_error,
    xml_float,
)

__all__ = ["read_cvat"]

_SUPPORTED = {"box", "polygon"}
_UNSUPPORTED = {"polyline", "points", "mask", "ellipse", "cuboid", "skeleton", "tag"}
_RESERVED = {"item", "annotator", "label", "object_id", "x0", "y0", "x1", "y1", "geometry",
             "width", "height", "occluded"}


def rotated_rectangle(x0, y0, x1, y1, degrees, *, about="center"):
    """Corners of the box (x0, y0, x1, y1) rotated by ``degrees`` clockwise on screen (the
    y axis points down), about its center or its top-left corner, as a flat list."""
    if about == "center":
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    else:
        cx, cy = x0, y0
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    out = []
    for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        dx, dy = x - cx, y - cy
        out += [cx + dx * c - dy * s, cy + dx * s + dy * c]
    return out


def _person(el):
    """The user name in an <assignee>/<owner> element (text, or a <username> child)."""
    if el is None:
        return None
    name = el.findtext("username")
    if name is None or not name.strip():
        name = el.text
    name = (name or "").strip()
    return name or None


def _bool(v):
    if v is None:
        return None
    return v.strip().lower() in ("1", "true", "yes")


def _points(path, entry, raw):
    if raw is None:
        raise reader_error(path, entry, "missing attribute 'points'")
    out = []
    for pair in raw.strip().split(";"):
        xy = pair.split(",")
        if len(xy) != 2:
            raise reader_error(path, entry, f"points must be 'x,y;x,y;...', found {pair!r}")
        try:
            x, y = float(xy[0]), float(xy[1])
        except ValueError:
            raise reader_error(path, entry, f"points holds a non-number in {pair!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise reader_error(path, entry, f"points holds a non-finite number in {pair!r}")
        out += [x, y]
    if len(out) >= 4 and out[0] == out[-2] and out[1] == out[-1]:
        out = out[:-2]
    return out


def read_cvat(path_or_paths, *, annotator=None, on_invalid: str = "raise",
              return_dropped: bool = False):
    """Read CVAT for images 1.1 XML exports (one per job or annotator).

    Parameters
    ----------
    path_or_paths : path, list of paths, or mapping {annotator: path}
        The exports.
    annotator : str or list of str, optional
        The annotator of each file. By default: the mapping key, else the job assignee
        (``meta/job/assignee``), else the task assignee (``meta/task/assignee``), else the
        file name stem. The task ``owner`` is *not* used: it is whoever created the task,
        often the same person for every job.
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable shapes (zero-area boxes, ...): raise a ReaderError naming file and shape,
        or drop them with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped shapes.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame: ``item`` is the image ``name``; ``<box>`` (xtl, ytl, xbr,
        ybr) gives a box, or a polygon when it has a nonzero ``rotation`` (degrees,
        clockwise about the box center); ``<polygon>`` (``points="x,y;x,y;..."``) gives a
        polygon. ``width``/``height`` come from the image. ``occluded`` is a boolean
        column, every ``<attribute name="...">`` child is a column of strings (an
        attribute whose name is a core column gets the prefix ``attr_``), and ``z_order``,
        ``source`` and ``group_id`` are kept when present. Images with no shape are
        coverage rows.

    Raises
    ------
    ReaderError
        Missing, empty or malformed file, XML with entity declarations (XXE, billion
        laughs) or external references, missing or non-numeric coordinates; the message
        names the file and the shape (``image[3] (name='a.jpg') box[0]``).

    Notes
    -----
    Other shapes (polyline, points, mask, ellipse, cuboid, skeleton, tag) and video
    tracks are skipped, counted and reported in a DroppedRowsWarning. The XML is parsed
    incrementally with :mod:`defusedxml`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> xml = '''<annotations><version>1.1</version>
    ...   <meta><task><assignee><username>ana</username></assignee></task></meta>
    ...   <image id="0" name="a.jpg" width="100" height="80">
    ...     <box label="cat" occluded="0" xtl="10" ytl="20" xbr="40" ybr="60"/>
    ...   </image>
    ...   <image id="1" name="b.jpg" width="100" height="80"/>
    ... </annotations>'''
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "job.xml"
    >>> _ = p.write_text(xml)
    >>> read_cvat(p)[["item", "annotator", "label", "x0", "y0", "x1", "y1", "occluded"]]
        item annotator label    x0    y0    x1    y1  occluded
    0  a.jpg       ana   cat  10.0  20.0  40.0  60.0     False
    1  b.jpg       ana   NaN   NaN   NaN   NaN   NaN      <NA>
    """
    files = files_and_annotators(path_or_paths, annotator, reader="read_cvat")
    b = FrameBuilder("cvat")
    for path, explicit in files:
        _read_one(path, explicit, b)
    return finish(b, on_invalid=on_invalid, return_dropped=return_dropped)


def _read_one(path, explicit, b: FrameBuilder):
    f = b.add_file(path)
    annotator = explicit
    saw_root = saw_image = False
    job_assignee = task_assignee = None
    n_images = 0
    stack = []
    for event, el in iterparse_xml(path):
        if event == "start":
            stack.append(el.tag)
            if len(stack) == 1:
                if el.tag != "annotations":
                    raise reader_error(path, None, f"not a CVAT XML export: the root element is <{el.tag}>, expected <annotations>")
                saw_root = True
            continue
        stack.pop()
        depth = len(stack)
        if depth == 1 and el.tag == "meta":
            job_assignee = _person(el.find("job/assignee"))
            task_assignee = _person(el.find("task/assignee"))
            el.clear()
        elif depth == 1 and el.tag == "image":
            if annotator is None:
                annotator = job_assignee or task_assignee or path.stem
            _image(path, f, b, el, n_images, annotator)
            n_images += 1
            saw_image = True
            el.clear()
        elif depth == 1 and el.tag == "track":
            if annotator is None:
                annotator = job_assignee or task_assignee or path.stem
            b.drop(path, f"track (id={el.get('id')})", "unsupported_shape",
                   "a video track (CVAT for video): export the task as 'CVAT for images 1.1'",
                   annotator=annotator, record={"tag": "track", **el.attrib})
            el.clear()
    if not saw_root:
        raise reader_error(path, None, "not a CVAT XML export")
    if not saw_image and not any(d["file"] == str(path) for d in b.dropped):
        raise reader_error(path, None, "no <image> elements: neither images nor annotations")


def _image(path, f, b: FrameBuilder, el, k, annotator):
    name = el.get("name")
    ientry = f"image[{k}]" + (f" (name={name!r})" if name else "")
    if not name:
        raise reader_error(path, ientry, "missing attribute 'name'")
    w = xml_float(path, ientry, el, "width", required=False)
    h = xml_float(path, ientry, el, "height", required=False)
    w = math.nan if w == 0 else w
    h = math.nan if h == 0 else h
    b.cover(name, annotator, width=w, height=h, file_idx=f, entry=ientry)
    counts: dict = {}
    for shape in el:
        tag = shape.tag
        j = counts.get(tag, 0)
        counts[tag] = j + 1
        entry = f"{ientry} {tag}[{j}]"
        if tag not in _SUPPORTED:
            detail = ("a tag (an image-level label, not a shape)" if tag == "tag"
                      else f"<{tag}> shapes are not supported (only box and polygon)")
            b.drop(path, entry, "unsupported_shape", detail, item=name, annotator=annotator,
                   record={"tag": tag, **shape.attrib})
            continue
        label = shape.get("label")
        if not label:
            raise reader_error(path, entry, "missing attribute 'label'")
        extras = {"occluded": _bool(shape.get("occluded"))}
        for key in ("z_order", "group_id"):
            v = shape.get(key)
            if v is not None:
                try:
                    extras[key] = int(v)
                except ValueError:
                    raise reader_error(path, entry, f"{key}={v!r} is not an integer") from None
        if shape.get("source") is not None:
            extras["source"] = shape.get("source")
        for attr in shape.findall("attribute"):
            an = attr.get("name")
            if not an:
                raise reader_error(path, entry, "an <attribute> has no name")
            col = f"attr_{an}" if an in _RESERVED or an in ("z_order", "group_id", "source") else an
            extras[col] = attr.text if attr.text is not None else ""
        kw = dict(width=w, height=h, file_idx=f, entry=entry, extras=extras)
        if tag == "box":
            x0 = xml_float(path, entry, shape, "xtl")
            y0 = xml_float(path, entry, shape, "ytl")
            x1 = xml_float(path, entry, shape, "xbr")
            y1 = xml_float(path, entry, shape, "ybr")
            rot = xml_float(path, entry, shape, "rotation", required=False)
            if not math.isnan(rot) and rot % 360 != 0:
                extras["rotation"] = rot
                b.add_polygon(name, annotator, label, [[rotated_rectangle(x0, y0, x1, y1, rot)]], **kw)
            else:
                b.add_box(name, annotator, label, x0, y0, x1, y1, **kw)
        else:
            ring = _points(path, entry, shape.get("points"))
            if len(ring) < 6:
                b.drop(path, entry, "degenerate_polygon", "a polygon with fewer than 3 points",
                       item=name, annotator=annotator, record={"tag": tag, **shape.attrib})
                continue
            b.add_polygon(name, annotator, label, [[ring]], **kw)
