"""The report's "Where they disagree" section; the code is in
:mod:`iaa_frames.report.disagreement` (this module keeps the former import path).
"""

from .report.disagreement import disagreement_section

__all__ = ["disagreement_section"]
