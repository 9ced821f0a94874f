"""A test that reads code (``lookups.BODY_READS``) sees every body and docstring of its
modules (``rts.seen_bodies``): typeguard's ``instrument`` reads
``inspect.getsource(sys.modules[f.__module__])`` and ``f.__code__`` of the one function it
instruments, and a body change anywhere in the package selected every instrumented test.
On 3.12+ the CALL event hands over what ``getsource`` was given, so the code read can be
told: a module's source is every unit of that one file, a function's code its own body.
What is not told (a receiver the tracer cannot see) keeps the wide reading. Real pytest
sessions on a temporary project."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

needs_call_event = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="only 3.12's CALL event hands over the arguments"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "target.py",
        """
        def double(x):
            return 2 * x


        def triple(x):
            return 3 * x
        """,
    )
    write(
        pytester,
        "other.py",
        """
        def helper():
            return 1


        def unused():
            return 20
        """,
    )
    # typeguard's shape: the source of the function's whole module, and its code object.
    write(
        pytester,
        "instr.py",
        """
        import inspect
        import sys


        def module_source(f):
            return inspect.getsource(sys.modules[f.__module__])


        def constants(f):
            return f.__code__.co_consts
        """,
    )
    write(
        pytester,
        "test_reads.py",
        """
        import instr
        import other
        import target


        def test_module_source():
            assert "3 * x" in instr.module_source(target.double)
            assert other.helper() == 1


        def test_code_constants():
            assert 2 in instr.constants(target.double)
            # Named, never run: their headers are dependencies, their bodies unseen.
            assert callable(other.unused) and callable(target.triple)


        def test_computed_receiver():
            assert 20 in instr.constants([other.unused][0])
        """,
    )
    assert len(run(pytester)) == 3
    return pytester


@needs_call_event
def test_a_body_change_in_a_module_whose_code_was_not_read_selects_no_reader(
    project: pytest.Pytester,
) -> None:
    # other.py's source was never read, nor unused's code, by the first two tests (the
    # second names unused); the third read unused's code through a computed receiver.
    edit(project, "other.py", "return 20", "return 21")
    assert run(project) == {"test_computed_receiver"}


def test_a_body_change_beside_the_function_whose_code_was_read_selects_only_the_module_reader(
    project: pytest.Pytester,
) -> None:
    # test_code_constants read double's code only; triple, in the same file, it names and
    # never ran.
    edit(project, "target.py", "return 3 * x", "return x * 3")
    assert run(project) == {"test_module_source"}


def test_a_change_in_the_module_whose_source_was_read_selects_its_readers(
    project: pytest.Pytester,
) -> None:
    # triple never ran: only the module's source showed it.
    edit(project, "target.py", "return 3 * x", "return x * 3")
    ran, failed = ran_and_failed(project)
    assert "test_module_source" in ran
    assert "test_module_source" in failed


def test_a_change_in_the_function_whose_code_was_read_selects_its_readers(
    project: pytest.Pytester,
) -> None:
    # double never ran: only its code object showed it.
    edit(project, "target.py", "return 2 * x", "return x + x")
    ran, failed = ran_and_failed(project)
    assert {"test_module_source", "test_code_constants"} <= ran
    assert "test_code_constants" in failed


def test_code_read_through_a_computed_receiver_keeps_the_wide_reading(
    project: pytest.Pytester,
) -> None:
    edit(project, "other.py", "return 20", "return 21")
    ran, failed = ran_and_failed(project)
    assert "test_computed_receiver" in ran
    assert "test_computed_receiver" in failed


@pytest.fixture
def unnamed(pytester: pytest.Pytester) -> pytest.Pytester:
    """Code read of a module (``getsource(module)``) and of a function's position
    (``co_firstlineno``) shows the functions above it, which the test never names."""
    write(
        pytester,
        "shapes.py",
        """
        def first():
            return 1


        def second():
            return 2
        """,
    )
    write(
        pytester,
        "test_shape_reads.py",
        """
        import inspect

        import shapes


        def test_module_text():
            assert "return 1" in inspect.getsource(shapes)


        def test_position():
            assert shapes.second.__code__.co_firstlineno == 5
        """,
    )
    assert len(run(pytester)) == 2
    return pytester


def test_a_body_change_in_a_module_read_whole_selects_its_reader(
    unnamed: pytest.Pytester,
) -> None:
    edit(unnamed, "shapes.py", "return 1", "return 7")
    ran, failed = ran_and_failed(unnamed)
    assert "test_module_text" in ran
    assert "test_module_text" in failed


def test_a_line_added_above_a_function_selects_the_reader_of_its_position(
    unnamed: pytest.Pytester,
) -> None:
    edit(unnamed, "shapes.py", "return 1", "x = 1\n    return x")
    ran, failed = ran_and_failed(unnamed)
    assert "test_position" in ran
    assert "test_position" in failed


def test_a_function_added_to_a_module_read_whole_selects_its_reader(
    unnamed: pytest.Pytester,
) -> None:
    edit(unnamed, "shapes.py", "def first():", "def zeroth():\n    return 0\n\n\ndef first():")
    ran, failed = ran_and_failed(unnamed)
    assert {"test_module_text", "test_position"} <= ran
    assert "test_position" in failed


def test_code_read_by_getattr_with_a_constant_name_shows_the_function_only(
    pytester: pytest.Pytester,
) -> None:
    """typeguard's ``instrument``: ``getattr(f, "__code__", None)``, the builtin reading in
    the caller's frame, is told like ``f.__code__``."""
    # Strings: 3.11's recording adds its own numbers to the constants (marker calls).
    write(
        pytester, "other.py", "def first():\n    return 'one'\n\n\ndef unused():\n    return 20\n"
    )
    write(
        pytester,
        "instr.py",
        """
        def constants(f):
            code = getattr(f, "__code__", None)
            return code.co_consts if code is not None else ()
        """,
    )
    write(
        pytester,
        "test_getattr_read.py",
        """
        import instr
        import other


        def test_constants():
            assert "one" in instr.constants(other.first)
            assert callable(other.unused)
        """,
    )
    assert len(run(pytester)) == 1
    edit(pytester, "other.py", "return 20", "return 21")
    assert run(pytester) == set()
    # A size of its own: the first edit's run wrote bytecode this second.
    edit(pytester, "other.py", "return 'one'", "return 'two!'")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_constants"}


@needs_call_event
def test_code_read_at_import_shows_the_decorated_function_and_its_module_only(
    pytester: pytest.Pytester,
) -> None:
    """typeguard's ``@typechecked`` reads, at the import of the module it decorates, the
    function's code (``getattr(f, "__code__", None)``) and its module's source: a body
    change in another module the tests import is none of theirs."""
    write(
        pytester,
        "deco.py",
        """
        import inspect
        import sys


        def instrument(f):
            code = getattr(f, "__code__", None)
            f.lines = (code.co_firstlineno, inspect.getsource(sys.modules[f.__module__]))
            return f
        """,
    )
    write(
        pytester,
        "shapes.py",
        "from deco import instrument\n\n\n@instrument\ndef first():\n    return 1\n",
    )
    write(pytester, "other.py", "def helper():\n    return 1\n\n\ndef unused():\n    return 20\n")
    write(
        pytester,
        "test_decorated.py",
        """
        import other
        import shapes


        def test_decorated():
            assert shapes.first() == other.helper() == 1
            assert callable(other.unused)
        """,
    )
    assert len(run(pytester)) == 1
    edit(pytester, "other.py", "return 20", "return 21")
    assert run(pytester) == set()
