"""The names a test reads as globals are recorded per module: a global lookup in one
module never finds a binding of another, so a name newly bound in module ``a`` selects
the tests whose code read it as a global of ``a`` (or as an attribute anywhere, or in a
module that star-imports ``a``), not those that read a global of that name elsewhere."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "origin.py", "def value():\n    return 1\n")
    write(
        pytester,
        "first.py",
        "from origin import value\n\nLIMIT = 3\n\n\ndef size(items):\n    return len(items)\n",
    )
    write(
        pytester,
        "second.py",
        """
        import first
        from first import value

        _none = object()


        def relay():
            return value()


        def missing(value=_none):
            return value is _none


        def count(items):
            return len(items)


        def extra():
            try:
                return first.extra
            except AttributeError:
                return 0
        """,
    )
    write(
        pytester, "third.py", "from first import *\n\n\ndef total(items):\n    return len(items)\n"
    )
    write(
        pytester,
        "test_mods.py",
        """
        import first
        import second
        import third


        def test_size():
            assert first.size([1]) == 1


        def test_missing():
            assert second.missing()


        def test_count():
            assert second.count([1, 2]) == 2


        def test_extra():
            assert second.extra() == 0


        def test_total():
            assert third.total([1]) == 1


        def test_relay():
            assert second.relay() == 1
        """,
    )
    assert len(run(pytester)) == 6
    return pytester


def test_a_name_bound_in_one_module_leaves_global_reads_of_another(
    project: pytest.Pytester,
) -> None:
    # second.py reads its own `_none`; first.py gaining one changes nothing there.
    edit(project, "first.py", "LIMIT = 3", "LIMIT = 3\n_none = None")
    assert run(project) == set()
    # `len` in first.py shadows the builtin for first.py's code and for third.py, which
    # star-imports first; second.py still calls the builtin.
    edit(project, "first.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef len(items):\n    return 1")
    assert run(project) == {"test_size", "test_total"}


def test_attribute_reads_and_imported_names_see_bindings_of_other_modules(
    project: pytest.Pytester,
) -> None:
    edit(project, "first.py", "LIMIT = 3", "LIMIT = 3\nextra = 0")
    assert run(project) == {"test_extra"}
    # second.py's `value` is first.py's: a new one there (shadowing the import) is seen.
    edit(project, "first.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef value():\n    return 1")
    assert run(project) == {"test_relay"}


def test_a_type_checking_block_is_seen_by_no_reader_of_its_names(
    pytester: pytest.Pytester,
) -> None:
    # Its body never runs (TYPE_CHECKING is false): no binding it spells exists at run
    # time, so a test evaluating annotations naming them (get_type_hints) cannot tell it
    # changed; who reloads the module as a type checker or reads the source can
    # (tests/rts/test_type_checking_bindings.py).
    write(
        pytester,
        "typed.py",
        """
        from typing import TYPE_CHECKING, TypeVar

        if TYPE_CHECKING:
            from collections.abc import Sequence

            T = TypeVar("T", bound=Sequence)


        def double(x):
            return x * 2


        def first(items: "Sequence"):
            return items[0]
        """,
    )
    write(
        pytester,
        "test_typed.py",
        """
        import typing

        import typed


        def test_double():
            assert typed.double(2) == 4


        def test_hints():
            assert typing.get_type_hints(typed.first, {"Sequence": list}) == {"items": list}
        """,
    )
    assert run(pytester) == {"test_double", "test_hints"}
    edit(pytester, "typed.py", "bound=Sequence)", 'bound="Sequence[int]")')
    assert run(pytester) == set()


def test_a_type_checking_block_with_an_else_is_seen_by_the_readers_of_its_names(
    pytester: pytest.Pytester,
) -> None:
    # itsdangerous's serializer.py: a TypeVar for the type checker, a plainer one at run
    # time. Only the else branch runs, and it only binds the name: a test that never
    # reads `_T` (nor what reads it) does not depend on the block.
    write(
        pytester,
        "typed.py",
        """
        import typing as t

        if t.TYPE_CHECKING:
            import typing_extensions as te

            _T = te.TypeVar("_T", bound=str | bytes, default=str | bytes)
        else:
            _T = t.TypeVar("_T", bound=t.Union[str, bytes])


        class Box(t.Generic[_T]):
            def __init__(self, value):
                self.value = value


        def double(x):
            return x * 2
        """,
    )
    write(
        pytester,
        "test_typed.py",
        """
        import typed


        def test_double():
            assert typed.double(2) == 4


        def test_box():
            assert typed.Box(1).value == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_double", "test_box"}
    edit(pytester, "typed.py", "bound=t.Union[str, bytes])", "bound=str | bytes)")
    assert run(pytester) == {"test_box"}
    # An else branch doing more than binding (a call with effects) stays in the residue.
    edit(pytester, "typed.py", "bound=str | bytes)", "bound=str | bytes)\n    print()")
    assert run(pytester) == {"test_double", "test_box"}


def test_a_module_filling_its_namespace_reads_every_modules_bindings(
    pytester: pytest.Pytester,
) -> None:
    # `locals()` at the top of a module is its namespace: it takes names from `source`.
    write(pytester, "source.py", "LIMIT = 3\n")
    write(
        pytester,
        "filled.py",
        """
        import source

        locals().update({n: getattr(source, n) for n in dir(source) if n[0] != "_"})


        def count(items):
            return len(items)
        """,
    )
    write(
        pytester,
        "test_filled.py",
        "import filled\n\n\ndef test_count():\n    assert filled.count([1]) == 1\n",
    )
    assert run(pytester) == {"test_count"}
    edit(pytester, "source.py", "LIMIT = 3", "LIMIT = 3\nlen = LIMIT")
    assert run(pytester) == {"test_count"}


def test_a_library_import_is_the_module_own_global(pytester: pytest.Pytester) -> None:
    """``t`` read in ``sign`` can only be ``sign``'s own ``import typing as t``: dropping the
    package ``__init__``'s ``t`` (itsdangerous 31f46a3 reran all 297 tests for it) selects
    nothing; a ``from`` import of a project module's binding is still read anywhere."""
    write(pytester, "pkg/__init__.py", "import typing as t\n\nfrom .sign import sign\n")
    write(
        pytester,
        "pkg/sign.py",
        "import typing as t\n\nfrom .keys import KEY\n\n\n"
        "def sign(x):\n    return t.cast(str, x) + KEY\n",
    )
    write(pytester, "pkg/keys.py", 'KEY = "k"\n')
    write(
        pytester,
        "test_sign.py",
        "from pkg import sign\n\n\ndef test_sign():\n    assert sign('a') == 'ak'\n",
    )
    write(pytester, "test_other.py", "import pkg\n\n\ndef test_other():\n    assert pkg\n")
    assert run(pytester, flag="--reks-all") == {"test_sign", "test_other"}
    edit(pytester, "pkg/__init__.py", "import typing as t\n", "")
    assert run(pytester) == set()
    edit(pytester, "pkg/keys.py", '"k"', '"j"')
    edit(pytester, "test_sign.py", "'ak'", "'aj'")
    assert run(pytester) == {"test_sign"}
