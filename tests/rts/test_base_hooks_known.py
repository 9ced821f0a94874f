"""A class whose base comes from another project module runs no hook at its definition when
that base (and its own bases) define no ``__init_subclass__``, no metaclass but ``type``'s
and the subclass body holds no ``__set_name__`` descriptor: a change to an unrelated method
of the base then selects only the tests that call that method, not every importer of the
subclass's module. A hook added to the base (``__init_subclass__``, a metaclass) can make
the subclass statement fail at import: every importer of the subclass module runs again."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

BASE = """
class Base:
    def greet(self):
        return "hi"

    def shout(self):
        return "HI"
"""

SUBCLASS = """
from base import Base


class Child(Base):
    def name(self):
        return "child"


def plain():
    return 1
"""

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "base.py", BASE)
    write(pytester, "child.py", SUBCLASS)
    write(
        pytester,
        "test_child.py",
        """
        import child


        def test_plain():
            assert child.plain() == 1


        def test_name():
            assert child.Child().name() == "child"


        def test_shout():
            assert child.Child().shout() == "HI"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_plain", "test_name", "test_shout"}
    return pytester


def test_an_unrelated_base_method_changed_selects_its_callers_only(
    project: pytest.Pytester,
) -> None:
    edit(project, "base.py", 'return "HI"', 'return "HI!"')
    assert run(project) == {"test_shout"}


def test_a_base_method_unused_by_any_test_changed_selects_none(
    project: pytest.Pytester,
) -> None:
    edit(project, "base.py", 'return "hi"', 'return "hello"')
    assert run(project) == set()


def test_an_init_subclass_added_to_the_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "base.py",
        "class Base:",
        "class Base:\n    def __init_subclass__(cls):\n        cls.size = len(vars(cls))\n",
    )
    assert run(project) == {"test_plain", "test_name", "test_shout"}


def test_a_metaclass_given_to_the_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "base.py",
        "class Base:",
        "class Meta(type):\n    pass\n\n\nclass Base(metaclass=Meta):",
    )
    assert run(project) == {"test_plain", "test_name", "test_shout"}


def test_an_init_subclass_added_to_the_base_of_the_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "base.py",
        "class Base:",
        "class Root:\n    def __init_subclass__(cls):\n        cls.size = len(vars(cls))\n"
        "\n\nclass Base(Root):",
    )
    assert run(project) == {"test_plain", "test_name", "test_shout"}


def test_a_plain_subclass_beside_a_hooked_class_keeps_its_method_bodies_apart(
    pytester: pytest.Pytester,
) -> None:
    # A hook ran at the module's import (``Entry``'s base registers it) and the module code
    # calls: the module is read whole (its attributes may be what the hook read). ``Child``
    # was made by ``type`` alone, so the body of one of its methods is seen only by the
    # tests that ran it, not by every importer through the digest of what subclassing runs.
    write(pytester, "base.py", BASE)
    write(
        pytester,
        "registry.py",
        """
        class Registered:
            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                cls.registered = True
        """,
    )
    write(
        pytester,
        "child.py",
        SUBCLASS
        + """

class Entry(registry.Registered):
    pass


NAMES = sorted(["b", "a"])
""",
    )
    edit(pytester, "child.py", "from base import Base", "import registry\nfrom base import Base")
    write(
        pytester,
        "test_child.py",
        """
        import child


        def test_plain():
            assert child.plain() == 1


        def test_name():
            assert child.Child().name() == "child"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_plain", "test_name"}
    edit(pytester, "child.py", 'return "child"', 'return "kid"')
    assert run(pytester) == {"test_name"}
    edit(pytester, "registry.py", "cls.registered = True", "cls.registered = False")
    assert run(pytester) == {"test_plain", "test_name"}
