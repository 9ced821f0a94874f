"""A translation table made at import by ``str.maketrans``/``bytes.maketrans`` from
constants (humanize bde649f: ``_SUPERSCRIPT_TRANS = str.maketrans(_SUPERSCRIPT_MAP)``)
cannot raise unless making it raises here (``rts.constant_values``): it is a binding like a
literal, seen only by the tests reading it, on real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
_SUPERSCRIPT_MAP = {"1": "\\u00b9", "2": "\\u00b2"}
_SWAP = bytes.maketrans(b"ab", b"ba")


def one():
    return 1


def swap(data):
    return data.translate(_SWAP)
"""

TESTS = """
def test_one():
    import lib

    assert lib.one() == 1


def test_swap():
    import lib

    assert lib.swap(b"ab") == b"ba"
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", TESTS)
    assert run(pytester) == {"test_one", "test_swap"}
    return pytester


def test_a_new_table_of_a_constant_mapping_selects_no_test(project: pytest.Pytester) -> None:
    table = "_SUPERSCRIPT_TRANS = str.maketrans(_SUPERSCRIPT_MAP)\n"
    edit(project, "lib.py", "_SWAP =", f"{table}_SWAP =")
    assert run(project) == set()
    edit(project, "lib.py", table, table + 'TITLE = "x1".translate(_SUPERSCRIPT_TRANS)\n')
    assert run(project) == set()


def test_a_changed_table_selects_the_tests_reading_it(project: pytest.Pytester) -> None:
    edit(project, "lib.py", 'b"ab", b"ba"', 'b"ab", b"aa"')
    assert run(project) == {"test_swap"}  # it fails


def test_a_table_that_cannot_be_made_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "lib.py", 'b"ab", b"ba"', 'b"ab", b"b"')
    assert run(project) == {"test_one", "test_swap"}  # ValueError: lengths differ


def test_a_mapping_key_too_long_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "lib.py", "_SWAP =", '_BAD = str.maketrans({"12": "x"})\n_SWAP =')
    assert run(project) == {"test_one", "test_swap"}  # ValueError: keys of length 1


def test_a_shadowed_str_is_not_taken_for_the_builtin(project: pytest.Pytester) -> None:
    edit(project, "lib.py", "_SWAP =", "bytes = None\n_SWAP =")
    assert run(project) == {"test_one", "test_swap"}  # AttributeError


def test_a_mapping_changed_before_the_table_is_made_is_not_taken_as_built(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "lib.py",
        """
        _MAP = {"1": "x"}
        _MAP.update({"ab": "y"})
        _TABLE = str.maketrans({"1": "x"})


        def one():
            return 1
        """,
    )
    write(pytester, "test_lib.py", "def test_one():\n    import lib\n\n    assert lib.one()\n")
    assert run(pytester) == {"test_one"}
    edit(pytester, "lib.py", 'str.maketrans({"1": "x"})', "str.maketrans(_MAP)")
    assert run(pytester) == {"test_one"}  # ValueError: "ab" is no key of length 1
