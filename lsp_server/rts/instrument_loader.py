"""Project modules compiled with a marker at the start of every function body: which code
ran is then known without a profile hook (Python 3.10/3.11, where a hook costs ~3x on
call-heavy suites whatever it does: toolz makes 28 million calls).

Each ``def``, ``async def`` and class body starts with ``__reks_hits__[k] = 1`` (after its
docstring, so ``__doc__`` stays), ``k`` a constant index into one process-wide bytearray
(``HitTable``) kept in ``builtins``: four cheap instructions and no call. A lambda, which
has no statements, evaluates ``__reks_hit__(k, 1) or body`` (the bytearray's bound
``__setitem__``, a C call returning None); a generator expression gets the same marker as
the first condition of its first ``for`` (nothing in it can run before the first element).
List, set and dict comprehensions run whole where they are written: they are recorded
with the code around them (generator expressions too, besides their own marker: one
consumed later, in another test, marks itself there). Markers take the first statement's
location, and nothing else changes: line numbers, tracebacks and ``inspect.getsource``
stay the same. Code whose lookups by name must be watched as it runs (``Watched``) calls
``__reks_enter__(k)`` instead (``rts.instrumented_tracer``). Each return of a function
outside the tests hands its value to the tracer until its kind is known (``rts.return_sites``).

The bytearray and its name stay in ``builtins`` for the process's life: instrumented code
may still run after recording stops (teardown, ``atexit``).

A test module pytest rewrites for assertions goes through pytest's ``rewrite_asserts``
first, then gets its markers (``InstrumentingFinder``): both loaders chained in one.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.collector_pause import collector_paused
from lsp_server.rts.marker_codes import ENTER_NAME, HIT_NAME, HITS_NAME, register_codes
from lsp_server.rts.purity import is_string_statement
from lsp_server.rts.return_sites import ReturnSites, located, mark_returns

WATCH_HOOK = "reks_watch"
"""The attribute marking the instrumented tracer's profile hooks (true)."""


class HitTable:
    """One byte per instrumented code object, set when the code runs; ``take`` reads and
    clears them. One table per process: the instrumented code reaches it by a builtin name."""

    def __init__(self) -> None:
        self.hits = bytearray()
        # Index -> the code object and the comprehensions run with it (kept alive).
        self.codes: list[tuple[CodeType, ...] | None] = []
        self.sites = ReturnSites()

    def reserve(self, count: int) -> int:
        """The first of ``count`` new indexes."""
        start = len(self.hits)
        self.hits.extend(bytes(count))
        self.codes.extend([None] * count)
        return start

    def take(self) -> Iterator[CodeType]:
        """The code objects run since the last call (and clears their marks)."""
        hits, codes = self.hits, self.codes
        at = hits.find(1)
        while at >= 0:
            hits[at] = 0
            ran = codes[at]
            if ran is not None:
                yield from ran
            at = hits.find(1, at + 1)

    def install(self) -> None:
        """Make the table the one instrumented code marks."""
        setattr(builtins, HITS_NAME, self.hits)
        setattr(builtins, HIT_NAME, self.hits.__setitem__)
        setattr(builtins, ENTER_NAME, self.mark)
        self.sites.install()

    def mark(self, index: int) -> None:
        """The marker of code to be watched as it runs (``ENTER_NAME``) while no tracer
        watches: a mark like any other."""
        self.hits[index] = 1


def shared_table() -> HitTable:
    """The process's table (code compiled against an earlier one keeps marking that one,
    so there is only ever one)."""
    found = getattr(builtins, HITS_NAME, None)
    table = _TABLES.get(id(found)) if found is not None else None
    if table is None:
        table = HitTable()
        table.install()
        _TABLES[id(table.hits)] = table
    return table


_TABLES: dict[int, HitTable] = {}


def _marker_statement(index: int, at: ast.AST, enter: bool) -> ast.stmt:
    if enter:
        return located(ast.Expr(value=_marker_call(index, at, enter)), at)
    target = ast.Subscript(
        value=ast.Name(id=HITS_NAME, ctx=ast.Load()),
        slice=ast.Constant(value=index),
        ctx=ast.Store(),
    )
    statement = ast.Assign(targets=[target], value=ast.Constant(value=1))
    return located(statement, at)


def _marker_call(index: int, at: ast.AST, enter: bool) -> ast.Call:
    """``__reks_hit__(k, 1)``, or ``__reks_enter__(k)``: both return None."""
    name, args = (ENTER_NAME, [index]) if enter else (HIT_NAME, [index, 1])
    call = ast.Call(
        func=ast.Name(id=name, ctx=ast.Load()),
        args=[ast.Constant(value=a) for a in args],
        keywords=[],
    )
    return located(call, at)


_MARKED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.GeneratorExp)
"""The nodes whose code objects get a marker (comprehensions are recorded with their owner)."""


Switch = Callable[[], None]
"""Turns a marker placed in a tree into the watched kind (``ENTER_NAME``), in place."""


def _mark_body(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, index: int) -> Switch:
    body = node.body
    has_docstring = is_string_statement(body[0])
    # After the docstring, at the next statement's place (or the docstring's, when the body
    # is nothing else).
    at = 1 if has_docstring else 0
    statement = _marker_statement(index, body[min(at, len(body) - 1)], False)
    body.insert(at, statement)

    def enter() -> None:
        body[body.index(statement)] = _marker_statement(index, statement, True)

    return enter


def _mark(node: ast.AST, index: int) -> Switch:
    if isinstance(node, (ast.Lambda, ast.GeneratorExp)):
        at = node.body if isinstance(node, ast.Lambda) else node.elt
        call = _marker_call(index, at, False)
        if isinstance(node, ast.Lambda):
            marked = ast.BoolOp(op=ast.Or(), values=[call, node.body])
            node.body = ast.copy_location(marked, node.body)  # spans its body, as before
        else:
            test = ast.Compare(left=call, ops=[ast.Is()], comparators=[ast.Constant(None)])
            node.generators[0].ifs.insert(0, located(test, node.elt))

        def enter() -> None:
            call.func = located(ast.Name(id=ENTER_NAME, ctx=ast.Load()), call)
            del call.args[1:]

        return enter
    return _mark_body(node, index)  # type: ignore[arg-type]


def instrument_tree(
    tree: ast.Module, table: HitTable, returns: bool = True
) -> tuple[int, list[Switch]]:
    """Add markers to ``tree`` in place (and return sites, unless not ``returns``), at new
    indexes of ``table``; the first index, and what turns each marker into the watched
    kind. One walk finds every node first: a visitor rebuilding the tree cost more than
    compiling it."""
    marked = [node for node in walk(tree) if isinstance(node, _MARKED)]
    owned: list[tuple[int, list[int]]] = []  # (function's place in ``marked``, its sites)
    for place, node in enumerate(list(marked)):
        if returns and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sites, copies = mark_returns(node, table.sites)
            owned.append((place, sites))
            for value in copies:  # copied before their markers are placed: new ones
                marked.extend(n for n in walk(value) if isinstance(n, _MARKED))
    first = table.reserve(len(marked))
    # Every node added is located: ``fix_missing_locations`` would give pytest's rewritten
    # asserts (which have no end positions) spans ending before they start.
    switches = [_mark(node, index) for index, node in enumerate(marked, first)]
    for place, sites in owned:
        for site in sites:
            table.sites.own(site, first + place)
    return first, switches


Watched = Callable[[tuple[CodeType, ...]], bool]
"""Whether a marked code object (with the comprehensions run with it) is to be watched
as it runs: its marker is then a call of ``ENTER_NAME``."""


def compile_instrumented(
    source: str | bytes,
    filename: str,
    table: HitTable,
    rewrite: Callable[[ast.Module, bytes], None] | None = None,
    watched: Watched | None = None,
    returns: bool = True,
) -> CodeType:
    """``source`` compiled with markers (after ``rewrite``, pytest's assertion rewriting
    for a test module), its code objects registered in ``table``; ``returns``: with return
    sites (``rts.return_sites``). When some of them are ``watched`` (known only from the
    code objects), the tree is compiled once more with their markers calling
    ``ENTER_NAME`` (parsing and pytest's rewriting again cost twice as much)."""
    data = source if isinstance(source, bytes) else source.encode()
    tree = ast.parse(data, filename)
    if rewrite is not None:
        rewrite(tree, data)
    first, switches = instrument_tree(tree, table, returns)
    code = compile(tree, filename, "exec", dont_inherit=True)
    register_codes(code, table.codes)
    if watched is None:
        return code
    entering = [
        switch
        for index, switch in enumerate(switches, first)
        if (group := table.codes[index]) and watched(group)
    ]
    if not entering:
        return code
    for switch in entering:
        switch()
    code = compile(tree, filename, "exec", dont_inherit=True)
    register_codes(code, table.codes)
    return code


@contextlib.contextmanager
def _compiling() -> Iterator[None]:
    """Compiling a module builds and drops hundreds of thousands of nodes: the collector
    is off meanwhile (each of its passes visits reks's and pytest's objects too: a third of
    pytest's assertion rewriting on toolz). A module imported while another imports would
    be compiled under the hook watching that import (``WATCH_HOOK``), every call of the
    compilation going through it: it is paused. Nothing of the project runs meanwhile."""
    hook = sys.getprofile()
    paused = getattr(hook, WATCH_HOOK, False)
    if paused:
        sys.setprofile(None)
    try:
        with collector_paused():
            yield
    finally:
        if paused:
            sys.setprofile(hook)


ModuleHook = Callable[[CodeType], None]


class InstrumentingLoader(importlib.machinery.SourceFileLoader):
    """A source loader compiling with markers (never from a ``.pyc``: its bytecode has
    none), and telling ``on_start``/``on_end`` around the module's execution (its import
    window)."""

    def __init__(
        self,
        fullname: str,
        path: str,
        finder: InstrumentingFinder,
        rewrite: Callable[[ast.Module, bytes], None] | None = None,
    ) -> None:
        super().__init__(fullname, path)
        self._finder = finder
        self._rewrite = rewrite

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        finder = self._finder
        with _compiling():
            return compile_instrumented(
                source,
                self.path,
                finder.table,
                self._rewrite,
                finder.watched,
                finder.returns_wanted(path),
            )

    def exec_module(self, module: ModuleType) -> None:
        code = self.get_code(module.__name__)
        finder = self._finder
        finder.on_start(code)
        try:
            exec(code, module.__dict__)
        finally:
            finder.on_end(code)


class InstrumentingFinder(importlib.abc.MetaPathFinder):
    """Finds the project's source modules (``is_project_file``) and loads them with
    markers; for a module that pytest's assertion rewriter (``rewriter``) would load, its
    rewriting runs first (``pytest_rewrite``)."""

    def __init__(
        self,
        table: HitTable,
        is_project_file: Callable[[str], bool],
        on_start: ModuleHook,
        on_end: ModuleHook,
        rewriter: Any = None,
        pytest_rewrite: Callable[[ast.Module, bytes, str], None] | None = None,
        watched: Watched | None = None,
        returns_wanted: Callable[[str], bool] | None = None,
    ) -> None:
        self.table = table
        self.watched = watched
        self.returns_wanted = returns_wanted or (lambda _: True)
        self._is_project_file = is_project_file
        self.on_start = on_start
        self.on_end = on_end
        self._rewriter = rewriter
        self._pytest_rewrite = pytest_rewrite
        self.loaded: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.origin is None or not spec.has_location:
            return None
        origin = spec.origin
        if not origin.endswith(".py") or not self._is_project_file(origin):
            return None  # the finders after this one load it as usual
        rewritten = None
        if self._rewriter is not None and self._pytest_rewrite is not None:
            rewritten = self._rewriter.find_spec(fullname, path, target)
        rewrite = None
        if rewritten is not None and self._pytest_rewrite is not None:
            pytest_rewrite = self._pytest_rewrite
            # What pytest's own loader would note (it warns about a module imported before
            # it could be rewritten by this list).
            names = getattr(self._rewriter, "_rewritten_names", None)
            if isinstance(names, dict):
                names[fullname] = Path(origin)

            def rewrite(tree: ast.Module, source: bytes) -> None:
                pytest_rewrite(tree, source, origin)

        loader = InstrumentingLoader(fullname, origin, self, rewrite)
        self.loaded.append(origin)
        return importlib.util.spec_from_file_location(
            fullname,
            origin,
            loader=loader,
            submodule_search_locations=spec.submodule_search_locations,
        )

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def uninstall(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
