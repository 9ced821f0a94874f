"""Which places a test reading line numbers depends on (``rts.position_units``): those of
the functions it ran, of module code that ran while it was active, and of what ran at an
import that read line numbers; a line added below every function it ran selects it not.
Real pytest sessions on a temporary project."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

SHAPES = """
import warnings


def above():
    warnings.warn("above", UserWarning)


def below():
    warnings.warn("below", UserWarning)
"""

READERS = """
import warnings

import shapes


def lines_of(function):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        function()
    return [w.lineno for w in caught]


def test_above():
    assert lines_of(shapes.above) == [5]


def test_below():
    assert lines_of(shapes.below) == [9]
"""


def test_a_line_added_between_two_functions_selects_the_reader_of_the_lower_only(
    pytester: pytest.Pytester,
) -> None:
    # Precision: the file's layout changed, the place of ``above`` did not.
    write(pytester, "shapes.py", SHAPES)
    write(pytester, "test_readers.py", READERS)
    assert run(pytester) == {"test_above", "test_below"}
    edit(pytester, "shapes.py", "\n\ndef below", "\n\n# the lower one\ndef below")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_below"}


def test_a_comment_inside_a_function_selects_the_reader_of_its_lines_below_it(
    pytester: pytest.Pytester,
) -> None:
    # Guard: the comment sits in a function no test ran, above one a reader ran.
    middle = "\n\ndef middle():\n    return 0\n\n\ndef below"
    write(pytester, "shapes.py", SHAPES.replace("\n\ndef below", middle))
    write(pytester, "test_readers.py", READERS.replace("[9]", "[13]"))
    assert run(pytester) == {"test_above", "test_below"}
    edit(pytester, "shapes.py", "    return 0", "    # nothing to do\n    return 0")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_below"}


def test_module_code_run_by_the_test_selects_it_when_its_lines_move(
    pytester: pytest.Pytester,
) -> None:
    # Guard: the warning comes from module code the test imported as it ran.
    write(pytester, "late.py", 'import warnings\n\nwarnings.warn("loaded", UserWarning)\n')
    write(
        pytester,
        "test_late.py",
        """
        import importlib

        import pytest


        def test_import_warning_line():
            with pytest.warns(UserWarning) as record:
                importlib.import_module("late")
            assert record[0].lineno == 3
        """,
    )
    assert run(pytester) == {"test_import_warning_line"}
    edit(pytester, "late.py", "import warnings\n", "import warnings\n# a note\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_import_warning_line"}


def test_lines_kept_at_import_select_their_reader_when_they_move(
    pytester: pytest.Pytester,
) -> None:
    # Guard: a decorator run at ``things``' import keeps the line it was applied at; the
    # test reads it from a registry and runs nothing of ``things``.
    write(
        pytester,
        "registry.py",
        """
        import sys

        PLACES = {}


        def mark(function):
            PLACES[function.__name__] = sys._getframe(1).f_lineno
            return function
        """,
    )
    write(pytester, "things.py", "from registry import mark\n\n\n@mark\ndef a():\n    return 1\n")
    write(
        pytester,
        "test_places.py",
        """
        import registry
        import things


        def test_place():
            assert registry.PLACES == {"a": 4}
        """,
    )
    assert run(pytester) == {"test_place"}
    edit(pytester, "things.py", "from registry import mark\n", "from registry import mark\n# a\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_place"}


def test_a_line_read_by_module_code_selects_its_reader_when_it_moves(
    pytester: pytest.Pytester,
) -> None:
    # Guard: the test module's own code keeps a line below the test, which moves not.
    write(
        pytester,
        "test_module_line.py",
        """
        import sys


        def test_kept_line():
            assert LINE == 8


        LINE = sys._getframe().f_lineno
        """,
    )
    assert run(pytester) == {"test_kept_line"}
    edit(pytester, "test_module_line.py", "\n\nLINE", "\n\n# kept\nLINE")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_kept_line"}


def test_a_comment_after_the_last_statement_selects_the_reader_of_the_source(
    pytester: pytest.Pytester,
) -> None:
    # Guard: ``inspect.getsource`` shows a comment indented under the last statement.
    noted = "def f():\n    return 1\n    # first note\n\n\ndef g():\n    pass\n"
    write(pytester, "noted.py", noted)
    write(
        pytester,
        "test_noted.py",
        """
        import inspect

        import noted


        def test_source():
            assert "# first note" in inspect.getsource(noted.f)
        """,
    )
    assert run(pytester) == {"test_source"}
    edit(pytester, "noted.py", "# first note", "# second note")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_source"}


WHERE = """
import sys


def where(want):
    if want:
        return sys._getframe(1).f_lineno
    return 0
"""


@pytest.mark.skipif(sys.version_info < (3, 12), reason="lines told at LINE events (3.12+)")
def test_a_line_read_in_a_branch_not_taken_moves_no_test(pytester: pytest.Pytester) -> None:
    # Precision: ``where(False)`` spells ``f_lineno`` but reads none; ``where(True)`` reads
    # the line of its caller (guard: selected, and it fails).
    write(pytester, "helper.py", WHERE)
    write(
        pytester,
        "test_where.py",
        """
        import helper


        def test_no_line():
            assert helper.where(False) == 0


        def test_line():
            assert helper.where(True) == 9
        """,
    )
    assert run(pytester) == {"test_no_line", "test_line"}
    edit(pytester, "test_where.py", "import helper\n", "import helper\n# a note\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_line"}
