"""The layout rules of docs/ARCHITECTURE.md, checked on the source tree.

* no module imports or reaches a private name (``_x``) of another module;
* no module is longer than :data:`MAX_LINES` lines unless its first lines say why
  ("Over 400 lines: ..." in a comment or the docstring);
* docstrings define what they use: no reference to a design document outside this
  repository.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "iaa_frames"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _cross_module_private_uses(path: Path):
    module = _name(path)
    tree = ast.parse(path.read_text())
    imported_modules = {}  # local name -> module imported from the package
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, node, path.name == "__init__.py")
            if not source.startswith("iaa_frames"):
                continue
            for alias in node.names:
                if _private(alias.name):
                    yield f"{module}:{node.lineno} imports {source}.{alias.name}"
                else:
                    imported_modules[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("iaa_frames"):
                    imported_modules[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported_modules
        ):
            yield f"{module}:{node.lineno} uses {node.value.id}.{node.attr}"


def test_no_private_name_crosses_a_module():
    found = [use for path in MODULES for use in _cross_module_private_uses(path)]
    assert found == []


def test_modules_are_short_or_say_why():
    long = [_long(path) for path in MODULES]
    assert [x for x in long if x] == []


def _long(path):
    lines = path.read_text().splitlines()
    reason = any("Over 400 lines" in line for line in lines[:12])
    return "" if len(lines) <= MAX_LINES or reason else f"{_name(path)}: {len(lines)} lines"


def test_docs_stand_alone():
    cited = [
        f"{_name(p)}:{i}"
        for p in MODULES
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if "DESIGN §" in line or "DESIGN.md" in line or "../shared" in line
    ]
    assert cited == []


ENGINE_PARAMETERS = {"distance", "match_threshold", "n_chance", "seed", "overall", "progress"}


def _engine_defaults(path):
    """(function, parameter) of every engine parameter whose default is written out
    instead of taken from ``settings.DEFAULTS``, in functions taking at least three of
    them."""
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef):
            continue
        args = node.args
        if len({a.arg for a in args.args + args.kwonlyargs} & ENGINE_PARAMETERS) < 3:
            continue
        pairs = list(zip(args.kwonlyargs, args.kw_defaults))
        pairs += list(zip(args.args[len(args.args) - len(args.defaults) :], args.defaults))
        for arg, default in pairs:
            if (
                arg.arg in ENGINE_PARAMETERS
                and default is not None
                and not (
                    isinstance(default, ast.Attribute)
                    and isinstance(default.value, ast.Name)
                    and default.value.id == "DEFAULTS"
                )
                and not isinstance(default, ast.Name)
            ):
                yield f"{_name(path)}.{node.name}({arg.arg}=...)"


def test_engine_parameters_have_their_defaults_in_one_place():
    """The six engine parameters take their defaults from settings.DEFAULTS everywhere
    (a named constant such as the threshold sweep of a τ plot is allowed)."""
    found = [x for p in MODULES if p.name != "settings.py" for x in _engine_defaults(p)]
    assert found == []
