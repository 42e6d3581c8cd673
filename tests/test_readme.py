"""The python blocks of README.md run as written, in order, in a fresh Jupyter kernel (the
tour a new user copies), in an empty working directory: they may use only what ships.
Each block's last expression is displayed (so a block ends with what it shows), no block
prints a warning."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Seconds the whole README may take (about 60 s on a shared 2-core machine).
BUDGET = 600
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)


def python_blocks() -> list[str]:
    return [m.group(1) for m in FENCE.finditer(README.read_text(encoding="utf-8"))]


def test_the_tour_starts_with_three_lines_from_an_export_to_a_table():
    first = python_blocks()[0].strip().splitlines()
    code = [line for line in first if line.strip() and not line.lstrip().startswith("#")]
    assert code[0] == "import iaa_frames as iaf"
    assert len(code) == 4  # the import, then three lines
    assert "load_sample" in code[1] and code[-1].startswith("res.iaa.table(")


#: Calls a block may make before its last line for what they do, not what they return.
WRITES = {"to_csv", "to_latex", "to_netcdf", "to_parquet", "to_coco", "to_cvat", "print"}


def test_every_value_a_block_computes_is_shown():
    # #42: a block computed iaf.conflict_counts(t) before its last line, and Jupyter shows
    # only the last expression: its output was never shown
    import ast

    for block in python_blocks():
        body = ast.parse(block).body
        for stmt in body[:-1]:
            if isinstance(stmt, ast.Expr):
                call = stmt.value.func if isinstance(stmt.value, ast.Call) else None
                name = getattr(call, "attr", getattr(call, "id", None))
                assert name in WRITES, f"not shown: {ast.unparse(stmt)}"


def test_the_export_shown_is_what_the_export_writes(tmp_path):
    # the lines of the CSV the README shows under the export block are those it writes
    import iaa_frames as iaf

    shown = re.search(r"^```text\n\$ head -3 agreement_by_class.csv\n(.*?)^```",
                      README.read_text(encoding="utf-8"), re.M | re.S).group(1)  # fmt: skip
    table = iaf.load_sample("coco").iaa.agreement().iaa.table(by="label")
    table.to_csv(tmp_path / "agreement_by_class.csv")
    written = (tmp_path / "agreement_by_class.csv").read_text(encoding="utf-8")
    assert shown.splitlines() == written.splitlines()[:3]


def test_blocks_use_the_package_as_iaf_only():
    for block in python_blocks():
        for line in block.splitlines():
            code = line.split("#", 1)[0]
            assert not re.search(r"(?<![\w.])iaa_frames\.", code), line
            assert not re.search(r"^\s*(from|import) iaa_frames\b(?! as iaf$)", code), line


@pytest.mark.slow
def test_every_block_runs_in_a_fresh_kernel(tmp_path):
    from nbclient import NotebookClient

    blocks = python_blocks()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(b) for b in blocks]
    env = {k: os.environ.get(k) for k in ("MPLBACKEND", "PYTHONPATH")}
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # the kernel imports this checkout, whatever is installed
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env["PYTHONPATH"]) if p)
    try:
        NotebookClient(
            nb,
            timeout=BUDGET,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()
    finally:
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for i, cell in enumerate(nb.cells):
        where = f"README python block {i + 1}:\n{blocks[i][:200]}"
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", where
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                assert "Warning" not in out.get("text", ""), f"{where}\n{out['text'][:400]}"
        last = [ln for ln in blocks[i].strip().splitlines() if ln.strip()][-1]
        shows = not re.match(r"^\s*(\w[\w, ]*=|import |from |#|client\.close)", last)
        if shows:
            kinds = {o.get("output_type") for o in cell.get("outputs", [])}
            assert kinds & {"execute_result", "display_data"}, f"{where}\nshows nothing"
    # the figures of the tour are drawn once each, not twice
    for i, cell in enumerate(nb.cells):
        images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        assert len(images) <= max(1, blocks[i].count(".plot.")), f"block {i + 1} drew twice"
        if ".plot." in blocks[i]:
            assert images, f"block {i + 1} shows no figure"


def test_dir_of_the_package_is_its_public_api():
    import iaa_frames as iaf

    listed = set(dir(iaf))
    assert listed == set(iaf.__all__) | {"__version__"}
    for internal in ("engine", "pair_steps", "pooled", "corpus", "PackageNotFoundError"):
        assert internal not in listed
    for name in iaf.__all__:  # every listed name exists (plot is imported on first use)
        assert getattr(iaf, name) is not None
    assert iaf.plot.forest is not None and iaf.sample_path("coco").is_dir()
