"""The output check of a rename: what it refuses, and the work a repeated rename costs."""

from __future__ import annotations

import contextlib
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
    built = _counting_symbol_tables(monkeypatch)
    text = BEFORE + "# a text no other test checks\n"
    for new in ("first_name", "second_name", "third_name"):
        check_edit(renamed(new, text), "report.py", frozenset({"total", new}))
    assert built.count(text) == 1
    assert len(built) == 4  # the text before, once; each text after, once
    edit_check._symbols.cache_clear()


def _counting_symbol_tables(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    real = symtable.symtable

    def counted(code: str, filename: str, compile_type: str) -> symtable.SymbolTable:
        built.append(code)
        return real(code, filename, compile_type)

    monkeypatch.setattr(symtable, "symtable", counted)
    edit_check._symbols.cache_clear()
    return built


def test_a_file_renamed_only_as_an_attribute_needs_no_symbol_table_after(
    monkeypatch: pytest.MonkeyPatch,
):
    """A file that reaches the renamed function through its module (``textwrap.dedent``)
    changes a word for a word and names it only as an attribute: it compiles as before
    and cannot be left with an unbound name, so only its text before is analysed."""
    built = _counting_symbol_tables(monkeypatch)
    text = "import helpers\n\n\ndef report(xs):\n    return helpers.total(xs) + 1\n"
    edit = FileEdit("/p/report.py", text, text.replace("total", "sum_of"))
    check_edit(edit, "report.py", frozenset({"total", "sum_of"}))
    assert built == [text]


def test_the_exponent_of_a_number_is_not_an_attribute():
    """``1.e5`` renamed as if ``e5`` were an attribute does not compile: refused."""
    before, after = "import m\nx = m.e5 + 1.e5\n", "import m\nx = m.big + 1.big\n"
    with pytest.raises(RefactoringError, match="syntax error"):
        check_edit(FileEdit("/p/m.py", before, after), "m.py", frozenset({"e5", "big"}))


@pytest.mark.parametrize(
    "after",
    [
        "import m\ny = m.sum_of\n",  # a word changed that is neither name
        "import m\nx = m.sum_of(\n",  # a separator changed
    ],
)
def test_what_is_not_a_word_for_a_word_is_checked_in_full(
    after: str, monkeypatch: pytest.MonkeyPatch
):
    built = _counting_symbol_tables(monkeypatch)
    with contextlib.suppress(RefactoringError):
        check_edit(
            FileEdit("/p/m.py", "import m\nx = m.total\n", after),
            "m.py",
            frozenset({"total", "sum_of"}),
        )
    assert after in built


def test_the_coding_lines_and_string_prefixes_are_checked_in_full(
    monkeypatch: pytest.MonkeyPatch,
):
    """A word on the first two lines may name the file's encoding, and a word before a
    quote is a string prefix: such edits get the whole check (symbol tables after)."""
    built = _counting_symbol_tables(monkeypatch)
    coding = "#!python\nimport m; x = m.latin\nprint(m.latin)\n"
    check_edit(
        FileEdit("/p/a.py", coding, coding.replace("latin", "ascii")),
        "a.py",
        frozenset({"latin", "ascii"}),
    )
    assert coding.replace("latin", "ascii") in built


def test_a_name_that_stays_as_it_was_does_not_need_the_full_check(
    monkeypatch: pytest.MonkeyPatch,
):
    """Only attributes renamed (``formatter.dedent()``), and a ``def dedent`` of the file's
    own left as it was: the symbol tables are those of the text before (an attribute is no
    symbol), so the new text's are not built; a renamed name that is not an attribute
    gets them."""
    built = _counting_symbol_tables(monkeypatch)
    text = "class F:\n    def dedent(self):\n        pass\n\n\ndef run(f):\n    f.dedent()\n"
    only_attribute = text.replace("f.dedent", "f.trim")
    check_edit(FileEdit("/p/f.py", text, only_attribute), "f.py", frozenset({"dedent", "trim"}))
    assert built == [text]
    both = text.replace("dedent", "trim")
    check_edit(FileEdit("/p/f.py", text, both), "f.py", frozenset({"dedent", "trim"}))
    assert both in built
