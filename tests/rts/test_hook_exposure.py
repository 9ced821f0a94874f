"""Where a class hook ran at import (``__init_subclass__`` filling a registry), the files
whose code may have handed it a class are read whole, the others not: a package
``__init__`` that only imports the module with the hook and binds a constant hands it
nothing (a new constant selects no test, as jmespath's new version string did every
test), while a module that makes a class by calling ``type`` does (a change to the
namespace it hands over selects every importer, those reaching the class only through
the registry too). On real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from pkg import plugins\n\nVERSION = '1'\n")
    write(
        pytester,
        "pkg/base.py",
        """
        class Plugin:
            registry = []

            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                Plugin.registry.append(cls)
        """,
    )
    write(
        pytester,
        "pkg/plugins.py",
        """
        from pkg.base import Plugin


        def run_a(self):
            return "a"


        NAMESPACE = {"run": run_a}
        A = type("A", (Plugin,), NAMESPACE)
        """,
    )
    write(
        pytester,
        "test_plugins.py",
        """
        import pkg
        from pkg.base import Plugin


        def test_registry():
            assert [hasattr(p, "extra") for p in Plugin.registry] == [False]


        def test_version():
            assert pkg.VERSION
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_registry", "test_version"}
    return pytester


def test_a_package_init_that_hands_a_hook_no_class_is_not_read_whole(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/__init__.py", "VERSION = '1'", "VERSION = '1'\nRELEASE = 2")
    assert run(project) == set()


def test_the_namespace_a_module_hands_a_hook_by_calling_type_is_read(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/plugins.py", '{"run": run_a}', '{"run": run_a, "extra": 1}')
    assert run(project) == {"test_registry", "test_version"}  # every importer reads it whole
