"""What of a top-level binding that may raise at import goes into its module's unit
(``rts.bindings``): a digest of what it runs then (``rts.import_raise`` says whether it may
raise at all)."""

from __future__ import annotations

import ast

import xxhash

from lsp_server.rts.ast_walk import attribute_chain, unshared
from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.import_raise import RiskyStatements, may_raise, risky_header_parts
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.parametrize_cases import CASES_MARK, literal_list
from lsp_server.rts.purity import import_time_names, is_string_statement


def raising_digest(stmt: ast.stmt, scope: Scope, docs_inert: bool = False) -> str | None:
    """None when the top-level binding ``stmt`` (no class: ``class_digest``) cannot raise
    after what ``scope`` has bound; else a digest of what may: a ``def``'s decorators,
    defaults and annotations that may raise, in the order they run (a parameter added with
    a constant default changes nothing there), any other statement's
    ``import_time_digest`` (a table of displays has a unit per read instead:
    ``rts.display_read_units``)."""
    if not may_raise(stmt, scope):
        return None
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return import_time_digest(stmt, docs_inert)
    # A literal parameter list of plain cases cannot make collecting the module fail, its
    # decorator still may (``rts.parametrize_cases``): which cases it has is no risk.
    literal = literal_list(stmt, scope.pytest)
    hidden = None if literal is None else literal[1]
    return _parts_digest(risky_header_parts(stmt, scope, scope.bound), hidden)


def class_digest(node: ast.ClassDef, risky: RiskyStatements | None, docs_inert: bool) -> str:
    """The digest of what may raise in a class statement that may, given its ``risky``
    body statements (``import_raise.risky_class_parts``; None: all of it may).
    ``docs_inert``: nothing reads the class's docstrings at import (``Binding.own_doc``);
    its strings that are statements of their own cannot make it raise."""
    if risky is None:
        return import_time_digest(node, docs_inert)
    return _class_body_digest(node, risky)


def risky_reads(node: ast.ClassDef, risky: RiskyStatements | None) -> frozenset[str]:
    """The names what may raise in the class ``node`` reads at import (its raising unit's
    reads, ``rts.raising_units``): of the statements ``_class_body_digest`` keeps of
    ``risky``, or of the whole statement when its header may raise (``risky`` None). Not
    every member's: a method's body or a lambda's runs later, a name a safe statement reads
    raises by being bound or not, which the analysis of the new text judges again."""
    if risky is None:
        return frozenset(import_time_names(node))
    return frozenset(_kept_statements(node, risky)[1])


def _class_body_digest(node: ast.ClassDef, risky: RiskyStatements) -> str:
    """Of a class whose body alone may raise: its header, the statements that may raise
    (a ``def``'s risky parts), and the earlier statements of the body binding a name one
    of those reads, transitively (what such a name is bound to decides whether it
    raises). A statement that cannot raise and binds nothing they read changes nothing
    (a new test method without decorators)."""
    header = [node.name, *map(ast.dump, [*node.decorator_list, *node.bases, *node.keywords])]
    kept = _kept_statements(node, risky)[0]
    body = [kept[at] for at in sorted(kept)]  # in order: not where (a method may come before)
    return xxhash.xxh64_hexdigest("\0".join([*header, *body]).encode())


def _kept_statements(node: ast.ClassDef, risky: RiskyStatements) -> tuple[dict[int, str], set[str]]:
    """The digests of the body statements ``_class_body_digest`` keeps, by position, and
    the names they read."""
    position = {id(stmt): at for at, stmt in enumerate(node.body)}
    kept: dict[int, str] = {}
    wanted: list[tuple[int, set[str]]] = []
    for stmt, parts in risky:
        at = position[id(stmt)]
        if parts is None:
            kept[at] = import_time_digest(stmt)
            wanted.append((at, import_time_names(stmt)))
        else:
            kept[at] = _parts_digest(parts)
            wanted.append((at, set().union(*map(import_time_names, parts))))
    read: set[str] = set()
    while wanted:
        at, names = wanted.pop()
        read |= names
        for earlier in range(at):
            stmt = node.body[earlier]
            if earlier not in kept and names & maybe_bound(stmt):
                kept[earlier] = import_time_digest(stmt)
                wanted.append((earlier, import_time_names(stmt)))
    return kept, read


def _parts_digest(parts: list[ast.expr], hidden: ast.List | ast.Tuple | None = None) -> str:
    """A digest of a ``def``'s parts that may raise (a lambda's body runs when called),
    without the elements of ``hidden``."""
    lambdas = [node for part in parts for node in ast.walk(part) if isinstance(node, ast.Lambda)]
    bodies = [node.body for node in lambdas]
    elements = None if hidden is None else hidden.elts
    with unshared():  # the tree changes in place meanwhile (``ast_walk.shared_walks``)
        try:
            for node in lambdas:  # a lambda's body runs when it is called
                node.body = ast.Constant(None)
            if hidden is not None:
                hidden.elts = [ast.Constant(CASES_MARK)]
            return xxhash.xxh64_hexdigest("\0".join(map(ast.dump, parts)).encode())
        finally:
            for node, body in zip(lambdas, bodies, strict=True):
                node.body = body
            if hidden is not None and elements is not None:
                hidden.elts = elements


def import_time_digest(stmt: ast.stmt, docs_inert: bool = False) -> str:
    """A digest of what ``stmt`` runs at import: each function body dumped as ``pass``
    and each lambda body as ``None`` (and with ``docs_inert``, a class ``stmt``'s body
    without its strings that are statements of their own), swapped in place and back
    (copying the tree cost a tenth of a recording run)."""
    nodes: list[ast.AST] = [stmt]
    swapped: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, list[ast.stmt]]]
    swapped = []
    lambdas: list[tuple[ast.Lambda, ast.expr]] = []
    with unshared():  # the tree changes in place meanwhile (``ast_walk.shared_walks``)
        try:
            if docs_inert and isinstance(stmt, ast.ClassDef):
                swapped.append((stmt, stmt.body))
                stmt.body = [s for s in stmt.body if not is_string_statement(s)]
            for node in nodes:  # grows while read: every node outside function bodies
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    swapped.append((node, node.body))
                    node.body = [ast.Pass()]
                elif isinstance(node, ast.Lambda):
                    lambdas.append((node, node.body))
                    node.body = ast.Constant(None)
                nodes.extend(ast.iter_child_nodes(node))
            return xxhash.xxh64_hexdigest(ast.dump(stmt).encode())
        finally:
            for lambda_node, expression in lambdas:
                lambda_node.body = expression
            for definition, body in reversed(swapped):
                definition.body = body


def display_read_nodes(stmt: ast.stmt) -> list[ast.expr] | None:
    """The reads (names, attributes of names; repeated ones too) of an assignment to names of a
    value built by displays alone; None for any other statement. Only those reads
    can raise while it runs: its constants cannot, nor building lists, tuples and dict
    values, so neither they nor the order and number of elements decide whether importing
    fails (sqlparse's ``SQL_REGEX``: patterns paired with token kinds). Set elements and
    dict keys are hashed: only constants there."""
    if not isinstance(stmt, ast.Assign):
        return None  # an annotated one: its annotation is evaluated as well
    if not all(isinstance(target, ast.Name) for target in stmt.targets):
        return None  # unpacking may raise on the number of elements
    return _reads(stmt.value)


def _reads(node: ast.expr) -> list[ast.expr] | None:
    out: list[ast.expr] = []
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.List, ast.Tuple)):
            todo.extend(node.elts)
        elif isinstance(node, ast.Dict):
            if not all(isinstance(k, ast.Constant) for k in node.keys):
                return None  # ``**mapping`` (a None key) or a key that may not hash
            todo.extend(node.values)
        elif isinstance(node, ast.Set):
            if not all(isinstance(e, ast.Constant) for e in node.elts):
                return None
        elif isinstance(node, ast.Constant):
            continue
        elif _is_read(node):
            out.append(node)
        else:
            return None
    return out


def _is_read(node: ast.expr) -> bool:
    """A name, or attributes of a name (``tokens.Comment.Single``)."""
    return isinstance(attribute_chain(node)[0], ast.Name)
