"""The notebooks in ``notebooks/`` run from top to bottom in a fresh kernel, within a time
budget each, print no warning, and are committed without outputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Seconds a notebook may take (each is designed to run in well under 30 s).
BUDGET = 120


def test_there_are_notebooks():
    names = {p.name for p in NOTEBOOKS}
    for expected in (
        "01_quickstart.ipynb",
        "02_per_class_drilldown.ipynb",
        "03_figures_for_a_report.ipynb",
        "04_why_chance_correction.ipynb",
        "05_polygons.ipynb",
    ):
        assert expected in names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: strip the outputs before committing"
            )


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_without_warnings(path, tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    env_backend = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    try:
        NotebookClient(
            nb, timeout=BUDGET, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
        ).execute()
    finally:
        if env_backend is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backend
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "") if out.get("output_type") == "stream" else ""
            assert out.get("name") != "stderr" or "Warning" not in text, (
                f"{path.name} printed a warning: {text[:300]}"
            )
            assert out.get("output_type") != "error"
