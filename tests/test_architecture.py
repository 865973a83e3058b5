"""The layout of docs/architecture.md holds: no import circle inside `game/` or `accounts/`.

Imports are read from the source with `ast` (nothing is imported); an import under
`if TYPE_CHECKING:` counts too (the layering holds for types as well). `from pkg import name`
counts as an import of `pkg.name` when that is a module of ours, else of `pkg`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("game", "accounts")


def module_files() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom,
              modules: dict[str, Path]) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    base = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    targets = set()
    for alias in node.names:
        full = f"{base}.{alias.name}"
        targets.add(full if full in modules else base)
    return {t for t in targets if t in modules}


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                deps |= _imported(module, path, node, modules)
        deps.discard(module)
        graph[module] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_game_or_accounts():
    graph = import_graph()
    assert len(graph) > 50  # the walk found the packages
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    """The check can fail: a made-up graph with a circle of three is reported."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_walk_reads_relative_and_package_imports():
    graph = import_graph()
    assert "game.services.play" in graph["game.services.clock"]
    assert "game.rules.dobon_uno.game" in graph["game.rules"]  # `from .dobon_uno.game import`


def test_the_move_pipeline_reads_one_way():
    """play announces changes through the port; it imports none of the parts that react."""
    graph = import_graph()
    assert "game.services.changes" in graph["game.services.play"]
    for reacting in ("game.services.cpu", "game.services.matches", "game.services.history",
                     "game.services.clock"):
        assert reacting not in graph["game.services.play"]


def test_the_engines_import_no_django():
    graph = import_graph()
    for module, path in module_files().items():
        if module.startswith("game.rules"):
            source = path.read_text(encoding="utf-8")
            assert "django" not in source.lower().replace("no django", ""), module
            assert all(dep.startswith("game.rules") for dep in graph[module]), module
