"""Doctests of modules that need an optional extra are skipped when the extra is missing.

(Test settings shared by tests/ are in tests/conftest.py; this file sits at the root so that
it also applies to the doctests that pytest collects from the package.)
"""

import importlib.util

import pytest

#: module prefix -> the import its doctests need (the extra that provides it)
EXTRA_OF_MODULE = {
    "iaa_frames.dask": ("dask.dataframe", "dask"),
    "iaa_frames.io.parquet": ("pyarrow", "parquet"),
}


def _missing(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is None
    except ModuleNotFoundError:  # the parent package is missing
        return True


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not isinstance(item, pytest.DoctestItem):
            continue
        for prefix, (module, extra) in EXTRA_OF_MODULE.items():
            if item.name.startswith(prefix) and _missing(module):
                item.add_marker(pytest.mark.skip(reason=f"needs the {extra!r} extra"))
