"""The members of a class added to a module, on real pytest sessions: no object had their
attributes before, so only the tests that read the new class's name (or that may read any
name) can see them. cachetools 86352aed2b added ``class DescriptorBase`` with a
``__call__`` method, and every test that had read an attribute ``__call__`` anywhere ran
(158 of 222 tests)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "boxes.py",
        """
        class Box:
            def get(self):
                return 1


        def make(kind):
            return kind()
        """,
    )
    write(
        pytester,
        "test_boxes.py",
        """
        import boxes


        def test_get():
            assert boxes.Box().get() == 1


        def test_no_put():
            assert not hasattr(boxes.Box(), "put")


        def test_lookup_by_name():
            kind = getattr(boxes, "Crate", boxes.Box)
            assert boxes.make(kind).get() in (1, 2)


        def test_other():
            assert boxes.make(list) == []
        """,
    )
    assert run(pytester) == {"test_get", "test_no_put", "test_lookup_by_name", "test_other"}
    return pytester


NEW_CLASS = """class Crate:
    size = 3

    def get(self):
        return 2

    def put(self, item):
        pass

    def __call__(self):
        return self.get()


"""


def test_a_new_class_selects_the_readers_of_its_name_not_of_its_members(
    project: pytest.Pytester,
) -> None:
    edit(project, "boxes.py", "def make", NEW_CLASS + "def make")
    # test_get read ``get`` and test_no_put ``put`` (a ``Box``'s): only the lookup of
    # ``Crate`` by name can see the new class.
    assert run(project) == {"test_lookup_by_name"}
    assert run(project) == set()  # the run's re-recording left nothing stale


def test_a_new_method_of_a_known_class_selects_the_readers_of_its_name(
    project: pytest.Pytester,
) -> None:
    edit(project, "boxes.py", "def make", NEW_CLASS + "def make")
    assert run(project) == {"test_lookup_by_name"}
    edit(project, "boxes.py", "class Box:", "class Box:\n    def put(self, item):\n        pass\n")
    assert run(project) == {"test_no_put"}


def test_a_removed_class_selects_its_readers_not_the_readers_of_its_members(
    pytester: pytest.Pytester,
) -> None:
    # cachetools 45776b23b1 renamed ``DeprecatedDescriptorBase``: every test that read an
    # attribute ``__init__`` anywhere (``Cache.__init__(self, ...)``) depended on its
    # ``__init__`` header and ran (147 tests).
    write(
        pytester,
        "kinds.py",
        """
        class Base:
            def __init__(self):
                self.ready = True


        class Other(Base):
            def __init__(self):
                Base.__init__(self)


        class Old:
            def __init__(self, x=None):
                self.x = x

            def get(self):
                return self.x


        def use():
            return Old().get()
        """,
    )
    write(
        pytester,
        "test_kinds.py",
        """
        import kinds


        def test_other():
            assert kinds.Other().ready


        def test_use():
            assert kinds.use() is None
        """,
    )
    assert run(pytester) == {"test_other", "test_use"}
    edit(pytester, "kinds.py", "class Old:", "class New:")
    edit(pytester, "kinds.py", "return Old()", "return New()")
    assert run(pytester) == {"test_use"}
    assert run(pytester) == set()  # the run's re-recording left nothing stale
