"""Cases of a literal ``@pytest.mark.parametrize`` list: a case whose values and test code
are unchanged does not run when other cases of the list are added, removed or respelled
(python-validators ``894a069``: one string of fifty respelled, ``\\uFFFD`` for ``\\ufffd``,
reran all fifty). Shapes just outside the rule (explicit ids, ids from the index or with a
counter, a list in a module constant, a test reading the list) still select every case, and
a case whose value changed but not its id is selected, each failing at the change."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_URLS = """
import pytest


@pytest.mark.parametrize(
    "value",
    [
        "http://a.example",
        "http://b.example",
        "http://www.\\uFFFD.ch",
    ],
)
def test_url(value):
    assert value.startswith("http://")


def test_other():
    assert True
"""

_URL_IDS = {
    "test_url[http://a.example]",
    "test_url[http://b.example]",
    "test_url[http://www.\\ufffd.ch]",
    "test_other",
}


@pytest.fixture
def urls(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "test_urls.py", _URLS)
    assert run(pytester) == _URL_IDS
    return pytester


def test_a_case_added_to_a_literal_list_runs_alone(urls: pytest.Pytester) -> None:
    edit(urls, "test_urls.py", '"http://b.example",', '"http://b.example",\n"http://c.example",')
    assert run(urls) == {"test_url[http://c.example]"}


def test_a_case_respelled_with_the_same_value_runs_nothing(urls: pytest.Pytester) -> None:
    edit(urls, "test_urls.py", "\\uFFFD", "\\ufffd")
    assert run(urls) == set()


def test_a_case_removed_runs_nothing(urls: pytest.Pytester) -> None:
    edit(urls, "test_urls.py", '"http://a.example",', "")
    assert run(urls) == set()


def test_a_case_with_a_long_string_runs_with_any_change_of_the_list(
    pytester: pytest.Pytester,
) -> None:
    """pytest names a case by its index when a string is longer than 100 characters: that
    case depends on the whole list (its values in order, not their spelling), the others
    on their own values."""
    write(
        pytester,
        "test_long.py",
        """
        import pytest


        @pytest.mark.parametrize(
            "value",
            [
                "a",
                "b",
                "0123456789" "0123456789" "0123456789" "0123456789" "0123456789"
                + "0123456789" "0123456789" "0123456789" "0123456789" "0123456789" "!",
            ],
        )
        def test_value(value):
            assert value
        """,
    )
    assert run(pytester) == {"test_value[a]", "test_value[b]", "test_value[value2]"}
    edit(pytester, "test_long.py", '"a",', "'\\x61',")  # the same values in order
    assert run(pytester) == set()
    edit(pytester, "test_long.py", '"b",', '"b",\n"c",')
    assert run(pytester) == {"test_value[c]", "test_value[value3]"}


def test_a_changed_case_of_several_names_runs_alone(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "test_sizes.py",
        """
        import pytest


        @pytest.mark.parametrize(("word", "size"), [("a", 1), ("bb", 2), ("ccc", 3)])
        def test_size(word, size):
            assert len(word) == size
        """,
    )
    assert run(pytester) == {"test_size[a-1]", "test_size[bb-2]", "test_size[ccc-3]"}
    edit(pytester, "test_sizes.py", '("bb", 2)', '("bb", 3)')
    assert ran_and_failed(pytester) == ({"test_size[bb-3]"}, {"test_size[bb-3]"})


def test_a_value_of_another_type_with_the_same_id_is_selected(
    pytester: pytest.Pytester,
) -> None:
    """``1`` and ``"1"`` have the same id: the case's unit is of the typed value."""
    write(
        pytester,
        "test_types.py",
        """
        import pytest


        @pytest.mark.parametrize("value", [1, 2])
        def test_int(value):
            assert isinstance(value, int)
        """,
    )
    assert run(pytester) == {"test_int[1]", "test_int[2]"}
    edit(pytester, "test_types.py", "[1, 2]", '["1", 2]')
    assert ran_and_failed(pytester) == ({"test_int[1]"}, {"test_int[1]"})


def test_explicit_ids_select_every_case(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "test_ids.py",
        """
        import pytest


        @pytest.mark.parametrize("value", ["a", "c"], ids=["first", "second"])
        def test_not_b(value):
            assert value != "b"
        """,
    )
    assert run(pytester) == {"test_not_b[first]", "test_not_b[second]"}
    edit(pytester, "test_ids.py", '["a", "c"]', '["a", "b"]')
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_not_b[first]", "test_not_b[second]"}, {"test_not_b[second]"})


def test_ids_from_the_index_select_every_case(pytester: pytest.Pytester) -> None:
    """A tuple given to one name has an id from its index: ``value1`` is whatever is
    second."""
    write(
        pytester,
        "test_index.py",
        """
        import pytest


        @pytest.mark.parametrize("value", [("a",), ("c",)])
        def test_not_b(value):
            assert value[0] != "b"
        """,
    )
    assert run(pytester) == {"test_not_b[value0]", "test_not_b[value1]"}
    edit(pytester, "test_index.py", '("c",)', '("b",)')
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_not_b[value0]", "test_not_b[value1]"}, {"test_not_b[value1]"})


def test_ids_with_a_counter_select_every_case(pytester: pytest.Pytester) -> None:
    """``1`` and ``"1"`` in one list: pytest numbers the ids, ``1_0`` is whichever is
    first."""
    write(
        pytester,
        "test_counter.py",
        """
        import pytest


        @pytest.mark.parametrize("value", [1, "1"])
        def test_first_is_int(value, request):
            assert request.node.name != "test_first_is_int[1_0]" or isinstance(value, int)
        """,
    )
    assert run(pytester) == {"test_first_is_int[1_0]", "test_first_is_int[1_1]"}
    edit(pytester, "test_counter.py", '[1, "1"]', '["1", 1]')
    ran, failed = ran_and_failed(pytester)
    assert ran == {"test_first_is_int[1_0]", "test_first_is_int[1_1]"}
    assert failed == {"test_first_is_int[1_0]"}


def test_a_list_in_a_module_constant_selects_every_case(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "test_constant.py",
        """
        import pytest

        CASES = [("a",), ("c",)]


        @pytest.mark.parametrize("value", CASES)
        def test_not_b(value):
            assert value[0] != "b"
        """,
    )
    assert run(pytester) == {"test_not_b[value0]", "test_not_b[value1]"}
    edit(pytester, "test_constant.py", '("c",)]', '("b",)]')
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_not_b[value0]", "test_not_b[value1]"}, {"test_not_b[value1]"})


def test_a_test_reading_the_list_is_selected_when_a_case_is_added(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "test_list_reads.py",
        """
        import pytest


        @pytest.mark.parametrize("value", ["a", "b"])
        def test_value(value):
            assert value


        def test_two_cases():
            assert len(test_value.pytestmark[0].args[1]) == 2
        """,
    )
    assert run(pytester) == {"test_value[a]", "test_value[b]", "test_two_cases"}
    edit(pytester, "test_list_reads.py", '["a", "b"]', '["a", "b", "c"]')
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_value[c]", "test_two_cases"}, {"test_two_cases"})
