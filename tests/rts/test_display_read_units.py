"""The reads of a table built by displays alone are units of their own, one per read: a read
that may raise at import selects every importer when it is new (or moved before the name
it reads is bound), and selects nothing more when it is gone (evaluating fewer reads
cannot make the import fail: sqlparse's ``SQL_REGEX`` losing three token kinds selected
the whole suite). On real pytest sessions, with a run of only some tests in between (the
others must still run)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

TABLE = """
from pkg import kinds

RULES = [
    (r"\\w+", kinds.WORD),
    (r"\\s+", kinds.SPACE),
]


def other():
    return 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/kinds.py", "class Kind:\n    pass\n\n\nWORD = Kind()\nSPACE = Kind()\n")
    write(pytester, "pkg/table.py", TABLE)
    write(
        pytester,
        "test_table.py",
        """
        from pkg import table


        def test_rules():
            assert len(table.RULES) >= 1


        def test_other():
            assert table.other() == 1
        """,
    )
    assert run(pytester) == EVERY
    return pytester


EVERY = {"test_rules", "test_other"}


def test_a_read_removed_selects_only_the_readers(project: pytest.Pytester) -> None:
    edit(project, "pkg/table.py", '    (r"\\s+", kinds.SPACE),\n', "")
    assert run(project) == {"test_rules"}
    # Back again: a new read, which may raise.
    edit(project, "pkg/table.py", NEW_READ[0], NEW_READ[1].replace("Kind", "SPACE"))
    assert run(project) == EVERY


def test_a_new_read_selects_every_importer_after_a_partial_run(project: pytest.Pytester) -> None:
    edit(project, "pkg/table.py", NEW_READ[0], NEW_READ[1])
    assert run(project, "-k", "test_rules") == {"test_rules"}  # it stores the new units
    assert run(project) == {"test_other"}


NEW_READ = ('(r"\\w+", kinds.WORD),', '(r"\\w+", kinds.WORD), ("", kinds.Kind),')


def test_a_table_renamed_selects_only_the_readers_of_its_name(project: pytest.Pytester) -> None:
    edit(project, "pkg/table.py", "RULES = [", "PATTERNS = [")
    assert run(project) == {"test_rules"}
