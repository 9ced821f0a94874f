"""A move of a global, checked and mended on the simulated project before anyone sees it.

rope moves the definition and rewrites the uses it resolves, but it leaves some importers
importing the name from the old module: aliased (``from m import f as g``), relative
(``from ._cached import a, f``), a package ``__init__`` re-exporting it. The import then
fails. ``mend_importers`` points those imports at the new module; ``reexport`` keeps the
name importable from a public old module (lazily when the new module imports the old one,
so that no import cycle is created). ``check_move`` then refuses a result in which an
importer still misses the name or the modules import each other at load time.

Texts are root-relative path -> text; nothing here touches the disk.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from lsp_server.project.imports import (
    from_imports,
    imported_module,
    module_names,
    module_parts,
)
from lsp_server.project.text import line_starts, offset_of, parse_python
from lsp_server.refactor.model import RefactoringError
from lsp_server.rts.purity import nested_statements


@dataclass(frozen=True)
class MovedGlobal:
    """Global ``name`` moved from the module at ``old_path`` to the one at ``new_path``
    (root-relative); ``new_module`` is the dotted name the new module is imported by."""

    name: str
    old_path: str
    new_path: str
    new_module: str


def _relative_spec(importer: str, target: str, max_level: int) -> str | None:
    """``from <spec> import ...`` naming module ``target`` relatively from ``importer``,
    going up no more than ``max_level`` dots (where the old import already reached)."""
    folder = importer.split("/")[:-1]
    parts = module_parts(target)
    common = 0
    while common < min(len(folder), len(parts) - 1) and folder[common] == parts[common]:
        common += 1
    level = len(folder) - common + 1
    if level > max_level or common == 0:
        return None
    return "." * level + ".".join(parts[common:])


def _absolute_spec(node: ast.ImportFrom, moved: MovedGlobal) -> str:
    """The new module's dotted name in the same style as ``node`` names the old one (a src
    layout keeps the part below ``src/``)."""
    used = (node.module or "").split(".")
    new_parts = module_parts(moved.new_path)
    drop = len(module_parts(moved.old_path)) - len(used)
    if 0 <= drop < len(new_parts):
        return ".".join(new_parts[drop:])
    return moved.new_module


def _aliases(names: list[ast.alias]) -> str:
    return ", ".join(a.name if a.asname is None else f"{a.name} as {a.asname}" for a in names)


def _replacement(text: str, node: ast.ImportFrom, importer: str, moved: MovedGlobal) -> str:
    """The statements replacing ``node``: the import of the name from the new module, and
    the rest of the names still from the old one."""
    spec = None
    if node.level:
        spec = _relative_spec(importer, moved.new_path, node.level)
    if spec is None:
        spec = _absolute_spec(node, moved)
    staying = [a for a in node.names if a.name != moved.name]
    going = [a for a in node.names if a.name == moved.name]
    lines = []
    if staying:
        lines.append(f"from {'.' * node.level}{node.module or ''} import {_aliases(staying)}")
    lines.append(f"from {spec} import {_aliases(going)}")
    line_start = line_starts(text)[node.lineno - 1]
    prefix = text[line_start : line_start + node.col_offset]
    separator = "\n" + prefix if not prefix.strip() else "; "
    return separator.join(lines)


def mend_importers(
    texts: Mapping[str, str], moved: MovedGlobal, known: Collection[str]
) -> dict[str, str]:
    """Path -> new text of every file (other than the two modules) that still imports the
    moved name from the old module, now importing it from the new one."""
    found: dict[str, list[ast.ImportFrom]] = {}
    for importer, node in from_imports(texts, moved.old_path, moved.name, known):
        if importer != moved.new_path:
            found.setdefault(importer, []).append(node)
    mended: dict[str, str] = {}
    for importer, nodes in found.items():
        text = texts[importer]
        starts = line_starts(text)
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset), reverse=True):
            assert node.end_lineno is not None and node.end_col_offset is not None
            begin = offset_of(starts, node.lineno, node.col_offset)
            end = offset_of(starts, node.end_lineno, node.end_col_offset)
            text = text[:begin] + _replacement(text, node, importer, moved) + text[end:]
            starts = line_starts(text)
        mended[importer] = text
    return mended


def _spells(node: ast.AST, name: str) -> bool:
    return any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(node))


def binds(tree: ast.Module, name: str, strict: bool = False) -> bool:
    """Does the module bind global ``name`` (a definition, an assignment, an import), or
    may it provide it anyway (``from x import *``, a module ``__getattr__``; with
    ``strict``, only a ``__getattr__`` that spells the name)?"""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name or (
                node.name == "__getattr__" and (not strict or _spells(node, name))
            ):
                return True
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == name or alias.name == "*":
                    return True
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                if child.id == name:
                    return True
            elif isinstance(child, ast.NamedExpr) and child.target.id == name:
                return True
        todo.extend(nested_statements(node))
    return False


def _load_time_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module loads: module level, also inside ``if``/``try``/
    ``with`` blocks, but not under ``if TYPE_CHECKING`` nor in functions."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(nested_statements(node))


def _encloses(target: str, path: str) -> bool:
    """Is ``target`` the module ``path`` itself or the ``__init__`` of a package above it?"""
    if target == path:
        return True
    return target.endswith("__init__.py") and path.startswith(target[: -len("__init__.py")])


class ModuleGraph:
    """Which project modules each module imports at load time, over ``texts`` (the
    packages above an imported module included: their ``__init__`` runs too)."""

    def __init__(self, texts: Mapping[str, str], known: Collection[str]) -> None:
        self.texts = texts
        self.by_name: dict[str, str] = {}
        for path in sorted(known, key=len, reverse=True):
            if path.endswith(".py"):
                for dotted in module_names(path, known):
                    self.by_name[dotted] = path
        self.paths = set(self.by_name.values())
        self._edges: dict[str, set[str]] = {}

    def _path(self, parts: list[str], relative: bool) -> str | None:
        if relative:
            for candidate in ("/".join(parts) + ".py", "/".join([*parts, "__init__.py"])):
                if candidate in self.paths:
                    return candidate
            return None
        return self.by_name.get(".".join(parts))

    def imports(self, path: str) -> set[str]:
        if path in self._edges:
            return self._edges[path]
        found: set[str] = set()
        self._edges[path] = found
        try:
            tree = parse_python(self.texts.get(path, ""))
        except (SyntaxError, ValueError):
            return found
        for node in _load_time_imports(tree):
            if isinstance(node, ast.Import):
                targets = [(alias.name.split("."), False) for alias in node.names]
            else:
                module, relative = imported_module(node, path)
                targets = [(module, relative)]
                targets += [([*module, a.name], relative) for a in node.names]
            for parts, relative in targets:
                parts = [p for p in parts if p]
                # Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first; the
                # packages above ``path`` itself are loading already (no new edge).
                for end in range(1, len(parts) + 1):
                    target = self._path(parts[:end], relative)
                    if target is not None and not _encloses(target, path):
                        found.add(target)
        return found

    def path_between(self, start: str, goal: str) -> list[str] | None:
        """A chain of load-time imports from ``start`` to ``goal`` (at least one import
        long), if there is one."""
        came_from: dict[str, str] = {}
        todo = [start]
        while todo:
            current = todo.pop()
            for target in sorted(self.imports(current)):
                if target in came_from or target not in self.texts:
                    continue
                came_from[target] = current
                if target == goal:
                    chain = [goal]
                    while chain[-1] != start or len(chain) == 1:
                        chain.append(came_from[chain[-1]])
                    return chain[::-1]
                todo.append(target)
        return None


def is_public(moved: MovedGlobal, known: Collection[str]) -> bool:
    """Code outside the project may import the name from the old module: neither the name
    nor any part of the module's shortest dotted name is private (``_x``), and the module
    is not a script (``__main__``)."""
    shortest = min(module_names(moved.old_path, known), key=len).split(".")
    return not any(p.startswith("_") for p in [moved.name, *shortest])


def _import_spec(moved: MovedGlobal, known: Collection[str]) -> str:
    """How the old module imports the new one: relatively inside a package; from a folder
    that is no package (a tests folder pytest puts on ``sys.path``), where a relative
    import fails, by its whole dotted path (a bare ``test_core`` would be whichever
    ``test_core`` pytest imported first)."""
    folder = moved.old_path.rpartition("/")[0]
    if not known or (folder and f"{folder}/__init__.py" in known):
        spec = _relative_spec(moved.old_path, moved.new_path, 1)
        return spec if spec is not None else moved.new_module
    return max(module_names(moved.new_path, known), key=len)


def _after_imports(tree: ast.Module) -> int:
    """The line after which a new module-level import goes: after the docstring and the
    last module-level import at the top of the module."""
    line = 0
    for index, node in enumerate(tree.body):
        docstring = (
            index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        )
        if docstring or isinstance(node, (ast.Import, ast.ImportFrom)):
            line = node.end_lineno or node.lineno
        else:
            break
    return line


def _insert_after_line(text: str, line: int, block: str) -> str:
    starts = line_starts(text)
    if line >= len(starts):
        return text + ("" if text.endswith("\n") or not text else "\n") + block
    return text[: starts[line]] + block + text[starts[line] :]


def reexport(old_text: str, moved: MovedGlobal, lazily: bool, known: Collection[str] = ()) -> str:
    """The old module's text with the moved name importable from it again: a plain import
    (``from new import f``), or, when the new module imports the old one at load time, a
    module ``__getattr__`` that imports it on first use (PEP 562), which ``from old import
    f`` reaches too."""
    spec, name = _import_spec(moved, known), moved.name
    tree = parse_python(old_text)
    if not lazily:
        line = f"from {spec} import {name}  # noqa: F401  (moved; importable from here too)\n"
        return _insert_after_line(old_text, _after_imports(tree), line)
    branch = [
        f'if name == "{name}":  # moved to {moved.new_module}, which imports this module',
        f"    from {spec} import {name}",
        "",
        f"    return {name}",
    ]
    existing = next(
        (
            n
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__getattr__"
        ),
        None,
    )
    if existing is None:
        block = ["", "", "def __getattr__(name):", *("    " + b if b else b for b in branch)]
        # No f-string: rope takes the prefix of f"..." for a use of a global named ``f``.
        message = '"module {!r} has no attribute {!r}".format(__name__, name)'
        block.append(f"    raise AttributeError({message})")
        return old_text.rstrip("\n") + "\n" + "\n".join(block) + "\n"
    first = existing.body[0]
    starts = line_starts(old_text)
    indent = old_text[starts[first.lineno - 1] :][: first.col_offset]
    text = "".join((indent + b if b else b) + "\n" for b in branch)
    return _insert_after_line(old_text, first.lineno - 1, text)


def binds_in(text: str, name: str, strict: bool = False) -> bool:
    """``binds`` on a module's text; a text that does not parse binds nothing."""
    try:
        return binds(parse_python(text), name, strict)
    except (SyntaxError, ValueError):
        return False


def _cycle(project: Mapping[str, str], module: str) -> str | None:
    """A chain of load-time imports from ``module`` back to itself, if there is one."""
    chain = ModuleGraph(project, project).path_between(module, module)
    return None if chain is None else " -> ".join(chain)


def check_move(
    importers: Mapping[str, str],
    project: Mapping[str, str],
    moved: MovedGlobal,
    before: Mapping[str, str] | None = None,
) -> None:
    """Refuse (``RefactoringError`` naming the place) a moved project in which an importer
    (``importers``: the files that may import the name) still imports the name from a
    module that no longer provides it, or in which the new module and the old one import
    each other at load time (an import cycle the project, ``before``, did not have).
    ``project`` maps every Python file of the moved project to its text."""
    old_text = project.get(moved.old_path)
    if old_text is None:
        return
    if not binds_in(old_text, moved.name):
        for importer, node in from_imports(importers, moved.old_path, moved.name, project):
            raise RefactoringError(
                f"the move would leave {importer}:{node.lineno} importing `{moved.name}` "
                f"from {moved.old_path}, which would no longer define it"
            )
    for module in (moved.old_path, moved.new_path):
        cycle = _cycle(project, module)
        if cycle is not None and (before is None or _cycle(before, module) is None):
            raise RefactoringError(f"the move would create an import cycle: {cycle}")


def _top_level_names(text: str) -> set[str]:
    """The globals a module's own top-level statements bind (defs, classes, imports,
    assignments; nested blocks too, functions' bodies not)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"}
        else:
            names |= {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            todo.extend(nested_statements(node))
    return names


def check_names_kept(
    changed: Mapping[str, str],
    project: Mapping[str, str],
    moved: MovedGlobal,
    before: Mapping[str, str],
) -> None:
    """Refuse a move that drops a global other than the moved one from a module that
    another module imports it from (rope removes a package ``__init__``'s re-exports as
    unused imports when it rewrites them: toolz's ``functoolz/__init__.py``)."""
    for rel, text in sorted(changed.items()):
        if rel not in before:
            continue
        lost = _top_level_names(before[rel]) - _top_level_names(text) - {moved.name}
        for name in sorted(n for n in lost if not binds_in(text, n)):
            for importer, node in from_imports(project, rel, name, project.keys()):
                raise RefactoringError(
                    f"the move would drop `{name}` from {rel}, which {importer}:{node.lineno} "
                    "imports from it (the refactoring engine removed an import it took for "
                    "unused)"
                )
