"""The import graph of a source tree, read with ``ast`` (nothing is imported), and its circles.

Every import counts: module level, inside functions, under ``if TYPE_CHECKING:``. ``from x import y``
is an edge to ``x.y`` when ``y`` is a module of the tree, else to ``x``; relative imports are resolved
against the importing module. Only edges between the tree's own modules are kept.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ImportLine:
    """One import statement that makes an edge: where it stands and what it says."""

    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


@dataclass
class ImportGraph:
    """Modules (dotted names) and, for each edge, the import lines that make it."""

    modules: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, dict[str, list[ImportLine]]] = field(default_factory=dict)

    def targets(self, module: str) -> list[str]:
        return sorted(self.edges.get(module, {}))


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imported(node: ast.Import | ast.ImportFrom, name: str, path: Path, known: set[str]) -> list[str]:
    """The tree's modules one import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    base = node.module or ""
    if node.level:
        package = _package_of(name, path).split(".")
        anchor = ".".join(package[: len(package) - node.level + 1])
        base = f"{anchor}.{base}" if base else anchor
    found = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in known:
            found.append(sub)
        elif base in known:
            found.append(base)
    return found


def build(root: Path, packages: tuple[str, ...]) -> ImportGraph:
    """The import graph of every ``.py`` file under ``root/<package>`` for each package."""
    graph = ImportGraph()
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            graph.modules[module_name(root, path)] = path
    known = set(graph.modules)
    for name, path in graph.modules.items():
        source = path.read_text()
        lines = source.splitlines()
        rel = str(path.relative_to(root))
        out = graph.edges.setdefault(name, {})
        for node in ast.walk(ast.parse(source, filename=rel)):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _imported(node, name, path, known):
                if target != name:
                    text = lines[node.lineno - 1].strip()
                    out.setdefault(target, []).append(ImportLine(rel, node.lineno, text))
    return graph


def circles(graph: ImportGraph) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module, each sorted, in name order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.targets(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph.modules):
        if v not in index:
            visit(v)
    return sorted(found)


def circle_lines(graph: ImportGraph, component: list[str]) -> list[ImportLine]:
    """The import lines that make a component: every edge between two of its modules."""
    members = set(component)
    return [
        line
        for source in component
        for target in graph.targets(source)
        if target in members
        for line in graph.edges[source][target]
    ]


def report(graph: ImportGraph) -> str:
    """One paragraph per circle: its modules, then the lines that make it; empty when there is none."""
    parts = []
    for component in circles(graph):
        lines = "\n".join(f"    {line}" for line in circle_lines(graph, component))
        parts.append(f"import circle among {', '.join(component)}:\n{lines}")
    return "\n".join(parts)


def print_calls(root: Path, packages: tuple[str, ...]) -> list[str]:
    """Every call of the builtin ``print`` under the packages, as ``path:line`` (rich's ``console.print`` is
    a method, not this)."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = str(path.relative_to(root))
            for node in ast.walk(ast.parse(path.read_text(), filename=rel)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                    found.append(f"{rel}:{node.lineno}")
    return found
