"""A name code only stores into its namespace (``STORE_NAME``, ``STORE_GLOBAL``: a class
body binding its methods, ``global x; x = ...``) is no read, on real pytest sessions:
itsdangerous's ``test_timed.py`` imports ``TestSigner``, whose class body (kept in its
module unit by a decorator that calls) stores ``test_changed_value``; that counted as a
read of every binding of the name, ``TestSerializer.test_changed_value``'s header among
them, whose annotation reads ``Serializer``: a ``TypeVar`` edit in ``serializer.py`` ran
every ``TestSigner`` test (4dffa1963f, reks 272 tests, testmon 233). An attribute store
(``obj.x = v``) still reads: a new property ``x`` would take it."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_name_only_stored_reads_no_binding(pytester: pytest.Pytester) -> None:
    write(pytester, "mod.py", "LIMIT = 3\n\n\ndef helper():\n    return 1\n")
    write(
        pytester,
        "test_a.py",
        """
        import pytest

        from mod import helper


        class TestA:
            @pytest.mark.parametrize("x", [helper()])  # a call: the class stays in the module unit
            def test_x(self, x):
                assert x == 1

            def test_other(self):
                assert True
        """,
    )
    write(
        pytester,
        "test_b.py",
        """
        import mod
        from mod import LIMIT
        from test_a import TestA  # noqa: F401 (collected here too)


        # A bound name as default cannot raise (``mod.LIMIT`` may, if ``LIMIT`` went:
        # every test importing the module would depend on it, ``test_annotation_aliases``).
        class Limits:
            def test_other(self, limit=LIMIT):
                return limit


        def test_limit():
            assert mod.LIMIT > 0
        """,
    )
    assert run(pytester) == {"TestA::test_x[1]", "TestA::test_other", "test_limit"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_limit"}


def test_an_attribute_store_reads_the_new_property(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "box.py",
        """
        class Box:
            def __init__(self):
                self.size = 1


        class Other:
            pass
        """,
    )
    write(
        pytester,
        "test_box.py",
        """
        import box


        def test_size():
            assert box.Box().size == 1
        """,
    )
    assert run(pytester) == {"test_size"}
    # On Other, which the test never reached, the property changes no lookup it made
    # (``rts.member_receivers``); on Box it takes the store.
    edit(
        pytester,
        "box.py",
        "class Other:\n    pass",
        "class Other:\n    @property\n    def size(self):\n        return 2",
    )
    assert run(pytester) == set()
    edit(
        pytester,
        "box.py",
        "class Box:\n",
        "class Box:\n    @property\n    def size(self):\n        return 2\n\n",
    )
    assert run(pytester) == {"test_size"}
