"""A table built by displays alone (lists, tuples, dict values) may raise at import only
where it reads a name or an attribute: its constants and the order and number of its
elements change nothing there. Editing a pattern of such a table selects the tests that
read it, not every importer of the module (sqlparse's SQL_REGEX: regexes paired with
token kinds read off a project module), on real pytest sessions; a new name read, a
call, or a read in a set element or a dict key (hashed: it may raise) selects every
importer."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/kinds.py", "class Kind:\n    pass\n\n\nWORD = Kind()\nSPACE = Kind()\n")
    write(
        pytester,
        "pkg/table.py",
        """
        from pkg import kinds

        RULES = [
            (r"\\w+", kinds.WORD),
            (r"\\s+", kinds.SPACE),
        ]


        def other():
            return 1
        """,
    )
    write(
        pytester,
        "test_table.py",
        """
        from pkg import table


        def test_rules():
            assert len(table.RULES) >= 2


        def test_other():
            assert table.other() == 1
        """,
    )
    assert run(pytester) == {"test_rules", "test_other"}
    return pytester


def test_a_pattern_edited_or_an_entry_repeated_selects_the_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/table.py", r'(r"\w+", kinds.WORD),', r'(r"[a-z]+", kinds.WORD),')
    assert run(project) == {"test_rules"}
    edit(
        project,
        "pkg/table.py",
        r'(r"\s+", kinds.SPACE),',
        r'(r"\s+", kinds.SPACE), ("x", kinds.WORD),',
    )
    assert run(project) == {"test_rules"}


@pytest.mark.parametrize(
    "entry",
    [
        '("y", kinds.Kind),',
        '("y", kinds.Kind()),',
        "({kinds.WORD}, 1),",
        "({kinds.WORD: 1}, 1),",
    ],
)
def test_a_read_or_call_that_may_raise_selects_every_importer(
    project: pytest.Pytester, entry: str
) -> None:
    edit(project, "pkg/table.py", r'(r"\s+", kinds.SPACE),', r'(r"\s+", kinds.SPACE), ' + entry)
    assert run(project) == {"test_rules", "test_other"}
