"""Sphinx configuration of the iaa_frames documentation site.

Build (warnings are errors, as in CI)::

    pip install -e ".[test,docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The notebooks of ``notebooks/`` are copied into ``docs/tutorials/`` (not committed) and
executed by myst-nb during the build.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, whatever is installed
# the notebook kernels import this checkout too
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
)

import matplotlib  # noqa: E402

import iaa_frames  # noqa: E402

matplotlib.use("Agg")  # this process draws nothing; the notebook kernels draw inline:
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"

project = "iaa_frames"
author = "iaa_frames developers"
copyright = "iaa_frames developers, BSD 3-Clause"  # noqa: A001
release = iaa_frames.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_design",
]

# --- the notebooks: copied from notebooks/ and executed ---------------------------------
TUTORIALS = DOCS / "tutorials"
TUTORIALS.mkdir(exist_ok=True)
for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
    target = TUTORIALS / notebook.name
    if not target.exists() or target.read_bytes() != notebook.read_bytes():
        shutil.copyfile(notebook, target)

nb_execution_mode = os.environ.get("IAA_DOCS_EXECUTE", "auto")  # "off" for a quick build
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_in_temp = True  # notebooks that write files (the tour's report) write them there
nb_merge_streams = True

myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = [
    "_build",
    "ARCHITECTURE.md",  # included by architecture.md
    "CONTRACTS.md",  # included by contracts.md
    "**.ipynb_checkpoints",
]
templates_path = ["_templates"]

# --- API reference ------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True  # iaf.* names are re-exported: generate their pages
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# no intersphinx: CI reaches no documentation server (only package registries)

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
#: Where the site is published (a placeholder until it is hosted): docstrings and the README
#: link to DOCS_URL + "<page>.html" (tests/test_docs.py checks that the pages exist).
DOCS_URL = "https://iaa-frames.readthedocs.io/en/latest/"
html_baseurl = DOCS_URL
html_title = f"iaa_frames {release}"
html_theme_options = {
    "navigation_depth": 3,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
}
html_static_path = ["_static"]
html_css_files = ["custom.css"]


def _literal_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``:mpltype:`` of docstrings inherited from matplotlib, shown as literal text."""
    from docutils import nodes

    return [nodes.literal(rawtext, text)], []


def setup(app):
    app.add_role("mpltype", _literal_role)
