"""The house rules of DESIGN.md, checked on the source: imports point downwards only, no
package imports pygls but the LSP layer, features do not import each other, no import
cycle, and modules and functions stay small (or say why at their top)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "lsp_server"

UTILITIES = {"jobs", "console", "settings", "project", "sandbox"}
ALLOWED: dict[str, set[str]] = {
    "project": set(),
    "jobs": set(),
    "console": {"jobs"},
    "settings": set(),
    "sandbox": {"project"},
    "rts": {"project", "jobs", "console"},
    "refactor": {"rts", *UTILITIES},
    "astgen": {"rts", "refactor", *UTILITIES},
    "extreme": {"rts", "refactor", *UTILITIES},
    "factoring": {"rts", "refactor", "extreme", *UTILITIES},
    "fex": {"rts", "refactor", "astgen", *UTILITIES},
    "trust": {"rts", "refactor", "astgen", *UTILITIES},
    "lsp": {"rts", "refactor", "astgen", "extreme", "factoring", "fex", "trust", *UTILITIES},
}
"""Which top-level parts of ``lsp_server`` each part may import (besides itself). ``cli``,
``server`` and ``__main__`` are the composition roots: they may import every part."""
COMPOSITION_ROOTS = {"cli", "server", "__main__", "__init__"}
DATA_ONLY = {"editors", "examples"}
LSP_LIBRARIES = {"pygls", "lsprotocol"}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
_REASON = "long because"
"""What a long module's or function's docstring says (a bare "long" matched "belong" and
"long-lived", which let two modules pass unnoticed)."""


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "examples":
            continue
        parts = ["lsp_server", *rel.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(test or node)


def _imports(module: str, path: Path, typing_too: bool) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import of ``path``, resolved to absolute names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if not typing_too and _type_checking_block(node):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield (
                    (f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base),
                    (node.lineno),
                )
        stack.extend(ast.iter_child_nodes(node))


def _is_module(name: str) -> bool:
    if not name.startswith("lsp_server."):
        return False
    rel = Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_imports_point_downwards() -> None:
    wrong: list[str] = []
    for module, path in _modules():
        part = _part(module)
        if part in COMPOSITION_ROOTS or part in DATA_ONLY:
            continue
        allowed = ALLOWED.get(part)
        assert allowed is not None, f"{module}: a new part of lsp_server needs its place in ALLOWED"
        for imported, line in _imports(module, path, typing_too=True):
            top = imported.split(".")[0]
            if top in LSP_LIBRARIES and part != "lsp":
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {imported}")
            if top != "lsp_server" or imported == "lsp_server":
                continue
            target = _part(imported)
            if target != part and target not in allowed:
                wrong.append(
                    f"{path.relative_to(PACKAGE)}:{line} imports {imported} ({part} -> {target})"
                )
    assert not wrong, "upward imports:\n" + "\n".join(wrong)


def test_features_do_not_import_each_other() -> None:
    prefix = "lsp_server.lsp.features."
    wrong = []
    for module, path in _modules():
        if not module.startswith(prefix):
            continue
        own = module[len(prefix) :].split(".")[0]
        for imported, line in _imports(module, path, typing_too=True):
            if imported.startswith(prefix) and imported[len(prefix) :].split(".")[0] != own:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {imported}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle() -> None:
    graph = {
        module: {i for i, _ in _imports(module, path, typing_too=False) if _is_module(i)}
        for module, path in _modules()
    }
    # A package's __init__ importing its own modules is how packages export: not a cycle.
    for module in graph:
        graph[module] = {i for i in graph[module] if not module.startswith(f"{i}.")}
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        trail.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                return [*trail[trail.index(imported) :], imported]
            if imported not in state:
                found = visit(imported)
                if found:
                    return found
        trail.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _has_reason(node: ast.AST) -> bool:
    """A long function says why at its top: its docstring says "long because"."""
    doc = (
        ast.get_docstring(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        else None
    )
    return bool(doc and _REASON in doc.lower())


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: str(v).split("/")[-1])
def test_size(module: str, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = len(text.splitlines())
    module_doc = ast.get_docstring(tree) or ""
    assert lines <= MAX_MODULE_LINES or _REASON in module_doc.lower(), f"{module} has {lines} lines"
    long_functions = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"  # type: ignore[operator]
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES  # type: ignore[operator]
        and not _has_reason(node)
    ]
    assert not long_functions, f"{module}: " + ", ".join(long_functions)


def test_temporary_test_files_are_not_named_like_the_suites_own() -> None:
    """A test module written into a pytester project and run in-process (``tests/rts``:
    ``helpers.run`` is ``inline_run``) is imported by its basename: one named like a module
    of this suite (``test_engine.py``) that the same xdist worker imported already fails to
    collect there, depending on the distribution. Subprocess runs (extreme, lsp) are free."""
    tests = Path(__file__).parent
    own = {path.name for path in tests.rglob("test_*.py")}
    clashes = []
    for path in (tests / "rts").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = getattr(node, "value", None)
            if isinstance(node, ast.Constant) and isinstance(value, str) and value in own:
                clashes.append(f"{path.relative_to(tests)}:{node.lineno} {value}")
    assert not clashes, clashes
