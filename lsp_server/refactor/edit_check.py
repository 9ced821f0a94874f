"""A last check of rope's output before anyone sees it.

rope occasionally produces code that does not compile or refers to names that no longer
exist (e.g. inlining nested calls of the inlined function). A refactoring must preserve
behaviour, so a result whose files gain a syntax error or a new undefined name is refused
with a clear error instead of being offered.
"""

from __future__ import annotations

import ast
import builtins
import functools
import keyword
import re
import symtable

from pyflakes import checker, messages

from lsp_server.project.text import parse_python
from lsp_server.refactor.model import FileEdit, RefactoringError


@functools.lru_cache(maxsize=256)
def _undefined(text: str, filename: str) -> frozenset[str] | None:
    """Undefined names pyflakes finds (cached: the text before a task is usually known)."""
    try:
        tree = parse_python(text, filename)
    except (SyntaxError, ValueError):
        return None
    found = checker.Checker(tree, filename)
    return frozenset(
        str(m.message_args[0])
        for m in found.messages
        if isinstance(m, (messages.UndefinedName, messages.UndefinedLocal))
    )


@functools.lru_cache(maxsize=64)
def _symbols(text: str, filename: str) -> symtable.SymbolTable | None:
    """CPython's symbol tables of ``text`` (None: it does not compile). Cached by text: a
    warm rename checks the same texts before it under new names each time, and this is
    the expensive part of ``_dangling``."""
    try:
        return symtable.symtable(text, filename, "exec")
    except (SyntaxError, ValueError):
        return None


_STAR_IMPORT = re.compile(r"import[ \t]+\*")
"""``from m import *`` (the only statement where ``import *`` is valid). The pattern starts
with a word, so the regular expression engine looks for it as fast as ``str.find``."""


def _mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a word not preceded by a dot (not an attribute)."""
    for match in re.finditer(rf"{re.escape(name)}\b", text):
        before = text[match.start() - 1 : match.start()]
        if not (before == "." or before.isalnum() or before == "_"):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _dangling(text: str, filename: str, names: frozenset[str]) -> frozenset[str] | None:
    """Which of ``names`` the file uses without binding them anywhere (nor builtins).

    The cheap check for a rename: its only way to break a file it changed is to leave a
    use of the old name behind (or bind the new one nowhere); a whole pyflakes pass over
    every changed file would cost as much as the rename itself. CPython's symbol tables
    answer it without walking the syntax tree in Python.
    """
    present = {n for n in names if _mentions(text, n)}
    top = _symbols(text, filename)
    if top is None:
        return None
    if not present or _STAR_IMPORT.search(text):
        return frozenset()  # nothing to check, or a star import may provide anything
    bound: set[str] = set(dir(builtins))
    used: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        identifiers = set(table.get_identifiers())
        for name in present & identifiers:
            symbol = table.lookup(name)
            if symbol.is_assigned() or symbol.is_imported() or symbol.is_parameter():
                if table is top or symbol.is_global() or table.get_type() == "class":
                    bound.add(name)
                continue
            if symbol.is_referenced() and (table is top or symbol.is_global()):
                used.add(name)
    return frozenset(used - bound)


def _renamed_attributes_only(old_text: str, new_text: str, names: frozenset[str]) -> bool:
    """Whether ``new_text`` is ``old_text`` with some attribute names (``obj.old``) made
    the other name (``obj.new``), and nothing else changed.

    Then it compiles exactly when ``old_text`` does (a word for a word after a dot,
    neither a keyword nor on a coding line: every token keeps its kind), and its symbol
    tables are those of ``old_text`` (an attribute is no symbol): its check would find
    what the check of ``old_text`` found, so the symbol tables of the new text (most of a
    rename's check) are not built. The files that reach a renamed function through its
    module, or a renamed method through its objects, are all so.
    """
    if len(names) != 2:
        return False
    if any(keyword.iskeyword(n) or keyword.issoftkeyword(n) or n == "__debug__" for n in names):
        return False
    first, second = sorted(names)
    for old, new in ((first, second), (second, first)):
        # Putting the old name back everywhere gives the old text only if the new text
        # is the old one with some ``old`` made ``new`` and nothing else (C speed: a
        # regular expression starting with a word boundary is searched at every offset).
        if new_text.replace(new, old) == old_text:
            return _attributes_after_the_coding_lines(new_text, new)
    return False


def _is_word_char(char: str) -> bool:
    # Any other alphabet counts as a word character: a letter there may continue a name.
    return char == "_" or char.isalnum() or not char.isascii()


def _attributes_after_the_coding_lines(text: str, name: str) -> bool:
    """Every occurrence of ``name`` in ``text`` is a whole word right after a dot that
    ends no number (``1.e5``), past the first two lines (which may declare the file's
    encoding), and no string prefix (``f"..."``)."""
    first_line = text.find("\n")
    coding_lines_end = text.find("\n", first_line + 1) if first_line >= 0 else -1
    for found in re.finditer(re.escape(name), text):
        start, end = found.span()
        if coding_lines_end < 0 or start < coding_lines_end:
            return False
        if text[start - 1] != "." or text[start - 2 : start - 1].isdigit():
            return False  # not an attribute, or the exponent of a number (``1.e5``)
        after = text[end : end + 1]
        if after and (_is_word_char(after) or after in "'\""):
            return False
    return True


def check_edit(edit: FileEdit, rel: str, names: frozenset[str] | None = None) -> None:
    """Raise ``RefactoringError`` if ``edit`` breaks a Python file that was fine before.

    With ``names`` (a rename: the old and new name) only those names are checked.
    """
    if not rel.endswith((".py", ".pyw")):
        return
    if names is not None:
        before = _dangling(edit.old_text, rel, names)
        if before is None:
            return
        if _renamed_attributes_only(edit.old_text, edit.new_text, names):
            return  # compiles as before, and uses neither name but as an attribute
        after = _dangling(edit.new_text, rel, names)
    else:
        before = _undefined(edit.old_text, rel)
        if before is None:
            return  # it did not parse before: nothing to compare against
        after = _undefined(edit.new_text, rel)
    if after is None:
        raise RefactoringError(
            f"the refactoring engine's edit would leave {rel} with a syntax error; {_NOT_YOURS}"
        )
    new = sorted(after - before)
    if new:
        line = _first_use(edit.new_text, rel, frozenset(new))
        where = f" (line {line})" if line else ""
        raise RefactoringError(
            f"the refactoring engine's edit would leave undefined names in {rel}: "
            f"{', '.join(new)}{where}; {_NOT_YOURS}"
        )


_NOT_YOURS = "a limit of the refactoring engine, not a fault in your code"


def _first_use(text: str, filename: str, names: frozenset[str]) -> int | None:
    """The first line of ``text`` that reads one of ``names`` (where the user looks first)."""
    try:
        tree = parse_python(text, filename)
    except (SyntaxError, ValueError):
        return None
    lines = [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in names
    ]
    return min(lines, default=None)
