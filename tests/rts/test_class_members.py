"""Class-body statements as units of their own, on real pytest sessions: a method's header
and a plain class's attributes select the tests that read their names; dunder methods,
decorated classes' fields and registering statements still select every user."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "shapes.py",
        """
        import dataclasses


        class Shape:
            sides = 4
            label = "shape"

            def area(self, scale=1):
                return self.sides * scale

            def name(self):
                return self.label


        @dataclasses.dataclass
        class Point:
            x: int = 0
        """,
    )
    write(
        pytester,
        "test_shapes_case.py",
        """
        import shapes


        def test_area():
            assert shapes.Shape().area() == 4


        def test_name():
            assert shapes.Shape().name() == "shape"


        def test_equal():
            assert shapes.Shape() != shapes.Shape()


        def test_point():
            assert shapes.Point() == shapes.Point(0)
        """,
    )
    assert len(run(pytester)) == 4
    return pytester


def test_a_method_header_selects_the_tests_that_read_the_method(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "scale=1", "scale=1, unused=None")
    assert run(project) == {"test_area"}
    # A new method nobody calls: nothing.
    edit(
        project,
        "shapes.py",
        "    def name",
        "    def extra(self):\n        return 0\n\n    def name",
    )
    assert run(project) == set()


def test_a_class_attribute_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "shapes.py", 'label = "shape"', 'label = "Shape"')
    assert run(project) == {"test_name"}


def test_a_new_dunder_method_selects_every_user_of_the_class(project: pytest.Pytester) -> None:
    edit(
        project,
        "shapes.py",
        "    def name",
        "    def __eq__(self, other):\n        return True\n\n    def name",
    )
    assert run(project) == {"test_area", "test_name", "test_equal"}


def test_a_new_dataclass_field_selects_every_user_of_the_class(project: pytest.Pytester) -> None:
    edit(project, "shapes.py", "    x: int = 0", "    x: int = 0\n    y: int = 0")
    assert run(project) == {"test_point"}


def test_a_registering_call_in_a_class_body_is_caught(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "registry.py",
        "NAMES = []\n\n\ndef register(name):\n    NAMES.append(name)\n    return name\n",
    )
    write(
        pytester,
        "plugins.py",
        "from registry import register\n\n\nclass A:\n    key = register('a')\n",
    )
    write(
        pytester,
        "test_registry.py",
        "import plugins\nimport registry\n\n\ndef test_names():\n"
        "    assert registry.NAMES == ['a']\n",
    )
    assert run(pytester) == {"test_names"}
    edit(pytester, "plugins.py", "register('a')", "register('b')")
    assert run(pytester) == {"test_names"}


def test_a_class_docstring_doctest_depends_on_its_class(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "doc.py",
        '''
        class Greeter:
            """Greets.

            >>> 1 + 1
            2
            """

            def hello(self):
                return "hi"


        def other():
            return 1
        ''',
    )
    assert run(pytester, "--doctest-modules") == {"doc.Greeter"}
    edit(pytester, "doc.py", "1 + 1\n    2", "2 + 1\n    3")
    assert run(pytester, "--doctest-modules") == {"doc.Greeter"}


def test_a_method_put_first_or_after_an_attribute_changes_no_other_method(
    project: pytest.Pytester,
) -> None:
    # The layout tokens where a method starts (the class body's indent, the dedent after
    # the statement before) belong to no method: cachetools 86352aed2b, 45776b23b1.
    edit(
        project,
        "shapes.py",
        "    sides = 4",
        "    def first(self):\n        return 0\n\n    sides = 4",
    )
    edit(
        project,
        "shapes.py",
        "    def area",
        "    def second(self):\n        return 0\n\n    def area",
    )
    assert run(project) == set()
    edit(project, "shapes.py", "    def first(self):\n        return 0\n\n", "")
    assert run(project) == set()
