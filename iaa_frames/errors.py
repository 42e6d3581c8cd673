"""Errors and warnings raised by iaa_frames.

Every error the package raises on purpose derives from :class:`IAAError`, which is a
:class:`ValueError`, so ``except ValueError`` keeps working for callers that do not know
the package.
"""

from __future__ import annotations

__all__ = [
    "IAAError",
    "SchemaError",
    "InvalidAnnotationError",
    "ParameterError",
    "ReaderError",
    "NotComparableError",
    "IAAWarning",
    "DroppedRowsWarning",
    "RepairedGeometryWarning",
    "AnnotatorNameWarning",
    "CopiedItemsWarning",
    "ItemKeysWarning",
]


class IAAError(ValueError):
    """Root of every error raised by iaa_frames."""


class SchemaError(IAAError):
    """The frame lacks required columns or has columns of the wrong kind."""


class InvalidAnnotationError(IAAError):
    """One or more rows cannot be used; the message names the row and the reason."""


class ParameterError(IAAError):
    """A parameter value is out of range or of the wrong type."""


class ReaderError(IAAError):
    """An annotation export cannot be read; the message names the file and the entry."""


class NotComparableError(IAAError):
    """The corpus cannot give agreement (fewer than two annotators, no item annotated by
    two of them, ...); the message says what is missing and how to fix it."""


class IAAWarning(UserWarning):
    """Root of every warning issued by iaa_frames."""


class DroppedRowsWarning(IAAWarning):
    """Rows were dropped; ``counts`` maps each reason to its number of rows and
    ``dropped`` holds the dropped rows with a ``reason`` column."""

    def __init__(self, message, counts=None, dropped=None):
        super().__init__(message)
        self.counts = dict(counts or {})
        self.dropped = dropped


class RepairedGeometryWarning(IAAWarning):
    """Invalid polygons were repaired with :func:`shapely.make_valid`."""


class AnnotatorNameWarning(IAAWarning):
    """An export records no annotator, and the reader named one (the name of the file or
    directory): pass ``annotator=`` to choose the name and silence the warning."""


class CopiedItemsWarning(IAAWarning):
    """Items look like copies of one another (the same boxes drawn by the same
    annotators: video frames, burst photos, augmented copies) and the frame has no
    ``group`` column to keep chance pairings from joining them; ``copies`` holds the
    table of :func:`iaa_frames.core.matching.copies.find_copies`."""

    def __init__(self, message, copies=None):
        super().__init__(message)
        self.copies = copies


class ItemKeysWarning(IAAWarning):
    """Agreement is far below chance and the annotators' work on the same item is further
    apart than chance on most items: the item keys may not line up (one annotator's
    annotations read against other images). ``annotators`` names the annotators whose
    pairs are below chance on most items, ``share`` the share of items below chance
    (:func:`iaa_frames.api.keys.item_keys_warning`)."""

    def __init__(self, message, annotators=(), share=float("nan")):
        super().__init__(message)
        self.annotators = tuple(annotators)
        self.share = share
