"""Plain helpers shared by test modules (``from helpers import FIX, row_of``; tests/support is on pytest's ``pythonpath``).

Not a test module (pytest collects ``test_*.py`` only) and not ``conftest.py``, which
pytest loads as a plugin and which should not be imported: fixtures and hypothesis
settings live there, constants and functions that tests import live here.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

#: The hand-written exports of tests/fixtures (see its README.md).
FIX = Path(__file__).parents[1] / "fixtures"

#: The frames of a PairTables, compared one by one where two routes must give the same.
TABLES = (
    "localization_within",
    "localization_between",
    "sets_within",
    "sets_between",
    "units",
    "coverage",
    "localization_pooled",
)


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
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"iaa_bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the command line (tests/cli) ---

#: CLI flags that keep a run short
FAST = ["--n-boot", "0", "--n-chance", "100"]


def run(*args, cwd=None):
    # run this checkout's package, not whatever an editable install points at
    root = str(Path(__file__).resolve().parents[2])
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    )
    return subprocess.run(
        [sys.executable, "-m", "iaa_frames", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


class Done:
    """The outcome of an in-process ``main(argv)``, shaped like a CompletedProcess."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def call(capsys, *args):
    """``main(args)`` in-process (argparse exits through SystemExit)."""
    from iaa_frames.cli import main

    try:
        status = main([str(a) for a in args])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return Done(status, out, err)


def assert_one_line_error(proc, status, *fragments):
    assert proc.returncode == status, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("iaa-frames: error:")]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    assert proc.stdout == ""


def object_row(item, annotator, label, centre, size, polygon=False) -> dict:
    """One object of a test frame: the box of ``centre`` and ``size`` (x, y pairs), or,
    with ``polygon``, the rotated square (a diamond) inscribed in it."""
    (cx, cy), (w, h) = centre, size
    row = {"item": item, "annotator": annotator, "label": label}
    if polygon:
        import shapely

        row["geometry"] = shapely.Polygon(
            [(cx - w / 2, cy), (cx, cy - h / 2), (cx + w / 2, cy), (cx, cy + h / 2)]
        )
    else:
        row.update(x0=cx - w / 2, y0=cy - h / 2, x1=cx + w / 2, y1=cy + h / 2)
    return row
