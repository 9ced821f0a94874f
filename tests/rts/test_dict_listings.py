"""Code that iterates a namespace's ``__dict__`` in a generator expression
(``sorted(k for k in module.__dict__)``) lists every name the namespace binds: the
``__dict__`` is the generator's argument, no callee of a lookup, so no name recorded at
run time narrows what it read. A new binding of the namespace selects its tests."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "registry.py",
        """
        LIMIT = 3


        class Fields:
            size = 1

            @classmethod
            def names(cls):
                return sorted(k for k in cls.__dict__ if not k.startswith("_"))


        def public(namespace):
            return sorted(k for k in namespace.__dict__ if not k.startswith("_"))
        """,
    )
    write(
        pytester,
        "test_registry_case.py",
        """
        import registry


        def test_public():
            assert "LIMIT" in registry.public(registry)


        def test_fields():
            assert registry.Fields.names() == ["names", "size"]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_public", "test_fields"}
    return pytester


def test_a_new_global_selects_the_listing_of_its_module(project: pytest.Pytester) -> None:
    edit(project, "registry.py", "LIMIT = 3", "LIMIT = 3\nEXTRA = 4")
    assert "test_public" in run(project)


def test_a_new_class_attribute_selects_the_listing_of_its_class(project: pytest.Pytester) -> None:
    edit(project, "registry.py", "    size = 1", "    size = 1\n    extra = 2")
    assert "test_fields" in run(project)
