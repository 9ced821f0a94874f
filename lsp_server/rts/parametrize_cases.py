"""Each case of a literal ``@pytest.mark.parametrize`` list as a unit of its own.

A ``def``'s decorators are in its header unit (``rts.units``), which every case of a
parametrized test depends on: adding, removing or respelling one case of a list of fifty
reran all fifty (python-validators ``894a069``: one string respelled, ``\\uFFFD`` for
``\\ufffd``, same value). A case whose values and test code are unchanged is not affected
by the other cases, so where the list is a literal in the decorator its text is a hole of
the header (marker ``<cases>``) and each case is a unit ``f.<case>DIGEST``, named by the
digest of its values (typed: ``1`` is not ``"1"`` nor ``True``). A changed case is a case
gone and one new; the test recorded with it depends on the one gone, which selects it.

Only the plainest shape has it: a top-level ``def`` (defined once) with one
``pytest.mark.parametrize`` call among marks only, its names a string or a tuple/list of
strings, its values a list or tuple literal of strings, numbers, booleans and None (one per
name; strings may be joined by ``+``), no keyword (``ids``, ``indirect``, ``scope``), the
ids pytest derives from the cases' values told apart without a counter (``_ids_apart``).
Anything else keeps the list in the header, as before: a list built in code or a module
constant, computed ids, indirect parameters, ``pytest.param``, stacked parametrizations.

Why a test keeps its case when the list changes around it: recording takes a test as that
case's only when its parameters are the decorator's names alone (no ``pytest_generate_tests``,
fixture or class parameters) and its id is the one pytest derives from those values (no
hook, no index, no counter; ``rts.case_units``). Such an id depends on the values alone, and
at a later commit the list's ids are again its values' and unique: a test with that id
runs those values as long as the case is in the list, and once it is gone its unit is gone,
which selects the test. A test not taken as a case (another id, more parameters, a test
that only calls or refers to the function) depends on the whole list, ``f.<case>*``: its
cases' values in order, what the header held before (but their spelling).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import xxhash

from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.spans import UnitSpan
from lsp_server.rts.unit_names import CASE

CASES_MARK = "<cases>"
WHOLE_LIST = "*"
"""The digest part of the unit of the whole list, its text in order (``f.<case>*``)."""
_LONGEST_ID = 100  # pytest 9's ids of longer strings are no longer their values

_PLAIN_VALUES = (str, int, float, bool, type(None))
Pos = tuple[int, int]


@dataclass(frozen=True)
class LiteralCases:
    """The literal parameter list of one ``def``'s ``parametrize`` decorator."""

    argnames: tuple[str, ...]
    hole: tuple[Pos, Pos, str]
    """Where the list is in the header's tokens (line, character column), with its marker."""
    digests: tuple[str, ...]
    """Each case's ``case_digest``, in the list's order."""


def case_name(function: str, digest: str) -> str:
    return f"{function}{CASE}{digest}"


def case_digest(values: Sequence[object]) -> str | None:
    """A digest of one case's values, their types with them; None unless each is plain."""
    if not all(type(v) in _PLAIN_VALUES for v in values):
        return None
    typed = repr([(type(v).__name__, v.hex() if isinstance(v, float) else v) for v in values])
    return xxhash.xxh3_64_hexdigest(typed.encode("utf-8", "surrogatepass"))


def literal_cases(tree: ast.Module, lines: list[str]) -> dict[int, LiteralCases]:
    """The literal parameter lists of the top-level ``def`` statements, by first line; not
    of a name defined twice (``if``/``else`` variants: one unit for both)."""
    found: dict[int, LiteralCases] = {}
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    twice = {n.name for n in defs if sum(m.name == n.name for m in defs) > 1}
    for node in defs:
        if node.decorator_list and node.name not in twice:
            cases = _cases_of(node, lines)
            if cases is not None:
                found[node.decorator_list[0].lineno] = cases
    return found


def add_cases(
    result: FileUnits,
    variants: dict[str, list[str]],
    span: UnitSpan,
    literal_lists: Mapping[int, LiteralCases],
) -> list[tuple[Pos, Pos, str]]:
    """A unit (its text into ``variants``) per case of the literal list of the top-level
    function ``span`` (``literal_lists`` by first line) and one of the whole list; the
    holes of its header: the list's (none without one)."""
    cases = literal_lists.get(span.first_line) if span.parent is None else None
    if cases is None:
        return []
    function = span.name
    result.cases[function] = (cases.argnames, frozenset(cases.digests))
    for digest in cases.digests:
        variants[case_name(function, digest)] = ["<case>", digest]
    # The values in order, not their spelling: "\uFFFD" and "\ufffd" are one string.
    variants[case_name(function, WHOLE_LIST)] = [CASES_MARK, *cases.digests]
    return [cases.hole]


def _cases_of(
    node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> LiteralCases | None:
    found = literal_list(node)
    if found is None:
        return None
    argnames, values, digests = found
    start = _position(lines, values.lineno, values.col_offset)
    end = _position(lines, values.end_lineno or 0, values.end_col_offset or 0)
    return LiteralCases(argnames, (start, end, CASES_MARK), digests)


def literal_list(
    node: ast.FunctionDef | ast.AsyncFunctionDef, pytest_names: Collection[str] = ("pytest",)
) -> tuple[tuple[str, ...], ast.List | ast.Tuple, tuple[str, ...]] | None:
    """The argument names, the list and its cases' digests of ``node``'s ``parametrize``
    decorator when it has the shape of the module's docstring (``pytest_names``: the names
    of the ``pytest`` module there). Its cases cannot fail collecting the module: each has
    as many plain values as names and an id of its own that pytest will not refuse."""
    calls = [d for d in node.decorator_list if _is_mark(d, "parametrize", pytest_names)]
    marks = all(_is_mark(d, None, pytest_names) for d in node.decorator_list)
    if len(calls) != 1 or not marks:
        return None
    call = calls[0]
    if not isinstance(call, ast.Call) or call.keywords or len(call.args) != 2:
        return None
    names, values = call.args
    argnames = _argnames(names)
    if argnames is None or not isinstance(values, (ast.List, ast.Tuple)) or not values.elts:
        return None
    cases = [_element_values(element, *argnames) for element in values.elts]
    plain = [case for case in cases if case is not None]
    if len(plain) < len(cases) or not _ids_apart(plain, argnames[0]):
        return None
    return argnames[0], values, tuple(filter(None, map(case_digest, plain)))


def _ids_apart(cases: list[tuple[object, ...]], argnames: tuple[str, ...]) -> bool:
    """Whether the ids pytest derives from the values of the cases with short strings are
    told apart without a counter, from each other and from the ids of the cases with a
    long string (``value3`` by their index, 64 hex digits of their hash, or their whole
    text: longer than any short one's)."""
    long = [any(map(_is_long, case)) for case in cases]
    short = [case for case, is_long in zip(cases, long, strict=True) if not is_long]
    ids = [pytest_id(case, escaped=False) for case in short]
    if len(set(ids)) != len(ids):
        return False
    if not any(long):
        return True
    if len(argnames) > 1:  # a long string's id by its index among the other values'
        return False
    by_index = re.compile(rf"{re.escape(argnames[0])}[0-9]+|[0-9a-f]{{64}}")
    return not any(by_index.fullmatch(i) for i in ids)


def _is_long(value: object) -> bool:
    return isinstance(value, str) and len(value) > _LONGEST_ID


def _is_mark(node: ast.expr, name: str | None, pytest_names: Collection[str]) -> bool:
    """Whether ``node`` is ``pytest.mark.NAME`` (any mark for None), called or not."""
    func = node.func if isinstance(node, ast.Call) else node
    return (
        isinstance(func, ast.Attribute)
        and (name is None or func.attr == name)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id in pytest_names
    )


def _argnames(node: ast.expr) -> tuple[tuple[str, ...], bool] | None:
    """The argument names and whether each value is the one name's whole (pytest's split
    of a string: ``"x,"`` takes tuples); None unless spelled as literal strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        names = tuple(n.strip() for n in node.value.split(",") if n.strip())
        return names, len(names) == 1 and not node.value.rstrip().endswith(",")
    if not isinstance(node, (ast.Tuple, ast.List)) or not node.elts:
        return None
    constants = [e.value for e in node.elts if isinstance(e, ast.Constant)]
    strings = tuple(n for n in constants if isinstance(n, str))
    return (strings, False) if len(strings) == len(node.elts) else None


def _element_values(
    element: ast.expr, names: tuple[str, ...], whole: bool
) -> tuple[object, ...] | None:
    """The values one element of the list gives the names; None unless each is plain."""
    try:
        if whole:
            values: tuple[object, ...] = (_literal(element),)
        elif isinstance(element, (ast.Tuple, ast.List)) and len(element.elts) == len(names):
            values = tuple(map(_literal, element.elts))
        else:
            return None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not all(type(v) in _PLAIN_VALUES for v in values):
        return None
    return values


def _literal(node: ast.expr) -> object:
    """``ast.literal_eval``, strings joined by ``+`` too (a long one split over lines)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        raise ValueError("not a string")
    return ast.literal_eval(node)


def _position(lines: list[str], line: int, byte_column: int) -> Pos:
    """The tree's (line, byte column) as the tokens' (line, character column)."""
    text = lines[line - 1].encode("utf-8", "surrogatepass")[:byte_column]
    return line, len(text.decode("utf-8", "surrogatepass"))


# pytest's escaping of what ``unicode_escape`` leaves unprintable (``_pytest.compat``).
_UNPRINTABLE = {i: f"\\x{i:02x}" for i in range(128) if not 32 <= i < 127}
_UNPRINTABLE.update({ord("\t"): "\\t", ord("\r"): "\\r", ord("\n"): "\\n"})


def pytest_id(values: Iterable[object], escaped: bool) -> str:
    """The id pytest derives from plain ``values`` (escaped unless an ini option says not)."""
    parts = []
    for value in values:
        if isinstance(value, str) and escaped:
            value = value.encode("unicode_escape").decode("ascii").translate(_UNPRINTABLE)
        parts.append(str(value))
    return "-".join(parts)
