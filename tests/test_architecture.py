"""The layout rules of docs/ARCHITECTURE.md, checked on the source tree.

* no module imports or reaches a private name (``_x``) of another module;
* no module is longer than :data:`MAX_LINES` lines unless its first lines say why
  ("Over 400 lines: ..." in a comment or the docstring);
* docstrings define what they use: no reference to a design document outside this
  repository;
* the layers: a module imports (at the top or inside a function) only modules of its own
  top-level package or of a lower layer of :data:`LAYERS`, so no two packages import each
  other; at most :data:`MAX_FLAT` modules sit at the top of the package.
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
    """(function, parameter) of every engine parameter whose default is neither
    ``DEFAULTS.<name>``, a named constant, nor a literal equal to its value in
    ``settings.DEFAULTS`` (public signatures write the value out, for ``help()`` and
    static tools), in functions taking at least three of them."""
    from iaa_frames.settings.parameters import DEFAULTS

    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef):
            continue
        args = node.args
        if len({a.arg for a in args.args + args.kwonlyargs} & ENGINE_PARAMETERS) < 3:
            continue
        pairs = list(zip(args.kwonlyargs, args.kw_defaults))
        pairs += list(zip(args.args[len(args.args) - len(args.defaults) :], args.defaults))
        for arg, default in pairs:
            if arg.arg not in ENGINE_PARAMETERS or default is None:
                continue
            value = getattr(DEFAULTS, arg.arg)
            if isinstance(default, ast.Constant) and (
                type(default.value) is type(value) and default.value == value
            ):
                continue
            if (
                isinstance(default, ast.Attribute)
                and isinstance(default.value, ast.Name)
                and default.value.id == "DEFAULTS"
            ) or isinstance(default, ast.Name):
                continue
            yield f"{_name(path)}.{node.name}({arg.arg}=...)"


def test_engine_parameters_have_their_defaults_in_one_place():
    """The six engine parameters default to the values of settings.DEFAULTS everywhere
    (a named constant such as the threshold sweep of a τ plot is allowed)."""
    found = [x for p in MODULES if p.name != "parameters.py" for x in _engine_defaults(p)]
    assert found == []


#: The layers of the package, lowest first, in the order the data flows. A module may
#: import its own top-level package and any package of a lower layer; packages of one
#: layer do not import each other.
LAYERS = (
    ("errors", "version", "progress", "arrays", "heap"),
    ("geometry",),
    ("frame", "settings"),
    ("io", "stats", "simulate"),
    ("core",),
    ("dask", "explore"),
    ("api", "measures"),
    ("decisions", "temporal", "plot"),
    ("report",),
    ("accessor", "cli"),
    ("__init__", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
MAX_FLAT = 10


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(text: str, module: str, is_package: bool):
    """The iaa_frames modules a source text imports, at the top or inside functions."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, node, is_package)
            if source == "iaa_frames":  # from iaa_frames import x: x is the imported module
                yield from (f"iaa_frames.{a.name}" for a in node.names)
            elif source.startswith("iaa_frames."):
                yield source
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("iaa_frames."))


def _layer_violations(path: Path, text: str | None = None):
    module = _name(path)
    own = "__main__" if path.name == "__main__.py" else _top(module)
    source = path.read_text() if text is None else text
    for target in _imports(source, module, path.name == "__init__.py"):
        other = _top(target)
        if other != own and RANK.get(other, -1) >= RANK[own]:
            yield f"{module} imports {target} ({own}: layer {RANK[own]}, {other}: layer {RANK.get(other)})"


def test_every_package_has_a_layer():
    tops = {p.stem if p.parent == PACKAGE else p.relative_to(PACKAGE).parts[0] for p in MODULES}
    assert tops - set(RANK) == set()


def test_modules_import_only_their_layer_or_lower():
    found = [x for p in MODULES for x in _layer_violations(p)]
    assert found == []


def test_layer_rule_catches_upward_and_sideways_imports():
    """The checker itself: geometry -> core (upward) and io -> stats (same layer) are
    reported, inside a function too; core -> geometry is allowed."""
    text = (
        "from iaa_frames.core.tables.pairs import pair_tables\n"
        "def f():\n    from iaa_frames.geometry import distances\n"
    )
    assert list(_layer_violations(PACKAGE / "geometry" / "x.py", text)) == [
        "iaa_frames.geometry.x imports iaa_frames.core.tables.pairs (geometry: layer 1, core: layer 4)"
    ]
    assert list(_layer_violations(PACKAGE / "core" / "tables" / "x.py", text)) == []
    sideways = "def f():\n    from iaa_frames.stats import samples\n"
    assert len(list(_layer_violations(PACKAGE / "io" / "x.py", sideways))) == 1


def _all_assignments(text: str) -> int:
    """Top-level statements that set (replace) ``__all__``; ``+=`` extends it."""
    return sum(
        isinstance(node, (ast.Assign, ast.AnnAssign))
        and any(
            getattr(t, "id", None) == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for node in ast.parse(text).body
    )


def test_every_module_sets_its_all_once():
    """A second ``__all__`` replaces the first (as a merge of modules once left in
    stats.kstest): one list per module."""
    twice = [_name(p) for p in MODULES if _all_assignments(p.read_text()) > 1]
    assert twice == []
    assert _all_assignments("__all__ = ['a']\nx = 1\n__all__ = ['b']\n") == 2  # the check
    assert _all_assignments("__all__ = ['a']\n__all__ += ['b']\n") == 1


def test_few_flat_modules():
    flat = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(flat) <= MAX_FLAT, flat


def _accessor_uses(path: Path):
    """Lines of ``path`` that reach an accessor (``x.iaa``) in code, not in docstrings
    (reading it: the package module registers it by assignment)."""
    return [
        f"{_name(path)}:{node.lineno}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "iaa" and isinstance(node.ctx, ast.Load)
    ]


def test_nothing_below_the_accessor_calls_it():
    """The views, plots and report take their tables from the memo
    (iaa_frames.core.engine.resolve), never through ``df.iaa`` / ``res.iaa``."""
    found = [
        use
        for p in MODULES
        if p.relative_to(PACKAGE).parts[0] != "accessor"
        for use in _accessor_uses(p)
    ]
    assert found == []


def test_shared_constants_are_defined_once():
    """SIGMA_COMPONENTS in engine.cells, DEFAULT_N_BOOT in settings.parameters: every
    other module imports them."""
    where = {}
    for p in MODULES:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in (
                        "SIGMA_COMPONENTS",
                        "DEFAULT_N_BOOT",
                    ):
                        where.setdefault(target.id, []).append(_name(p))
    assert where == {
        "SIGMA_COMPONENTS": ["iaa_frames.core.engine.cells"],
        "DEFAULT_N_BOOT": ["iaa_frames.settings.parameters"],
    }


def test_signatures_are_written_out():
    """Every signature is its ``def``: nothing assigns ``__signature__`` (static tools
    would not see it)."""
    found = [_name(p) for p in MODULES if "__signature__ =" in p.read_text()]
    assert found == []


def _module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (at the top or inside functions), package
    ``__init__`` modules left out (they gather names; they are not an idea of their own).
    ``from package import module`` counts as importing the module."""
    names = {_name(p): p for p in MODULES if p.name != "__init__.py"}
    graph = {}
    for module, path in names.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(module, node, False)
                targets |= {f"{source}.{a.name}" for a in node.names} | {source}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        graph[module] = {t for t in targets if t in names and t != module}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_two_modules_import_each_other():
    """No circle of imports between modules, inside functions either: a helper two
    modules share belongs in a lower module."""
    assert _circles(_module_graph()) == []


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]
