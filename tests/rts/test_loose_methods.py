"""A plain class whose body has a statement reks cannot judge (a decorator imported from
another module: ``@crypto_required``, a mark made elsewhere) stays in its module unit, but
its methods that only build (no decorator or one that only wraps, defaults without effects)
are members of their own: a test method added to such a test class selects the new test,
not every test of the file, on real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester, "marks.py", 'import pytest\n\nnever = pytest.mark.skipif(False, reason="never")\n'
    )
    write(
        pytester,
        "test_things.py",
        """
        from marks import never


        class TestThings:
            @never
            def test_marked(self):
                assert self.helper() == 1

            def helper(self, step=1):
                return step

            def test_plain(self):
                assert 1 + 1 == 2


        def test_free():
            assert True
        """,
    )
    assert run(pytester) == {"TestThings::test_marked", "TestThings::test_plain", "test_free"}
    return pytester


def test_a_test_method_added_selects_only_the_new_test(project: pytest.Pytester) -> None:
    edit(
        project,
        "test_things.py",
        "    def test_plain(self):",
        "    def test_added(self):\n        assert True\n\n    def test_plain(self):",
    )
    assert run(project) == {"TestThings::test_added"}


def test_a_method_header_changed_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "test_things.py", "def helper(self, step=1):", "def helper(self, step=1, *more):")
    assert run(project) == {"TestThings::test_marked"}


def test_a_method_with_a_foreign_decorator_stays_in_the_module_unit(
    project: pytest.Pytester,
) -> None:
    edit(project, "test_things.py", "    @never\n    def test_marked", "    def test_marked")
    assert run(project) == {"TestThings::test_marked", "TestThings::test_plain", "test_free"}


def test_a_method_the_class_body_reads_keeps_its_place(pytester: pytest.Pytester) -> None:
    write(
        pytester, "marks.py", 'import pytest\n\nnever = pytest.mark.skipif(False, reason="never")\n'
    )
    write(
        pytester,
        "test_order.py",
        """
        from marks import never


        def size():
            return 1


        class TestOrder:
            width = size()

            def size(*args):
                return 2

            @never
            def test_width(self):
                assert self.width == 1


        def test_free():
            assert True
        """,
    )
    assert run(pytester) == {"TestOrder::test_width", "test_free"}
    # Below the method, the class body's call finds the method: ``width`` is 2.
    text = (pytester.path / "test_order.py").read_text()
    moved = text.replace("    width = size()\n\n", "").replace(
        "        return 2\n", "        return 2\n\n    width = size()\n"
    )
    (pytester.path / "test_order.py").write_text(moved)
    assert run(pytester) == {"TestOrder::test_width", "test_free"}
