"""Guards of the code reads told at run time (``rts.code_read_targets``): shapes just outside
what is told, which keep the wide reading (every unit of the test's modules' files) or show
more than the one function, and must still select their test. Real pytest sessions on a
temporary project."""

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
        def outer():
            def inner():
                return 5

            return inner


        class Shape:
            def area(self):
                return 6
        """,
    )
    write(
        pytester,
        "other.py",
        """
        def first():
            return 1


        def unused():
            return 20
        """,
    )
    # A code object read at import: the test reading ``CODE`` never reads ``__code__``.
    write(
        pytester,
        "kept.py",
        """
        import other

        CODE = other.unused.__code__
        """,
    )
    write(
        pytester,
        "test_guards.py",
        """
        import inspect

        import kept
        import other
        import target


        def test_nested_code():
            assert 5 in target.outer.__code__.co_consts[1].co_consts


        def test_class_source():
            assert "return 6" in inspect.getsource(target.Shape)


        def test_source_by_alias():
            read = inspect.getsource
            assert "return 20" in read(other)


        def test_code_kept_at_import():
            assert other.first.__code__.co_firstlineno == 1
            assert 20 in kept.CODE.co_consts
        """,
    )
    assert len(run(pytester)) == 4
    return pytester


def test_a_change_in_a_function_nested_in_the_one_whose_code_was_read_selects_its_reader(
    project: pytest.Pytester,
) -> None:
    # ``inner`` never ran: only ``outer``'s code object (its constants) showed it.
    edit(project, "target.py", "return 5", "return  7")
    ran, failed = ran_and_failed(project)
    assert "test_nested_code" in ran
    assert "test_nested_code" in failed


@needs_call_event
def test_a_method_change_in_a_class_whose_source_was_read_selects_its_reader(
    project: pytest.Pytester,
) -> None:
    edit(project, "target.py", "return 6", "return  7")
    ran, failed = ran_and_failed(project)
    assert "test_class_source" in ran
    assert "test_class_source" in failed


def test_source_read_through_an_alias_keeps_the_wide_reading(
    project: pytest.Pytester,
) -> None:
    # ``read(other)`` is no call site of ``getsource``: what it was handed is not told.
    edit(project, "other.py", "return 20", "return  21")
    ran, failed = ran_and_failed(project)
    assert {"test_source_by_alias", "test_code_kept_at_import"} <= ran
    assert {"test_source_by_alias", "test_code_kept_at_import"} <= failed


def test_a_code_read_told_beside_one_made_at_import_keeps_the_wide_reading(
    project: pytest.Pytester,
) -> None:
    # The test's own ``first.__code__`` is told; ``kept.CODE`` was read at ``kept``'s
    # import, in another window: its statement spells ``__code__``, the wide reading stays.
    edit(project, "other.py", "return 20", "return  22")
    assert "test_code_kept_at_import" in run(project)


def test_a_code_read_inside_a_cached_call_selects_the_test_hitting_the_cache(
    pytester: pytest.Pytester,
) -> None:
    # The second test never runs ``consts_of``: the first filled the cache, reading
    # ``unused.__code__`` in its window. Who read what is kept by reader, not by window.
    write(pytester, "other.py", "def unused():\n    return 20\n")
    write(
        pytester,
        "helper.py",
        """
        import functools


        @functools.cache
        def consts_of(f):
            return f.__code__.co_consts
        """,
    )
    write(
        pytester,
        "test_cached.py",
        """
        import helper
        import other


        def test_fills():
            assert 20 in helper.consts_of(other.unused)


        def test_hits():
            assert 20 in helper.consts_of(other.unused)
        """,
    )
    assert len(run(pytester)) == 2
    edit(pytester, "other.py", "return 20", "return  21")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_fills", "test_hits"}


@pytest.fixture
def decorated(pytester: pytest.Pytester) -> pytest.Pytester:
    """typeguard's shape: a decorator applied at import reads the function's code and the
    source of its whole module (``rts.code_read_marks``: told in the module's footprint)."""
    write(
        pytester,
        "deco.py",
        """
        import inspect
        import sys


        def instrument(f):
            code = getattr(f, "__code__", None)
            f.source = inspect.getsource(sys.modules[f.__module__])
            f.first_line = code.co_firstlineno
            return f
        """,
    )
    write(
        pytester,
        "shapes.py",
        """
        from deco import instrument


        @instrument
        def first():
            return "one"


        def second():
            return "two"
        """,
    )
    write(pytester, "other.py", "def helper():\n    return 1\n\n\ndef unused():\n    return 20\n")
    write(
        pytester,
        "test_decorated.py",
        """
        import other
        import shapes


        def test_source_at_import():
            assert shapes.first() == "one" and other.helper() == 1
            assert 'return "two"' in shapes.first.source


        def test_position_at_import():
            assert shapes.first.first_line == 4
        """,
    )
    assert len(run(pytester)) == 2
    return pytester


@needs_call_event
def test_a_change_in_a_module_whose_source_was_read_at_import_selects_its_reader(
    decorated: pytest.Pytester,
) -> None:
    # ``second`` never ran: only the source read at ``shapes``'s import showed it.
    edit(decorated, "shapes.py", 'return "two"', 'return "three"')
    ran, failed = ran_and_failed(decorated)
    assert "test_source_at_import" in ran
    assert "test_source_at_import" in failed


def test_a_line_added_above_a_function_whose_code_was_read_at_import_selects_its_reader(
    decorated: pytest.Pytester,
) -> None:
    edit(
        decorated,
        "shapes.py",
        "from deco import instrument",
        "import deco\ninstrument = deco.instrument",
    )
    ran, failed = ran_and_failed(decorated)
    assert "test_position_at_import" in ran
    assert "test_position_at_import" in failed


@needs_call_event
def test_a_source_read_at_a_nested_import_selects_the_reader_of_what_it_kept(
    pytester: pytest.Pytester,
) -> None:
    # ``inner``'s source is read while ``inner`` is imported by ``outer``'s import: the
    # read is ``inner``'s footprint's (the innermost module executing), the test's too.
    write(
        pytester,
        "deco.py",
        """
        import inspect
        import sys


        def instrument(f):
            f.source = inspect.getsource(sys.modules[f.__module__])
            return f
        """,
    )
    write(
        pytester,
        "inner.py",
        """
        from deco import instrument


        @instrument
        def kept():
            return 1


        def other():
            return "two"
        """,
    )
    write(pytester, "outer.py", "import inner\n\nSOURCE = inner.kept.source\n")
    write(
        pytester,
        "test_nested_read.py",
        """
        import outer


        def test_kept_source():
            assert 'return "two"' in outer.SOURCE
        """,
    )
    assert len(run(pytester)) == 1
    edit(pytester, "inner.py", 'return "two"', 'return "three"')
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_kept_source"}
