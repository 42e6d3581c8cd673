"""Shared by the figure tests: the Agg backend, and every figure closed after each test."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    """Close the figures a test leaves open (pyplot keeps them, and their memory)."""
    yield
    plt.close("all")
