# Over 400 lines: one format; images and video tracks share the shape parsing; ~100 are documentation.
"""Reader for CVAT XML 1.1 exports: "CVAT for images" and "CVAT for video"."""

from __future__ import annotations

import math
import warnings

import numpy as np

from iaa_frames.errors import AnnotatorNameWarning, ParameterError, ReaderError
from iaa_frames.geometry.ellipse import ellipse_ring
from iaa_frames.geometry.kinds import (
    CUBOID_2D,
    POINT_SET,
    POLYLINE,
    cuboid_2d_params,
    point_set_params,
    polyline_params,
)
from iaa_frames.geometry.kinds.registry import FRAME_COLUMNS

from .builder import FrameBuilder, finish
from .groups import with_groups
from .item_keys import ItemKeys, one_item_per_image
from .keypoints import joint_order, keypoint_params, skeleton_kind
from .paths import files_and_annotators, reader_error
from .safe_xml import iterparse_xml
from .shapes import rotated_rectangle
from .values import MAX_FILLED_BOXES, MAX_FRAMES, FillBudget, parse_float, parse_int, xml_float

__all__ = ["MAX_UNDECLARED_FRAMES", "RATER_KINDS", "read_cvat"]

#: The most frames a track may span in an export that declares no frame range (a track
#: gives one object per frame from its first shape to its last).
MAX_UNDECLARED_FRAMES = 100_000

_SUPPORTED = {"box", "polygon", "polyline", "points", "skeleton", "ellipse", "cuboid"}
_UNSUPPORTED = {"mask", "tag"}
#: The ``rater_kind`` of a shape's ``source``: drawn by a person (``manual``; ``semi-auto``,
#: a person's clicks turned into a shape by an interactive tool) or by a model (``auto``);
#: other sources (``file``: imported, ``consensus``: merged) say nothing of who drew it.
RATER_KINDS = {"manual": "human", "semi-auto": "human", "auto": "machine"}
#: What a shape without enough points is: (reason, detail, fewest coordinates).
_DEGENERATE = {
    "polygon": ("degenerate_polygon", "a polygon with fewer than 3 points", 6),
    "polyline": ("degenerate_polyline", "a polyline with fewer than 2 points", 4),
    "points": ("degenerate_points", "a points shape with no point", 2),
}
#: The columns the reader itself fills (besides the frame's): an ``<attribute>`` of one
#: of these names goes to ``attr_<name>`` and never replaces them (a ``track_id``
#: attribute would replace the track identity, a ``rotation`` one a box's rotation).
_OWN_COLUMNS = frozenset(
    {"occluded", "z_order", "group_id", "source", "rater_kind", "track_id", "keyframe", "rotation"}
)
_RESERVED = FRAME_COLUMNS | _OWN_COLUMNS


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


def _points(path, entry, raw, *, ring=True):
    """``x, y, x, y, ...`` of ``points="x,y;x,y;..."``; a ring (polygon) drops a closing
    point equal to the first."""
    if raw is None:
        raise reader_error(path, entry, "missing attribute 'points'")
    out = []
    for pair in raw.strip().split(";"):
        xy = pair.split(",")
        if len(xy) != 2:
            raise reader_error(path, entry, f"points must be 'x,y;x,y;...', found {pair!r}")
        try:
            x, y = parse_float(xy[0]), parse_float(xy[1])
        except ValueError:
            raise reader_error(path, entry, f"points holds a non-number in {pair!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise reader_error(path, entry, f"points holds a non-finite number in {pair!r}")
        out += [x, y]
    if ring and len(out) >= 4 and out[0] == out[-2] and out[1] == out[-1]:
        out = out[:-2]
    return out


def read_cvat(
    path_or_paths,
    *,
    annotator=None,
    item_key="name",
    on_invalid: str = "raise",
    return_dropped: bool = False,
    group: str | None = "video",
    max_frames: int = MAX_FRAMES,
    max_boxes: int = MAX_FILLED_BOXES,
):
    """Read CVAT XML 1.1 exports ("CVAT for images" or "CVAT for video"), one per job or
    annotator.

    Parameters
    ----------
    path_or_paths : path, list of paths, or mapping {annotator: path}
        The exports (``annotations.xml`` of the downloaded zip, renamed as you like).
    annotator : str or list of str, optional
        The annotator of every file (a string) or of each file (a list). By default: the
        mapping key, else the job assignee (``meta/job/assignee``), else the task assignee
        (``meta/task/assignee``), else the file name stem, with an
        :class:`~iaa_frames.errors.AnnotatorNameWarning` saying so. The task ``owner`` is
        *not* used: it is whoever created the task, often the same person for every job.
    item_key : {"name", "stem", "path", "id"} or callable, default "name"
        How an image ``name`` becomes the ``item`` (see :mod:`iaa_frames.io.item_keys`):
        by default its base name, so that ``photo.jpg`` lines up with the same image in
        other tools' exports; ``"id"``: the image ``id`` attribute. Two ``<image>`` records
        of one file that give one item are refused: pass ``"id"`` to read them as two.
    on_invalid : {"raise", "drop"}, default "raise"
        Unusable entries (a shape without a label, as Datumaro writes ``label=""``, a
        zero-area box, non-numeric coordinates, ...): raise a ReaderError naming the file
        and the shape, or drop them, counted, with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped shapes.
    group : str or None, default "video"
        The frames of the video exports form one group of this name (column ``group``),
        so that chance pairings never join two frames of the video (consecutive frames
        are near copies; see :func:`iaa_frames.validate`). CVAT names frames by number,
        so the frames of one call are frames of one video, and exports of it read in
        separate calls (one per annotator) get the same group; to compare several
        videos, read each with its own ``group`` and an ``item_key`` that makes its frame
        names distinct, and concatenate. Images get no group. None: no ``group`` column
        (every frame its own group, as before groups existed). A corpus of one video
        has no chance pairings then: its sigma is NaN with a note, the honest answer for
        frames of one shot.
    max_frames : int, default 1,000,000
        The most frames a video export's declared range (``start_frame``..``stop_frame``,
        segments, ``size``) may span: each frame is a covered item, and a few bytes can
        declare any range, so a larger one is a ReaderError.
    max_boxes : int, default 2,000,000
        The most boxes a video export's tracks fill in on frames between the shapes it
        writes (a shape held or interpolated to the next one, the last to the last
        frame), over every file: one shape of a few bytes can span every frame, so more
        is a ReaderError naming the track's shape, raised before they are made.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame.

        *CVAT for images*: ``item`` is the image ``name``; ``<box>`` (xtl, ytl, xbr, ybr)
        gives a box, or a polygon when it has a nonzero ``rotation`` (degrees, clockwise
        about the box center); ``<polygon>`` (``points="x,y;x,y;..."``) gives a polygon;
        ``<polyline>`` a line of the kind ``polyline`` (``pl_*`` columns,
        :mod:`iaa_frames.geometry.kinds.polyline`: up to 32 vertices as written, the last
        one repeated; a line of more vertices is resampled to 32 points at equal arc
        length); ``<points>`` a set of points of the kind ``point_set`` (``ps_n`` and
        ``ps_*`` columns, :mod:`iaa_frames.geometry.kinds.point`; even a single point: a
        ``<points>`` of more than 32 points is an error).
        ``width``/``height`` come from the image. Images with no shape are coverage rows.

        *CVAT for video*: every ``<track>`` becomes one object per frame on which it is
        visible, on items named ``frame_000123`` (CVAT's own frame names), with the columns
        ``track_id`` and ``keyframe``. The shapes written in the file are read as they
        are (CVAT writes every frame of a track, interpolated ones with
        ``keyframe="0"``); where frames are missing, CVAT's rules fill them: a shape with
        ``outside="1"`` ends the track's visibility until its next shape; after a visible
        shape the object stays visible, boxes (and their rotation) linearly interpolated
        up to the next visible shape, copied up to an ``outside`` shape or to the last
        frame of the job or task. Polygon, polyline and points frames between two
        differing visible shapes are not interpolated (CVAT's interpolation of them
        resamples the points): they are counted as dropped. Frame numbers are the task's,
        as CVAT writes them: ``start_frame``, then every ``step``-th frame
        (``<frame_filter>step=N</frame_filter>``) up to ``stop_frame``, so a task that
        starts at frame 10 and keeps every 3rd frame has the items ``frame_000010``,
        ``frame_000013``, ...; interpolation and held shapes fill those frames only, and
        a shape between them is counted as dropped (``frame_off_step``). Every frame of
        the job (``start_frame``..``stop_frame``), or of the task (the same, else its
        segments or ``size``, counted from 0 by the step), is covered by the annotator;
        the frame size is ``original_size`` (in ``<task>``, or beside ``<job>``).

        In both: ``occluded`` is a boolean column, every ``<attribute name="...">`` child is
        a column of strings (an attribute whose name is a core column or one the reader fills,
        ``occluded``, ``track_id``, ``keyframe``, ``rotation``, ``z_order``, ``group_id``,
        ``source``, gets the prefix ``attr_``; a second attribute of one name on a shape is
        counted as dropped, ``duplicate_attribute``), and ``z_order``, ``source`` and ``group_id`` are kept when present.
        ``rater_kind`` says who drew a shape, from its ``source``: ``"human"`` for
        ``manual`` and ``semi-auto`` (a person's clicks, shaped by an interactive tool),
        ``"machine"`` for ``auto`` (a model), missing for other sources (``file``:
        imported), for :func:`iaa_frames.rater_kind_agreement`.
        ``occluded`` and the ``<attribute>`` columns are the frame's attributes:
        ``attrs["iaa_attributes"]`` lists them for :func:`iaa_frames.attribute_agreement`
        (their text values are nominal unless ``levels=`` says otherwise).

    Raises
    ------
    ReaderError
        Missing, empty or malformed file, XML with entity declarations (XXE, billion
        laughs) or external references, missing or non-numeric coordinates; the message
        names the file and the shape (``image[3] (name='a.jpg') box[0]``,
        ``track[2] (id=5) box[7] (frame=12)``).

    Notes
    -----
    A ``<skeleton>`` (on an image, or the shapes of a skeleton track) is a keypoints
    object: its ``<points>`` elements are its joints (``outside="1"``: not labelled,
    ``occluded="1"``: occluded, else visible), of the keypoints kind of their labels
    (:mod:`iaa_frames.io.keypoints`: COCO's person keypoints give the kind ``keypoints``),
    scaled by the area of the box of its labelled joints. Its joints are the ``<meta>``
    labels whose ``<parent>`` is the skeleton's label (else those its track writes): a
    joint without an element on a frame (CVAT writes none once the joint's element
    track has ended) is not labelled there, and a ``<skeleton>`` with no element is an
    object with no labelled joint (not drawn; on an image, counted as dropped). A
    skeleton track's nested element tracks repeat its joints and are not read again,
    and its frames between two keyframes move the joints labelled on both linearly. An ``<ellipse>`` (``cx``, ``cy``,
    ``rx``, ``ry``, ``rotation`` clockwise in degrees) is a polygon of 64 vertices with the ellipse's area, whose IoU
    is the ellipse's to 1e-4 (:mod:`iaa_frames.geometry.ellipse`). A ``<cuboid>``
    (``xtl1, ytl1, xbl1, ybl1, xtr1, ytr1, xbr1, ybr1``, the first face, and the same
    ending in ``2``, the second) is a shape of the kind ``cuboid_2d``, its first face the
    front: two cuboids are compared by their faces
    (:mod:`iaa_frames.geometry.kinds.cuboid2d`); a cuboid track's frames between two
    keyframes move its corners linearly. Other shapes (mask, tag) are skipped, counted and reported in a DroppedRowsWarning. The XML is parsed incrementally with
    :mod:`defusedxml`.

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
    if group is not None and not (isinstance(group, str) and group):
        raise ParameterError(f"group must be a non-empty string or None, got {group!r}")
    b = FrameBuilder("cvat", on_invalid=on_invalid)
    keys = ItemKeys("path" if item_key == "id" else item_key)
    keys.by_id = item_key == "id"
    files = files_and_annotators(path_or_paths, annotator, reader="read_cvat")
    video: set = set()
    if isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1:
        raise ParameterError(f"max_frames must be a positive integer, got {max_frames!r}")
    budget = FillBudget.checked(max_boxes, "read_cvat")
    for path, explicit in files:
        _read_one(path, explicit, b, keys, video, (max_frames, budget))
    out = finish(b, on_invalid=on_invalid, return_dropped=return_dropped)
    groups = {} if group is None else dict.fromkeys(video, {group})
    return with_groups(out, groups, return_dropped=return_dropped, reader="read_cvat")


def _int_text(el, tag):
    text = el.findtext(tag) if el is not None else None
    try:
        return parse_int(text) if text is not None and text.strip() else None
    except ValueError:
        return None


def _int_or_text(text):
    """An integer attribute (ASCII digits, :func:`~iaa_frames.io.values.parse_int`), or
    the text as it is (None stays None)."""
    if text is None:
        return None
    try:
        return parse_int(text)
    except ValueError:
        return text


def _float_text(el, tag):
    text = el.findtext(tag) if el is not None else None
    try:
        v = parse_float(text) if text is not None and text.strip() else math.nan
    except ValueError:
        return math.nan
    return v if math.isfinite(v) and v > 0 else math.nan


def _step(path, owner) -> int:
    """The frame step of ``<frame_filter>`` (``step=N``; empty or absent: 1)."""
    text = owner.findtext("frame_filter") if owner is not None else None
    text = (text or "").strip()
    if not text:
        return 1
    key, _, value = text.partition("=")
    try:
        step = parse_int(value.strip()) if key.strip() == "step" else 0
    except ValueError:
        step = 0
    if step < 1:
        raise reader_error(
            path,
            "<meta>",
            f"frame_filter {text!r} is not 'step=N' with N a positive integer (the only "
            "filter CVAT writes); fix it or remove the element to read every frame",
        )
    return step


class _Meta:
    """What the <meta> of an export says: assignees, the frames, the frame size, the
    joints of each skeleton label.

    CVAT numbers the frames of a video export as the task's: ``start_frame``, then every
    ``step``-th frame (``frame_filter`` ``step=N``) up to ``stop_frame``; the
    ``segments`` and ``size`` count frames of the task from 0, one per step.
    """

    def __init__(self, el=None, path=None):
        job = el.find("job") if el is not None else None
        task = el.find("task") if el is not None else None
        owner = job if job is not None else task
        self.job_assignee = _person(el.find("job/assignee")) if el is not None else None
        self.task_assignee = _person(el.find("task/assignee")) if el is not None else None
        self.step = _step(path, owner)
        self.frames = None  # (first, last) frame of the export, when it says
        start, stop = _int_text(owner, "start_frame"), _int_text(owner, "stop_frame")
        size = _int_text(owner, "size")
        segs = owner.findall("segments/segment") if owner is not None else []
        bounds = [(_int_text(sg, "start"), _int_text(sg, "stop")) for sg in segs]
        bounds = [(a, z) for a, z in bounds if a is not None and z is not None]
        origin = start if start is not None else 0
        if start is not None and stop is not None and (stop >= start or not size):
            self.frames = (start, stop)
        elif bounds:  # segments count the task's frames from 0, one per step
            first = min(a for a, _ in bounds)
            last = max(z for _, z in bounds)
            self.frames = (origin + first * self.step, origin + last * self.step)
        elif size:
            self.frames = (origin, origin + (size - 1) * self.step)
        w = h = math.nan
        # a task writes original_size in <task>, a job beside <job> in <meta>
        for where in (job, task, el):
            if where is not None and where.find("original_size") is not None:
                w = _float_text(where.find("original_size"), "width")
                h = _float_text(where.find("original_size"), "height")
                break
        self.size = (w, h)
        self.joints = {}  # skeleton label -> its joint labels, from meta/*/labels
        labels = owner.findall("labels/label") if owner is not None else []
        for lab in labels:
            parent, name = lab.findtext("parent"), lab.findtext("name")
            if parent and name:
                self.joints.setdefault(parent, [])
                if name not in self.joints[parent]:
                    self.joints[parent].append(name)

    def frame_range(self) -> range | None:
        """The frames of the export, or None when it declares none."""
        if self.frames is None:
            return None
        return range(self.frames[0], self.frames[1] + 1, self.step)


def _read_one(path, explicit, b: FrameBuilder, keys: ItemKeys, video: set, limits):
    max_frames, budget = limits  # (the most frames, the FillBudget of boxes filled in)
    f = b.add_file(path)
    annotator = explicit
    saw_root = saw_content = False
    meta = _Meta()
    n_images = n_tracks = 0
    frames_seen: set = set()
    items: dict = {}  # item -> (entry, size) of the <image> that gave it
    stack = []

    def who():
        nonlocal annotator
        if annotator is None:
            annotator = meta.job_assignee or meta.task_assignee
            if annotator is None:
                annotator = path.stem
                message = (
                    f"{path}: the export names no assignee (meta/job/assignee, "
                    f"meta/task/assignee); its annotator is the file name {annotator!r}: "
                    "pass annotator= to name it"
                )
                warnings.warn(AnnotatorNameWarning(message), stacklevel=4)
        return annotator

    for event, el in iterparse_xml(path):
        if event == "start":
            stack.append(el.tag)
            if len(stack) == 1:
                if el.tag != "annotations":
                    why = f"not a CVAT XML export: the root element is <{el.tag}>, expected <annotations>"
                    raise reader_error(path, None, why)
                saw_root = True
            continue
        stack.pop()
        depth = len(stack)
        if depth == 1 and el.tag == "meta":
            meta = _Meta(el, path)
            el.clear()
        elif depth == 1 and el.tag == "image":
            _image(path, f, b, el, n_images, who(), keys, items, meta.joints)
            n_images += 1
            saw_content = True
            el.clear()
        elif depth == 1 and el.tag == "track":
            if not n_tracks:  # a video export: its frames are items
                _check_range(path, meta, max_frames)
            _track(path, f, b, el, n_tracks, who(), meta, frames_seen, (keys, budget))
            n_tracks += 1
            saw_content = True
            el.clear()
    if not saw_root:
        raise reader_error(path, None, "not a CVAT XML export")
    if n_tracks or (not n_images and meta.frames is not None):
        # a video export: every frame of the job/task was reviewed
        ann = who()
        _check_range(path, meta, max_frames)
        declared = meta.frame_range()
        frames = declared if declared is not None else sorted(frames_seen)
        w, h = meta.size
        for fr in frames:
            item = keys(_frame_name(fr), path=path, entry=f"frame {fr}")
            video.add(item)
            b.cover(item, ann, width=w, height=h, file_idx=f, entry=f"frame {fr}")
        saw_content = True
    if not saw_content:
        raise reader_error(
            path, None, "no <image> or <track> elements: neither images nor annotations"
        )


def _check_range(path, meta: _Meta, max_frames: int):
    """Refuse a declared frame range that is empty or longer than ``max_frames`` (each
    frame is one covered item, and a few bytes can declare any range)."""
    if meta.frames is None:
        return
    first, last = meta.frames
    # counted, not len(range): a range of more than 2**63 frames has no len()
    if not (last >= first and (last - first) // meta.step + 1 <= max_frames):
        raise reader_error(
            path,
            "<meta>",
            f"the export declares the frames {first:,}..{last:,}"
            + (f" (every {meta.step})" if meta.step > 1 else "")
            + f", not a range of 1 to max_frames={max_frames:,} frames (each is one "
            "covered item); pass a larger read_cvat(max_frames=) to read it",
        )


def _frame_name(frame: int) -> str:
    return f"frame_{frame:06d}"


def _shape_extras(path, entry, shape, b, *, item=None, annotator=None):
    """The extra columns of a shape; ``occluded`` and its ``<attribute>`` children are
    declared attributes of the builder ``b``. An attribute named like a column of the
    frame or of the reader (``track_id``, ``keyframe``, ``rotation``, ...) goes to
    ``attr_<name>``; a second attribute of one name is recorded as dropped
    (``duplicate_attribute``: the first is kept, as CVAT shows it)."""
    extras = {"occluded": _bool(shape.get("occluded"))}
    b.attributes["occluded"] = None
    for key in ("z_order", "group_id"):
        v = shape.get(key)
        if v is not None:
            try:
                extras[key] = parse_int(v)
            except ValueError:
                raise reader_error(path, entry, f"{key}={v!r} is not an integer") from None
    _source(extras, shape.get("source"))
    names: dict = {}  # attribute name -> its column
    for i, attr in enumerate(shape.iterfind("attribute")):
        an = attr.get("name")
        if not an:
            raise reader_error(path, entry, "an <attribute> has no name")
        if an in names:
            why = f"a second <attribute name={an!r}> of one shape; the first ({extras[names[an]]!r}) was kept"
            rec = {"tag": "attribute", "name": an, "text": attr.text}
            at = f"{entry} attribute[{i}] (name={an!r})"
            b.drop(path, at, "duplicate_attribute", why, item=item, annotator=annotator, record=rec)
            continue
        col = f"attr_{an}" if an in _RESERVED else an
        while col in extras:  # an attribute literally named attr_<column>
            col = f"attr_{col}"
        names[an] = col
        extras[col] = attr.text if attr.text is not None else ""
        b.attributes[col] = None
    return extras


def _source(extras: dict, source) -> None:
    """``source`` and the ``rater_kind`` it implies (:data:`RATER_KINDS`), into ``extras``."""
    if source is not None:
        extras["source"] = source
        if source.strip().lower() in RATER_KINDS:
            extras["rater_kind"] = RATER_KINDS[source.strip().lower()]


def _box_coords(path, entry, shape):
    x0 = xml_float(path, entry, shape, "xtl")
    y0 = xml_float(path, entry, shape, "ytl")
    x1 = xml_float(path, entry, shape, "xbr")
    y1 = xml_float(path, entry, shape, "ybr")
    rot = xml_float(path, entry, shape, "rotation", required=False)
    return x0, y0, x1, y1, (0.0 if math.isnan(rot) else rot)


def _add_box(b, item, annotator, label, coords, kw):
    x0, y0, x1, y1, rot = coords
    if rot % 360 != 0:
        kw["extras"]["rotation"] = rot
        b.add_polygon(item, annotator, label, [[rotated_rectangle(x0, y0, x1, y1, rot)]], **kw)
    else:
        b.add_box(item, annotator, label, x0, y0, x1, y1, **kw)


def _skeleton(path, entry, shape, label, joints=None):
    """A ``<skeleton>``'s elements (``<points label=... points="x,y">``, ``outside`` 1 not
    labelled, ``occluded`` 1 occluded): its keypoints kind and parameters (pixels; the
    scale is the area of the box of its labelled joints), or None when no joint is
    labelled (every element outside, or none written).

    ``joints``: the skeleton's joint labels (``<meta>``'s labels, else those its track
    writes); a joint it does not write is not labelled (CVAT writes no element of a
    joint whose element track has ended).
    """
    read = []  # (name, x, y, v) per element
    for j, el in enumerate(shape.findall("points")):
        where = f"{entry} points[{j}]"
        name = el.get("label")
        if not name:
            raise reader_error(path, where, "a skeleton element has no label")
        if _bool(el.get("outside")):
            read.append((name, 0.0, 0.0, 0.0))
            continue
        ring = _points(path, where, el.get("points"))
        if len(ring) != 2:
            why = f"a skeleton element holds one point, got {len(ring) // 2}"
            raise reader_error(path, where, why)
        read.append((name, *ring, 1.0 if _bool(el.get("occluded")) else 2.0))
    if not any(v for *_, v in read):
        return None
    names = [r[0] for r in read]
    if joints and set(names) <= set(joints):
        read += [(n, 0.0, 0.0, 0.0) for n in joints if n not in names]
        names = [r[0] for r in read]
    try:
        declared = joints if joints and sorted(joints) == sorted(names) else names
        kind = skeleton_kind(declared, label or "skeleton")
    except ParameterError as exc:
        raise reader_error(path, entry, str(exc)) from None
    if len(names) != kind.n_keypoints:
        why = f"{len(names)} skeleton elements, but {kind.name!r} has {kind.n_keypoints} joints"
        raise reader_error(path, entry, why)
    order = joint_order(kind, names)
    x, y, v = (np.array([r[k] for r in read])[order] for k in (1, 2, 3))
    return kind.name, keypoint_params(x, y, v)


def _between(geom, nxt, t):
    """A skeleton at fraction ``t`` between two keyframes: joints labelled on both move
    linearly, the others keep the first keyframe's."""
    name, p = geom
    a, c = np.asarray(p[:-1]).reshape(-1, 3), np.asarray(nxt[1][:-1]).reshape(-1, 3)
    both = (a[:, 2] > 0) & (c[:, 2] > 0)
    out = a.copy()
    out[both, :2] = a[both, :2] + (c[both, :2] - a[both, :2]) * t
    return name, keypoint_params(out[:, 0], out[:, 1], out[:, 2])


def _image(path, f, b: FrameBuilder, el, k, annotator, keys: ItemKeys, items: dict, joints):
    name = el.get("name")
    ientry = f"image[{k}]" + (f" (name={name!r})" if name else "")
    try:
        if getattr(keys, "by_id", False):
            if el.get("id") is None:
                raise reader_error(path, ientry, "missing attribute 'id' (item_key='id')")
            item = el.get("id")
        else:
            if not name:
                raise reader_error(path, ientry, "missing attribute 'name'")
            item = keys(name, path=path, entry=ientry)
        w = xml_float(path, ientry, el, "width", required=False)
        h = xml_float(path, ientry, el, "height", required=False)
    except ReaderError as exc:
        b.entry_failed(exc, path, ientry, annotator=annotator, record={"tag": "image", **el.attrib})
        return
    w = math.nan if w == 0 else w
    h = math.nan if h == 0 else h
    one_item_per_image(path, items, item, ientry, (w, h))
    b.cover(item, annotator, width=w, height=h, file_idx=f, entry=ientry)
    counts: dict = {}
    for shape in el:
        tag = shape.tag
        j = counts.get(tag, 0)
        counts[tag] = j + 1
        entry = f"{ientry} {tag}[{j}]"
        who = {"item": item, "annotator": annotator, "record": {"tag": tag, **shape.attrib}}
        if tag not in _SUPPORTED:
            detail = (
                "a tag (an image-level label, not a shape)"
                if tag == "tag"
                else f"<{tag}> shapes are not supported ({_SUPPORTED_TEXT})"
            )
            b.drop(path, entry, "unsupported_shape", detail, **who)
            continue
        try:
            label = shape.get("label") or None  # Datumaro writes label="" for no label
            if shape.get("label") is None:
                raise reader_error(path, entry, "missing attribute 'label'")
            extras = _shape_extras(path, entry, shape, b, item=item, annotator=annotator)
            kw = {"width": w, "height": h, "file_idx": f, "entry": entry, "extras": extras}
            geom = _geometry(path, entry, tag, shape, label, joints.get(label))
            if isinstance(geom, _Drop):
                b.drop(path, entry, *geom, **who)
                continue
            _add_shape(b, tag, item, annotator, label, geom, kw)
        except ReaderError as exc:
            b.entry_failed(exc, path, entry, **who)


class _Drop(tuple):
    """A shape read but not drawable: ``(reason, detail)`` for :meth:`FrameBuilder.drop`."""


_SUPPORTED_TEXT = "only box, polygon, polyline, points, skeleton, ellipse and cuboid"
#: A ``<cuboid>``'s corners, front face then back face, each in ring order (top-left,
#: top-right, bottom-right, bottom-left): the kind ``cuboid_2d``.
_CUBOID_CORNERS = tuple(
    (f"x{c}{face}", f"y{c}{face}") for face in "12" for c in ("tl", "tr", "br", "bl")
)


def _geometry(path, entry, tag, shape, label, joints=None):
    """The geometry of a shape of a supported tag, as :func:`_add_shape` takes it, or a
    :class:`_Drop` saying why it is not drawn (``joints``: those of a skeleton label,
    :func:`_skeleton`)."""
    if tag == "box":
        return _box_coords(path, entry, shape)
    if tag == "ellipse":
        return _ellipse(path, entry, shape)
    if tag == "cuboid":
        params = [xml_float(path, entry, shape, k) for xy in _CUBOID_CORNERS for k in xy]
        if CUBOID_2D.invalid(np.array([params]))[0]:
            return _Drop(("degenerate_cuboid", "a cuboid whose faces are not simple quadrilaterals of positive area"))  # fmt: skip
        return cuboid_2d_params(params[:8], params[8:])
    if tag == "skeleton":
        skel = _skeleton(path, entry, shape, label, joints)
        if skel is None:
            why = "a skeleton with every element outside or none written (no labelled joint)"
            return _Drop(("keypoints_none_labelled", why))
        return skel
    coords = _points(path, entry, shape.get("points"), ring=tag == "polygon")
    reason, detail, fewest = _DEGENERATE[tag]
    if len(coords) < fewest:
        return _Drop((reason, detail))
    if tag == "points" and len(coords) > 2 * POINT_SET.max_points:
        raise reader_error(
            path,
            entry,
            f"a points shape of {len(coords) // 2} points; the point set kind "
            f"{POINT_SET.name!r} holds at most {POINT_SET.max_points}",
        )
    return coords


def _ellipse(path, entry, shape):
    """An ``<ellipse cx cy rx ry rotation>`` as the flat ring of its polygon
    (:func:`~iaa_frames.geometry.ellipse.ellipse_ring`: its IoU is the ellipse's to
    1e-4), or a :class:`_Drop` when a radius is 0."""
    cx, cy, rx, ry = (xml_float(path, entry, shape, k) for k in ("cx", "cy", "rx", "ry"))
    rotation = xml_float(path, entry, shape, "rotation", required=False)
    if not (rx > 0 and ry > 0):
        return _Drop(("degenerate_ellipse", f"an ellipse with radii {rx:g} and {ry:g}"))
    ring = ellipse_ring(cx, cy, rx, ry, 0.0 if math.isnan(rotation) else rotation)
    return ring.ravel().tolist()


def _add_shape(b, tag, item, annotator, label, geom, kw):
    """Add a shape of the tag ``tag`` from its :func:`_geometry`: ``<polyline>`` is the
    kind ``polyline`` (:func:`~iaa_frames.geometry.kinds.polyline_params`), ``<points>``
    the kind ``point_set``."""
    if tag == "box":
        _add_box(b, item, annotator, label, geom, kw)
    elif tag == "skeleton":
        b.add_shape(item, annotator, label, geom[0], geom[1], **kw)
    elif tag in ("polygon", "ellipse"):
        b.add_polygon(item, annotator, label, [[geom]], **kw)
    elif tag == "cuboid":
        b.add_shape(item, annotator, label, CUBOID_2D.name, list(geom), **kw)
    elif tag == "polyline":
        b.add_shape(item, annotator, label, POLYLINE.name, polyline_params(POLYLINE, geom), **kw)
    else:
        b.add_shape(item, annotator, label, POINT_SET.name, point_set_params(POINT_SET, geom), **kw)


def _track_joints(el) -> list:
    """The joint labels a skeleton track writes (its ``<skeleton>`` elements' ``<points>``),
    in the order first written."""
    out: dict = {}
    for skel in el.iterfind("skeleton"):
        for pt in skel.iterfind("points"):
            if pt.get("label"):
                out.setdefault(pt.get("label"), None)
    return list(out)


def _track(path, f, b: FrameBuilder, el, k, annotator, meta: _Meta, frames_seen, keyed):
    keys, budget = keyed  # ItemKeys, and the FillBudget of the boxes filled in
    tid = el.get("id")
    tentry = f"track[{k}]" + (f" (id={tid})" if tid is not None else "")
    label = el.get("label") or None
    base = {"track_id": _int_or_text(tid)}
    if isinstance(group_id := _int_or_text(el.get("group_id")), int):
        base["group_id"] = group_id
    _source(base, el.get("source"))
    w, h = meta.size
    first, last = meta.frames if meta.frames else (None, None)
    step = meta.step
    joints = meta.joints.get(label) or _track_joints(el)
    shapes = []  # (frame, tag, outside, keyframe, entry, coords or ring, extras)
    counts: dict = {}
    for shape in el:
        tag = shape.tag
        j = counts.get(tag, 0)
        counts[tag] = j + 1
        fr_text = shape.get("frame")
        entry = f"{tentry} {tag}[{j}]" + (f" (frame={fr_text})" if fr_text is not None else "")
        record = {"tag": tag, **shape.attrib}
        if tag == "track" and el.find("skeleton") is not None:
            continue  # an element track of a skeleton: the same joints as its <skeleton>s
        if tag == "track":  # element tracks without the skeleton's shapes
            sub_id = shape.get("id")
            sub_entry = entry + (f" (id={sub_id})" if sub_id is not None else "")
            why = "a skeleton's element track outside a skeleton track is not supported"
            b.drop(path, sub_entry, "unsupported_shape", why, annotator=annotator, record=record)
            continue
        try:
            fr = _int_or_text(fr_text)
            if not isinstance(fr, int):
                raise reader_error(path, entry, f"frame={fr_text!r} is not a frame number")
            who = {"item": _frame_name(fr), "annotator": annotator, "record": record}
            if first is not None and (fr - first) % step:
                why = (
                    f"frame {fr} is not a frame of the export: it has every {step}th frame "
                    f"from {first} (start_frame, frame_filter 'step={step}')"
                )
                b.drop(path, entry, "frame_off_step", why, **who)
                continue
            if first is not None and not first <= fr <= last:
                # kept as the end of an interpolation, but no object past the declared frames
                why = (
                    f"frame {fr} is outside the frames the export declares "
                    f"({first}-{last}: start_frame/stop_frame, segments or size)"
                    + (f", every {step}th" if step > 1 else "")
                )
                b.drop(path, entry, "frame_out_of_range", why, **who)
            else:
                frames_seen.add(fr)
            if tag not in _SUPPORTED:
                why = f"<{tag}> track shapes are not supported ({_SUPPORTED_TEXT})"
                b.drop(path, entry, "unsupported_shape", why, **who)
                continue
            outside = bool(_bool(shape.get("outside")))
            keyframe = _bool(shape.get("keyframe"))
            if outside:
                shapes.append((fr, tag, True, keyframe, entry, None, None))
                continue
            if label is None and el.get("label") is None:
                raise reader_error(path, tentry, "missing attribute 'label'")
            own = _shape_extras(path, entry, shape, b, item=_frame_name(fr), annotator=annotator)
            extras = {**base, **own, "keyframe": keyframe}
            geom = _geometry(path, entry, tag, shape, label, joints)
            if isinstance(geom, _Drop):
                if tag != "skeleton":  # a skeleton with every joint outside: not drawn here
                    b.drop(path, entry, *geom, **who)
                shapes.append((fr, tag, True, keyframe, entry, None, None))  # not drawable
                continue
            shapes.append((fr, tag, False, keyframe, entry, geom, extras))
        except ReaderError as exc:
            b.entry_failed(exc, path, entry, annotator=annotator, record=record)
    shapes.sort(key=lambda s: s[0])
    if first is None and shapes and shapes[-1][0] - shapes[0][0] > MAX_UNDECLARED_FRAMES:
        # no frame range declared: a track cannot make millions of objects from two shapes
        why = (
            f"spans frames {shapes[0][0]}-{shapes[-1][0]}, more than "
            f"{MAX_UNDECLARED_FRAMES:,}, and the export declares no frame range "
            "(meta start_frame/stop_frame, segments or size): export the job again "
            "from CVAT, which writes it"
        )
        exc = reader_error(path, tentry, why)
        b.entry_failed(exc, path, tentry, annotator=annotator, record={"tag": "track", **el.attrib})
        return
    for n, (fr, tag, outside, _keyframe, entry, geom, extras) in enumerate(shapes):
        if n + 1 < len(shapes) and shapes[n + 1][0] == fr:
            why = f"track {tid} has two shapes on frame {fr}; the later one was kept"
            who = {"item": _frame_name(fr), "annotator": annotator}
            b.drop(path, entry, "duplicate_track_frame", why, **who)
            continue
        if outside or (last is not None and fr > last):
            continue
        nxt = shapes[n + 1] if n + 1 < len(shapes) else None
        end = nxt[0] - 1 if nxt is not None else max(fr, last if last is not None else fr)
        if last is not None:  # only the frames the export declares
            end = min(end, last)
        frames = range(fr if first is None else max(fr, first), end + 1, step)
        budget.spend(path, entry, len(frames) - (fr in frames))  # before they are made
        for g in frames:
            item = keys(_frame_name(g), path=path, entry=entry)
            gentry = entry if g == fr else f"{entry} held to frame {g}"
            ex = dict(extras)
            if g == fr:
                shape_geom = geom
            elif nxt is not None and not nxt[2] and nxt[1] == tag and nxt[5] != geom:
                if tag in ("box", "cuboid"):  # linear between two visible boxes (corners)
                    t = (g - fr) / (nxt[0] - fr)
                    shape_geom = tuple(a + (c - a) * t for a, c in zip(geom, nxt[5], strict=True))
                    gentry = f"{entry} interpolated to frame {g}"
                elif tag == "skeleton" and nxt[5][0] == geom[0]:  # joints, as CVAT does
                    shape_geom = _between(geom, nxt[5], (g - fr) / (nxt[0] - fr))
                    gentry = f"{entry} interpolated to frame {g}"
                else:
                    gap = f"frames {fr + step}-{end}"
                    why = (
                        f"{tag} track {tid}: {gap} between two keyframes are not written in "
                        "the export (export again from CVAT, which writes them)"
                    )
                    reason = "track_gap_not_interpolated"
                    b.drop(path, f"{entry} {gap}", reason, why, item=item, annotator=annotator)
                    break
            else:
                shape_geom = geom  # held: copied until the next shape or the last frame
            if g != fr:
                ex["keyframe"] = False
            kw = {"width": w, "height": h, "file_idx": f, "entry": gentry, "extras": ex}
            _add_shape(b, tag, item, annotator, label, shape_geom, kw)
