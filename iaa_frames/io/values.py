"""Checked numbers and coordinates from the records of an export.

A reader never lets a value it cannot use through: a coordinate that is not a finite
number, a size that is negative, a ring with an odd number of coordinates is a
:class:`~iaa_frames.errors.ReaderError` naming the file, the entry and the field.
Booleans are not numbers here (JSON ``true`` is not ``1``).

Examples
--------
>>> is_number(3), is_number(2.5), is_number(True), is_number("3")
(True, True, False, False)
>>> flat_ring("a.json", "annotations[0]", [0, 0, 4, 0, 4, 3, 0, 0], "segmentation[0]")
[0, 0, 4, 0, 4, 3]
"""

from __future__ import annotations

import math

from iaa_frames.errors import ParameterError

from .paths import reader_error

__all__ = [
    "CANVAS_SLACK",
    "MAX_FILLED_BOXES",
    "MAX_FRAMES",
    "FillBudget",
    "PLAIN_NUMBER",
    "flat_ring",
    "is_number",
    "is_size",
    "json_list",
    "json_object",
    "line_names",
    "number",
    "on_canvas",
    "parse_float",
    "parse_int",
    "size_value",
    "xml_float",
]

_NUMBER_TYPES = {int, float}

#: The most frames a video export may span (``read_cvat(max_frames=)``,
#: ``read_mot(max_frames=)``): every frame of it is covered, one row each, and a few bytes
#: can declare any range.
MAX_FRAMES = 1_000_000
#: The most boxes a video reader fills in on the frames between the shapes an export
#: writes (``read_cvat(max_boxes=)``, ``read_labelstudio_video(max_boxes=)``): a box held
#: or interpolated to the next keyframe or to the last frame is a row of about 700 bytes,
#: and one keyframe of a few bytes can span every frame of the video.
MAX_FILLED_BOXES = 2_000_000
#: How far past an edge of the image a coordinate given relative to it (a fraction, a
#: percent) may lie, in image sizes: exports hold small excursions (a box dragged over the
#: border, the corners of a rotated rectangle), which are kept as written; a coordinate
#: farther out is no excursion but another unit (pixels written as fractions or percent).
CANVAS_SLACK = 1.0
#: Plain ASCII numbers, as the text formats write them (no ``_``, no other digits).
PLAIN_NUMBER = r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*"


def parse_float(text: str) -> float:
    """A number written in a text export (XML, a label line): plain ASCII only. Python's
    ``float`` also reads ``1_0`` as 10 and non-ASCII digits (``\u0661``): a ValueError
    here, as for any other text that is no number.

    Examples
    --------
    >>> parse_float(" 2.5e1 "), parse_float("-0")
    (25.0, -0.0)
    >>> parse_float("1_0")
    Traceback (most recent call last):
    ...
    ValueError: not a plain number: '1_0'
    """
    if not text.isascii() or "_" in text:
        raise ValueError(f"not a plain number: {text!r}")
    return float(text)


def parse_int(text: str) -> int:
    """An integer written in a text export: optional sign and ASCII digits only
    (``0_2``, ``1.0``, non-ASCII digits are a ValueError).

    Examples
    --------
    >>> parse_int(" 12 "), parse_int("-3")
    (12, -3)
    """
    s = text.strip()
    if not s.isascii() or not s.lstrip("+-").isdigit() or s.count("-") + s.count("+") > 1:
        raise ValueError(f"not a plain integer: {text!r}")
    return int(s)


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_object(path, entry, v, what: str) -> dict:
    """``v``, or a ReaderError when it is not a JSON object (``what`` names it)."""
    if not isinstance(v, dict):
        raise reader_error(path, entry, f"{what} must be a JSON object, got {type(v).__name__}")
    return v


def is_size(v) -> bool:
    """Whether ``v`` is a list of two positive integers (a mask's ``[height, width]``)."""
    return isinstance(v, list) and len(v) == 2 and all(type(x) is int and x > 0 for x in v)


def json_list(path, entry, v, name: str = "") -> list:
    """``v`` as a list (None: empty), or a ReaderError when it is something else."""
    if v is None:
        return []
    if not isinstance(v, list):
        what = f"{name} must be a list" if name else "must be a list"
        raise reader_error(path, entry, f"{what}, got {type(v).__name__}")
    return v


def number(path, entry, v, name) -> float:
    if not is_number(v):
        raise reader_error(path, entry, f"{name} must be a number, got {type(v).__name__} {v!r}")
    v = float(v)
    if not math.isfinite(v):
        raise reader_error(path, entry, f"{name} must be finite, got {v!r}")
    return v


def size_value(path, entry, v, name) -> float:
    """An image size: a positive number, or NaN when absent (None/0 counts as unknown)."""
    if v is None or v == 0:
        return math.nan
    v = number(path, entry, v, name)
    if v < 0:
        raise reader_error(path, entry, f"{name} must be positive, got {v!r}")
    return v


def flat_ring(path, entry, values, name) -> list:
    """Validate a flat [x1, y1, x2, y2, ...] list and drop an explicit closing point."""
    if not isinstance(values, list):
        raise reader_error(
            path, entry, f"{name} must be a list of numbers, got {type(values).__name__}"
        )
    if len(values) % 2:
        raise reader_error(path, entry, f"{name} has an odd number of coordinates ({len(values)})")
    if not set(map(type, values)) <= _NUMBER_TYPES:
        bad = next(v for v in values if type(v) not in _NUMBER_TYPES)
        raise reader_error(path, entry, f"{name} holds a non-number {bad!r}")
    if len(values) >= 4 and values[0] == values[-2] and values[1] == values[-1]:
        values = values[:-2]
    return values


def xml_float(path, entry, el, name, *, attr=True, required=True):
    """A number from an XML attribute (``attr=True``) or a child element's text."""
    raw = el.get(name) if attr else el.findtext(name)
    if raw is None or (not attr and raw.strip() == ""):
        if required:
            what = f"attribute {name!r}" if attr else f"element <{name}>"
            raise reader_error(path, entry, f"missing {what}")
        return math.nan
    try:
        v = parse_float(raw)
    except ValueError:
        what = f"attribute {name}" if attr else f"<{name}>"
        raise reader_error(path, entry, f"{what}={raw!r} is not a number") from None
    if not math.isfinite(v):
        raise reader_error(path, entry, f"{name}={raw!r} is not a finite number")
    return v


def on_canvas(path, entry, xs, ys, extent: float = 1.0, unit: str = "fractions") -> None:
    """Refuse coordinates relative to the image (``extent`` is the image's size in their
    unit: 1 for fractions, 100 for percent) that lie more than :data:`CANVAS_SLACK` image
    sizes past an edge: a ReaderError naming the file, the entry, the coordinate and the
    unit; coordinates within are left as they are (not clipped).

    Examples
    --------
    >>> on_canvas("a.json", "shapes[0]", [0.1, 1.3], [-0.2, 0.5])  # small excursions
    >>> on_canvas("a.json", "shapes[0]", [10, 60], [10, 60])
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: a.json: shapes[0]: the x coordinate 10 lies 9 image widths past the image's edge: coordinates are fractions of the image (0 to 1; up to 1 image size past an edge is kept); pixels written as fractions?
    """
    lo, hi = -CANVAS_SLACK * extent, (1 + CANVAS_SLACK) * extent
    for axis, size, values in (("x", "widths", xs), ("y", "heights", ys)):
        for v in values:
            if not lo <= v <= hi:
                past = (v - extent if v > extent else -v) / extent
                raise reader_error(
                    path,
                    entry,
                    f"the {axis} coordinate {v:g} lies {past:g} image {size} past the "
                    f"image's edge: coordinates are {unit} of the image (0 to {extent:g}; up "
                    f"to {CANVAS_SLACK:g} image size past an edge is kept); pixels written as "
                    f"{unit}?",
                )


class FillBudget:
    """The boxes a video reader fills in between written shapes, counted over one read
    and refused past ``limit`` before they are made: a ReaderError naming the file, the
    track's entry and the parameter of ``reader`` that raises the limit.

    Examples
    --------
    >>> budget = FillBudget(10, "read_cvat")
    >>> budget.spend("v.xml", "track[0] box[0]", 8)
    >>> budget.spend("v.xml", "track[1] box[0]", 8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: v.xml: track[1] box[0]: the tracks fill in 16 boxes ...
    """

    def __init__(self, limit: int, reader: str):
        self.limit, self.reader, self.used = limit, reader, 0

    @staticmethod
    def checked(limit, reader: str) -> FillBudget:
        """A budget of ``limit`` boxes, or a ParameterError when it is no positive
        integer."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ParameterError(f"max_boxes must be a positive integer, got {limit!r}")
        return FillBudget(limit, reader)

    def spend(self, path, entry, n: int) -> None:
        """Count ``n`` more filled boxes; a ReaderError once the limit is passed."""
        self.used += n
        if self.used > self.limit:
            raise reader_error(
                path,
                entry,
                f"the tracks fill in {self.used:,} boxes on the frames between the shapes "
                f"the export writes, above max_boxes={self.limit:,} (one keyframe of a few "
                "bytes can span every frame, each box a row); pass a larger "
                f"{self.reader}(max_boxes=) to read it",
            )


def line_names(path, text: str) -> list[str]:
    """The names of a file of one name per line (``classes.txt``, ``obj.names``,
    MOTChallenge's ``labels.txt``), whose line number is the class index: blank lines at
    the end are passed over; a blank line between names is a ReaderError naming it, as
    it would number every later class one less than the tools that write the indices.

    Examples
    --------
    >>> line_names("classes.txt", "car\\nperson\\n\\n")
    ['car', 'person']
    >>> line_names("classes.txt", "car\\n\\nperson\\n")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: classes.txt: line 2: a blank line between class names: the class of each line is its number, so the names after it would name other classes; remove it or name the class
    """
    names = [line.strip() for line in text.splitlines()]
    while names and not names[-1]:
        names.pop()
    if "" in names:
        raise reader_error(
            path,
            f"line {names.index('') + 1}",
            "a blank line between class names: the class of each line is its number, so "
            "the names after it would name other classes; remove it or name the class",
        )
    return names
