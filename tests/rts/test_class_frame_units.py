"""What may make a class statement raise besides its bases' hooks (its *frame*: bases,
risky members; ``rts.class_frames``) is a unit of its own, ``C.<frame>``, on real pytest
sessions: a new or changed one selects every importer of the module, as when it was part
of the module unit; one gone with its class selects nothing more. The class's readers see
its unit gone; the tests whose recording saw its hooks run see its ``C.<hooks>`` unit gone
(a hook may have registered the class)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

SHAPES = """
from base import Base


class Square(Base):
    def side(self):
        return 2


class Circle(Base):
    def radius(self):
        return 1


def plain():
    return 1
"""


def _project(pytester: pytest.Pytester, base: str) -> pytest.Pytester:
    # A base from another project module: the classes' statements cannot be proved
    # plain from their own file, so each has a frame.
    write(pytester, "base.py", base)
    write(pytester, "shapes.py", SHAPES)
    write(
        pytester,
        "test_figures.py",
        """
        import base
        import shapes


        def test_plain():
            assert shapes.plain() == 1


        def test_square():
            assert shapes.Square().side() == 2


        def test_circle():
            assert shapes.Circle().radius() == 1


        def test_registry():
            assert len(getattr(base, "REGISTRY", [1, 2])) == 2
        """,
    )
    assert run(pytester, flag="--reks-all") == {
        "test_plain",
        "test_square",
        "test_circle",
        "test_registry",
    }
    return pytester


PLAIN_BASE = "class Base:\n    def greet(self):\n        return 'hi'\n"

REGISTERING_BASE = """
REGISTRY = []


class Base:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        REGISTRY.append(cls.__name__)
"""


def test_a_class_gone_whose_statement_ran_no_hook_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester, PLAIN_BASE)
    edit(project, "shapes.py", "class Circle(Base):\n    def radius(self):\n        return 1", "")
    assert run(project) == {"test_circle"}


def test_a_class_gone_whose_statement_ran_a_hook_selects_every_test_that_saw_it(
    pytester: pytest.Pytester,
) -> None:
    # The base's hook registered each class at import: test_registry counts them.
    project = _project(pytester, REGISTERING_BASE)
    edit(project, "shapes.py", "class Circle(Base):\n    def radius(self):\n        return 1", "")
    assert run(project) == {"test_plain", "test_square", "test_circle", "test_registry"}


def test_a_changed_frame_selects_every_importer(pytester: pytest.Pytester) -> None:
    project = _project(pytester, PLAIN_BASE)
    # Another base: the statement may fail where it did not (a base with a hook).
    write(project, "other.py", "class Other:\n    pass\n")
    edit(
        project,
        "shapes.py",
        "from base import Base",
        "from base import Base\nfrom other import Other",
    )
    run(project)  # a new module imported: recorded
    edit(project, "shapes.py", "class Circle(Base):", "class Circle(Base, Other):")
    assert run(project) == {"test_plain", "test_square", "test_circle", "test_registry"}


def test_a_new_class_with_a_frame_selects_every_importer(pytester: pytest.Pytester) -> None:
    project = _project(pytester, PLAIN_BASE)
    edit(project, "shapes.py", "def plain():", "class Oval(Base):\n    pass\n\n\ndef plain():")
    assert run(project) == {"test_plain", "test_square", "test_circle", "test_registry"}
