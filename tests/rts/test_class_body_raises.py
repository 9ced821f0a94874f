"""A class whose import may raise only through statements of its body (a test class with
``@pytest.mark.parametrize(...)`` methods) puts into its module's unit what of the body may
raise, not the whole class: a new plain test method in it selects the new test, not every
test of the file (jinja's test_filters.py), on real pytest sessions. What may raise still
selects every importer: a changed decorator argument, or a name it reads bound no more."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

EVERY = {
    "TestThings::test_value[1]",
    "TestThings::test_value[2]",
    "TestThings::test_plain",
    "test_outside",
}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "test_things.py",
        """
        import pytest


        class TestThings:
            CASES = [1, 2]

            @pytest.mark.parametrize("value", CASES)
            def test_value(self, value):
                assert value

            def test_plain(self):
                assert True


        def test_outside():
            assert True
        """,
    )
    assert run(pytester) == EVERY
    return pytester


def test_a_new_plain_method_selects_only_its_test(project: pytest.Pytester) -> None:
    edit(
        project,
        "test_things.py",
        "    def test_plain(self):",
        "    def test_new(self):\n        assert True\n\n    def test_plain(self):",
    )
    assert run(project) == {"TestThings::test_new"}


def test_what_may_raise_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "test_things.py", '"value", CASES', '"value", [*CASES, 3]')
    assert run(project) == EVERY | {"TestThings::test_value[3]"}
    # A name the decorator reads, bound earlier in the body: what it finds decides.
    edit(project, "test_things.py", "CASES = [1, 2]", "CASES = [1, 2, 4]")
    assert run(project) == EVERY | {"TestThings::test_value[3]", "TestThings::test_value[4]"}
