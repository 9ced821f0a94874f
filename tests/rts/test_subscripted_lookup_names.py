"""An attribute named like a lookup function but subscripted (jinja's
``context.vars["result"]``, ``environment.globals[name]``) is a container, never the builtin
``vars`` or ``globals`` (a function cannot be subscripted): the code looks no name up by
string, and a new binding elsewhere selects no test that ran it, on a real pytest session.
A namespace subscripted by a computed name (``frame.f_globals[name]``) still reads any."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("lookup", "reads_any"),
    [
        ('ctx.vars["result"]', False),
        ("ctx.globals[key]", False),
        ("ctx.f_globals[key]", True),
        # jinja's ``template.globals.update(globals)``, ``param in self.environment.globals``:
        # a function has no such method and is no container.
        ("ctx.globals.get(key)", False),
        ("key in ctx.globals", False),
        ("ctx.f_globals.get(key)", True),
    ],
)
def test_a_subscripted_lookup_name(pytester: pytest.Pytester, lookup: str, reads_any: bool) -> None:
    write(
        pytester,
        "mod.py",
        f"""
        import types


        def result(ctx, key):
            return {lookup}


        def make():
            names = {{"result": 1, "k": 1}}
            return types.SimpleNamespace(vars=names, globals=names, f_globals=names)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_result():
            assert mod.result(mod.make(), "k") in (1, None)
        """,
    )
    assert run(pytester) == {"test_result"}
    edit(pytester, "mod.py", "def make", "LIMIT = 3\n\n\ndef make")
    assert run(pytester) == ({"test_result"} if reads_any else set())
