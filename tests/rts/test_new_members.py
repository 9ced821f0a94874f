"""A method added to a class whose base comes from another module is seen by the tests that
reach the class, not by every test importing its module: the class statement cannot fail
over it unless a hook runs when the class is made (a metaclass, an ``__init_subclass__``
anywhere in its bases), which the recording looks for on the class itself. Real pytest
sessions: tomlkit's ``OutOfOrderTableProxy(_CustomDict)`` gaining ``__str__`` and
``__repr__`` selected all 357 tests."""

from __future__ import annotations

import pytest

from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_BASES = {
    "Plain": "class Plain(dict):\n    pass\n",
    # Library hooks, untraced: ``EnumType`` refuses a name bound twice in the body.
    "Kinds": "from enum import Enum\n\n\nclass Kinds(Enum):\n    pass\n",
    # Project hooks (each in a module of its own: a hook that ran at a module's import
    # makes its importers read every class of the module whole, ``rts.import_footprints``).
    "Strict": """
class Strict:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "RED" in vars(cls):
            raise TypeError("no RED here")
""",
    "Checked": """
class Meta(type):
    def __new__(mcs, name, bases, namespace):
        if "RED" in namespace:
            raise TypeError("no RED here")
        return super().__new__(mcs, name, bases, namespace)


class Checked(metaclass=Meta):
    pass
""",
}


def _project(pytester: pytest.Pytester, base: str) -> pytest.Pytester:
    write(pytester, "bases.py", _BASES[base])
    write(
        pytester,
        "models.py",
        f"""
        from bases import {base}


        class Proxy({base}):
            GREEN = 1

            def value(self):
                return 1


        def other():
            return 2
        """,
    )
    write(
        pytester,
        "test_models.py",
        """
        from models import Proxy, other


        def test_other():
            assert other() == 2


        def test_value():
            assert Proxy.value(None) == 1


        def test_probe():
            assert not hasattr(Proxy, "extra")
        """,
    )
    assert run(pytester) == {"test_other", "test_value", "test_probe"}
    return pytester


def _add_methods(project: pytest.Pytester, *names: str) -> None:
    methods = "".join(f"\n    def {name}(self):\n        return 'P'\n" for name in names)
    edit(project, "models.py", "        return 1\n", "        return 1\n" + methods)


def test_a_method_added_under_a_plain_base_selects_the_tests_reaching_the_class(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, "Plain")
    _add_methods(project, "__repr__", "__str__")
    # Dunder methods' headers are the class unit's: Python looks them up implicitly.
    assert run(project) == {"test_value", "test_probe"}


def test_a_plain_method_added_under_a_plain_base_selects_the_tests_reading_its_name(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, "Plain")
    _add_methods(project, "extra")
    assert run(project) == {"test_probe"}


def _selected(project: pytest.Pytester) -> set[str]:
    """What the selection would run (the import now fails: a run collects no test)."""
    with DependencyStore(project.path) as store:
        selected = select_affected_tests(project.path, store).selected
    return {nodeid.split("::", 1)[1] for nodeid in selected}


@pytest.mark.parametrize("base", ["Kinds", "Strict", "Checked"])
def test_a_method_added_under_a_class_hook_selects_every_importer(
    pytester: pytest.Pytester, base: str
) -> None:
    project = _project(pytester, base)
    _add_methods(project, "RED" if base != "Kinds" else "GREEN")
    # The hook (the enum's namespace) refuses the new class: every import fails.
    assert _selected(project) == {"test_other", "test_value", "test_probe"}
