"""Which refactorings apply at a cursor or selection, from the syntax tree alone.

Listing code actions must be fast (an editor asks on every cursor move), so nothing here
calls rope: applicability is decided from Python's own ``ast`` of the current text. rope
computes the edit later, when the user picks an action. An offer rope then refuses is
reported as an error at that point; the syntactic tests below keep that rare.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from typing import Any

from lsp_server.project.text import identifier_span

# Setting keys (``ActionSettings`` fields) each offer is switched by.
EXTRACT_METHOD = "extractMethod"
EXTRACT_VARIABLE = "extractVariable"
INLINE = "inline"
MOVE = "move"
INTRODUCE_PARAMETER = "introduceParameter"
CHANGE_SIGNATURE = "changeSignature"
ENCAPSULATE_FIELD = "encapsulateField"
LOCAL_TO_FIELD = "localToField"
METHOD_OBJECT = "methodObject"
USE_FUNCTION = "useFunction"
INTRODUCE_FACTORY = "introduceFactory"
ORGANIZE_IMPORTS = "organizeImports"


@dataclass(frozen=True)
class Offer:
    """One applicable refactoring: engine ``action`` with ``args``, at ``offset``/``end``.

    ``kind`` is the LSP code-action kind; ``needs`` names arguments the client must supply
    before the edit can be computed (e.g. a move's ``destination``); ``default_name`` names
    the ``DefaultNames`` field that fills ``args[name_arg]``.
    """

    title: str
    kind: str
    action: str
    setting: str
    offset: int
    end: int | None = None
    args: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    default_name: str | None = None
    name_arg: str = "name"


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


def _locate(tree: ast.Module, lines: _Lines, offset: int) -> _Found:
    pos = lines.position(offset)
    chain: list[ast.AST] = []
    node: ast.AST = tree
    found = _Found(chain)
    while True:
        chain.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            span = _name_span(lines, node, node.name)
            if span is not None and span[0] <= offset <= span[1]:
                found.definition = node
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


def _functions(chain: list[ast.AST]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in chain if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _stores(function: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(function)
    )


def _module_defines(tree: ast.Module, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return True
    return False


def offers_at(
    text: str, offset: int, end: int | None = None, tree: ast.Module | None = None
) -> list[Offer]:
    """Refactorings that apply at ``offset`` (or to the selection ``offset``..``end``)."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return []
    lines = _Lines(text)
    out: list[Offer] = []
    if end is not None and end > offset:
        out.extend(_selection_offers(text, tree, lines, offset, end))
    found = _locate(tree, lines, offset)
    functions = _functions(found.chain)
    word_start, word_end = identifier_span(text, offset)
    word = text[word_start:word_end]
    at = word_start if word else offset

    if found.definition is not None:
        out.extend(_definition_offers(found, at))
    elif found.parameter is not None:
        function, index, arg = found.parameter
        defaults = function.args.defaults
        n_params = len(function.args.posonlyargs) + len(function.args.args)
        has_default = index >= n_params - len(defaults)
        if has_default:
            out.append(
                Offer(
                    f"Inline default of parameter `{arg.arg}`",
                    "refactor.inline.parameter",
                    "inline",
                    INLINE,
                    at,
                )
            )
        out.append(
            Offer(
                f"Remove parameter `{arg.arg}`",
                "refactor.rewrite.signature.remove",
                "change-signature",
                CHANGE_SIGNATURE,
                at,
                args={"changes": [{"op": "remove", "index": index}]},
            )
        )
        if index > 0 and not (index == 1 and _is_method(found.chain, function)):
            order = list(range(n_params))
            order[index - 1], order[index] = order[index], order[index - 1]
            out.append(
                Offer(
                    f"Move parameter `{arg.arg}` left",
                    "refactor.rewrite.signature.reorder",
                    "change-signature",
                    CHANGE_SIGNATURE,
                    at,
                    args={"changes": [{"op": "reorder", "order": order}]},
                )
            )
    elif word:
        node = found.chain[-1]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            if text[at - 5 : at] == "self." and word == node.attr:
                out.append(
                    Offer(
                        f"Encapsulate field `{word}`",
                        "refactor.rewrite.encapsulateField",
                        "encapsulate-field",
                        ENCAPSULATE_FIELD,
                        at,
                    )
                )
        elif isinstance(node, ast.Name):
            innermost = functions[-1] if functions else None
            if innermost is not None and _stores(innermost, word):
                out.append(
                    Offer(
                        f"Inline variable `{word}`",
                        "refactor.inline.variable",
                        "inline",
                        INLINE,
                        at,
                    )
                )
                if _is_method(found.chain, innermost):
                    out.append(
                        Offer(
                            f"Turn local `{word}` into a field",
                            "refactor.rewrite.localToField",
                            "local-to-field",
                            LOCAL_TO_FIELD,
                            at,
                        )
                    )
            elif innermost is None and _stores(tree, word) and not _module_defines(tree, word):
                out.append(
                    Offer(
                        f"Inline variable `{word}`",
                        "refactor.inline.variable",
                        "inline",
                        INLINE,
                        at,
                    )
                )
            elif _module_defines(tree, word) and isinstance(node.ctx, ast.Load):
                out.append(
                    Offer(
                        f"Inline function `{word}`", "refactor.inline.method", "inline", INLINE, at
                    )
                )
            if (
                innermost is not None
                and isinstance(node.ctx, ast.Load)
                and not _is_param(innermost, word)
            ):
                out.append(
                    Offer(
                        f"Introduce parameter for `{word}`",
                        "refactor.rewrite.parameter.introduce",
                        "introduce-parameter",
                        INTRODUCE_PARAMETER,
                        at,
                        default_name="parameter",
                    )
                )
    if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body):
        out.append(
            Offer(
                "Organize imports",
                "source.organizeImports",
                "organize-imports",
                ORGANIZE_IMPORTS,
                0,
            )
        )
    out.append(
        Offer(
            "Move module to package…",
            "refactor.move.module",
            "move",
            MOVE,
            0,
            args={"module": True},
            needs=("destination",),
        )
    )
    return out


def _is_param(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    args = function.args
    return name in {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}


def _is_method(chain: list[ast.AST], function: ast.AST) -> bool:
    index = chain.index(function)
    return index > 0 and isinstance(chain[index - 1], ast.ClassDef)


MAX_MOVE_TARGETS = 5


def _self_attributes(cls: ast.ClassDef) -> list[str]:
    """Attributes assigned as ``self.x = ...`` in the methods of ``cls``, in order."""
    seen: dict[str, None] = {}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            seen.setdefault(node.attr, None)
    return list(seen)


def _move_global(what: str, at: int) -> Offer:
    return Offer(
        f"Move {what} to module…", "refactor.move.global", "move", MOVE, at, needs=("destination",)
    )


def _definition_offers(found: _Found, at: int) -> list[Offer]:
    node = found.definition
    assert node is not None
    index = found.chain.index(node)
    parent = found.chain[index - 1] if index > 0 else None
    top_level = isinstance(parent, ast.Module)
    name = node.name
    out: list[Offer] = []
    if isinstance(node, ast.ClassDef):
        if top_level:
            out.append(_move_global(f"class `{name}`", at))
        out.append(
            Offer(
                f"Introduce factory for `{name}`",
                "refactor.rewrite.introduceFactory",
                "introduce-factory",
                INTRODUCE_FACTORY,
                at,
                default_name="factory",
            )
        )
        return out
    is_method = isinstance(parent, ast.ClassDef)
    if top_level:
        out.append(_move_global(f"function `{name}`", at))
        out.append(
            Offer(
                f"Use function `{name}` where its body is repeated",
                "refactor.rewrite.useFunction",
                "use-function",
                USE_FUNCTION,
                at,
            )
        )
    if is_method and not name.startswith("__") and isinstance(parent, ast.ClassDef):
        # One action per attribute of `self`: the destination is known, no prompt needed.
        for attribute in _self_attributes(parent)[:MAX_MOVE_TARGETS]:
            out.append(
                Offer(
                    f"Move method `{name}` to the class of `self.{attribute}`",
                    "refactor.move.method",
                    "move",
                    MOVE,
                    at,
                    args={"destination": attribute},
                )
            )
    out.append(Offer(f"Inline function `{name}`", "refactor.inline.method", "inline", INLINE, at))
    out.append(
        Offer(
            f"Turn `{name}` into a method object",
            "refactor.rewrite.methodObject",
            "method-object",
            METHOD_OBJECT,
            at,
            default_name="methodObject",
            name_arg="classname",
        )
    )
    out.append(
        Offer(
            f"Normalize the calls of `{name}`",
            "refactor.rewrite.signature.normalize",
            "change-signature",
            CHANGE_SIGNATURE,
            at,
            args={"changes": [{"op": "normalize"}]},
        )
    )
    return out


def _selection_offers(
    text: str, tree: ast.Module, lines: _Lines, start: int, end: int
) -> list[Offer]:
    selected = text[start:end]
    stripped = selected.strip()
    if not stripped:
        return []
    inside_function = bool(_functions(_locate(tree, lines, start).chain))
    out: list[Offer] = []
    is_expression = True
    try:
        ast.parse(stripped, mode="eval")
    except SyntaxError:
        is_expression = False
    if not is_expression:
        try:
            ast.parse(textwrap.dedent(selected.strip("\n")))
        except SyntaxError:
            return []
    if is_expression:
        for similar, suffix in ((False, ""), (True, " (and similar)")):
            out.append(
                Offer(
                    f"Extract variable{suffix}",
                    "refactor.extract.variable" + (".similar" if similar else ""),
                    "extract-variable",
                    EXTRACT_VARIABLE,
                    start,
                    end,
                    args={"similar": similar},
                    default_name="extractedVariable",
                )
            )
    variants = [(False, False, "Extract method", "refactor.extract.method")]
    variants.append(
        (True, False, "Extract method (and similar)", "refactor.extract.method.similar")
    )
    if inside_function:
        variants.append(
            (False, True, "Extract function (module level)", "refactor.extract.function")
        )
    for similar, global_, title, kind in variants:
        out.append(
            Offer(
                title,
                kind,
                "extract-method",
                EXTRACT_METHOD,
                start,
                end,
                args={"similar": similar, "global": global_},
                default_name="extractedMethod",
            )
        )
    return out
