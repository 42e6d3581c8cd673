"""The package documents itself (#25 point 12): ``help()`` says what the numbers mean, and
no docstring sends a pip user to a repository file that pip does not install: they link to
the documentation site (``docs/``, built in CI), whose pages must exist. The README is the
door to that site (#22): short, and its links lead to pages that exist."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import iaa_frames as iaf
from iaa_frames.api import shortcuts

#: Documents of the source repository that an installed package does not have (the
#: docs folder, markdown files): a docstring points at a module docstring instead.
REPOSITORY_FILE = re.compile(r"docs/|\b[\w./-]+\.md\b")
#: The documentation site's address (a placeholder until the site is hosted; the pages are
#: built from ``docs/``): docstrings and the README link to ``DOCS_URL + "<page>.html"``.
DOCS_URL = "https://iaa-frames.readthedocs.io/en/latest/"
SITE_LINK = re.compile(re.escape(DOCS_URL) + r"([\w/.-]*?)(?:\.html)?(?:#[\w-]*)?(?![\w/.-])")
ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "docs"
#: Lines the README may have: the two commands, the 30-second example and its export's
#: output, the short tour, what the numbers mean and the links to the site; everything
#: else lives on the site.
README_LINES = 230
#: A Sphinx cross-reference to a full dotted name of the package.
REFERENCE = re.compile(r":(?:mod|func|class|meth|data|attr):`~?(iaa_frames(?:\.\w+)+)`")


def _modules():
    out = [iaf]
    for info in pkgutil.walk_packages(iaf.__path__, "iaa_frames."):
        try:
            out.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra that is not installed
            continue
    return out


def _docstrings():
    """(where, docstring) of every module, and of every class, function and method defined
    in one, and the ``#:`` comments that document module attributes."""
    for module in _modules():
        yield module.__name__, module.__doc__ or ""
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj.__doc__ or ""
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    func = getattr(member, "__func__", member)
                    if inspect.isfunction(func) or isinstance(member, property):
                        yield f"{module.__name__}.{name}.{attr}", member.__doc__ or ""
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            continue
        for i, line in enumerate(source.splitlines(), 1):
            if line.lstrip().startswith("#:"):
                yield f"{module.__name__}:{i}", line


DOCS = list(_docstrings())


def test_every_module_was_read():
    names = {where for where, _ in DOCS}
    for module in (
        "iaa_frames.core.engine.assemble",
        "iaa_frames.core.tables.pairs",
        "iaa_frames.core.chance",
    ):
        assert module in names


def test_no_docstring_points_at_repository_files():
    cited = [
        f"{where}: {m.group(0)!r}" for where, doc in DOCS for m in REPOSITORY_FILE.finditer(doc)
    ]
    assert cited == []


def test_the_modules_referred_to_instead_exist():
    # the docstrings now send readers to module docstrings: every full dotted
    # reference must name something that exists
    missing = []
    for where, doc in DOCS:
        for name in REFERENCE.findall(doc):
            parts = name.split(".")
            for k in range(len(parts), 0, -1):
                try:
                    obj = importlib.import_module(".".join(parts[:k]))
                except ImportError:
                    continue
                try:
                    for attr in parts[k:]:
                        obj = getattr(obj, attr)
                except AttributeError:
                    missing.append(f"{where}: {name}")
                break
    assert missing == []


@pytest.mark.parametrize(
    "text",
    [
        "σ = 1 - mean within",
        "σ = 1**: perfect agreement",
        "σ = 0**: no better than",
        "σ < 0**: systematic disagreement",
        "Krippendorff's alpha",
        "α ≥ 0.8",
        ":mod:`iaa_frames.core.chance`",
        ":mod:`iaa_frames.core.engine`",
    ],
)
def test_help_of_agreement_says_what_sigma_means(text):
    assert text in iaf.agreement.__doc__


def test_help_of_agreement_starts_with_the_scale():
    first = " ".join(iaf.agreement.__doc__.split("\n\n")[0].split())
    assert first == (
        "Chance-corrected agreement by component, label and annotator: σ = 1 perfect, "
        "0 chance, < 0 systematic disagreement."
    )


@pytest.mark.parametrize(
    "func",
    [iaf.sigma, shortcuts.sigma_of, iaf.pair_tables, iaf.alpha, shortcuts.alpha_of],
    ids=lambda f: f.__name__,
)
def test_public_entry_points_give_the_scale(func):
    doc = " ".join(func.__doc__.split())
    assert "0 chance" in doc or "0 no better than chance" in doc


@pytest.mark.parametrize("func", [iaf.ks, shortcuts.ks_of], ids=lambda f: f.__name__)
def test_ks_entry_points_give_the_scale(func):
    doc = " ".join(func.__doc__.split())
    assert "0 when they are alike (agreement at chance), up to 1" in doc


def test_engine_module_defines_the_scale():
    doc = " ".join(importlib.import_module("iaa_frames.core.engine").__doc__.split())
    assert "1: perfect agreement, 0: no better than chance, below 0: systematic" in doc


def test_diagnosis_table_is_in_the_package():
    doc = importlib.import_module("iaa_frames.report.diagnosis").__doc__
    assert "Reading the components together" in doc
    assert "the task needs rethinking, not more annotators" in doc


def _page_exists(page: str) -> bool:
    """Whether ``DOCS_URL + page + ".html"`` is a page of the site built from ``docs/``."""
    page = page or "index"
    if page.startswith("tutorials/") and page != "tutorials/index":  # copied from notebooks/
        return (ROOT / "notebooks" / f"{page.split('/', 1)[1]}.ipynb").is_file()
    if page.startswith("api/generated/"):  # generated from the docstrings
        try:
            importlib.import_module(page.rsplit("/", 1)[1])
        except ImportError:
            return False
        return True
    return any((SITE / f"{page}{suffix}").is_file() for suffix in (".md", ".rst"))


def test_the_page_check_can_fail():
    assert _page_exists("user-guide/measures") and _page_exists("tutorials/01_quickstart")
    assert not _page_exists("user-guide/nonexistent") and not _page_exists("tutorials/nope")


def test_docstrings_link_to_pages_of_the_site():
    links = [(where, m.group(1)) for where, doc in DOCS for m in SITE_LINK.finditer(doc)]
    assert links, "no docstring links to the site"
    assert [f"{where}: {page}" for where, page in links if not _page_exists(page)] == []


def test_readme_is_a_door_to_the_site():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    pages = {m.group(1) for m in SITE_LINK.finditer(text)}
    for page in ("", "user-guide/exports", "user-guide/measures", "validation/index", "api/index"):
        assert page in pages, page
    assert sorted(page for page in pages if not _page_exists(page)) == []
    assert "docs/ARCHITECTURE.md" not in text and "docs/CONTRACTS.md" not in text
