"""A binding read by a name that is data, not code: ``eval``/``exec`` text, a function's
``__globals__``, a frame's ``f_globals``, ``operator.attrgetter``, ``inspect.getattr_static``.
A changed value of that binding must select the test that reads it that way (the last
three went unselected: the name never appears in the test's code)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

SHAPES = {
    "test_eval": 'assert eval("mod.VALUE") == 1',
    "test_exec": 'ns = {"mod": mod}\n    exec("v = mod.VALUE", ns)\n    assert ns["v"] == 1',
    "test_func_globals": 'assert mod.helper.__globals__["VA" + "LUE"] == 1',
    "test_frame_globals": 'assert mod.frame_read("VA" + "LUE") == 1',
    "test_attrgetter": 'import operator\n    assert operator.attrgetter("VA" + "LUE")(mod) == 1',
    "test_getattr_static": (
        'import inspect\n    assert inspect.getattr_static(mod, "VA" + "LUE") == 1'
    ),
}
# "VA" + "LUE" is folded into the constant "VALUE" when compiled, which counts as a read of
# the name by itself; a key built at run time is seen by no constant.
SHAPES.update(
    {
        f"{name}_computed": code.replace('"VA" + "LUE"', '"".join(["VA", "LUE"])')
        for name, code in SHAPES.items()
        if '"VA" + "LUE"' in code
    }
)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_binding_read_by_a_name_given_as_data_is_a_dependency(
    pytester: pytest.Pytester, shape: str
) -> None:
    write(
        pytester,
        "mod.py",
        """
        import sys

        VALUE = 1


        def helper():
            return 0


        def frame_read(name):
            return sys._getframe(0).f_globals[name]
        """,
    )
    write(
        pytester,
        "test_mod.py",
        f"import mod\n\n\ndef {shape}():\n    {SHAPES[shape]}\n\n\n"
        "def test_other():\n    assert mod.helper() == 0\n",
    )
    assert len(run(pytester, flag="--reks-all")) == 2
    edit(pytester, "mod.py", "VALUE = 1", "VALUE = 2")
    assert run(pytester) == {shape}
