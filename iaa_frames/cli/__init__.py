"""Command line: ``iaa-frames report ...`` and ``iaa-frames demo`` (also ``python -m iaa_frames``).

User errors (a missing file, an unknown format, an invalid export, a bad parameter) print
one line, ``iaa-frames: error: ...``, to stderr and exit with status 2 (usage) or 1
(input); there is no traceback.

=====================  ================================================================
:mod:`.parser`         the commands, options and help texts (:func:`build_parser`)
:mod:`.inputs`         the inputs' format told from their contents, read into one frame
:mod:`.command`        :func:`main`: read, compute, write the report, print errors
=====================  ================================================================
"""

from .command import main
from .inputs import FORMATS, guess_format, read_inputs
from .parser import build_parser

__all__ = ["FORMATS", "build_parser", "guess_format", "main", "read_inputs"]
