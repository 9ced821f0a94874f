"""``@overload`` stubs before a definition (``rts.units``): they bind nothing the callers
see (the last ``def`` is what the name holds), so their text belongs with the body the
tests that ran the function depend on, not with the header every reader of the name does.
tinydb 3517ddc0b6 added eight ``@overload def get(...)`` stubs to ``Table``: every test
reading an attribute ``get`` (``dict.get`` included) was selected (151; testmon 145)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

# ``typing.get_overloads`` (3.11+) shows the stubs: a read of code (``lookups.BODY_READS``).
_INSPECTING = {"test_overloads"} if sys.version_info >= (3, 11) else set()


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "store.py",
        """
        from typing import overload


        class Store:
            @overload
            def get(self, key: int) -> int: ...

            @overload
            def get(self, key: str) -> str: ...

            def get(self, key):
                return key
        """,
    )
    write(
        pytester,
        "test_overloaded.py",
        """
        import sys
        import typing

        import pytest

        import store


        def test_get():
            assert store.Store().get(1) == 1


        def test_dict():
            assert {"a": 1}.get("a") == 1


        @pytest.mark.skipif(sys.version_info < (3, 11), reason="get_overloads is 3.11+")
        def test_overloads():
            assert len(typing.get_overloads(store.Store.get)) in (2, 3)
        """,
    )
    assert run(pytester) >= {"test_get", "test_dict"}
    return pytester


def test_a_new_stub_selects_the_tests_that_ran_or_inspect_it(project: pytest.Pytester) -> None:
    edit(
        project,
        "store.py",
        "    def get(self, key):",
        "    @overload\n    def get(self, key: bytes) -> bytes: ...\n\n    def get(self, key):",
    )
    assert run(project) == {"test_get"} | _INSPECTING


def test_a_changed_definition_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "store.py", "def get(self, key):", "def get(self, key, default=None):")
    assert run(project) == {"test_get", "test_dict"} | _INSPECTING


def test_the_first_stubs_select_the_tests_that_ran_or_inspect_it(
    pytester: pytest.Pytester,
) -> None:
    """A method that had no stubs gains its first: the decorator the stubs read changes no
    header either (the stubs' reads belong with their text, in the body unit)."""
    write(
        pytester,
        "store.py",
        """
        from typing import overload


        class Store:
            def get(self, key):
                return key
        """,
    )
    write(
        pytester,
        "test_plain.py",
        """
        import store


        def test_get():
            assert store.Store().get(1) == 1


        def test_dict():
            assert {"a": 1}.get("a") == 1
        """,
    )
    assert run(pytester) == {"test_get", "test_dict"}
    edit(
        pytester,
        "store.py",
        "    def get(self, key):",
        "    @overload\n    def get(self, key: int) -> int: ...\n\n    def get(self, key):",
    )
    assert run(pytester) == {"test_get"}
