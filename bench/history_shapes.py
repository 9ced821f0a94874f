"""Recover an inline or an extract-method refactoring from a commit's diff, so that
``reks_safety_history`` can redo it with reks at the parent.

- inline: a function defined at the parent and gone at the commit, called at the parent,
  its name nowhere in the commit's version of the files: inline it at its ``def``.
- rename: the identifier substitution the changed lines agree on, asked for at the old
  name's definition on a changed line.
- move: a top-level function removed from one module and added, the same, to another.
- extract method: a function new at the commit whose body (its ``return`` aside) is, for
  the most part, a run of consecutive lines at the parent: extract that run under the new
  name.
"""

from __future__ import annotations

import ast
import difflib
import re

Files = dict[str, "tuple[str | None, str | None]"]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _functions(
    text: str | None, top_level: bool = False
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    nodes = tree.body if top_level else ast.walk(tree)
    return {n.name: n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(x) for x in text.splitlines(keepends=True)[: line - 1]) + column


def inline_site(files: Files) -> tuple[str, int] | None:
    """(path, offset of the function's name) of the function the commit inlined."""
    after_texts = "\n".join(a for _, a in files.values() if a is not None)
    added = "\n".join(
        "\n".join(set(a.splitlines()) - set((b or "").splitlines()))
        for b, a in files.values()
        if a is not None
    )
    for rel in sorted(files, key=lambda p: ("test" in p, p)):
        before, after = files[rel]
        if before is None or after is None:
            continue
        gone = set(_functions(before)) - set(_functions(after))
        for name in sorted(gone):
            word = re.compile(rf"\b{re.escape(name)}\b")
            called = len(word.findall(before)) > 1
            node = _functions(before)[name]
            if called and not word.search(after_texts) and _body_reappears(node, added):
                line = before.splitlines()[node.lineno - 1]
                return rel, _offset(before, node.lineno, line.index(name, node.col_offset))
    return None


def _body_reappears(node: ast.FunctionDef | ast.AsyncFunctionDef, after: str) -> bool:
    """Whether most names the function's body uses (its parameters aside) are on lines
    the commit added: an inlined body lives on at its call sites, a deleted one does not
    ("remove deprecated get_os_args" removes a function and its calls too)."""
    params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    used = {
        n.id if isinstance(n, ast.Name) else n.attr
        for statement in node.body
        for n in ast.walk(statement)
        if isinstance(n, (ast.Name, ast.Attribute))
    } - params
    present = set(_IDENT.findall(after))
    return bool(used) and 2 * len(used & present) >= len(used)


def _body_lines(text: str, node: ast.AST) -> list[str]:
    body = list(getattr(node, "body", []))
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        body = body[1:]  # the docstring
    if body and isinstance(body[-1], ast.Return):
        body = body[:-1]
    if not body:
        return []
    lines = text.splitlines()[body[0].lineno - 1 : body[-1].end_lineno]
    return [x.strip() for x in lines if x.strip()]


def extract_site(files: Files) -> tuple[str, int, int, str] | None:
    """(path, start, end, new name) of what the commit extracted into a new function."""
    for rel in sorted(files):
        before, after = files[rel]
        if before is None or after is None or "test" in rel:
            continue  # helpers new in tests are rarely extracted from the old tests
        old = _functions(before)
        for name, node in sorted(_functions(after).items()):
            if name in old:
                continue
            wanted = _body_lines(after, node)
            found = _find_run(before, wanted) if len(wanted) >= 2 else None
            if found is not None:
                return rel, found[0], found[1], name
    return None


def _find_run(text: str, wanted: list[str]) -> tuple[int, int] | None:
    """Offsets of the longest run of consecutive non-blank lines of ``text`` equal
    (stripped) to lines of ``wanted`` in order: at least two lines and half of them (a
    developer's extract often adapts a few lines; reks redoes the common part)."""
    lines = text.splitlines(keepends=True)
    code = [(i, x.strip()) for i, x in enumerate(lines) if x.strip()]
    matcher = difflib.SequenceMatcher(None, [x for _, x in code], wanted, autojunk=False)
    match = matcher.find_longest_match(0, len(code), 0, len(wanted))
    if match.size < max(2, (len(wanted) + 1) // 2):
        return None
    first, last = code[match.a][0], code[match.a + match.size - 1][0]
    snapped = _whole_statements(text, first + 1, last + 1)
    if snapped is None:
        return None
    first, last = snapped[0] - 1, snapped[1] - 1
    start = sum(len(x) for x in lines[:first])
    start += len(lines[first]) - len(lines[first].lstrip())
    end = sum(len(x) for x in lines[: last + 1]) - 1
    return start, end


def _whole_statements(text: str, first: int, last: int) -> tuple[int, int] | None:
    """The 1-based lines (first, last) of the longest run of sibling statements that lie
    within lines ``first``..``last``: a matched run of lines may start with a comment or
    stop inside a statement (an ``if`` whose body the developer changed), and reks only
    extracts whole statements."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    best: tuple[int, int] | None = None
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            inside = [
                s
                for s in block
                if isinstance(s, ast.stmt) and s.lineno >= first and (s.end_lineno or 0) <= last
            ]
            if len(inside) >= 1 and (best is None or _span(inside) > best[1] - best[0]):
                best = (inside[0].lineno, inside[-1].end_lineno or inside[-1].lineno)
    return best


def _span(statements: list[ast.stmt]) -> int:
    return (statements[-1].end_lineno or statements[-1].lineno) - statements[0].lineno


def rename_of(files: Files) -> tuple[str, str] | None:
    """The identifier substitution old -> new that the commit's changed lines agree on."""
    votes: dict[tuple[str, str], int] = {}
    for before, after in files.values():
        if before is None or after is None:
            continue
        old_lines = set(before.splitlines()) - set(after.splitlines())
        new_lines = set(after.splitlines()) - set(before.splitlines())
        for old in old_lines:
            for new in new_lines:
                a, b = _IDENT.findall(old), _IDENT.findall(new)
                if len(a) != len(b) or _IDENT.sub("", old) != _IDENT.sub("", new):
                    continue
                pairs = {(x, y) for x, y in zip(a, b, strict=True) if x != y}
                if len(pairs) == 1:
                    pair = pairs.pop()
                    votes[pair] = votes.get(pair, 0) + 1
    if not votes:
        return None
    return max(votes, key=lambda pair: votes[pair])


def changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of ``before`` that the commit replaced or deleted."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), False)
    return {
        i + 1
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag in ("replace", "delete")
        for i in range(i1, i2)
    }


def definition(files: Files, name: str) -> tuple[str, int] | None:
    """(path, offset) of where ``name`` is defined (a function, class, parameter, or
    assigned name or attribute) on a line the commit changed, non-test files first."""
    for rel in sorted(files, key=lambda p: ("test" in p, p)):
        before, after = files[rel]
        if before is None or after is None:
            continue
        lines = changed_lines(before, after)
        text = before
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        starts = [0]
        for line in text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for node in ast.walk(tree):
            defines = getattr(node, "name", None) if not isinstance(node, ast.alias) else None
            stores = isinstance(getattr(node, "ctx", None), ast.Store)
            hit = name in (
                defines,
                getattr(node, "arg", None),
                getattr(node, "id", None) if stores else None,
                getattr(node, "attr", None) if stores else None,
            )
            lineno = getattr(node, "lineno", 0)
            if hit and lineno in lines:
                line = text.splitlines()[lineno - 1]
                col = line.index(name, getattr(node, "col_offset", 0))
                return rel, starts[lineno - 1] + col
    return None


def _module_name(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    parts = parts[1:] if parts[0] == "src" and len(parts) > 1 else parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def move_site(files: Files) -> tuple[str, int, str] | None:
    """(path, offset of the function's name, destination module) of a top-level function
    that the commit removed from one module and added, with the same body (the same
    syntax tree, docstring included), to another module."""
    for rel in sorted(files, key=lambda p: ("test" in p, p)):
        before, after = files[rel]
        gone = set(_functions(before, True)) - set(_functions(after, True))
        for name in sorted(gone):
            node = _functions(before, True)[name]
            for dest, (dest_before, dest_after) in sorted(files.items()):
                added = _functions(dest_after, True).get(name)
                if dest == rel or added is None or name in _functions(dest_before, True):
                    continue
                if ast.dump(added) == ast.dump(node) and before is not None:
                    line = before.splitlines()[node.lineno - 1]
                    offset = _offset(before, node.lineno, line.index(name, node.col_offset))
                    return rel, offset, _module_name(dest)
    return None
