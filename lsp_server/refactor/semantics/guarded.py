"""Which names a selection may read before binding them, with one kind of path
sensitivity: two ``if`` statements testing the same side-effect-free condition of local
names, none of them rebound in between, take the same branch. ``if c: k = x`` followed by
``if c: use(k)`` reads ``k`` only where it was bound (the shape of isort's loop bodies).
Everything else is as in ``liveness``: structured, and conservative (a read counts as
unbound unless every path binds the name first)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_server.refactor.semantics.flow import binds, own_reads, reads, scope_binds, target_names

_PURE = (ast.Name, ast.Constant, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp)
_PURE_PARTS = (*_PURE, ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)


@dataclass
class _State:
    bound: set[str]
    facts: dict[str, tuple[set[str], set[str], set[str]]] = field(default_factory=dict)
    """Condition -> (its names, names bound when it held, names bound when it did not)."""

    def copy(self) -> _State:
        return _State(set(self.bound), dict(self.facts))

    def rebind(self, names: set[str]) -> None:
        self.bound |= names
        self.facts = {k: v for k, v in self.facts.items() if not v[0] & names}


def _condition(test: ast.expr) -> tuple[str, set[str]] | None:
    if not all(isinstance(n, _PURE_PARTS) for n in ast.walk(test)):
        return None
    return ast.dump(test), reads(test)


def _meet(a: _State | None, b: _State | None) -> _State | None:
    if a is None or b is None:
        return b if a is None else a
    return _State(a.bound & b.bound, {k: v for k, v in a.facts.items() if b.facts.get(k) == v})


@dataclass
class UnboundReads:
    """Walks statements from a point where nothing is bound yet; collects the names read
    on some path before any binding."""

    found: set[str] = field(default_factory=set)

    def block(self, statements: list[ast.stmt], state: _State | None) -> _State | None:
        for stmt in statements:
            if state is None:
                return None
            state = self.statement(stmt, state)
        return state

    def _read(self, names: set[str], state: _State) -> None:
        self.found |= names - state.bound

    def statement(self, stmt: ast.stmt, state: _State) -> _State | None:
        if isinstance(stmt, ast.If):
            return self._if(stmt, state)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            return self._loop(stmt, state)
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            self._read(own_reads(stmt), state)
            return None
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            self._read(own_reads(stmt), state)
            state.rebind(binds(stmt))
            return self.block(stmt.body, state)
        if isinstance(stmt, (ast.Try, ast.Match)) or type(stmt).__name__ == "TryStar":
            return self._opaque(stmt, state)
        self._read(own_reads(stmt), state)
        state.rebind(binds(stmt) | scope_binds(stmt))
        if isinstance(stmt, ast.Delete):
            state.bound -= set().union(*(target_names(t) for t in stmt.targets))
        return state

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, state: _State) -> _State:
        """Checked on the first iteration (later ones have bound at least as much); a loop
        may not run, so it binds nothing for sure, and facts about what it rebinds die."""
        self._read(own_reads(stmt), state)
        changed = set().union(
            *(binds(s) | scope_binds(s) for s in ast.walk(stmt) if isinstance(s, ast.stmt))
        )
        kept = {k: v for k, v in state.facts.items() if not v[0] & changed}
        inner = _State(set(state.bound), dict(kept))
        inner.rebind(scope_binds(stmt))
        self.block(stmt.body, inner)
        self.block(stmt.orelse, _State(set(state.bound), dict(kept)))
        return _State(set(state.bound), dict(kept))

    def _if(self, stmt: ast.If, state: _State) -> _State | None:
        self._read(reads(stmt.test), state)
        condition = _condition(stmt.test)
        body, orelse = state.copy(), state.copy()
        if condition is not None and condition[0] in state.facts:
            _, when_true, when_false = state.facts[condition[0]]
            body.bound |= when_true
            orelse.bound |= when_false
        after_body = self.block(stmt.body, body)
        after_else = self.block(stmt.orelse, orelse)
        joined = _meet(after_body, after_else)
        if joined is not None and condition is not None:
            true_part = (after_body.bound if after_body else set()) - joined.bound
            false_part = (after_else.bound if after_else else set()) - joined.bound
            if not (condition[1] & (true_part | false_part)):
                joined.facts[condition[0]] = (condition[1], true_part, false_part)
        return joined

    def _opaque(self, stmt: ast.stmt, state: _State) -> _State:
        """try / match: every block is checked from the state before; nothing new is sure."""
        parts: list[list[ast.stmt]] = [getattr(stmt, "body", [])]
        parts += [getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
        parts += [h.body for h in getattr(stmt, "handlers", [])]
        parts += [c.body for c in getattr(stmt, "cases", [])]
        if isinstance(stmt, ast.Match):
            self._read(reads(stmt.subject), state)
        for part in parts:
            inner = state.copy()
            inner.facts = {}
            inner.rebind(scope_binds(stmt))
            self.block(part, inner)
        return _State(set(state.bound))


def unbound_reads(statements: list[ast.stmt]) -> tuple[set[str], set[str] | None]:
    """Names ``statements`` may read before binding them, and the names they bind on every
    path to their end (None: control never reaches it)."""
    walker = UnboundReads()
    end = walker.block(statements, _State(set()))
    return walker.found, None if end is None else end.bound


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _homes(body: list[ast.stmt]) -> dict[int, tuple[ast.stmt | None, list[ast.stmt]]]:
    """id(statement) -> (the compound statement holding it, the block it is in)."""
    homes: dict[int, tuple[ast.stmt | None, list[ast.stmt]]] = {}
    todo: list[tuple[ast.stmt | None, list[ast.stmt]]] = [(None, body)]
    while todo:
        parent, block = todo.pop()
        for stmt in block:
            homes[id(stmt)] = (parent, block)
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and not isinstance(stmt, _SCOPES):
                    todo.append((stmt, inner))
            todo.extend((stmt, part.body) for part in getattr(stmt, "handlers", []))
            todo.extend((stmt, part.body) for part in getattr(stmt, "cases", []))
    return homes


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def read_after(body: list[ast.stmt], last: ast.stmt) -> set[str]:
    """Names that may be read after ``last`` (in function ``body``) before being bound
    again: the rest of its block, the next iteration of each loop around it, and what
    follows. Each part is walked from nothing bound, which only ever adds names."""
    homes = _homes(body)
    found: set[str] = set()
    stmt: ast.stmt | None = last
    while stmt is not None:
        parent, block = homes[id(stmt)]
        index = next(i for i, s in enumerate(block) if s is stmt)
        found |= unbound_reads(block[index + 1 :])[0]
        if isinstance(parent, _LOOPS):
            found |= unbound_reads([parent])[0]
        if isinstance(parent, ast.Try):
            parts = [parent.orelse, parent.finalbody, *(h.body for h in parent.handlers)]
            for part in parts:
                if part is not block:
                    found |= unbound_reads(part)[0]
        stmt = parent
    return found
