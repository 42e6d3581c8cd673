"""Shared test settings.

Hypothesis runs derandomized (the same examples on every run), so that CI is
reproducible: a property that fails fails every time, with the example printed.
Run ``pytest --hypothesis-profile=explore`` to draw fresh examples.
"""

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _geometry_kinds():
    """The geometry kinds a test registers (readers register the skeletons they meet,
    issue #26) leave the registry with the test, so that no test sees another's."""
    from iaa_frames.geometry.kinds import registry

    before = dict(registry._KINDS)
    yield
    if registry._KINDS != before:
        registry._KINDS.clear()
        registry._KINDS.update(before)
