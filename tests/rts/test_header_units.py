"""A ``def`` has three units: its header (decorators, signature, defaults), its body (the
code) and its docstring. Module code that only refers to a function object (a re-export, a
wrapper made at import) makes its importers depend on the header; running the function
makes a test depend on the body; reading docstrings (``__doc__``) on the docstrings. Reading
a function's code (``inspect.getsource``, a library that formats it at import) keeps body
and docstring, on real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "core.py",
        '''
        def inc(x, step=1):
            """Add step to x."""
            return x + step


        def dec(x):
            """Subtract one."""
            return x - 1
        ''',
    )
    # A curried-like namespace: every function object is wrapped at import, and the
    # wrapper copies the docstring and looks attributes up by constant names.
    write(
        pytester,
        "wrapping.py",
        """
        class Wrap:
            def __init__(self, func):
                if hasattr(func, "func"):
                    func = func.func
                self.func = func
                self.__doc__ = getattr(func, "__doc__", None)

            def __call__(self, *args):
                return self.func(*args)
        """,
    )
    write(
        pytester,
        "facade.py",
        """
        import core
        from wrapping import Wrap

        inc = Wrap(core.inc)
        dec = Wrap(core.dec)
        """,
    )
    # A library that formats the docstring at import: what it made shows it.
    write(
        pytester, "helptext.py", "import core\nimport pydoc\n\nDEC = pydoc.render_doc(core.dec)\n"
    )
    write(
        pytester,
        "test_help.py",
        "import helptext\n\n\ndef test_dec_help():\n    assert 'Subtract' in helptext.DEC\n",
    )
    write(
        pytester,
        "test_facade.py",
        """
        import inspect

        import core
        import facade


        def test_inc():
            assert facade.inc(1) == 2


        def test_dec():
            assert facade.dec(1) == 0


        def test_inc_doc():
            assert "Add" in facade.inc.__doc__


        def test_dec_source():
            assert "x - 1" in inspect.getsource(core.dec)


        def test_nothing():
            assert facade.Wrap is not None
        """,
    )
    assert len(run(pytester)) == 6
    return pytester


def test_a_docstring_edit_selects_the_tests_that_read_it_not_those_that_ran_the_body(
    project: pytest.Pytester,
) -> None:
    edit(project, "core.py", "Add step to x.", "Add step to x, an int.")
    # test_dec_source read some source: every body and docstring it may have read counts.
    # test_inc ran inc, whose code never reads its docstring.
    assert run(project) == {"test_inc_doc", "test_dec_source"}


def test_a_body_edit_selects_the_tests_that_ran_it_not_the_docstring_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "core.py", "return x + step", "return step + x")
    assert run(project) == {"test_inc", "test_dec_source"}


def test_source_and_docs_read_at_import_or_by_name_see_the_docstring(
    project: pytest.Pytester,
) -> None:
    edit(project, "core.py", "Subtract one.", "Subtract 1.")
    assert run(project) == {"test_dec_source", "test_inc_doc", "test_dec_help"}
    edit(project, "core.py", "return x - 1", "return x - 2 + 1")
    # pydoc was handed dec at import: what it made may show the code too.
    assert run(project) == {"test_dec", "test_dec_source", "test_dec_help"}


def test_a_docstring_added_or_doctest_edited_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "core.py",
        '''
        def inc(x):
            return x + 1


        def dec(x):
            """
            >>> dec(2)
            1
            """
            return x - 1
        ''',
    )
    write(
        pytester,
        "test_core.py",
        """
        import core


        def test_inc():
            assert core.inc(1) == 2


        def test_inc_doc():
            assert core.inc.__doc__ != "Two more."
        """,
    )
    write(pytester, "pytest.ini", "[pytest]\naddopts = --doctest-modules\n")
    assert run(pytester) == {"test_inc", "test_inc_doc", "core.dec"}
    edit(pytester, "core.py", "    return x + 1", '    """One more."""\n    return x + 1')
    assert run(pytester) == {"test_inc_doc"}
    edit(pytester, "core.py", "dec(2)\n    1\n", "dec(3)\n    2\n")
    assert run(pytester) == {"core.dec"}


def test_a_header_edit_selects_every_test_that_refers_to_the_function(
    project: pytest.Pytester,
) -> None:
    edit(project, "core.py", "step=1", "step=1, unused=None")
    # Not test_dec_help: its module reads dec alone.
    expected = {"test_inc", "test_inc_doc", "test_dec", "test_dec_source", "test_nothing"}
    assert run(project) == expected


def test_lookups_by_string_at_import_see_headers_not_bodies(pytester: pytest.Pytester) -> None:
    write(pytester, "core.py", "def inc(x):\n    return x + 1\n\n\ndef dec(x):\n    return x - 1\n")
    write(
        pytester,
        "registry.py",
        '''
        import core


        def build():
            return {name: getattr(core, name) for name in ("inc", "dec")}


        TABLE = build()


        class Noted:
            """A class body stores its docstring: no read of anybody's."""

            print("defined")
        ''',
    )
    write(
        pytester,
        "test_registry.py",
        """
        import registry


        def test_inc():
            assert registry.TABLE["inc"](1) == 2


        def test_keys():
            assert sorted(registry.TABLE) == ["dec", "inc"]
        """,
    )
    assert run(pytester) == {"test_inc", "test_keys"}
    edit(pytester, "core.py", "return x - 1", "return x - 2")
    assert run(pytester) == set()
    edit(pytester, "core.py", "return x + 1", "return x + 2")
    assert run(pytester) == {"test_inc"}
    # Found by string: any header may be the one found.
    edit(pytester, "core.py", "def dec(x)", "def dec(x, y=0)")
    assert run(pytester) == {"test_inc", "test_keys"}


def test_a_docstring_set_at_import_is_no_read_of_bodies(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "core.py",
        "def inc(x):\n    return x + 1\n\n\ndef dec(x):\n    return x - 1\n\n\n"
        'dec.__doc__ = "Subtract one."\ninc.__doc__ = dec.__doc__\n',
    )
    write(
        pytester,
        "test_core.py",
        "import core\n\n\ndef test_inc():\n    assert core.inc(1) == 2\n\n\n"
        "def test_dec():\n    assert core.dec(1) == 0\n",
    )
    assert run(pytester) == {"test_inc", "test_dec"}
    edit(pytester, "core.py", "return x - 1", "return x - 2 + 1")
    assert run(pytester) == {"test_dec"}


def test_a_lookup_by_string_sees_no_docstring_it_did_not_read(pytester: pytest.Pytester) -> None:
    write(pytester, "core.py", 'def inc(x):\n    """Add one."""\n    return x + 1\n')
    write(
        pytester,
        "test_find.py",
        "import core\n\n\ndef find(name):\n    return getattr(core, name)\n\n\n"
        "def test_inc():\n    assert find('i' + 'nc')(1) == 2\n",
    )
    assert run(pytester) == {"test_inc"}
    edit(pytester, "core.py", "Add one.", "Add 1.")
    assert run(pytester) == set()
    edit(pytester, "core.py", "return x + 1", "return 1 + x")
    assert run(pytester) == {"test_inc"}
