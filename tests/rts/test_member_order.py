"""A class attribute that takes a name the class does not bind (``SIZE = len``) takes the
module's binding when one comes before the class, else the builtin (or the module's bound
by then): a module function moved above the class changes what the member holds, and the
tests reading the member run, in a class that is a binding as in one left in the module
unit (``rts.loose_assignments``)."""

from __future__ import annotations

import pytest

from .helpers import run, write

pytest_plugins = ["pytester"]

_LEN = "def len(items):\n    return -1\n"


@pytest.mark.parametrize(
    "effect", ["", "    extras = set()\n    extras.add(1)\n"], ids=["binding", "residue"]
)
def test_a_module_function_moved_above_the_class_runs_the_member_readers(
    pytester: pytest.Pytester, effect: str
) -> None:
    cls = (
        "class Visitor:\n"
        + effect
        + '    SIZE = len\n\n    def handle(self):\n        return "h"\n'
    )
    write(pytester, "visitor.py", cls + "\n\n" + _LEN)
    write(
        pytester,
        "test_visitor.py",
        """
        import visitor


        def test_size():
            assert visitor.Visitor.SIZE([1]) == 1


        def test_other():
            assert visitor.Visitor().handle() == "h"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_size", "test_other"}
    write(pytester, "visitor.py", _LEN + "\n\n" + cls)
    assert "test_size" in run(pytester)
