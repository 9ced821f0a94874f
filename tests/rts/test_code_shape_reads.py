"""A told read of ``f.__code__`` shows f's units and every unit above f in its file (the
line number ``co_firstlineno`` may be read), and reads are kept by reader over the session.
pluggy's ``varnames`` reads ``func.__code__.co_varnames[: co_argcount]`` of every hook
implementation registered, nested in the test files: a one-line edit of one test's body
(pluggy d23f110) selected 111 of 144 tests, testmon 1. A reader that keeps the code object
in a local and reads only shape attributes from it (``rts.code_shape_reads``) shows f's own
units, not their places nor what sits above f. Real pytest sessions on a temporary project.
"""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "hookcode.py",
        """
        import operator


        def argnames(func):
            try:
                code = func.__code__
            except AttributeError:
                return ()
            return code.co_varnames[: code.co_argcount]


        def localnames(func):
            return func.__code__.co_varnames


        def first_line(func):
            code = func.__code__
            return code.co_firstlineno


        CODE = operator.attrgetter("__code__")


        def shape_and_line(func):
            code = func.__code__
            return code.co_argcount, CODE(func).co_firstlineno
        """,
    )
    write(
        pytester,
        "impls.py",
        """
        def impl(a):
            tmp = a
            return tmp
        """,
    )
    # Run first: by the time the second file's test ends, ``argnames`` has read the nested
    # ``impl`` below ``helper_above`` here.
    write(
        pytester,
        "test_a_shapes.py",
        """
        import hookcode


        def helper_above():
            return 1


        def test_helper():
            assert helper_above() == 1


        def test_nested_impl():
            def impl(x, y):
                return x + y

            assert hookcode.argnames(impl) == ("x", "y")


        def test_impl_line():
            def placed():
                return 0

            assert hookcode.first_line(placed) > 5


        def test_shape_and_line():
            def spot():
                return 0

            assert hookcode.shape_and_line(spot)[1] > 5
        """,
    )
    write(
        pytester,
        "test_b_shapes.py",
        """
        import hookcode
        import impls


        def test_other_file():
            def impl(one):
                return one

            assert hookcode.argnames(impl) == ("one",)


        def test_local_names():
            assert hookcode.localnames(impls.impl) == ("a", "tmp")
        """,
    )
    assert len(run(pytester)) == 6
    return pytester


def test_a_body_edit_above_a_function_whose_shape_was_read_selects_only_its_tests(
    project: pytest.Pytester,
) -> None:
    # Failed on e1ec010: test_nested_impl and test_other_file ran too (``argnames`` read
    # the nested impl, below the edit; test_other_file ran ``argnames`` later).
    edit(project, "test_a_shapes.py", "return 1", "return 0 + 1")
    assert run(project) == {"test_helper", "test_impl_line", "test_shape_and_line"}


def test_a_line_added_above_a_function_whose_line_was_read_selects_its_reader(
    project: pytest.Pytester,
) -> None:
    # ``first_line`` reads a line number: the wide reading stays. ``shape_and_line`` reads
    # one through a getter besides its shape read: the audit event's frame is at a call,
    # no shape site, and its reads widen.
    edit(project, "test_a_shapes.py", "    return 1", "    one = 1\n    return one")
    ran = run(project)
    assert {"test_helper", "test_impl_line", "test_shape_and_line"} <= ran
    assert "test_other_file" not in ran


def test_a_local_renamed_in_a_function_whose_shape_was_read_selects_its_reader(
    project: pytest.Pytester,
) -> None:
    # impl never ran: only its code object's local names show the edit.
    edit(project, "impls.py", "tmp = a\n    return tmp", "held = a\n    return held")
    ran, failed = ran_and_failed(project)
    assert "test_local_names" in ran
    assert failed == {"test_local_names"}
