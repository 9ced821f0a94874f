"""What a lookup by string finds over a test's modules is one union per set of modules, and
the class statements of the methods a test ran are followed once each
(``rts.string_lookup_units``, ``BindingReads._add_ran``): the same units as before, found
with less work. These pin what each shape selects across two modules of one package:
a lookup by any name finds every binding of both modules, one on ``self`` only the
classes' attributes, and a method that ran reads what its class statement read."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from pkg import kinds, other\n")
    write(
        pytester,
        "pkg/kinds.py",
        """
        BASE = object
        LIMIT = 3


        class Kind(BASE):
            short = "s"

            def pick(self, name):
                return getattr(self, name, None)

            def size(self):
                return 1


        def by_name(module, name):
            return getattr(module, name.upper())
        """,
    )
    write(
        pytester,
        "pkg/other.py",
        """
        VERSION = "1.0"


        class Other:
            colour = "red"
        """,
    )
    write(
        pytester,
        "test_kinds.py",
        """
        from pkg import kinds, other


        def test_by_name_here():
            assert kinds.by_name(kinds, "limit") == 3


        def test_by_name_there():
            assert kinds.by_name(other, "version") == "1.0"


        def test_pick():
            assert kinds.Kind().pick("short") == "s"


        def test_size():
            assert kinds.Kind().size() == 1


        def test_limit():
            assert kinds.LIMIT == 3
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 5
    return pytester


BY_NAME = {"test_by_name_here", "test_by_name_there"}


def test_a_binding_of_another_module_selects_every_lookup_by_any_name(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/other.py", '"1.0"', '"1.1"')
    # Both looked names up by string over both modules of the package: either may find it.
    assert run(project) == BY_NAME


def test_a_class_attribute_selects_the_lookups_that_may_find_it_only(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/other.py", 'colour = "red"', 'colour = "blue"')
    assert run(project) == BY_NAME  # ``test_pick`` looked up on a ``Kind``


def test_what_a_class_statement_read_selects_the_tests_that_ran_its_methods(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/kinds.py", "BASE = object", 'BASE = type("Base", (), {})')
    # A class's bases are an import risk: ``test_limit`` imported the module.
    assert run(project) == {*BY_NAME, "test_pick", "test_size", "test_limit"}


def test_a_module_global_is_not_found_by_a_lookup_on_self(project: pytest.Pytester) -> None:
    edit(project, "pkg/kinds.py", "LIMIT = 3", "LIMIT = 3  # the same value")
    assert run(project) == set()
    edit(project, "pkg/kinds.py", "LIMIT = 3", "LIMIT = 4")
    assert run(project) == {*BY_NAME, "test_limit"}
