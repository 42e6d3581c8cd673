"""The tidy annotation frame: its schema, its validation, and frames built from records.

Layer 1 of the package (above :mod:`iaa_frames.errors` and :mod:`iaa_frames.settings`):
:mod:`~iaa_frames.frame.schema` defines the columns and validates a frame,
:mod:`~iaa_frames.frame.records` builds one from plain records.
"""
