"""Tests that read line numbers or source text see the layout of their files: unit
checksums skip comments and blank lines, yet a line added above a function moves its
``co_firstlineno``, the ``lineno`` of a warning it raises, and a comment inside it is part of
what ``inspect.getsource`` returns. Such a test depends on the places of the code it ran
or read (``rts.position_units``); a test reading neither still selects nothing on a
comment-only edit. Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "shapes.py",
        """
        import warnings


        def first():
            return 1


        def second():
            return 2


        def noisy():
            warnings.warn("careful", UserWarning)
            return 3


        def commented():
            # the answer
            return 4
        """,
    )
    write(
        pytester,
        "test_layout.py",
        """
        import inspect
        import warnings

        import pytest

        import shapes


        def test_first_line():
            assert shapes.second.__code__.co_firstlineno == 8


        def test_recorded_warning_line():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert shapes.noisy() == 3
            assert caught[0].lineno == 13


        def test_pytest_warns_line():
            with pytest.warns(UserWarning) as record:
                shapes.noisy()
            assert record[0].lineno == 13


        def test_source_text():
            assert "# the answer" in inspect.getsource(shapes.commented)


        def test_plain():
            assert shapes.first() + shapes.second() == 3
        """,
    )
    assert len(run(pytester)) == 5
    return pytester


LINE_READERS = {"test_first_line", "test_recorded_warning_line", "test_pytest_warns_line"}


def test_a_comment_above_a_function_selects_the_readers_of_its_lines(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "def first():", "# the first one\ndef first():")
    ran, failed = ran_and_failed(project)
    assert ran >= LINE_READERS
    assert failed >= LINE_READERS


def test_a_blank_line_above_a_function_selects_the_readers_of_its_lines(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "import warnings\n", "import warnings\n\n")
    ran, failed = ran_and_failed(project)
    assert ran >= LINE_READERS
    assert failed >= LINE_READERS


def test_a_comment_inside_a_function_selects_the_reader_of_its_source(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "# the answer", "# an answer")
    ran, failed = ran_and_failed(project)
    assert "test_source_text" in ran
    assert "test_source_text" in failed


def test_a_comment_only_edit_selects_no_test_reading_no_line_or_source(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "def first():", "# the first one\ndef first():")
    assert "test_plain" not in run(project)


def test_a_comment_only_edit_selects_no_lookup_by_a_computed_name(
    pytester: pytest.Pytester,
) -> None:
    # A name looked up by a string finds bindings, never the layout.
    write(pytester, "table.py", "def first():\n    return 1\n\n\ndef second():\n    return 2\n")
    write(
        pytester,
        "test_table.py",
        """
        import table


        def test_by_name():
            name = "".join(["sec", "ond"])
            assert getattr(table, name)() == 2
        """,
    )
    assert run(pytester) == {"test_by_name"}
    edit(pytester, "table.py", "def first():", "# the first\ndef first():")
    assert run(pytester) == set()


def test_lines_moved_by_a_reflow_above_select_the_readers_of_its_lines(
    project: pytest.Pytester,
) -> None:
    # Guard: code spread over more lines, its tokens the same.
    edit(project, "shapes.py", "return 1", "return (\n        1\n    )")
    ran, failed = ran_and_failed(project)
    assert ran >= LINE_READERS
    assert failed >= LINE_READERS


def test_a_literal_changed_below_selects_no_reader_of_lines_above(
    project: pytest.Pytester,
) -> None:
    # The layout keeps no literal: only the reader of ``commented``'s source sees it.
    edit(project, "shapes.py", "return 4", "return 5")
    ran = run(project)
    assert "test_source_text" in ran
    assert not ran & {"test_recorded_warning_line", "test_pytest_warns_line"}


def test_a_comment_above_a_test_selects_it_when_it_reads_its_own_line(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "test_own.py",
        """
        import sys


        def test_own_line():
            assert sys._getframe().f_lineno == 5


        def test_other():
            assert sys.maxsize > 0
        """,
    )
    assert len(run(pytester)) == 2
    edit(pytester, "test_own.py", "import sys\n", "import sys\n# a note\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_own_line"}


def test_a_frame_code_line_read_beside_a_told_code_read_keeps_the_files_layout(
    pytester: pytest.Pytester,
) -> None:
    # Guard: ``__code__`` is told (of another file's function), yet ``co_firstlineno`` is
    # read of a frame's code too.
    write(pytester, "other.py", "def plain():\n    return 1\n")
    write(
        pytester,
        "where.py",
        """
        import sys


        def here():
            return sys._getframe().f_code.co_firstlineno
        """,
    )
    write(
        pytester,
        "test_where.py",
        """
        import other
        import where


        def test_here():
            assert other.plain.__code__.co_argcount == 0
            assert where.here() == 4
        """,
    )
    assert run(pytester) == {"test_here"}
    edit(pytester, "where.py", "import sys\n", "import sys\n# a note\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_here"}
