"""Lookups by a name held in a variable (``getattr(module, name)`` over a table, as
``toolz._signatures`` does at import) depend on the names they really read, recorded at
run time, not on every binding of every module: a value change to a name never looked up
selects only the tests that read it otherwise; a change to a name looked up, a new binding
of a name looked up and found missing, and a change to the table select every test whose
modules ran the lookups."""

from __future__ import annotations

import sys
import textwrap

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pkg/__init__.py",
        """
        from . import sigs
        from .core import curry, other, uses_limit

        sigs.create_registry()
        """,
    )
    write(
        pytester,
        "pkg/sigs.py",
        """
        from importlib import import_module

        TABLE = {"pkg.core": ["curry", "missing_name"]}
        registry = {}


        def create_registry(table=TABLE):
            for module, names in table.items():
                module = import_module(module)
                for name in names:
                    if hasattr(module, name):
                        # A generator's code object runs on its own: no lookup in it.
                        registry[name] = (getattr(module, name), tuple(n for n in names))
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        """
        LIMIT = 3


        def curry():
            return 1


        def other():
            return 2


        def uses_limit():
            return LIMIT
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        from pkg import other, uses_limit


        def test_other():
            assert other() == 2


        def test_limit():
            assert uses_limit() == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_other", "test_limit"}


EVERY = {"test_other", "test_limit"}
# An edit of the registry project -> the tests it selects.
REGISTRY_EDITS = {
    # A value change to a name never looked up: only the tests that read it otherwise.
    "unread_value": ("pkg/core.py", "LIMIT = 3", "LIMIT = 4", {"test_limit"}),
    "new_unread_name": ("pkg/core.py", "LIMIT = 3", "LIMIT = 3\nUNUSED = 5", set()),
    # The registry holds what the lookups found: every importer sees these.
    "looked_up_changed": ("pkg/core.py", "def curry():", "def curry(a=0):", EVERY),
    "missing_now_bound": ("pkg/core.py", "LIMIT = 3", "LIMIT = 3\nmissing_name = 5", EVERY),
    "table_changed": ("pkg/sigs.py", '"missing_name"]', '"missing_name", "LIMIT"]', EVERY),
}


@pytest.mark.parametrize("case", sorted(REGISTRY_EDITS))
def test_a_registry_filled_at_import_depends_on_the_names_looked_up(
    pytester: pytest.Pytester, case: str
) -> None:
    path, old, new, expected = REGISTRY_EDITS[case]
    _project(pytester)
    edit(pytester, path, old, new)
    assert run(pytester) == expected


def test_a_lookup_in_a_test_depends_on_the_names_it_read(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3
        OTHER = 4


        def lookup(name):
            return getattr(__import__("sys").modules[__name__], name)


        def find(obj, name):
            return getattr(obj, name)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_find():
            assert mod.find(mod, "OT" + "HER") == 4


        def test_lookup():
            assert mod.lookup("OT" + "HER") == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find", "test_lookup"}
    # ``lookup`` reads ``sys.modules`` (a lookup by string of any module): conservative.
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == {"test_lookup"}
    edit(pytester, "mod.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == {"test_find", "test_lookup"}


# How ``find`` looks the name up -> whether only the names it read are dependencies.
FINDERS = {
    "plain": ("getattr(obj, name)", True),
    "inner_call": ("getattr(same(obj, same(1, 2)), name, None)", True),
    "hasattr": ("hasattr(obj, name) and getattr(obj, name)", True),
    "subscript": ("getattr(obj, names[0])", False),
    "conditional": ('getattr(obj, name if name else "LIMIT")', False),
    "alias": ("get = getattr; return get(obj, name)", False),
    "globals": ("globals(); return getattr(obj, name)", False),
}


@pytest.mark.parametrize("shape", sorted(FINDERS))
def test_only_a_name_read_from_a_plain_variable_is_recorded(
    pytester: pytest.Pytester, shape: str
) -> None:
    lookup, precise = FINDERS[shape]
    write(
        pytester,
        "mod.py",
        f"""
        LIMIT = 3
        OTHER = 4


        def same(obj, _=None):
            return obj


        def find(obj, name, names=()):
            {lookup if "return" in lookup else "return " + lookup}
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_find():
            assert mod.find(mod, "OT" + "HER", ["OTHER"]) == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == (set() if precise else {"test_find"})
    edit(pytester, "mod.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == {"test_find"}


def _after_an_unread_edit(pytester: pytest.Pytester, classes: str) -> set[str]:
    """The tests selected after a value change to ``LIMIT``, which no test reads, in a
    module holding ``classes`` whose bodies run at import."""
    write(pytester, "mod.py", f"LIMIT = 3\n\n{classes}\n\ndef other():\n    return 2\n")
    write(
        pytester, "test_mod.py", "import mod\n\n\ndef test_other():\n    assert mod.other() == 2\n"
    )
    assert run(pytester, flag="--reks-all") == {"test_other"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    return run(pytester)


def test_a_getter_made_in_a_class_body_reads_its_names(pytester: pytest.Pytester) -> None:
    # toolz's Compose: ``attrgetter("first")`` in a class body that runs a project
    # decorator (no binding of its own: the body runs in every importer's footprint).
    classes = textwrap.dedent(
        """
        from operator import attrgetter


        def noted(function):
            return function


        class Box:
            first = 1
            get_first = property(attrgetter("first"))

            @noted
            def get(self):
                return 1
        """
    )
    selected = _after_an_unread_edit(pytester, classes)
    # Before 3.12 the tracer cannot see a class called: the getter stays conservative.
    assert selected == (set() if sys.version_info >= (3, 12) else {"test_other"})
    edit(pytester, "mod.py", "first = 1", "first = 2")
    assert run(pytester) == {"test_other"}


def test_a_class_body_defining_getattr_looks_nothing_up(pytester: pytest.Pytester) -> None:
    # cachetools' ``_TimedCache._Timer`` defines ``__getattr__``: the body binds the name,
    # it reads no binding by string (the method's own lookups count when it runs).
    classes = textwrap.dedent(
        """
        class Outer:
            class Timer:
                def __getattr__(self, name):
                    return getattr(int, name)
        """
    )
    assert _after_an_unread_edit(pytester, classes) == set()


def test_parametrized_cases_that_look_up_different_names_each_depend_on_their_own(
    pytester: pytest.Pytester,
) -> None:
    """Cases that run the same code share one computed answer (the recorder keeps it), but
    a lookup that read a name no earlier case read makes the next answer a new one."""
    write(
        pytester,
        "mod.py",
        """
        FIRST = 1
        SECOND = 2


        def find(obj, name):
            return getattr(obj, name)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import pytest

        import mod


        @pytest.mark.parametrize("name", ["FIRST", "SECOND"])
        def test_find(name):
            assert mod.find(mod, name) in (1, 2)
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find[FIRST]", "test_find[SECOND]"}
    edit(pytester, "mod.py", "SECOND = 2", "SECOND = 1")
    assert run(pytester) == {"test_find[SECOND]"}


# A ``__getattr__`` forwarding the name it was asked for (sqlparse's token types make
# each new kind at import: ``Token.Text`` runs it, and it calls ``super().__getattr__``).
FORWARDING_KINDS = """
LIMIT = 3


class Kind(tuple):
    def __getattr__(self, name):
        if name.startswith("__"):
            return super().__getattr__(self, name)
        new = Kind(self + (name,))
        setattr(self, name, new)
        return new


Root = Kind()
Text = Root.Text


def other():
    return 2
"""


def test_a_getattr_forwarding_its_own_name_reads_only_that_name(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "mod.py", FORWARDING_KINDS)
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_other():
            assert mod.other() == 2


        def test_text():
            assert mod.Text == ("Text",)
        """,
    )
    every = {"test_other", "test_text"}
    assert run(pytester, flag="--reks-all") == every
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == set()
    # What the method does is still a dependency of every test that imports the module.
    edit(pytester, "mod.py", "Kind(self + (name,))", "Kind(self + (name,) * 1)")
    assert run(pytester) == every


@pytest.mark.parametrize(
    ("call", "precise"),
    [
        ("type.__getattribute__(kind, name)", True),
        ("super(type, kind).__getattribute__(name)", True),
        ("type.__getattribute__(kind, name.lower())", False),
        ("type.__getattribute__(kind, self.other)", False),
    ],
)
def test_a_forwarded_lookup_by_a_computed_name_reads_every_name(
    pytester: pytest.Pytester, call: str, precise: bool
) -> None:
    classes = textwrap.dedent(
        f"""
        class Box:
            other = "__name__"

            def __getattr__(self, name):
                kind = type(self)
                return {call}


        NAME = Box().__name__
        """
    )
    selected = _after_an_unread_edit(pytester, classes)
    assert selected == (set() if precise else {"test_other"})


# What ``vars`` is given -> whether it may read bindings (sqlparse's cli reads
# ``vars(args)`` of an argparse namespace: every cli test depended on every unit).
VARS_OF = {
    "instance": ("argparse.Namespace(a=1)", True),
    "module": ("mod", False),
    "class": ("mod.Box", False),
}


@pytest.mark.parametrize("given", sorted(VARS_OF))
def test_vars_of_an_instance_reads_no_binding(pytester: pytest.Pytester, given: str) -> None:
    argument, precise = VARS_OF[given]
    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3


        class Box:
            size = 1


        def options(obj):
            return sorted(vars(obj))
        """,
    )
    write(
        pytester,
        "test_mod.py",
        f"""
        import argparse

        import mod


        def test_options():
            assert mod.options({argument})
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_options"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == (set() if precise else {"test_options"})


def test_a_hot_lookup_of_a_constant_name_stays_precise(pytester: pytest.Pytester) -> None:
    """sqlparse's ``setattr(token, 'parent', self)`` runs once per token: a constant name
    reads the same name every time, so once recorded its site stops calling back (a tenth
    of a recording run went into those calls) and never counts against ``MAX_CALLS``,
    which made the whole function read every name, its lookup by a variable too."""
    from lsp_server.rts.runtime_lookups import MAX_CALLS

    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3
        OTHER = 4


        class Token:
            pass


        def attach(tokens, parent, name):
            for token in tokens:
                setattr(token, "parent", parent)
            return getattr(parent, name)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        f"""
        import mod


        def test_attach():
            tokens = [mod.Token() for _ in range({MAX_CALLS + 1})]
            assert mod.attach(tokens, mod, "OTHER") == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_attach"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == set()
    edit(pytester, "mod.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == {"test_attach"}


def test_a_project_method_named_like_a_lookup_looks_nothing_up(
    pytester: pytest.Pytester,
) -> None:
    # jinja's ``eval_ctx.environment.getattr(obj, self.attr)``: a project method called
    # getattr, with a computed argument. What it runs is traced and judged on its own.
    write(
        pytester,
        "env.py",
        """
        class Env:
            def getattr(self, obj, name):
                return obj.get(name)
        """,
    )
    write(
        pytester,
        "mod.py",
        """
        from env import Env


        def render(env, data, key):
            return env.getattr(data, key.strip())
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_render():
            assert mod.render(mod.Env(), {"a": 1}, " a ") == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_render"}
    edit(pytester, "mod.py", "def render", "LIMIT = 3\n\n\ndef render")
    # Before 3.12 the tracer cannot see which callable a call site called: conservative.
    assert run(pytester) == (set() if sys.version_info >= (3, 12) else {"test_render"})


def test_a_method_named_getattr_does_not_hide_the_builtin_from_its_class(
    pytester: pytest.Pytester,
) -> None:
    # jinja's ``Environment.getattr`` calls the builtin ``getattr(obj, attribute)``: a
    # method's name binds a class attribute, not a global, so the builtin's calls in the
    # class's methods are recorded as they run (before: every binding of the module).
    write(
        pytester,
        "env.py",
        """
        LIMIT = 3
        OTHER = 4


        class Env:
            def getattr(self, obj, name):
                return getattr(obj, name)
        """,
    )
    write(
        pytester,
        "test_env.py",
        """
        import env


        def test_lookup():
            found = env.Env().getattr(env, "OTHER")
            assert found == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_lookup"}
    edit(pytester, "env.py", "LIMIT = 3", "LIMIT = 5")
    # Before 3.12 the test's own call of a method spelled getattr stays conservative.
    assert run(pytester) == (set() if sys.version_info >= (3, 12) else {"test_lookup"})
    edit(pytester, "env.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == {"test_lookup"}


def _import_string_project(pytester: pytest.Pytester) -> None:
    # jinja's ``utils.import_string``, run at import by every module making an
    # ``Environment(extensions=["pkg.ext.I18n"])``.
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester,
        "pkg/utils.py",
        """
        def import_string(import_name):
            module, _, obj = import_name.rpartition(".")
            return getattr(__import__(module, None, None, [obj]), obj)
        """,
    )
    write(pytester, "pkg/ext.py", "class I18n:\n    pass\n\n\nOTHER = 4\n")
    write(
        pytester,
        "pkg/core.py",
        """
        from pkg.utils import import_string

        LIMIT = 3
        EXTENSION = import_string("pkg.ext.I18n")


        def other():
            return 2
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        from pkg import core


        def test_other():
            assert core.other() == 2
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_other"}


def test_an_import_by_name_reads_its_module_and_the_names_it_takes(
    pytester: pytest.Pytester,
) -> None:
    _import_string_project(pytester)
    edit(pytester, "pkg/core.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == set()
    edit(pytester, "pkg/ext.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == set()
    edit(pytester, "pkg/ext.py", "    pass", "    name = 'i18n'")
    assert run(pytester) == {"test_other"}


def test_an_import_by_name_sees_a_new_binding_of_a_name_it_took(
    pytester: pytest.Pytester,
) -> None:
    _import_string_project(pytester)
    edit(pytester, "pkg/ext.py", "OTHER = 4", "OTHER = 4\nI18n = int")
    assert run(pytester) == {"test_other"}


def test_a_lookup_hot_over_the_session_but_not_in_one_test_stays_precise(
    pytester: pytest.Pytester,
) -> None:
    """A visitor's ``getattr(node, field)`` (pyflakes's ``iter_child_nodes``) runs a few
    hundred times in each test and past ``MAX_CALLS`` over the suite: counted over the
    session, the tests after that point read every name of every module they imported,
    and a version bump in the package's ``__init__`` selected the whole suite."""
    from lsp_server.rts.runtime_lookups import MAX_CALLS

    per_test = MAX_CALLS // 3 + 1
    write(pytester, "pkg/__init__.py", "__version__ = '1.0'\n")
    write(
        pytester,
        "pkg/walk.py",
        """
        class Node:
            left = 1
            right = 2


        def fields(node, names):
            return [getattr(node, name) for name in names]
        """,
    )
    tests = "\n".join(
        f"""
def test_walk_{i}():
    assert walk.fields(walk.Node(), ["left", "right"] * {per_test // 2})[:2] == [1, 2]
"""
        for i in range(4)
    )
    write(pytester, "test_walk.py", "from pkg import walk\n" + tests)
    names = {f"test_walk_{i}" for i in range(4)}
    assert run(pytester, flag="--reks-all") == names
    edit(pytester, "pkg/__init__.py", "'1.0'", "'1.1'")
    assert run(pytester) == set()
    edit(pytester, "pkg/walk.py", "right = 2", "right = 3")
    assert run(pytester) == names
