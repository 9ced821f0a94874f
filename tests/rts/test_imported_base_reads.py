"""A class whose base comes from another project module, seen by the tests that only import
its module (tenacity's ``tornadoweb.TornadoRetrying(BaseRetrying)``, imported by the package
``__init__`` that every test imports). ``TornadoRetrying``'s frame may raise (a class-level
annotation ``typing.Callable[...]``, a default ``gen.sleep`` of a name a ``from`` import
binds), and ``raising_units.add_raising_units`` puts every name the frame reads that the
module unit binds into ``FileUnits.residue_refs``, the base's name with them: every test
importing the subclass's module depends on the base's class unit, dunders' headers included,
though creating the subclass runs only what the base's frame and hooks hold (its metaclass,
``__init_subclass__``, bases, ``__slots__``). A parameter added to ``BaseRetrying.__init__``
(tenacity 39eb157, cb320c4) thus selected every test of the suite, ``tests/test_utils.py``
included (pytest-testmon: not those).

Now the base, read by the subclass's statement only as a bare base, reaches its
``Base.<subclass>`` unit (``rts.subclassing``): its header and what ``type`` and its hooks
look at, not its plain methods. A second route in tenacity: ``@gen.coroutine`` on
``TornadoRetrying.__call__`` (a decorator of a library, trusted by no name) keeps the whole
class in the module unit; ``types.coroutine`` stands for it here. The same for a class a
member's annotation names only as a type (tenacity 124e3a6: ``AsyncRetrying.__iter__ ->
t.Generator[AttemptManager, None, None]``). Guards: a hook, a metaclass, ``__slots__`` given
to the base, a hook given to the base's own base, a class named in an annotation made no
class select every importer; so do the shapes outside the rule (a class decorator of the
subclass, a library ``__init_subclass__`` of the base, an annotation reading a member)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

BASE = """
from abc import ABC


class Base(ABC):
    def __init__(self, wait=0):
        self.wait = wait
"""

SUB = """
import typing

from clock import gen

from base import Base


class Sub(Base):
    sleep: typing.Callable[..., int]

    def __init__(self, sleep=gen.sleep, **kwargs):
        super().__init__(**kwargs)
        self.sleep = sleep

    def run(self):
        return self.wait


def helper():
    return 1
"""

TESTS = """
def test_helper():
    import sub

    assert sub.helper() == 1


def test_base():
    import base

    assert base.Base(wait=2).wait == 2
"""

ALL = {"test_helper", "test_base"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "base.py", BASE)
    write(pytester, "clock/__init__.py", "")
    write(pytester, "clock/gen.py", "def sleep(seconds):\n    return seconds\n")
    write(pytester, "sub.py", SUB)
    write(pytester, "test_it.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


def test_a_parameter_added_to_an_imported_base_selects_its_users(
    project: pytest.Pytester,
) -> None:
    edit(project, "base.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    assert ran_and_failed(project) == ({"test_base"}, set())


def test_a_parameter_added_to_a_base_of_a_class_with_a_library_decorator_selects_its_users(
    project: pytest.Pytester,
) -> None:
    edit(project, "sub.py", "import typing\n", "import types\nimport typing\n")
    edit(project, "sub.py", "    def run(self):", "    @types.coroutine\n    def run(self):")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "base.py", "(self, wait=0):", "(self, wait=0, scale=1):")
    assert ran_and_failed(project) == ({"test_base"}, set())


def test_a_hook_added_to_an_imported_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    hook = "    def __init_subclass__(cls):\n        raise TypeError(cls)\n\n"
    edit(project, "base.py", "    def __init__", hook + "    def __init__")
    assert ran_and_failed(project) == (ALL, {"test_helper"})


def test_a_metaclass_given_to_an_imported_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    strict = (
        "class Strict(ABCMeta):\n"
        "    def __init__(cls, name, bases, namespace):\n"
        "        if name != 'Base':\n"
        "            raise TypeError(name)\n"
        "        super().__init__(name, bases, namespace)\n\n\n"
    )
    edit(project, "base.py", "from abc import ABC\n", "from abc import ABC, ABCMeta\n" + strict)
    edit(project, "base.py", "class Base(ABC):", "class Base(ABC, metaclass=Strict):")
    assert ran_and_failed(project) == (ALL, {"test_helper"})


def test_slots_given_to_an_imported_base_select_every_importer(project: pytest.Pytester) -> None:
    mixin = "class Mixin:\n    __slots__ = ('other',)\n\n\n"
    edit(project, "sub.py", "class Sub(Base):", mixin + "class Sub(Base, Mixin):")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "base.py", "    def __init__", "    __slots__ = ('wait',)\n\n    def __init__")
    assert ran_and_failed(project) == (ALL, {"test_helper"})


def test_a_hook_given_to_a_base_of_an_imported_base_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    write(project, "root.py", "class Root:\n    pass\n")
    imports = "from abc import ABC\n\nfrom root import Root\n"
    edit(project, "base.py", "from abc import ABC\n", imports)
    edit(project, "base.py", "class Base(ABC):", "class Base(Root, ABC):")
    assert ran_and_failed(project) == (ALL, set())
    hook = "    def __init_subclass__(cls):\n        raise TypeError(cls)\n"
    edit(project, "root.py", "    pass\n", hook)
    assert ran_and_failed(project) == (ALL, {"test_helper", "test_base"})


def test_a_method_a_class_decorator_of_the_subclass_needs_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    """Outside the rule: a decorator of the subclass sees every member it inherits (the
    class kept in the module unit by a library decorator of a method, as tenacity's)."""
    less = "    def __lt__(self, other):\n        return self.wait < other.wait\n\n"
    edit(project, "base.py", "    def __init__", less + "    def __init__")
    edit(project, "sub.py", "import typing\n", "import functools\nimport types\nimport typing\n")
    edit(project, "sub.py", "class Sub(Base):", "@functools.total_ordering\nclass Sub(Base):")
    edit(project, "sub.py", "    def run(self):", "    @types.coroutine\n    def run(self):")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "base.py", less, "")
    assert ran_and_failed(project) == (ALL, {"test_helper"})


def test_a_method_a_library_hook_of_the_base_needs_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    """Outside the rule: a library's ``__init_subclass__`` (not traced) may read any member
    the subclass inherits; the recording found the subclass made with a hook."""
    site = project.path.parent / f"{project.path.name}_site"
    site.mkdir()
    (site / "checking.py").write_text(
        "class Checked:\n"
        "    def __init_subclass__(cls, **kwargs):\n"
        "        super().__init_subclass__(**kwargs)\n"
        "        if cls.__name__ != 'Base' and not hasattr(cls, 'check'):\n"
        "            raise TypeError(cls.__name__)\n"
    )
    project.syspathinsert(site)
    check = "    def check(self):\n        return True\n\n"
    imports = "from abc import ABC\n\nfrom checking import Checked\n"
    edit(project, "base.py", "from abc import ABC\n", imports)
    edit(project, "base.py", "class Base(ABC):", "class Base(Checked, ABC):")
    edit(project, "base.py", "    def __init__", check + "    def __init__")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "base.py", check, "")
    assert ran_and_failed(project) == (ALL, {"test_helper"})


MANAGER = """
class Manager:
    def __init__(self, state):
        self.state = state

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None
"""


@pytest.fixture
def annotated(project: pytest.Pytester) -> pytest.Pytester:
    """``Sub``'s frame may raise; a dunder's annotation evaluated there names a class of
    another module as a type (tenacity's ``AsyncRetrying.__iter__`` returns
    ``t.Generator[AttemptManager, None, None]``)."""
    write(project, "manager.py", MANAGER)
    edit(
        project,
        "sub.py",
        "from base import Base\n",
        "from base import Base\nfrom manager import Manager\n",
    )
    it = "    def __iter__(self) -> typing.Iterator[Manager | None]:\n        yield Manager(1)\n\n"
    edit(project, "sub.py", "    def run(self):", it + "    def run(self):")
    tests = "\n\ndef test_manager():\n    import manager\n\n    with manager.Manager(1) as m:\n"
    edit(
        project,
        "test_it.py",
        "\n\ndef test_base():",
        tests + "        assert m.state == 1\n\n\ndef test_base():",
    )
    assert ran_and_failed(project) == (ALL | {"test_manager"}, set())
    return project


def test_a_dunder_added_to_a_class_an_annotation_names_selects_its_users(
    annotated: pytest.Pytester,
) -> None:
    """tenacity 124e3a6 gave ``AttemptManager`` ``__aenter__`` and ``__aexit__``."""
    enter = "    async def __aenter__(self):\n        return self\n\n"
    edit(annotated, "manager.py", "    def __enter__", enter + "    def __enter__")
    assert ran_and_failed(annotated) == ({"test_manager"}, set())


def test_a_class_an_annotation_names_made_no_class_selects_every_importer(
    annotated: pytest.Pytester,
) -> None:
    gone = "def gone(cls):\n    return 3\n\n\n@gone\nclass Manager:"
    edit(annotated, "manager.py", "class Manager:", gone)
    expected = ALL | {"test_manager"}
    assert ran_and_failed(annotated) == (expected, {"test_helper", "test_manager"})


def test_a_member_an_annotation_reads_gone_selects_every_importer(
    annotated: pytest.Pytester,
) -> None:
    """Outside the rule: ``Manager.State`` reads a member of the class."""
    edit(annotated, "manager.py", "class Manager:\n", "class Manager:\n    State = int\n\n")
    edit(annotated, "sub.py", "typing.Iterator[Manager | None]", "typing.Iterator[Manager.State]")
    assert ran_and_failed(annotated) == (ALL | {"test_manager"}, set())
    edit(annotated, "manager.py", "    State = int\n\n", "")
    assert ran_and_failed(annotated) == (ALL | {"test_manager"}, {"test_helper"})
