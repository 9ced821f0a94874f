"""The output check of a rename: what it refuses, and the work a repeated rename costs."""

from __future__ import annotations

import symtable

import pytest

from lsp_server.refactor import edit_check
from lsp_server.refactor.edit_check import check_edit
from lsp_server.refactor.model import FileEdit, RefactoringError

BEFORE = "from helpers import total\n\n\ndef report(xs):\n    return total(xs) + obj.total\n"


def renamed(new: str, text: str = BEFORE) -> FileEdit:
    return FileEdit("/p/report.py", text, text.replace("total", new))


def test_a_use_left_behind_is_refused_and_an_attribute_is_not_a_use():
    check_edit(renamed("sum_of"), "report.py", frozenset({"total", "sum_of"}))
    half = FileEdit("/p/report.py", BEFORE, BEFORE.replace("import total", "import sum_of"))
    with pytest.raises(RefactoringError, match=r"undefined names in report\.py: total"):
        check_edit(half, "report.py", frozenset({"total", "sum_of"}))
    # `obj.total` alone, renamed or not, binds and reads nothing of the module's
    attribute_only = FileEdit("/p/a.py", "x = obj.total\n", "x = obj.sum_of\n")
    check_edit(attribute_only, "a.py", frozenset({"total", "sum_of"}))


def test_a_star_import_may_bind_anything():
    text = "from helpers import *\n\nprint(total)\n"
    edit = FileEdit("/p/star.py", text, text.replace("print(total)", "print(total, gone)"))
    check_edit(edit, "star.py", frozenset({"gone"}))


def test_renaming_the_same_name_again_builds_the_symbol_tables_of_the_new_texts_only(
    monkeypatch: pytest.MonkeyPatch,
):
    """Warm repeats of a rename (each to another name) check the same texts before it:
    their symbol tables are built once, not once per rename."""
    built: list[str] = []
    real = symtable.symtable

    def counted(code: str, filename: str, compile_type: str) -> symtable.SymbolTable:
        built.append(code)
        return real(code, filename, compile_type)

    monkeypatch.setattr(symtable, "symtable", counted)
    text = BEFORE + "# a text no other test checks\n"
    for new in ("first_name", "second_name", "third_name"):
        check_edit(renamed(new, text), "report.py", frozenset({"total", new}))
    assert built.count(text) == 1
    assert len(built) == 4  # the text before, once; each text after, once
    edit_check._symbols.cache_clear()
