"""``inspect.getmembers(cls)`` at import (jmespath's function registry: a metaclass collects
the ``_func_`` methods of its class) lists the class's attributes, its bases' included:
what it can find are class attributes, never a module's globals. A test that ran it
depends on the class attributes of its modules (as a ``getattr(self, name)`` does), not on
every binding: a changed module constant, a renamed module function select only their
readers, on real pytest sessions; a new, removed or redecorated method selects every
importer (the registry may differ), and ``getmembers`` of a module stays a lookup of any
name."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the CALL event (3.12+) hands over the object"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from pkg import visitor\n\n__version__ = '1.0.0'\n")
    write(
        pytester,
        "pkg/compat.py",
        """
        import inspect


        def get_methods(cls):
            for name, method in inspect.getmembers(cls, predicate=inspect.isfunction):
                yield name, method
        """,
    )
    write(
        pytester,
        "pkg/functions.py",
        """
        from pkg.compat import get_methods


        def signature(*arguments):
            def record(func):
                func.signature = arguments
                return func
            return record


        class Registry(type):
            def __init__(cls, name, bases, attrs):
                table = {}
                for name, method in get_methods(cls):
                    if name.startswith("_func_") and hasattr(method, "signature"):
                        table[name[6:]] = method
                cls.TABLE = table
                super().__init__(name, bases, attrs)


        class Functions(metaclass=Registry):
            @signature("number")
            def _func_abs(self, arg):
                return abs(arg)

            def call(self, name, arg):
                return self.TABLE[name](self, arg)
        """,
    )
    write(
        pytester,
        "pkg/visitor.py",
        """
        from pkg import functions


        class Visitor:
            @property
            def functions(self):
                return functions.Functions()


        def helper():
            return 1


        def is_number(x):
            return isinstance(x, int)
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        from pkg import visitor


        def test_call():
            assert visitor.Visitor().functions.call("abs", -2) == 2


        def test_helper():
            assert visitor.helper() == 1


        def test_number():
            assert visitor.is_number(3)
        """,
    )
    assert run(pytester, flag="--reks-all") == EVERY
    return pytester


EVERY = {"test_call", "test_helper", "test_number"}

EDITS = {
    # What getmembers cannot list: a module's globals.
    "version": ("pkg/__init__.py", "'1.0.0'", "'1.0.1'", set()),
    "renamed_function": (
        "pkg/visitor.py",
        "def is_number(x):\n    return isinstance(x, int)",
        "def _is_number(x):\n    return isinstance(x, int)\n\n\nis_number = _is_number",
        {"test_number"},
    ),
    "new_global": ("pkg/visitor.py", "def helper():", "LIMIT = 3\n\n\ndef helper():", set()),
    # What it lists: the registry may differ for every importer.
    "new_method": (
        "pkg/functions.py",
        "    def call(self",
        "    @signature('string')\n    def _func_len(self, arg):\n        return len(arg)\n\n"
        "    def call(self",
        EVERY,
    ),
    "redecorated": ("pkg/functions.py", '@signature("number")', "@signature()", EVERY),
    "undecorated": ("pkg/functions.py", '    @signature("number")\n', "", EVERY),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_getmembers_of_a_class_at_import_reads_its_attributes_only(
    project: pytest.Pytester, case: str
) -> None:
    path, old, new, expected = EDITS[case]
    edit(project, path, old, new)
    assert run(project) == expected


def test_a_new_method_of_a_base_class_selects_the_importers(project: pytest.Pytester) -> None:
    edit(project, "pkg/functions.py", "class Functions(metaclass=Registry):", BASE)
    assert run(project, flag="--reks-all") == EVERY
    edit(project, "pkg/functions.py", "    def extra(self):", NEW_BASE_METHOD)
    assert run(project) == EVERY


BASE = (
    "class Base:\n    def extra(self):\n        return 0\n\n\n"
    "class Functions(Base, metaclass=Registry):"
)
NEW_BASE_METHOD = (
    "    @signature('x')\n    def _func_extra(self, arg):\n        return 0\n\n    def extra(self):"
)


def test_getmembers_of_a_module_reads_any_name(pytester: pytest.Pytester) -> None:
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/registry.py",
        """
        import inspect


        def collect(module):
            return sorted(name for name, _ in inspect.getmembers(module, callable))
        """,
    )
    write(pytester, "pkg/plugins.py", "LIMIT = 3\n\n\ndef plugin_a():\n    return 1\n")
    write(
        pytester,
        "test_plugins.py",
        """
        from pkg import plugins, registry


        def test_count():
            assert len(registry.collect(plugins)) == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_count"}
    edit(pytester, "pkg/plugins.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef plugin_b():\n    return 2")
    assert run(pytester) == {"test_count"}


def test_getmembers_imported_by_name_reads_class_attributes_only(
    project: pytest.Pytester,
) -> None:
    write(
        project,
        "pkg/compat.py",
        """
        from inspect import getmembers, isfunction


        def get_methods(cls):
            return getmembers(cls, isfunction)
        """,
    )
    assert run(project, flag="--reks-all") == EVERY
    edit(project, "pkg/__init__.py", "'1.0.0'", "'1.0.1'")
    assert run(project) == set()
    edit(project, "pkg/functions.py", "    def call(self", NEW_METHOD + "    def call(self")
    assert run(project) == EVERY


NEW_METHOD = "    @signature('x')\n    def _func_len(self, arg):\n        return len(arg)\n\n"
