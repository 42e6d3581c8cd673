"""Item keys: how an image named by an export becomes the ``item`` of the tidy frame.

Tools name the same image differently: CVAT writes ``photo.jpg``, COCO ``file_name``
(often ``photo.jpg``, sometimes ``train/photo.jpg``), Label Studio the upload path
``/data/upload/1/48c2f1a0-photo.jpg`` (its upload step prefixes 8 hex digits and a dash),
Darwin ``item.path`` + ``item.name``, YOLO only the label file stem ``photo``. Every reader
takes ``item_key=`` to turn these *sources* into items that line up across tools:

==========  ===================================================================
``"name"``  the base name (``photo.jpg``), the default of every reader
``"stem"``  the base name without its extension (``photo``); use it to line up
            YOLO labels, which name no image, with other tools
``"path"``  the source exactly as the export writes it
callable    ``f(source) -> item``, for anything else (the source is a string)
==========  ===================================================================

For ``"name"`` and ``"stem"`` the base name is taken after removing a URL's query and
fragment, with ``/`` and ``\\`` both separators; Label Studio sources are first reduced
to the file they point at (:func:`labelstudio_file`). When two different sources of one
export get the same key (``a/0001.jpg`` and ``b/0001.jpg`` with ``"name"``), the reader
raises a :class:`~iaa_frames.errors.ReaderError` naming both and suggesting
``item_key="path"``: two images are never merged silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs, unquote, urlsplit

from iaa_frames.errors import ParameterError

from .paths import reader_error

__all__ = [
    "ITEM_KEYS",
    "ItemKeys",
    "base_name",
    "item_key_function",
    "labelstudio_file",
    "one_item_per_image",
    "stem",
]

#: The named item keys.
ITEM_KEYS = ("name", "stem", "path")

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-(?=.)")


def _strip_url(source: str) -> str:
    if _URL.match(source):
        parts = urlsplit(source)
        return unquote(parts.path)
    return source.split("?", 1)[0].split("#", 1)[0] if "?" in source or "#" in source else source


def base_name(source) -> str:
    """The base name of a path or URL (``/a/b/photo.jpg?x=1`` -> ``photo.jpg``).

    Examples
    --------
    >>> base_name("s3://bucket/dir/photo.jpg"), base_name("C:\\\\data\\\\photo.jpg")
    ('photo.jpg', 'photo.jpg')
    """
    s = _strip_url(str(source)).replace("\\", "/").rstrip("/")
    return s.rsplit("/", 1)[-1]


def stem(source) -> str:
    """The base name without its last extension (``photo.v2.jpg`` -> ``photo.v2``).

    Examples
    --------
    >>> stem("/data/photo.jpg"), stem("frame_000012")
    ('photo', 'frame_000012')
    """
    name = base_name(source)
    head, dot, _ = name.rpartition(".")
    return head if dot and head else name


def labelstudio_file(source: str) -> str:
    """The file a Label Studio task source points at.

    * local storage, ``/data/local-files/?d=dir/photo.jpg``: the ``d`` parameter;
    * uploads, ``/data/upload/1/48c2f1a0-photo.jpg``: the 8-hex-digit prefix that Label
      Studio adds on upload is removed (``/data/upload/1/photo.jpg``);
    * anything else (URLs, cloud storage) is returned unchanged.

    Examples
    --------
    >>> labelstudio_file("/data/upload/1/48c2f1a0-photo.jpg")
    '/data/upload/1/photo.jpg'
    >>> labelstudio_file("/data/local-files/?d=images/photo.jpg")
    'images/photo.jpg'
    >>> labelstudio_file("https://example.com/48c2f1a0-photo.jpg")
    'https://example.com/48c2f1a0-photo.jpg'
    """
    s = str(source)
    if "local-files" in s and "?" in s:
        d = parse_qs(s.split("?", 1)[1]).get("d")
        if d:
            return d[0]
    if "/data/upload/" in s or s.startswith("data/upload/"):
        head, _, name = s.rpartition("/")
        return f"{head}/{_UPLOAD_PREFIX.sub('', name)}"
    return s


def _as_written(source):
    return source


def item_key_function(item_key) -> Callable:
    """The function ``source -> item`` of an ``item_key=`` value (see the module docs).

    Examples
    --------
    >>> item_key_function("stem")("images/train/photo.jpg")
    'photo'
    """
    if callable(item_key):
        return item_key
    if item_key == "name":
        return base_name
    if item_key == "stem":
        return stem
    if item_key == "path":
        return _as_written
    raise ParameterError(f"item_key must be 'name', 'stem', 'path' or a callable, got {item_key!r}")


def one_item_per_image(path, items: dict, item, entry: str, size) -> None:
    """Refuse a second image record of one export that gives an item already given by
    another record (``items``: item -> (entry, size), filled here): two images, maybe of
    different sizes, are never merged into one item silently. The error is fatal (a key
    that cannot tell the images apart, not a bad entry) and says to pass ``item_key="id"``.
    """
    prev = items.setdefault(item, (entry, size))
    if prev[0] == entry:
        return
    sizes = ", ".join("no size" if w != w else f"{w:g} x {h:g}" for w, h in (prev[1], size))
    why = (
        f"gives the item {item!r}, as {prev[0]} does ({sizes}): two image records cannot "
        "be one item; pass item_key='id' to read them as two items (named by their image "
        "ids), or remove the duplicate from the export"
    )
    exc = reader_error(path, entry, why)
    exc.fatal = True
    raise exc


class ItemKeys:
    """Applies ``item_key`` to the sources of one reader call, and refuses to merge two
    different sources of one export (``scope``) into one item."""

    def __init__(self, item_key="name", *, pre: Callable | None = None):
        self.key = item_key
        self.func = item_key_function(item_key)
        self.pre = pre if item_key in ("name", "stem") else None
        self.seen: dict = {}  # (scope, key) -> source
        self.cache: dict = {}

    def __call__(self, source, *, scope=None, path=None, entry=None):
        hit = self.cache.get((scope, source))
        if hit is not None:
            return hit
        raw = source
        if self.pre is not None:
            source = self.pre(source)
        try:
            key = self.func(source)  # a user callable may raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            why = f"item_key failed on {raw!r}: {type(exc).__name__}: {exc}"
            raise reader_error(path, entry, why) from None
        if key is None or (isinstance(key, str) and not key):
            raise reader_error(path, entry, f"item_key gave an empty item for {raw!r}")
        prev = self.seen.setdefault((scope, key), raw)
        if prev != raw:
            how = self.key if isinstance(self.key, str) else "the item_key function"
            why = (
                f"{prev!r} and {raw!r} both become item {key!r} with item_key={how!r}; pass "
                "item_key='path' (or a function) to keep them apart"
            )
            exc = reader_error(path, entry, why)
            exc.fatal = True  # a wrong item_key, not a bad entry: never dropped
            raise exc
        self.cache[(scope, raw)] = key
        return key
