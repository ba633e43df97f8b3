"""The import structure the design promises, read from the source (every ``import`` and
``from ... import``, those inside functions too; ``if TYPE_CHECKING:`` blocks excepted):
no circle between modules or between subpackages, each layer importing only the layers
below it, and no module importing another module's private names."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "planloop"

# What each subpackage may import of planloop besides itself (the layers below it).
# The root package (``planloop``: registration, the version) sits above envs.
BASE = {"planloop.pddl", "planloop.llm"}
ALLOWED: dict[str, set[str]] = {
    "planloop.pddl": set(),
    "planloop.llm": set(),
    "planloop.envs": {"planloop.pddl"},
    "planloop.wrappers": {"planloop.pddl", "planloop.envs"},
    "planloop.formalizer": BASE,
    "planloop.policies": BASE | {"planloop.envs", "planloop.wrappers", "planloop.formalizer"},
}
ABOVE_POLICIES = {
    "planloop.study",
    "planloop.protocols",
    "planloop.bench",
    "planloop.mcp",
    "planloop.cli",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under an ``if TYPE_CHECKING:`` block."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(n) for n in ast.walk(node))
    return hidden


def imports(name: str, typing_only: bool = False) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each planloop module ``name`` imports, with the names it takes from it;
    ``typing_only``: those under ``if TYPE_CHECKING:`` too."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    hidden = set() if typing_only else type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("planloop"):
                continue
            taken = []
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    yield f"{target}.{alias.name}", ()
                else:
                    taken.append(alias.name)
            if taken and target in MODULES:
                yield target, tuple(taken)


GRAPH = {name: {target for target, _ in imports(name) if target != name} for name in MODULES}


def subpackage(name: str) -> str:
    return ".".join(name.split(".")[:2])


ROOTS = {"planloop.errors"}  # below every layer: the one root of the exceptions


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_reader_finds_the_imports_it_is_shown():
    """The checks below read what they should: a known import of each kind is seen."""
    assert "planloop.pddl.reader" in GRAPH["planloop.pddl"]  # from .reader import ...
    assert "planloop.envs" in GRAPH["planloop"]  # from .envs import register_envs
    assert all(
        "planloop.policies.loop.policy" not in GRAPH[f"planloop.policies.loop.{strategy}"]
        for strategy in ("asking", "conversation", "grounding", "opening")
    )


def test_no_module_imports_in_a_circle():
    assert circles(GRAPH) == []


def test_no_subpackage_imports_in_a_circle():
    packages: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        packages.setdefault(subpackage(name), set()).update(
            subpackage(t) for t in targets if subpackage(t) != subpackage(name)
        )
    assert circles(packages) == []


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below(layer):
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if subpackage(name) == layer
        for target in targets
        if subpackage(target) != layer
        and subpackage(target) not in ALLOWED[layer]
        and target not in ROOTS
    )
    assert wrong == []


def test_nothing_below_the_studies_imports_them():
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if subpackage(name) in ALLOWED
        for target in targets
        if subpackage(target) in ABOVE_POLICIES
    )
    assert wrong == []
    study = {t for n, ts in GRAPH.items() if subpackage(n) == "planloop.study" for t in ts}
    assert not {subpackage(t) for t in study} & {"planloop.protocols", "planloop.mcp"}
    # the bench sits over the papers' studies: only the command line imports it
    under = ("planloop.study", "planloop.protocols", "planloop.mcp")
    studies = {t for n, ts in GRAPH.items() if subpackage(n) in under for t in ts}
    assert "planloop.bench" not in {subpackage(t) for t in studies}


def test_no_module_takes_another_modules_private_names():
    """Not even for its annotations: a module depends on another's public interface."""
    wrong = sorted(
        f"{name} takes {taken} from {target}"
        for name in MODULES
        for target, names in imports(name, typing_only=True)
        for taken in names
        if taken.startswith("_") and not taken.startswith("__")
    )
    assert wrong == []


def exception_classes() -> list[type[BaseException]]:
    """Every exception class a planloop module defines."""
    found = []
    for name in MODULES:
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found.append(value)
    return found


EXITS = {"Ended", "Interrupted"}  # how a study ends (an exit code), not errors


def test_every_public_exception_is_a_planloop_error():
    """``except PlanloopError`` catches anything planloop raises on purpose, and each
    keeps the builtin base callers catch (PDDLError is still a ValueError)."""
    from planloop import PlanloopError
    from planloop.llm import LLMError
    from planloop.pddl import PDDLError

    classes = exception_classes()
    assert len(classes) >= 15
    wrong = sorted(
        f"{c.__module__}.{c.__name__}"
        for c in classes
        if not issubclass(c, PlanloopError)
        and c.__name__ not in EXITS
        and not c.__name__.startswith("_")
    )
    assert wrong == []
    assert issubclass(PDDLError, ValueError) and issubclass(LLMError, RuntimeError)


def test_sat_spends_a_budget_it_declares_not_the_beliefs():
    """``sat`` takes any budget with ``left`` and ``spend`` (its ``Work`` protocol); the
    belief's class satisfies it, but ``sat`` never imports ``belief``."""
    taken = {target for target, _ in imports("planloop.pddl.sat", typing_only=True)}
    assert "planloop.pddl.belief" not in taken
