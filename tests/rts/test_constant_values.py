"""Top-level bindings computed from constants alone (a version string joined from a version
tuple, a pattern compiled from a named piece, a read-only mapping of literals) cannot make
the import fail when they change, unless computing them raises: they count only for the
tests reading their names."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

_ALL = {"test_one", "test_version", "test_word", "test_escapes"}

pytest_plugins = ["pytester"]

# Each test imports ``lib`` itself: with one import at the top of the file, a failing
# import is a collection error of the whole file whatever reks selected, and a guard that
# every importer runs could not fail.
_TESTS = """
def test_one():
    import lib

    assert lib.one() == 1


def test_version():
    import lib

    assert lib.__version__.startswith("1.")


def test_word():
    import lib

    assert lib.WORD.match("ab")


def test_escapes():
    import lib

    assert lib.ESCAPES["t"] == "\\t"
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "lib.py",
        """
        import re
        from types import MappingProxyType

        version_info = (1, 2, 0, "dev")
        __version__ = ".".join([str(part) for part in version_info if part or part == 0])

        _PART = r"[a-z]+"
        WORD = re.compile(_PART, flags=re.VERBOSE)

        ESCAPES = MappingProxyType({"t": "\\t", "n": "\\n"})


        def one():
            return 1
        """,
    )
    write(pytester, "test_lib.py", _TESTS)
    assert run(pytester) == _ALL
    return pytester


def _import_fails(pytester: pytest.Pytester) -> bool:
    """Whether a ``--reks`` run ran every test and each failed (importing ``lib``)."""
    return ran_and_failed(pytester) == (_ALL, _ALL)


def test_a_version_joined_from_constants_selects_the_tests_reading_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", '(1, 2, 0, "dev")', '(1, 3, 0, "")')
    assert run(project) == {"test_version"}


def test_a_pattern_compiled_from_a_named_constant_selects_the_tests_reading_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", 'r"[a-z]+"', 'r"[a-z]*"')
    assert run(project) == {"test_word"}


def test_a_read_only_mapping_of_literals_selects_the_tests_reading_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", '"n": "\\n"', '"n": "\\n", "e": "\\x1b"')
    assert run(project) == {"test_escapes"}


def test_a_constant_expression_that_raises_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", "[str(part) for", "[part for")  # join of ints: TypeError
    assert _import_fails(project)


def test_a_pattern_that_no_longer_compiles_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", 'r"[a-z]+"', 'r"[a-z+"')
    assert _import_fails(project)


def test_a_shadowed_builtin_is_not_taken_for_the_builtin(project: pytest.Pytester) -> None:
    edit(project, "lib.py", "version_info = ", "str = None\nversion_info = ")
    assert _import_fails(project)


def test_a_star_import_may_rebind_a_computed_name(pytester: pytest.Pytester) -> None:
    write(pytester, "other.py", 'PART = "a"\n')
    write(
        pytester,
        "lib.py",
        """
        PART = "a"
        from other import *

        WORD = PART + "b"


        def one():
            return 1
        """,
    )
    write(pytester, "test_one.py", "import lib\n\n\ndef test_one():\n    assert lib.one()\n")
    write(pytester, "test_word.py", "import lib\n\n\ndef test_word():\n    assert lib.WORD\n")
    assert run(pytester) == {"test_one", "test_word"}
    edit(pytester, "other.py", '"a"', "1")  # lib's import now fails
    failed = pytester.inline_run("--reks").getfailedcollections()
    assert sorted(r.nodeid for r in failed) == ["test_one.py", "test_word.py"]


def test_a_list_changed_after_it_was_computed_is_not_taken_for_its_first_value(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "lib.py",
        """
        PARTS = list("ab")
        PARTS.clear()

        FIRST = PARTS[0] if PARTS else "x"


        def one():
            return 1
        """,
    )
    write(pytester, "test_one.py", "import lib\n\n\ndef test_one():\n    assert lib.one()\n")
    write(pytester, "test_first.py", "import lib\n\n\ndef test_first():\n    assert lib.FIRST\n")
    assert run(pytester) == {"test_one", "test_first"}
    edit(pytester, "lib.py", 'PARTS[0] if PARTS else "x"', "PARTS[0]")  # IndexError
    failed = pytester.inline_run("--reks").getfailedcollections()
    assert sorted(r.nodeid for r in failed) == ["test_first.py", "test_one.py"]
