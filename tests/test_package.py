"""Tests for the package module (iaa_frames/__init__.py): every public name resolves on
first use, ``import iaa_frames`` loads none of the heavy back ends and ``agreement`` does not
load dask (issue #24), and the
functions named like their subpackages (``report``, ``simulate``) stay functions."""

import subprocess
import sys

import pandas as pd
import pytest
import xarray as xr


def _fresh(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def test_import_loads_no_heavy_back_end():
    out = _fresh(
        "import sys, numpy, pandas, xarray, shapely\n"
        "before = set(sys.modules)\n"
        "import iaa_frames\n"
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} - {'iaa_frames'}))\n"
        "print(sorted(m for m in sys.modules if m.startswith('iaa_frames')))"
    )
    loaded, ours = out.splitlines()
    assert loaded == "[]"
    assert ours == "['iaa_frames', 'iaa_frames.version']"


def test_agreement_does_not_import_dask():
    # xarray imports dask (0.3 s) on a Variable's slow path wherever dask is installed;
    # the agreement Dataset is built on the fast path, so only the dask back end loads it
    pytest.importorskip("dask")
    out = _fresh(
        "import sys, iaa_frames as iaf\n"
        "df = iaf.simulate(n_items=30, seed=0)\n"
        "res = iaf.agreement(df, n_boot=10, progress=False)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'}))"
    )
    assert out.strip() == "[]"


def test_every_public_name_resolves():
    import iaa_frames as iaf

    for name in iaf.__all__:
        assert getattr(iaf, name) is not None, name
    assert dir(iaf) == sorted({*iaf.__all__, "__version__"})
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        iaf.nope  # noqa: B018


def test_functions_named_like_their_subpackage_stay_functions():
    out = _fresh(
        "import iaa_frames as iaf\n"
        "import iaa_frames.report.page, iaa_frames.simulate.profiles\n"
        "print(callable(iaf.report), callable(iaf.simulate), iaf.report.__module__)"
    )
    assert out.split() == ["True", "True", "iaa_frames.report"]


def test_accessors_are_registered_and_import_their_class_on_first_use():
    from iaa_frames.accessor import IAAAccessor, ResultAccessor

    # registered through pandas' and xarray's public API: the descriptors are theirs
    assert "iaa" in pd.DataFrame._accessors
    assert type(vars(pd.DataFrame)["iaa"]).__module__.startswith("pandas.")
    assert type(vars(xr.Dataset)["iaa"]).__module__.startswith("xarray.")
    assert type(pd.DataFrame({"a": [1]}).iaa) is IAAAccessor
    res = xr.Dataset()
    assert type(res.iaa) is ResultAccessor and res.iaa is res.iaa  # one per Dataset


@pytest.mark.parametrize("package", ["matching", "chance", "tables", "engine"])
def test_the_old_names_of_the_core_packages_import_the_moved_modules_with_a_warning(package):
    """The packages moved into iaa_frames.core keep their old names one release: the very
    modules (no second copy, whose registries would be empty), one FutureWarning."""
    out = _fresh(
        "import importlib, sys, warnings, pkgutil\n"
        f"new = importlib.import_module('iaa_frames.core.{package}')\n"
        "names = [m.name for m in pkgutil.iter_modules(new.__path__)]\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module('iaa_frames.{package}')\n"
        f"    subs = [importlib.import_module(f'iaa_frames.{package}.{{n}}') for n in names]\n"
        f"moved = [importlib.import_module(f'iaa_frames.core.{package}.{{n}}') for n in names]\n"
        "print(old is new, all(a is b for a, b in zip(subs, moved)), len(names))\n"
        "print([(w.category.__name__, str(w.message)) for w in caught])"
    )
    same, warned = out.splitlines()
    assert same.startswith("True True") and int(same.split()[2]) > 2
    assert warned == str(
        [
            (
                "FutureWarning",
                f"iaa_frames.{package} has moved to iaa_frames.core.{package}; the old name "
                "will be removed in the next release",
            )
        ]
    )


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("stats.ks_cells", "stats.kstest", "cell_differences"),
        ("stats.ks_running", "stats.kstest", "RunningColumns"),
        ("measures.attribute_cells", "measures.attributes", "AttributeCells"),
        ("measures.attribute_levels", "measures.attributes", "infer_level"),
        ("measures.attribute_result", "measures.attributes", "attribute_dataset"),
        ("measures.keypoint_cells", "measures.keypoints", "KeypointCells"),
        ("measures.keypoint_variables", "measures.keypoints", "VARIABLES"),
    ],
)
def test_the_old_names_of_merged_modules_give_the_merged_module(old, new, name):
    out = _fresh(
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    from iaa_frames.{old} import {name} as value\n"
        f"module = importlib.import_module('iaa_frames.{new}')\n"
        f"print(value is module.{name}, [w.category.__name__ for w in caught])"
    )
    assert out.strip() == "True ['FutureWarning']"
