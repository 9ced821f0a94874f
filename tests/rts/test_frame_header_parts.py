"""A class's frame (``rts.class_frames``) keeps, of a method whose header may raise at
import, only the parts that may (its risky defaults, annotations and decorators), on real
pytest sessions: a parameter added with a constant default beside them cannot make the
class statement fail, so it selects the method's readers, not every importer of the module
(tenacity 39eb157: ``enabled: bool = True`` added to ``AsyncRetrying.__init__``, whose
other defaults call into the package). A change of a risky part still selects every
importer."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

SHAPES = """
import base


class Square(base.Base):
    def __init__(self, unit: float = base.UNIT) -> None:
        self.unit = unit

    def side(self, scale=base.scale(2)):
        return scale * self.unit


class Circle(base.Base):
    def radius(self):
        return 1


def plain():
    return 1
"""

ALL = {"test_plain", "test_square", "test_side", "test_circle"}


def _project(pytester: pytest.Pytester) -> pytest.Pytester:
    # A base from another project module: the classes cannot be proved plain from their own
    # file, so each has a frame; the defaults read that module: they may raise. The tests
    # import the module as they run: one failing import fails each, not their collection.
    write(
        pytester,
        "base.py",
        """
        UNIT = 1.0
        OTHER_UNIT = 2.0


        class Base:
            pass


        def scale(n):
            return n
        """,
    )
    write(pytester, "shapes.py", SHAPES)
    write(
        pytester,
        "test_frame_parts.py",
        """
        def test_plain():
            import shapes

            assert shapes.plain() == 1


        def test_square():
            import shapes

            assert shapes.Square().unit == 1.0


        def test_side():
            import shapes

            assert shapes.Square.side


        def test_circle():
            import shapes

            assert shapes.Circle().radius() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == ALL
    return pytester


def test_a_constant_default_added_to_a_method_with_a_risky_one_selects_its_readers(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester)
    edit(project, "shapes.py", "scale=base.scale(2))", "scale=base.scale(2), twice=False)")
    assert run(project) == {"test_side"}


def test_a_constant_default_added_to_a_dunder_with_a_risky_one_selects_the_class_readers(
    pytester: pytest.Pytester,
) -> None:
    project = _project(pytester)
    edit(project, "shapes.py", "= base.UNIT) -> None:", "= base.UNIT, on: bool = True) -> None:")
    assert run(project) == {"test_square", "test_side"}


def test_a_changed_risky_default_selects_every_importer(pytester: pytest.Pytester) -> None:
    project = _project(pytester)
    edit(project, "shapes.py", "= base.UNIT)", "= base.OTHER_UNIT)")
    assert run(project) == ALL


def test_a_new_risky_default_selects_every_importer(pytester: pytest.Pytester) -> None:
    project = _project(pytester)
    edit(project, "shapes.py", "scale=base.scale(2))", "scale=base.scale(2), n=base.scale(3))")
    assert run(project) == ALL


def test_a_risky_method_renamed_selects_every_importer(pytester: pytest.Pytester) -> None:
    # A later class-level statement reads the method's name: renamed, it raises (the tests
    # import the module as they run: each fails).
    project = _project(pytester)
    edit(project, "shapes.py", "self.unit\n\n\nclass", "self.unit\n\n    area = side\n\n\nclass")
    run(project)
    edit(project, "shapes.py", "def side(", "def edge(")
    assert run(project) == ALL
