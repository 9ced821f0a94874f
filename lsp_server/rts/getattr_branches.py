"""A module ``__getattr__`` (PEP 562) split per constant branch.

A module ``__getattr__`` runs for every name a module lacks: a conftest probing one absent
name (``hasattr(pkg, "_speedups")``, ``from pkg import _speedups``) makes every test depend
on the whole function, and an edit of the branch serving a deprecated name ran the whole
suite. When the body answers names by ``if name == "CONST":`` branches (``elif`` too), the
function is split into:

* ``GETATTR_REST``: the body with each branch's statements left out (the conditions stay,
  with the code before, between and after the branches): what every call runs or tests;
* ``branch_name(CONST)``: the statements of the branches for ``CONST``, which only a call
  asking ``CONST`` runs.

The tracer tells the name of every call (``AskedNames``, 3.12's PY_START on the function,
not disabled): a test that asked ``CONST`` depends on its branch besides the rest; a test
that asked a name no branch serves depends on the rest alone, which holds every condition,
so a branch added for it selects the test. A call whose name is no ``str`` asks every
branch; so does every call where the tracer does not tell (3.10/3.11).

The function stays one unit when anything else could make a call run a branch its name
did not ask: a condition other than ``name == "CONST"`` (``in``, ``startswith``), the
parameter rebound, a decorator, defaults, nested
definitions, a generator, a redefinition, non-ASCII source (the tree's columns count
bytes, the tokens' characters).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import CodeType, FrameType

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.identity import identity
from lsp_server.rts.tokens import Pos, TokenText
from lsp_server.rts.unit_names import GETATTR_PARTS

GETATTR_REST = GETATTR_PARTS
"""Unit of a split module ``__getattr__``'s code outside its constant branches."""
_BRANCH = GETATTR_PARTS + ":"
MAX_ASKED = 1_000
"""Names one ``__getattr__`` may be asked in a session before every call asks every branch."""


def branch_name(constant: str) -> str:
    """The unit of the branches of a split module ``__getattr__`` serving ``constant``."""
    return _BRANCH + constant


def branch_units(checksums: Iterable[str]) -> list[str]:
    """The branch units among a file's unit names."""
    return [name for name in checksums if name.startswith(_BRANCH)]


class AskedNames:
    """The tracer's side: a module ``__getattr__``'s calls each leave a marker, a code object
    of their own standing for the name asked (one per name, kept: its id stays a key), in
    the set of code that ran; the attribution turns it into that name's branch unit."""

    def __init__(self) -> None:
        self._markers: dict[int, dict[str | None, CodeType]] = {}  # by identity(function)
        self._asked: dict[int, str | None] = {}  # identity(marker) -> the name; None: any
        self.watched: dict[int, CodeType] = {}
        """By identity: the functions whose calls the session's tracer tells (kept: an id
        stays theirs)."""

    def restart(self) -> None:
        """A tracer is made: it tells only the calls of what it watches itself, and an
        earlier session's markers stand for code gone."""
        self.watched.clear()
        self._markers.clear()
        self._asked.clear()

    def watch(self, code: CodeType) -> bool:
        """Whether ``code`` may be a module's own ``__getattr__`` (not a method, not
        nested): then its calls are told from now on."""
        qualname = getattr(code, "co_qualname", code.co_name)
        found = code.co_name == qualname == "__getattr__" and code.co_argcount >= 1
        if found:
            self.watched[identity(code)] = code
        return found

    def marker(self, code: CodeType, frame: FrameType) -> CodeType:
        """The marker of the name ``frame`` (a call of ``code``) was asked."""
        markers = self._markers.setdefault(identity(code), {})
        name = frame.f_locals.get(code.co_varnames[0])
        asked = str.__str__(name) if type(name) is str and len(markers) < MAX_ASKED else None
        found = markers.get(asked)
        if found is None:
            found = markers[asked] = code.replace(co_name=f"<asked {asked!r}>")
            self._asked[identity(found)] = asked
        return found

    def is_marker(self, code: CodeType) -> bool:
        return identity(code) in self._asked

    def asked(self, marker: CodeType) -> str | None:
        """The name a marker stands for (None: any)."""
        return self._asked[identity(marker)]


ASKED = AskedNames()
"""The session's markers: one tracer records them, the attribution reads them."""


@dataclass(frozen=True)
class _Branch:
    constant: str
    start: Pos
    end: Pos


def getattr_units(tree: ast.Module, text: TokenText, lines: list[str]) -> dict[str, list[str]]:
    """The texts of the units of ``tree``'s module ``__getattr__`` split per constant branch
    (see the module docstring), by unit name; empty when it is not split."""
    function = _module_getattr(tree)
    if function is None:
        return {}
    last = function.body[-1]
    code_lines = lines[function.lineno - 1 : last.end_lineno]
    if not all(line.isascii() for line in code_lines):
        return {}
    branches = _branches(function)
    if not branches:
        return {}
    first = function.body[0]
    value = first.value if isinstance(first, ast.Expr) else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str) and function.body[1:]:
        first = function.body[1]  # the docstring is a unit of its own
    start = (first.lineno, first.col_offset)
    end = (last.end_lineno or last.lineno, last.end_col_offset or 0)
    holes = [(b.start, b.end, "<branch>") for b in branches]
    texts: dict[str, list[str]] = {GETATTR_REST: text.without(start, end, holes)}
    for branch in branches:
        texts.setdefault(branch_name(branch.constant), []).extend(
            ["<branch>", *text.without(branch.start, branch.end, ())]
        )
    return texts


def _module_getattr(tree: ast.Module) -> ast.FunctionDef | None:
    """The one plain ``def __getattr__`` of the module's top level, if it may be split."""
    # ``ast_walk.walk``: within a file's analysis the tree's walk is shared with the other
    # rules (``ast.walk`` walked it afresh: about 5% of analysing toolz's modules).
    found = [
        node
        for node in walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "__getattr__"
    ]
    top = [node for node in tree.body if node in found]
    if len(found) != 1 or len(top) != 1 or not isinstance(top[0], ast.FunctionDef):
        return None
    function = top[0]
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if function.decorator_list or not positional or arguments.defaults or arguments.kw_defaults:
        return None
    parameter = positional[0].arg
    for node in walk(function):
        if node is function:
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            return None
        if isinstance(node, ast.Yield | ast.YieldFrom | ast.Await | ast.Global | ast.Nonlocal):
            return None
        if _binds(node, parameter):
            return None
        if isinstance(node, ast.NamedExpr | ast.comprehension):
            return None  # bindings inside expressions: kept whole rather than followed
    return function


def _branches(function: ast.FunctionDef) -> list[_Branch]:
    """The constant branches among ``function``'s top-level ``if``/``elif`` chains, each
    with the span of its statements; empty when a condition reads the parameter some other
    way (the function stays one unit). A chain goes on in the rest from its first other
    condition. A branch need not end the call: its statements run only for its name."""
    parameter = [*function.args.posonlyargs, *function.args.args][0].arg
    found: list[_Branch] = []
    for statement in function.body:
        for test, body in _chain(statement):
            constant = _asked_constant(test, parameter)
            if constant is None:
                if _names_parameter(test, parameter):
                    return []
                break
            head, tail = body[0], body[-1]
            if head.lineno <= (test.end_lineno or test.lineno):
                return []  # on the condition's line: its tokens could not be told apart
            end = (tail.end_lineno or tail.lineno, tail.end_col_offset or 0)
            found.append(_Branch(constant, (head.lineno, head.col_offset), end))
    return found


def _chain(statement: ast.stmt) -> Iterator[tuple[ast.expr, list[ast.stmt]]]:
    """The (condition, statements) of an ``if``/``elif`` chain; nothing for other
    statements (a final ``else`` runs when no condition held: code of the rest)."""
    while isinstance(statement, ast.If):
        yield statement.test, statement.body
        if len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.If):
            statement = statement.orelse[0]
        else:
            return


def _asked_constant(test: ast.expr, parameter: str) -> str | None:
    """``CONST`` of a condition ``parameter == "CONST"`` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or type(test.ops[0]) is not ast.Eq:
        return None
    left, right = test.left, test.comparators[0]
    for name, value in ((left, right), (right, left)):
        is_parameter = isinstance(name, ast.Name) and name.id == parameter
        if is_parameter and isinstance(value, ast.Constant) and type(value.value) is str:
            return value.value
    return None


def _names_parameter(test: ast.expr, parameter: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == parameter for n in ast.walk(test))


def _binds(node: ast.AST, parameter: str) -> bool:
    """Whether ``node`` binds ``parameter`` (a name stored or deleted, an ``except``,
    ``import`` or ``match`` target so named)."""
    if isinstance(node, ast.Name):
        return node.id == parameter and type(node.ctx) is not ast.Load
    if isinstance(node, ast.alias):
        return (node.asname or node.name.partition(".")[0]) == parameter
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return node.name == parameter
    return isinstance(node, ast.MatchMapping) and node.rest == parameter


def getattr_parts(code: CodeType, found: Unit, units: FileUnits) -> tuple[Unit, ...]:
    """The units a run of ``code`` (of function unit ``found`` of ``units``'s file, or a call
    marker of it) depends on of the function: ``found``, or for a split module
    ``__getattr__`` its rest, with the branch of the name a marker stands for; with every
    branch when the tracer watching ``code`` does not tell the names asked."""
    if found.name != "__getattr__" or GETATTR_REST not in units.checksums:
        return (found,)
    branches = branch_units(units.checksums)
    if ASKED.is_marker(code):
        asked = ASKED.asked(code)
        branches = branches if asked is None else [n for n in branches if n == branch_name(asked)]
        return tuple(Unit(found.path, name) for name in branches)
    if identity(code) in ASKED.watched:
        return (Unit(found.path, GETATTR_REST),)
    return (Unit(found.path, GETATTR_REST), *(Unit(found.path, name) for name in branches))
