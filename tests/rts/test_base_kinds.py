"""A class statement whose base another module binds needs that name bound to a class: a
base that is no class raises ``TypeError`` at import, for every importer of the subclass's
module. What the class is (its members, its body) is no importer's business unless its
hooks run (``rts.creation_hooks``); that it is one is, which the unit of the binding's kind
(``C.<class>``, ``needed_attributes.class_kinds``) tells: gone, it selects the tests whose
modules take the name."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

KINDS = "class Key:\n    pass\n\n\ndef other():\n    return 2\n"

TESTS = """
def test_plain():
    import lib

    assert lib.plain() == 1


def test_other():
    import kinds

    assert kinds.other() == 2
"""

EVERY_TEST = {"test_plain", "test_other"}


def _recorded(pytester: pytest.Pytester, lib: str) -> None:
    """``kinds.py`` binding the class ``Key``, ``lib.py`` (``lib``, a function ``plain``
    below it) and the tests, recorded."""
    write(pytester, "kinds.py", KINDS)
    write(pytester, "lib.py", lib + "\n\n\ndef plain():\n    return 1\n")
    write(pytester, "test_lib.py", TESTS)
    assert run(pytester) == EVERY_TEST


FROM_IMPORTED = (
    "from kinds import Key\n\n\nclass Holder(Key):\n    def hold(self):\n        return 1"
)


def test_a_base_taken_from_a_module_rebound_there_to_a_value_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "Key = 3\n")
    assert run(pytester) == EVERY_TEST  # TypeError at import: a base must be a class


def test_a_base_attribute_of_a_module_rebound_there_to_a_value_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _recorded(pytester, "import kinds\n\n\nclass Holder(kinds.Key):\n    pass")
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "Key = 3\n")
    assert run(pytester) == EVERY_TEST


def test_a_base_rebound_below_its_class_statement_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "class Key:\n    pass\n\n\nKey = 3\n")
    assert run(pytester) == EVERY_TEST


def test_a_base_rebound_to_a_function_selects_every_importer(pytester: pytest.Pytester) -> None:
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "def Key():\n    return 1\n")
    assert run(pytester) == EVERY_TEST


def test_a_base_rebound_to_a_value_in_a_run_deselecting_the_tests_selects_them_next(
    pytester: pytest.Pytester,
) -> None:
    # The run syncs the file without running them: the stale marks must keep them.
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "Key = 3\n")
    assert run(pytester, "-k", "nothing_matches") == set()
    assert run(pytester) == EVERY_TEST


def test_a_base_class_given_a_member_selects_no_importer(pytester: pytest.Pytester) -> None:
    # Still a class statement: the subclass's importers cannot see the member.
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "class Key:\n    size = 1\n")
    assert run(pytester) == set()


def test_a_class_taken_but_no_base_given_a_member_selects_no_importer(
    pytester: pytest.Pytester,
) -> None:
    _recorded(pytester, "from kinds import Key\n\n\nKEYS = (Key,)")
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "class Key:\n    size = 1\n")
    assert run(pytester) == set()


REWRAPPED = "class Key:\n    pass\n\n\ndef keep(c):\n    return c\n\n\nKey = keep(Key)\n"


def test_a_second_binding_of_a_base_changed_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # Selected before the kind unit too (``keep(Key)`` is a call at import, in the module
    # unit): a guard that the kind unit of a name bound twice hides nothing.
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", REWRAPPED)
    run(pytester)
    edit(pytester, "kinds.py", "Key = keep(Key)", "Key = keep(3)")
    assert run(pytester) == EVERY_TEST


def test_a_base_bound_twice_selects_no_importer_when_other_code_changes(
    pytester: pytest.Pytester,
) -> None:
    _recorded(pytester, FROM_IMPORTED)
    edit(pytester, "kinds.py", "class Key:\n    pass\n", REWRAPPED)
    run(pytester)
    edit(pytester, "kinds.py", "return 2", "return 3")
    assert run(pytester) == {"test_other"}
