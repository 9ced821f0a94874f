"""An annotation evaluated at import (no ``from __future__ import annotations``) reads the
names it spells; a subscript of such a name can raise when the name is rebound to a value
that does not support it, and then the module's import fails for every importer. The same
for what else runs at import and may raise by a value it reads: a class body's statements,
a method's default, a base, a display table's attribute of another module."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
Alias = dict


def annotated(x: Alias[str, int]) -> int:
    return len(x)


def plain():
    return 1
"""

TESTS = """
def test_plain():
    import lib

    assert lib.plain() == 1


def test_annotated():
    import lib

    assert lib.annotated({}) == 0
"""


EVERY_TEST = {"test_plain", "test_annotated"}


def _recorded(pytester: pytest.Pytester, lib: str) -> None:
    """``lib.py`` and its tests written and recorded (every test runs)."""
    write(pytester, "lib.py", lib)
    write(pytester, "test_lib.py", TESTS)
    assert run(pytester) == EVERY_TEST


def _recorded_with(pytester: pytest.Pytester, added: str, head: str = "") -> None:
    """``_recorded`` with ``added`` (top-level statements) above ``plain``, ``head`` above
    everything."""
    _recorded(pytester, head + LIB.replace("def plain():", added + "\n\n\ndef plain():"))


def _kinds(pytester: pytest.Pytester, key: str) -> None:
    """A module binding ``Key`` to ``key``, with a function of its own."""
    write(pytester, "kinds.py", f"Key = {key}\n\n\ndef other():\n    return 2\n")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    _recorded(pytester, LIB)
    return pytester


def test_an_alias_rebound_to_a_value_without_subscripts_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", "Alias = dict", "Alias = 3")
    assert run(project) == EVERY_TEST  # TypeError at import


def _typed(pytester: pytest.Pytester, annotation: str, head: str = "import typing\n") -> None:
    _recorded(pytester, head + LIB.replace("Alias[str, int]", annotation))


def test_a_typing_form_given_too_few_arguments_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _typed(pytester, "typing.Dict[str, int]")
    edit(pytester, "lib.py", "typing.Dict[str, int]", "typing.Dict[str]")
    assert run(pytester) == EVERY_TEST  # TypeError at import


def test_a_typing_form_changed_to_another_that_evaluates_selects_its_function_only(
    pytester: pytest.Pytester,
) -> None:
    _typed(pytester, "typing.Dict[str, int]")
    edit(pytester, "lib.py", "typing.Dict[str, int]", "typing.Dict[str, float]")
    assert run(pytester) == {"test_annotated"}


def test_an_imported_union_member_rebound_to_a_non_type_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "str")
    _typed(pytester, "Key | None", head="from kinds import Key\n")
    edit(pytester, "kinds.py", "Key = str", "Key = 3")
    assert run(pytester) == EVERY_TEST  # TypeError at import


def test_a_value_computed_at_import_from_another_module_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    # The rule the annotations now share: a part that may raise by what an imported
    # name holds (passed before this change too).
    _kinds(pytester, "1")
    _recorded(pytester, "from kinds import Key\n\nX = Key + 1\n" + LIB)
    edit(pytester, "kinds.py", "Key = 1", "Key = 'a'")
    assert run(pytester) == EVERY_TEST  # TypeError at import


KIND = """
class Kind:
    def size(self):
        return 1


def other():
    return 2
"""


def test_a_method_changed_in_an_imported_class_of_a_union_selects_its_callers_only(
    pytester: pytest.Pytester,
) -> None:
    # The union is evaluated at import with what ``Kind`` holds: a class whatever its
    # methods do.
    write(pytester, "kinds.py", KIND)
    _typed(pytester, "Kind | None", head="from kinds import Kind\n")
    write(
        pytester,
        "test_kind.py",
        "from kinds import Kind\n\n\ndef test_size():\n    assert Kind().size() == 1\n",
    )
    assert run(pytester) == {"test_size"}
    edit(pytester, "kinds.py", "return 1", "return 1 + 0")
    assert run(pytester) == {"test_size"}


def test_an_imported_union_member_of_a_method_rebound_to_a_non_type_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "str")
    _recorded_with(
        pytester,
        "class Holder:\n    def hold(self, x: Key | None) -> None:\n        pass",
        head="from kinds import Key\n",
    )
    edit(pytester, "kinds.py", "Key = str", "Key = 3")
    assert run(pytester) == EVERY_TEST  # TypeError at import


def test_a_class_body_value_from_an_imported_name_changed_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "1")
    _recorded_with(pytester, "class Holder:\n    size = Key + 1", head="from kinds import Key\n")
    edit(pytester, "kinds.py", "Key = 1", "Key = 'a'")
    assert run(pytester) == EVERY_TEST  # TypeError at import


def test_a_class_body_value_from_a_module_constant_changed_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _recorded_with(pytester, "Key = 1\n\n\nclass Holder:\n    size = Key + 1")
    edit(pytester, "lib.py", "Key = 1", "Key = 'a'")
    assert run(pytester) == EVERY_TEST  # TypeError at import


def test_a_class_body_value_from_a_module_constant_still_computing_selects_no_importer(
    pytester: pytest.Pytester,
) -> None:
    # ``Key + 1`` is computed at analysis from the module's constants, before and after:
    # it cannot raise, and no test reads ``Holder``.
    _recorded_with(pytester, "Key = 1\n\n\nclass Holder:\n    size = Key + 1")
    edit(pytester, "lib.py", "Key = 1", "Key = 2")
    assert run(pytester) == set()


def test_a_partial_in_a_class_body_of_a_name_rebound_to_a_non_callable_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "str")
    _recorded_with(
        pytester,
        "class Holder:\n    make = partial(Key)",
        head="from functools import partial\n\nfrom kinds import Key\n",
    )
    edit(pytester, "kinds.py", "Key = str", "Key = 3")
    assert run(pytester) == EVERY_TEST  # TypeError at import: partial needs a callable


def test_a_method_default_read_from_a_module_removed_there_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "1")
    _recorded_with(
        pytester,
        "class Holder:\n    def hold(self, x=kinds.Key):\n        return x",
        head="import kinds\n",
    )
    edit(pytester, "kinds.py", "Key = 1", "Other = 1")
    assert run(pytester) == EVERY_TEST  # AttributeError at import


def test_a_table_read_of_a_module_attribute_removed_there_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _kinds(pytester, "1")
    _recorded_with(pytester, 'TABLE = [(kinds.Key, "key")]', head="import kinds\n")
    edit(pytester, "kinds.py", "Key = 1", "Other = 1")
    assert run(pytester) == EVERY_TEST  # AttributeError at import


def test_a_table_read_of_a_module_attribute_changed_there_selects_no_importer(
    pytester: pytest.Pytester,
) -> None:
    # The table only holds the value: reading it cannot raise while the name is bound.
    _kinds(pytester, "1")
    _recorded_with(pytester, 'TABLE = [(kinds.Key, "key")]', head="import kinds\n")
    edit(pytester, "kinds.py", "Key = 1", "Key = 2")
    assert run(pytester) == set()


def test_a_base_attribute_of_a_module_removed_there_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "kinds.py", "class Key:\n    pass\n\n\ndef other():\n    return 2\n")
    _recorded_with(pytester, "class Holder(kinds.Key):\n    pass", head="import kinds\n")
    edit(pytester, "kinds.py", "class Key:\n    pass\n", "class Other:\n    pass\n")
    assert run(pytester) == EVERY_TEST  # AttributeError at import
