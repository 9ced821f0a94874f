"""What a top-level ``from module import ...`` of a project module does besides binding its
names: it imports the module there. A statement added, moved or removed selects the tests
that would see that import start or stop (the module is not surely imported otherwise by
the test's file), not every importer of the file, on real pytest sessions. An import cycle
or import-time calls keep the statement's effect on every importer (sqlparse's keywords.py
took names from utils.py, which every test imported anyway: every test ran)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

WORDS = 'WORDS = ["a", "b"]'
IMPORT_AND_WORDS = "from pkg.util import helper\n\n" + WORDS


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/util.py",
        """
        def consume(items):
            return list(items)


        def helper(word):
            return word * 2
        """,
    )
    write(
        pytester,
        "pkg/words.py",
        """
        WORDS = ["a", "b"]


        def upper(word):
            return word.upper()
        """,
    )
    write(
        pytester,
        "pkg/lexer.py",
        """
        from pkg.util import consume
        from pkg.words import WORDS


        def lex(text):
            return consume(w for w in text.split() if w in WORDS)
        """,
    )
    write(
        pytester,
        "test_lexer.py",
        """
        from pkg.lexer import lex


        def test_lex():
            assert lex("a c b") == ["a", "b"]
        """,
    )
    write(
        pytester,
        "test_cli.py",
        """
        import pkg.lexer


        def test_cli():
            assert pkg.lexer.__name__ == "pkg.lexer"
        """,
    )
    write(
        pytester,
        "test_words.py",
        """
        from pkg.words import upper


        def test_upper():
            assert upper("a") == "A"
        """,
    )
    assert run(pytester) == {"test_lex", "test_cli", "test_upper"}
    return pytester


def test_an_import_of_a_module_every_test_imports_anyway_selects_only_the_others(
    project: pytest.Pytester,
) -> None:
    # test_lexer and test_cli import util through lexer: only the place of its import
    # moves. test_words imports words alone: util is imported where it was not.
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project) == {"test_upper"}
    edit(project, "pkg/words.py", "return word.upper()", "return helper(word.upper())[:1]")
    assert run(project) == {"test_upper"}


def test_the_import_removed_selects_the_tests_that_no_longer_import_the_module(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project) == {"test_upper"}
    edit(project, "pkg/words.py", "from pkg.util import helper\n", "")
    assert run(project) == {"test_upper"}


def test_the_tests_left_out_at_an_import_removed_are_not_stale_at_the_next_run(
    project: pytest.Pytester,
) -> None:
    """The run recording the removal leaves alone the tests selection proved unaffected
    (they import util through lexer anyway): fails on c5205cb, where ``test_lex`` and
    ``test_cli`` ran again as stale ("<imports>pkg.util removed")."""
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    # Every test recorded with the import (a selecting run leaves two out).
    assert run(project, flag="--reks-all") == {"test_lex", "test_cli", "test_upper"}
    edit(project, "pkg/words.py", "from pkg.util import helper\n", "")
    assert run(project) == {"test_upper"}
    assert run(project) == set()


def test_a_test_deselected_at_an_import_removed_runs_next_time(
    project: pytest.Pytester,
) -> None:
    """Guard: ``test_upper`` no longer imports util, selected but deselected with ``-k``:
    its mark stays."""
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project, flag="--reks-all") == {"test_lex", "test_cli", "test_upper"}
    edit(project, "pkg/words.py", "from pkg.util import helper\n", "")
    assert run(project, "-k", "lex") == set()
    assert run(project) == {"test_upper"}


def test_an_import_in_a_cycle_selects_every_importer(project: pytest.Pytester) -> None:
    # util takes WORDS from words at its end: once words imports util, which of the two
    # runs half done depends on which a test imports first.
    edit(
        project,
        "pkg/util.py",
        "return word * 2",
        "return word * 2\n\n\nfrom pkg.words import WORDS",
    )
    # No cycle yet, and lexer imports words anyway. test_lex reads WORDS as lexer's
    # global, which lexer's own from import takes off words, not off util (the read was
    # of WORDS anywhere before rts.from_import_reads, and util's new binding selected it).
    assert run(project) == set()
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project) == {"test_lex", "test_cli", "test_upper"}


def test_an_import_of_a_module_importing_only_its_own_package_is_no_cycle(
    project: pytest.Pytester,
) -> None:
    # pkg imports lexer, which imports words, and util imports pkg back: importing util
    # imports pkg first, so its `import pkg` runs nothing; words cannot be half run then.
    write(project, "pkg/__init__.py", "from pkg.lexer import lex\n")
    edit(project, "pkg/util.py", "def consume", "import pkg\n\n\ndef consume")
    assert run(project) == {"test_lex", "test_cli", "test_upper"}
    # Every test imports pkg, hence lexer and util: only the place of util's import moves.
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project) == set()


def test_an_import_next_to_calls_at_import_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    # words calls something at import: util's import may now run before or after it.
    edit(project, "pkg/words.py", 'WORDS = ["a", "b"]', 'WORDS = list("ab")\nprint(WORDS)')
    assert run(project) == {"test_lex", "test_cli", "test_upper"}
    edit(
        project,
        "pkg/words.py",
        'WORDS = list("ab")',
        'from pkg.util import helper\n\nWORDS = list("ab")',
    )
    assert run(project) == {"test_lex", "test_cli", "test_upper"}


def test_a_package_taking_its_submodules_imports_them_surely(project: pytest.Pytester) -> None:
    # front takes its submodule lexer, which imports util; alias binds the name lexer to
    # a function first: its submodule lexer is never imported, nor util through it.
    for package, first in (
        ("front", "from front import lexer"),
        ("alias", "from alias.names import lexer"),
    ):
        write(project, f"{package}/__init__.py", first + "\n")
        write(project, f"{package}/lexer.py", "import pkg.lexer\n")
    write(project, "alias/names.py", "def lexer():\n    return 1\n")
    for package in ("front", "alias"):
        write(
            project,
            f"test_{package}.py",
            f"import {package}\nimport pkg.words\n\n\n"
            f"def test_{package}():\n    assert {package}.lexer\n",
        )
    assert run(project) == {"test_front", "test_alias"}
    edit(project, "pkg/words.py", WORDS, IMPORT_AND_WORDS)
    assert run(project) == {"test_upper", "test_alias"}
