"""Sphinx configuration of the iaa_frames documentation site.

Build (warnings are errors, as in CI)::

    pip install -e ".[test,docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The notebooks of ``notebooks/`` are copied into ``docs/tutorials/`` (not committed) and
executed by myst-nb during the build.
"""

from __future__ import annotations

import ast
import os
import pkgutil
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

# --- API reference ------------------------------------------------------------------------
# One page per module, written here from the package itself (not by recursive autosummary,
# which follows package attributes: ``iaa_frames.plot.item`` is a function that hides the
# module of the same name), and the list of modules by layer, lowest first, as LAYERS in
# tests/test_architecture.py has them. Both are rewritten at every build (not committed).
MODULE_PAGES = DOCS / "api" / "modules"


def _layers():
    source = (ROOT / "tests" / "test_architecture.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "LAYERS" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise RuntimeError("tests/test_architecture.py defines no LAYERS")


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # keep mtimes stable
        path.write_text(text, encoding="utf-8")


def _module_pages() -> None:
    names = sorted(
        info.name
        for info in pkgutil.walk_packages(iaa_frames.__path__, "iaa_frames.")
        if info.name != "iaa_frames.__main__"
    )
    MODULE_PAGES.mkdir(parents=True, exist_ok=True)
    # the pages of modules that moved or went (generated, never edited by hand): a page
    # left behind would document an old name (a deprecated alias) twice, and fail -W
    for page in MODULE_PAGES.glob("*.rst"):
        if page.stem not in names:
            page.unlink()
    for name in names:
        children = [n for n in names if n.rsplit(".", 1)[0] == name]
        text = f"{name}\n{'=' * len(name)}\n\n.. automodule:: {name}\n"
        text += "   :members:\n   :ignore-module-all:\n"
        if children:
            text += "\n.. rubric:: Modules\n\n.. toctree::\n   :maxdepth: 1\n\n"
            text += "".join(f"   {child}\n" for child in children)
        _write(MODULE_PAGES / f"{name}.rst", text)
    lines = [
        "All modules, by layer",
        "=====================",
        "",
        "Every module of the package, lowest layer first (the order of the",
        ":doc:`architecture page </architecture>`: a module imports only its own top-level",
        "package and lower layers). Each page documents the module's public names.",
        "",
    ]
    for rank, layer in enumerate(_layers()):
        tops = [f"iaa_frames.{t}" for t in layer if f"iaa_frames.{t}" in names]
        if not tops:
            continue
        title = f"Layer {rank}: " + ", ".join(t.split(".", 1)[1] for t in tops)
        lines += [title, "-" * len(title), "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   modules/{t}" for t in tops] + [""]
    _write(DOCS / "api" / "modules.rst", "\n".join(lines))


_module_pages()

autosummary_generate = True
templates_path = ["_templates"]  # a class page documents its members once, without stub tables
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


def _package_object(target: str):
    """The object a dotted ``iaa_frames...`` name stands for: read as attributes from the
    package (``iaa_frames.plot.item`` is the function the package exports, not the module
    of the same name), else from the longest importable module; None when there is none."""
    import importlib

    parts = target.split(".")
    obj = importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            break
    else:
        return obj
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for part in parts[k:]:
            obj = getattr(obj, part, None)
        return obj
    return None


def _canonical_reference(app, env, node, contnode):
    """Resolve a docstring's reference to a re-exported name (``iaa_frames.pair_tables``,
    ``iaa_frames.plot.forest``, ``iaa_frames.core.engine.agreement_from_tables``) to the place
    the object is documented: its defining module and qualified name."""
    import inspect

    target = node.get("reftarget", "").lstrip(".~")
    if node.get("refdomain") != "py" or not target:
        return None
    if target.startswith("iaa_frames"):
        candidates = [target]
    else:  # a short name, read in the module (and class) the docstring belongs to
        module, cls = node.get("py:module") or "", node.get("py:class")
        if not module.startswith("iaa_frames"):
            return None
        candidates = [f"{module}.{cls}.{target}"] if cls else []
        candidates.append(f"{module}.{target}")
    for candidate in candidates:
        obj = _package_object(candidate)
        if obj is not None:
            break
    else:
        return None
    if inspect.ismodule(obj):
        canonical = obj.__name__
    else:
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not module or not qualname:
            return None
        canonical = f"{module}.{qualname}"
    if canonical in (target, node.get("reftarget")):
        return None
    found = env.get_domain("py").resolve_any_xref(
        env, node["refdoc"], app.builder, canonical, node, contnode
    )
    return found[0][1] if found else None


def setup(app):
    app.add_role("mpltype", _literal_role)
    app.connect("missing-reference", _canonical_reference)
