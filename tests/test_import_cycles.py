"""No import circles among the project's modules, deferred imports inside functions included
(a deferred import is how a circle hides: the job table once lived in the Celery adapter,
which the job services imported back; ULC's module and the metric registry imported each
other)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("annotation", "metrics", "evalsite")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules ``name`` imports, anywhere in it. A package's ``__init__`` that
    a submodule imports is left out: Python runs it before the submodule in any case."""

    def owner(dotted: str | None) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            targets = [target for target in submodules if target in modules] or [base]
        else:
            continue
        for target in targets:
            module = owner(target)
            if module and module != name and not name.startswith(module + "."):
                found.add(module)
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def test_the_cycle_finder_finds_a_cycle_through_a_deferred_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_annotation_metrics_or_evalsite_is_in_an_import_cycle() -> None:
    modules = _modules()
    assert "annotation.services.jobs" in modules and "metrics.automatic" in modules
    graph = {name: _imported(name, path, modules) for name, path in modules.items()}
    assert graph["annotation.tasks"] >= {"annotation.services.jobs"}  # the reader works
    assert import_cycles(graph) == []
