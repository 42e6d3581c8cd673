"""The report's "Match threshold" section; the code is in :mod:`iaa_frames.report.threshold`
(this module keeps the former import path).
"""

from .report.threshold import READING, report_threshold, threshold_section, threshold_table

__all__ = ["READING", "report_threshold", "threshold_section", "threshold_table"]
