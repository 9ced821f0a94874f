"""A function decorated by a project decorator hands only the function to that decorator
at import: the calls in its body (builtins, methods) run later, traced, and are no calls
of library code at import (jinja's ``@pass_eval_context def do_xmlattr``, whose body calls
``isinstance`` and ``d.items()``). A test that refers to the function without running it
does not see its body; a library decorator still may."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester, decorator: str) -> None:
    write(
        pytester,
        "marks.py",
        """
        def tag(f):
            f.tagged = True
            return f
        """,
    )
    write(
        pytester,
        "engine.py",
        f"""
        import functools

        from marks import tag


        {decorator}
        def render(d):
            return sorted(isinstance(k, str) for k in d.items())
        """,
    )
    write(
        pytester,
        "test_engine_case.py",
        """
        import engine


        def test_render():
            assert engine.render({"a": 1}) == [False]


        def test_refers():
            assert callable(engine.render)
        """,
    )
    assert run(pytester) == {"test_render", "test_refers"}
    edit(pytester, "engine.py", "return sorted(", "return list(")


def test_a_project_decorator_is_handed_the_function_not_its_body(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, "@tag")
    assert run(pytester) == {"test_render"}


def test_a_library_decorator_may_see_the_body(pytester: pytest.Pytester) -> None:
    _project(pytester, "@functools.singledispatch")
    assert run(pytester) == {"test_render", "test_refers"}
