"""Making a class looks names up on other classes: ``__init_subclass__`` through the MRO of
its bases, ``__new__``/``__init__``/``__prepare__`` on its metaclass (derived from the
bases' types), ``__set_name__`` on the type of each value of its body. A hook that one of
those classes gains or changes, in whatever module it lives, runs when the class's module
is imported: every importer of that module runs again. A plain method the base gains is
seen only by the tests that reach the class. Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_CHILD = """
from base import Base


class Child(Base):
    def name(self):
        return "child"


def plain():
    return 1
"""

_TESTS = """
import child


def test_plain():
    assert child.plain() == 1


def test_name():
    assert child.Child().name() == "child"
"""

_EVERY_IMPORTER = {"test_plain", "test_name"}


def _project(pytester: pytest.Pytester, files: dict[str, str]) -> None:
    """Writes ``files``, the subclass module and its tests, and records every test."""
    for path, text in {"child.py": _CHILD, "test_child.py": _TESTS, **files}.items():
        write(pytester, path, text)
    assert run(pytester, flag="--reks-all") == _EVERY_IMPORTER


def test_an_init_subclass_added_to_a_base_of_the_base_in_a_third_module_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _project(
        pytester,
        {
            "root.py": "class Root:\n    pass\n",
            "base.py": "from root import Root\n\n\nclass Base(Root):\n    pass\n",
        },
    )
    edit(
        pytester,
        "root.py",
        "    pass",
        "    def __init_subclass__(cls):\n        cls.tag = 'b'",
    )
    assert run(pytester) == _EVERY_IMPORTER


def test_an_init_subclass_changed_in_the_base_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    hook = "class Base:\n    def __init_subclass__(cls):\n        cls.tag = 'a'\n"
    _project(pytester, {"base.py": hook})
    edit(pytester, "base.py", "cls.tag = 'a'", "cls.tag = 'b'")
    assert run(pytester) == _EVERY_IMPORTER


def test_an_init_subclass_added_to_the_base_of_a_class_made_with_a_call_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # The subclass's body calls: the whole class statement is its module's unit, and that
    # unit does not change when the base gains a hook.
    _project(pytester, {"base.py": "class Base:\n    pass\n"})
    edit(pytester, "child.py", 'return "child"', 'return "child"\n\n    size = len("ab")')
    assert run(pytester) == _EVERY_IMPORTER
    edit(
        pytester,
        "base.py",
        "    pass",
        "    def __init_subclass__(cls):\n        cls.tag = 'b'",
    )
    assert run(pytester) == _EVERY_IMPORTER


def test_a_set_name_added_to_a_descriptor_class_in_another_module_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _project(
        pytester,
        {
            "fields.py": "class Field:\n    pass\n",
            "base.py": "class Base:\n    pass\n",
        },
    )
    edit(pytester, "child.py", "from base import Base", "from base import Base\nimport fields")
    edit(pytester, "child.py", 'return "child"', 'return "child"\n\n    size = fields.Field()')
    assert run(pytester) == _EVERY_IMPORTER
    edit(
        pytester,
        "fields.py",
        "    pass",
        "    def __set_name__(self, owner, name):\n        owner.named = name",
    )
    assert run(pytester) == _EVERY_IMPORTER


_META = """
class Meta(type):
    def __new__(mcs, name, bases, namespace):
        return super().__new__(mcs, name, bases, namespace)
"""


def test_a_metaclass_new_changed_selects_every_importer(pytester: pytest.Pytester) -> None:
    base = "from meta import Meta\n\n\nclass Base(metaclass=Meta):\n    pass\n"
    _project(pytester, {"meta.py": _META, "base.py": base})
    edit(pytester, "meta.py", "return super()", "namespace['tag'] = name\n        return super()")
    assert run(pytester) == _EVERY_IMPORTER


def test_an_init_added_to_the_metaclass_of_the_base_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    base = "from meta import Meta\n\n\nclass Base(metaclass=Meta):\n    pass\n"
    _project(pytester, {"meta.py": _META, "base.py": base})
    edit(
        pytester,
        "meta.py",
        "class Meta(type):",
        "class Meta(type):\n    def __init__(cls, name, bases, namespace):\n"
        "        cls.tag = name\n",
    )
    assert run(pytester) == _EVERY_IMPORTER


def test_a_plain_method_added_to_the_base_selects_only_the_tests_reaching_the_class(
    pytester: pytest.Pytester,
) -> None:
    # ``test_other`` reads the new name on another class; ``test_plain`` never reaches
    # ``Child``: neither can see the method. (A test importing ``child`` reads ``Base`` there,
    # which a base rebound to no class would make fail: ``test_annotation_aliases``.)
    write(pytester, "other.py", "class Other:\n    def loud(self):\n        return 'LOUD'\n")
    _project(pytester, {"base.py": "class Base:\n    def greet(self):\n        return 'hi'\n"})
    write(
        pytester,
        "test_lookup.py",
        """
        import child


        def test_lookup():
            assert getattr(child.Child(), "loud", None) is None
        """,
    )
    write(
        pytester,
        "test_other.py",
        """
        import other


        def test_other():
            assert other.Other().loud() == "LOUD"
        """,
    )
    assert run(pytester, flag="--reks-all") == {*_EVERY_IMPORTER, "test_lookup", "test_other"}
    edit(
        pytester,
        "base.py",
        "return 'hi'",
        "return 'hi'\n\n    def loud(self):\n        return 'loud'",
    )
    assert run(pytester) == {"test_lookup"}


def test_a_set_name_added_to_the_class_of_a_value_taken_from_another_module_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # The subclass body only reads a name: no call of the descriptor class at import.
    fields = "class Field:\n    pass\n\n\nFIELD = Field()\n"
    _project(pytester, {"fields.py": fields, "base.py": "class Base:\n    pass\n"})
    edit(
        pytester,
        "child.py",
        "from base import Base",
        "from base import Base\nfrom fields import FIELD",
    )
    edit(pytester, "child.py", 'return "child"', 'return "child"\n\n    size = FIELD')
    assert run(pytester) == _EVERY_IMPORTER
    edit(
        pytester,
        "fields.py",
        "    pass",
        "    def __set_name__(self, owner, name):\n        owner.named = name",
    )
    assert run(pytester) == _EVERY_IMPORTER


_NAMED_BASE = """
class Base:
    __module__ = "pkg"

    def greet(self):
        return "hi"
"""


def test_an_init_subclass_added_to_a_base_naming_its_package_as_module_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # The base says its package is its module (``__module__``, as a package re-exporting
    # it may set): its class statement is still in the private module.
    _project(
        pytester,
        {
            "pkg/__init__.py": "from pkg._base import Base\n",
            "pkg/_base.py": _NAMED_BASE,
            "base.py": "from pkg import Base\n",
        },
    )
    edit(
        pytester,
        "pkg/_base.py",
        "class Base:",
        "class Base:\n    def __init_subclass__(cls):\n        cls.tag = 'b'\n",
    )
    assert run(pytester) == _EVERY_IMPORTER
