"""Plain helpers shared by test modules (``from helpers import FIX, row_of``).

Not a test module (pytest collects ``test_*.py`` only) and not ``conftest.py``, which
pytest loads as a plugin and which should not be imported: fixtures and hypothesis
settings live there, constants and functions that tests import live here.
"""

import importlib.util
from pathlib import Path

#: The hand-written exports of tests/fixtures (see its README.md).
FIX = Path(__file__).parent / "fixtures"


def row_of(df, **match):
    """The single row of ``df`` whose columns equal ``match``."""
    mask = True
    for k, v in match.items():
        mask = mask & (df[k] == v)
    sub = df[mask]
    assert len(sub) == 1, f"{len(sub)} rows match {match}"
    return sub.iloc[0]


def load_benchmark(name):
    """A module of benchmarks/ (not a package), loaded by path, e.g. ``corpora``."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"iaa_bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
