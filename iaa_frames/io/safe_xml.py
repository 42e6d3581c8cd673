"""Safe XML parsing for the XML readers (CVAT, Pascal VOC).

Exports are untrusted input: they are parsed with :mod:`defusedxml`, which refuses entity
declarations (billion laughs) and external references (XXE). Every failure, unsafe,
truncated or malformed XML, is a :class:`~iaa_frames.errors.ReaderError` naming the file
with the line and column.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse, parse

from iaa_frames.errors import ReaderError

from .paths import reader_error

__all__ = ["iterparse_xml", "parse_xml"]


def _xml_error(path, exc) -> ReaderError:
    if isinstance(exc, DefusedXmlException):
        return reader_error(
            path,
            None,
            f"unsafe XML refused ({type(exc).__name__}: {exc}); "
            "entity declarations and external references are not allowed",
        )
    pos = getattr(exc, "position", None)
    where = f" at line {pos[0]}, column {pos[1] + 1}" if pos else ""
    msg = str(exc)
    if isinstance(exc, LookupError) and "encoding" in msg:  # one Python lacks
        return reader_error(path, None, f"invalid XML: its declaration names an {msg}")
    if "no element found" in msg:
        return reader_error(path, None, f"truncated or empty XML{where}")
    return reader_error(path, None, f"invalid XML{where}: {msg}")


def parse_xml(path: Path):
    """Parse an XML file safely with :mod:`defusedxml` and return the root element."""
    try:
        return parse(
            str(path), forbid_dtd=False, forbid_entities=True, forbid_external=True
        ).getroot()
    except (ET.ParseError, DefusedXmlException, ValueError, LookupError) as exc:
        raise _xml_error(path, exc) from None
    except OSError as exc:
        raise reader_error(path, None, f"cannot read: {exc}") from None


def iterparse_xml(path: Path, events=("start", "end")):
    """Safe incremental XML parsing (:func:`defusedxml.ElementTree.iterparse`)."""
    try:
        yield from iterparse(
            str(path), events=events, forbid_dtd=False, forbid_entities=True, forbid_external=True
        )
    except (ET.ParseError, DefusedXmlException, ValueError, LookupError) as exc:
        raise _xml_error(path, exc) from None
