"""Shared test settings.

Hypothesis runs derandomized (the same examples on every run), so that CI is
reproducible: a property that fails fails every time, with the example printed.
Run ``pytest --hypothesis-profile=explore`` to draw fresh examples.
"""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("ci")
