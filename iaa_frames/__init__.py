"""iaa_frames: chance-corrected inter-annotator agreement for boxes and polygons.

Importing the package registers the ``DataFrame.iaa`` accessor.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from .errors import (
    DroppedRowsWarning,
    IAAError,
    IAAWarning,
    InvalidAnnotationError,
    ParameterError,
    ReaderError,
    RepairedGeometryWarning,
    SchemaError,
)
from .frame import ALL, ValidationResult, check, from_records, is_object, validate

try:
    __version__ = _version("iaa-frames")
except PackageNotFoundError:  # running from a checkout without installation
    __version__ = "0+unknown"

__all__ = [
    "ALL",
    "DroppedRowsWarning",
    "IAAError",
    "IAAWarning",
    "InvalidAnnotationError",
    "ParameterError",
    "ReaderError",
    "RepairedGeometryWarning",
    "SchemaError",
    "ValidationResult",
    "check",
    "from_records",
    "is_object",
    "validate",
]
