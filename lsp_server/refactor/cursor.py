"""What is under the cursor of a code-action request, from Python's ``ast`` alone.

``Cursor`` locates the offset in the syntax tree once (the chain of nodes around it, the
def/class name or parameter or other identifier it is on) for every offer family of
``lsp_server.refactor.actions``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

from lsp_server.project.text import identifier_span
from lsp_server.refactor.class_fields import FieldAssignments
from lsp_server.refactor.outline import ModuleFacts, module_facts


class _Lines:
    """Offsets <-> (1-based line, UTF-8 byte column) as ``ast`` reports them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True) or [""]
        self.starts: list[int] = []
        pos = 0
        for line in self.lines:
            self.starts.append(pos)
            pos += len(line)

    def position(self, offset: int) -> tuple[int, int]:
        import bisect

        index = max(0, bisect.bisect_right(self.starts, offset) - 1)
        line = self.lines[index]
        chars = offset - self.starts[index]
        col = chars if line.isascii() else len(line[:chars].encode("utf-8"))
        return index + 1, col

    def offset(self, line: int, col: int) -> int:
        if line - 1 >= len(self.lines):
            return len(self.text)
        text = self.lines[line - 1]
        chars = (
            col if text.isascii() else len(text.encode("utf-8")[:col].decode("utf-8", "replace"))
        )
        return self.starts[line - 1] + chars


def _contains(node: ast.AST, pos: tuple[int, int]) -> bool:
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return start <= pos <= end


def _name_span(lines: _Lines, node: ast.AST, name: str) -> tuple[int, int] | None:
    """Offsets of the name of a def/class (after the keyword on its line)."""
    line_text = lines.lines[node.lineno - 1]  # type: ignore[attr-defined]
    start = lines.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
    at = line_text.find(name, start - lines.starts[node.lineno - 1])  # type: ignore[attr-defined]
    if at < 0:
        return None
    begin = lines.starts[node.lineno - 1] + at  # type: ignore[attr-defined]
    return begin, begin + len(name)


@dataclass
class _Found:
    chain: list[ast.AST]
    """Nodes containing the cursor, outermost first."""
    definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    """A def/class whose name is under the cursor."""
    parameter: tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, ast.arg] | None = None
    name_start: int | None = None
    """Where the name of ``definition`` starts."""


def _locate(tree: ast.Module, lines: _Lines, offset: int) -> _Found:
    pos = lines.position(offset)
    chain: list[ast.AST] = []
    node: ast.AST = tree
    found = _Found(chain)
    while True:
        chain.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            span = _name_span(lines, node, node.name)
            # On the keyword (``def``, ``async def``, ``class``) as on the name: same offers.
            header = lines.offset(node.lineno, node.col_offset)
            if span is not None and header <= offset <= span[1]:
                found.definition = node
                found.name_start = span[0]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = [*node.args.posonlyargs, *node.args.args]
                for index, arg in enumerate(params):
                    if _contains(arg, pos):
                        found.parameter = (node, index, arg)
        for child in ast.iter_child_nodes(node):
            if hasattr(child, "lineno") and _contains(child, pos):
                node = child
                break
        else:
            return found


def _is_function(node: ast.AST | None) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))


@functools.lru_cache(maxsize=2)  # the trees of the documents being edited
def _facts_of(tree: ast.Module) -> ModuleFacts:
    """One walk of a module's tree for every cursor in it: an editor asks for code
    actions on every cursor move, and a walk of a 50,000-line module costs 0.1 s."""
    return module_facts(tree)


def stores(scope: ast.AST, name: str) -> bool:
    """``name`` is assigned somewhere in ``scope`` (a function)."""
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(scope)
    )


def is_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    args = function.args
    return name in {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}


class Cursor:
    """What is at the cursor (or selection), worked out once for every offer family.

    At most one of ``definition`` (a def/class name), ``parameter`` and ``name`` (another
    identifier: its innermost node) is set: they are the three things a cursor can be on.
    """

    def __init__(
        self,
        text: str,
        tree: ast.Module,
        offset: int,
        end: int | None,
        facts: ModuleFacts | None = None,
    ) -> None:
        """``tree`` is ``text``'s; ``facts`` those of the whole module when ``text`` is
        only the part of it around the cursor (see ``refactor.outline``)."""
        self.text = text
        self.tree = tree
        self._facts = facts
        self.offset = offset
        self.lines = _Lines(text)
        self.selection_end = end if end is not None and end > offset else None
        found = _locate(tree, self.lines, offset)
        self.chain = found.chain
        word_start, word_end = identifier_span(
            text, offset if found.name_start is None else found.name_start
        )
        self.word = text[word_start:word_end]
        self.at = word_start if self.word else offset
        """Where offers on the identifier under the cursor point: its start."""
        self.definition = found.definition
        self.parameter = found.parameter if found.definition is None else None
        on_word = self.word and self.definition is None and self.parameter is None
        self.name: ast.AST | None = found.chain[-1] if on_word else None
        self.project_module: Callable[[str], bool] | None = None
        """Which imported modules are project code (see ``refactor.destinations``)."""
        self.class_fields: FieldAssignments | None = None
        """The assignments to ``self`` of the top-level class at the cursor when ``text``
        holds only some of its members (see ``refactor.outline``)."""

    def parent(self, node: ast.AST) -> ast.AST | None:
        index = self.chain.index(node)
        return self.chain[index - 1] if index > 0 else None

    def is_method(self, function: ast.AST) -> bool:
        return isinstance(self.parent(function), ast.ClassDef)

    @functools.cached_property
    def innermost_function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        functions = [n for n in self.chain if _is_function(n)]
        return functions[-1] if functions else None

    @functools.cached_property
    def function_definition(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The def whose name is under the cursor (None on a class name)."""
        return self.definition if _is_function(self.definition) else None

    @functools.cached_property
    def local_store(self) -> bool:
        """The identifier is a name assigned in the function around it."""
        function = self.innermost_function
        return function is not None and stores(function, self.word)

    @property
    def facts(self) -> ModuleFacts:
        """The module's facts (from its tree on first use when not given)."""
        if self._facts is None:
            self._facts = _facts_of(self.tree)
        return self._facts

    @functools.cached_property
    def has_imports(self) -> bool:
        """The module imports something at its top level."""
        if self._facts is not None:
            return bool(self._facts.imports)
        return any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in self.tree.body)

    @functools.cached_property
    def module_store(self) -> bool:
        """The identifier is a name assigned somewhere in the module."""
        return self.word in self.facts.stored

    @functools.cached_property
    def module_function(self) -> bool:
        """The identifier names a function defined in the module."""
        return self.word in self.facts.functions
