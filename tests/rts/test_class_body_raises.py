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


MARKED = {
    "TestMarked::test_known",
    "TestMarked::test_skipped",
    "TestMarked::test_plain",
    "test_outside",
}


@pytest.fixture
def marked(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "test_marked.py",
        """
        import pytest

        FLAG = False


        class TestMarked:
            @pytest.mark.xfail(reason="not yet")
            def test_known(self):
                assert False

            @pytest.mark.skipif(FLAG, reason="never")
            def test_skipped(self):
                assert True

            def test_plain(self):
                assert True


        def test_outside():
            assert True
        """,
    )
    assert run(pytester) == MARKED
    return pytester


def test_a_new_method_with_a_builtin_skip_mark_selects_only_its_test(
    marked: pytest.Pytester,
) -> None:
    # Looking up pytest's own skip, skipif and xfail marks and storing one on a function
    # cannot raise at import; what the mark does is the method's header, its test's alone.
    edit(
        marked,
        "test_marked.py",
        "    def test_plain(self):",
        "    @pytest.mark.xfail\n    def test_new(self):\n        assert False\n\n"
        '    @pytest.mark.skipif(FLAG, reason="no")\n    def test_other(self):\n'
        "        assert True\n\n    def test_plain(self):",
    )
    assert run(marked) == {"TestMarked::test_new", "TestMarked::test_other"}


def test_a_new_mark_of_another_name_selects_every_test_of_the_file(
    marked: pytest.Pytester,
) -> None:
    # An unregistered mark warns at import (an error under strict markers or ``-W error``).
    edit(
        marked,
        "test_marked.py",
        "    def test_plain(self):",
        "    @pytest.mark.slow\n    def test_plain(self):",
    )
    assert run(marked, "-p", "no:warnings") == MARKED


def test_marks_of_a_module_named_pytest_that_is_not_pytest_select_every_test(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "fakemark.py",
        """
        class Marks:
            seen = []

            def xfail(self, function):
                self.seen.append(function.__name__)
                return function


        mark = Marks()
        """,
    )
    write(
        pytester,
        "test_fake.py",
        """
        import fakemark as pytest


        class TestFake:
            @pytest.mark.xfail
            def test_one(self):
                assert True

            def test_two(self):
                assert True


        def test_count():
            assert len(pytest.mark.seen) == 1
        """,
    )
    every = {"TestFake::test_one", "TestFake::test_two", "test_count"}
    assert run(pytester) == every
    edit(pytester, "test_fake.py", "    def test_two", "    @pytest.mark.xfail\n    def test_two")
    assert run(pytester) == every


def test_a_new_method_of_a_unittest_class_selects_only_its_test(
    pytester: pytest.Pytester,
) -> None:
    # ``TestCase.__init_subclass__`` only sets two attributes of the new class: it cannot
    # raise and reads nothing of its body.
    write(
        pytester,
        "test_cases.py",
        """
        import unittest


        class TestThings(unittest.TestCase):
            limit = 3

            def test_one(self):
                self.assertTrue(self.limit)


        def test_outside():
            assert True
        """,
    )
    assert run(pytester) == {"TestThings::test_one", "test_outside"}
    edit(
        pytester,
        "test_cases.py",
        "    def test_one",
        "    def test_new(self):\n        self.assertTrue(True)\n\n    def test_one",
    )
    assert run(pytester) == {"TestThings::test_new"}


def test_a_class_attribute_made_by_a_datetime_class_keeps_new_methods_apart(
    pytester: pytest.Pytester,
) -> None:
    # ``date(...)`` from ``datetime`` only makes a value: the class stays a binding.
    write(
        pytester,
        "test_dates.py",
        """
        import unittest
        from datetime import date


        class TestDates(unittest.TestCase):
            today = date(2003, 9, 17)

            def test_one(self):
                self.assertEqual(self.today.year, 2003)


        def test_outside():
            assert True
        """,
    )
    assert run(pytester) == {"TestDates::test_one", "test_outside"}
    edit(
        pytester,
        "test_dates.py",
        "    def test_one",
        "    def test_new(self):\n        self.assertTrue(self.today)\n\n    def test_one",
    )
    assert run(pytester) == {"TestDates::test_new"}


def test_a_class_attribute_made_by_a_function_named_date_of_the_module_is_an_effect(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "test_made.py",
        """
        MADE = []


        def date(*parts):
            MADE.append(parts)
            return parts


        class TestMade:
            today = date(2003, 9, 17)

            def test_one(self):
                assert self.today


        def test_made():
            assert len(MADE) == 1
        """,
    )
    assert run(pytester) == {"TestMade::test_one", "test_made"}
    edit(pytester, "test_made.py", "    def test_one", "    again = date(1)\n\n    def test_one")
    assert run(pytester) == {"TestMade::test_one", "test_made"}
