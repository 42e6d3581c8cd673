"""Doctests of modules that need an optional extra are skipped when the extra is missing.

(Test settings shared by tests/ are in tests/conftest.py; this file sits at the root so that
it also applies to the doctests that pytest collects from the package.)
"""

import contextlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

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


def _copied_doc(name: str) -> bool:
    """True for an accessor method whose docstring is that of the function it calls
    (:func:`iaa_frames.api.methods.doc_from`): its examples run under the function."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        return getattr(obj, "_doc_from", None) is not None
    return False


def pytest_collect_file(file_path, parent):
    """Import each module of the package the standard way before its doctests are
    collected. pytest's importlib mode otherwise loads a module found under its own name
    nowhere in ``sys.modules`` as a second copy, whose state the package never filled
    (the kinds registry of ``geometry.kinds.registry`` empty, a function bound over by its
    submodule), and a doctest passed or failed with the order of the workers."""
    package = ROOT / "iaa_frames"
    if file_path.suffix == ".py" and package in file_path.parents:
        rel = file_path.resolve().relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        with contextlib.suppress(ImportError):  # a module of a missing extra: skipped below
            importlib.import_module(".".join(parts))


def pytest_collection_modifyitems(config, items):
    copied = [i for i in items if isinstance(i, pytest.DoctestItem) and _copied_doc(i.name)]
    if copied:  # deselected: a skipped doctest of a copied docstring has no line to report
        config.hook.pytest_deselected(items=copied)
        items[:] = [i for i in items if i not in copied]
    for item in items:
        if not isinstance(item, pytest.DoctestItem):
            continue
        for prefix, (module, extra) in EXTRA_OF_MODULE.items():
            if item.name.startswith(prefix) and _missing(module):
                item.add_marker(pytest.mark.skip(reason=f"needs the {extra!r} extra"))
