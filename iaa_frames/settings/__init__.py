"""The parameters of the engine, declared and validated once.

:mod:`~iaa_frames.settings.parameters` holds the names, defaults and validation of the engine
parameters; :mod:`~iaa_frames.settings.thresholds` validates match thresholds and builds the
``threshold`` coordinate.
"""
