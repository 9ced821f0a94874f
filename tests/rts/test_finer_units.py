"""Units outside function bodies, on real pytest sessions: a test depends on the bindings
whose names it reads, and a new binding of a name it reads (shadowing a builtin or an
imported name) selects it; statements with effects at import still select every test of
the module."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "helpers.py", "def combine(a, b):\n    return a + b\n")
    write(
        pytester,
        "mod.py",
        """
        import functools
        from helpers import combine

        LIMIT = 3
        SCALE = LIMIT * 2


        def double(x):
            return x * 2


        def scaled(x):
            return x * SCALE


        class Shape:
            sides = 4
            corners = sides

            def area(self):
                return self.corners * 2


        def uses_len(items):
            return len(items)


        def uses_combine(a, b):
            return combine(a, b)


        @functools.lru_cache(maxsize=None)
        def cached(x):
            return x + 1
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_double():
            assert mod.double(2) == 4


        def test_scaled():
            assert mod.scaled(1) == 6


        def test_shape():
            assert mod.Shape().area() == 8


        def test_len():
            assert mod.uses_len([1, 2]) == 2


        def test_combine():
            assert mod.uses_combine(1, 2) == 3


        def test_cached():
            assert mod.cached(1) == 2
        """,
    )
    assert len(run(pytester)) == 6
    return pytester


def test_a_new_function_or_constant_nobody_reads_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "LIMIT = 3", "LIMIT = 3\nUNUSED = 7\n\n\ndef fresh():\n    return 1\n")
    assert run(project) == set()


def test_a_version_string_is_a_binding(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "LIMIT = 3", '__version__ = "1.0"\nLIMIT = 3')
    assert run(project) == set()
    edit(project, "mod.py", '__version__ = "1.0"', '__version__ = "1.1"')
    assert run(project) == set()


def test_a_constant_selects_the_tests_reading_it_through_other_bindings(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "LIMIT = 3", "LIMIT = 4")
    assert run(project) == {"test_scaled"}


def test_def_line_and_decorator_belong_to_their_function(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "def double(x):", "def double(x, unused=None):")
    assert run(project) == {"test_double"}
    edit(project, "mod.py", "lru_cache(maxsize=None)", "lru_cache(maxsize=8)")
    assert run(project) == {"test_cached"}


def test_class_body_order_and_attributes(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "    sides = 4", "    sides = 5")
    assert run(project) == {"test_shape"}


def test_a_new_function_shadowing_a_builtin_selects_its_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "mod.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef len(items):\n    return 0\n")
    assert run(project) == {"test_len"}


def test_a_new_function_shadowing_an_imported_name_selects_its_readers(
    project: pytest.Pytester,
) -> None:
    # Defined after the import, it replaces the imported `combine` in mod's namespace.
    edit(project, "mod.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef combine(a, b):\n    return a - b\n")
    assert run(project) == {"test_combine"}


def test_a_standard_library_import_is_a_binding(project: pytest.Pytester) -> None:
    # Nobody reads `json`: nothing runs.
    edit(project, "mod.py", "import functools", "import functools\nimport json")
    assert run(project) == set()
    # The same module under the same name: the binding is what the statement takes
    # (test_stdlib_import_names: a test reading a name that takes another module runs).
    edit(project, "mod.py", "import functools\n", "import functools as functools\n")
    assert run(project) == set()


def test_a_project_import_selects_every_test_of_the_module(project: pytest.Pytester) -> None:
    write(project, "side.py", "EFFECTS = []\n")
    edit(project, "mod.py", "import functools", "import functools\nimport side")
    assert len(run(project)) == 6


def test_a_future_import_selects_the_code_it_compiles_differently(
    project: pytest.Pytester,
) -> None:
    """``mod`` has no annotation: ``from __future__ import annotations`` changes none of its
    code (``rts.future``), until a function there compiles code (``eval`` inherits it)."""
    edit(
        project,
        "mod.py",
        "import functools",
        "from __future__ import annotations\nimport functools",
    )
    assert run(project) == set()
    edit(project, "mod.py", "return x * 2", "return eval('x * 2')")
    assert len(run(project)) == 6
    edit(project, "mod.py", "from __future__ import annotations\n", "")
    assert len(run(project)) == 6


def test_star_import_and_all(pytester: pytest.Pytester) -> None:
    write(pytester, "star.py", '__all__ = ["one"]\n\n\ndef one():\n    return 1\n')
    write(pytester, "plain.py", "def two():\n    return 2\n")
    write(
        pytester,
        "user.py",
        "from star import *\nfrom plain import *\n\n\ndef count(xs):\n    return len(xs) + one()\n",
    )
    write(
        pytester,
        "test_user.py",
        "import user\n\n\ndef test_count():\n    assert user.count([1]) == 2\n",
    )
    write(pytester, "test_other.py", "def test_other():\n    assert True\n")
    assert run(pytester) == {"test_count", "test_other"}
    # `__all__` decides what the star import binds: the same names listed twice bind the
    # same (rts.star_listings); a name listed anew is seen by its readers.
    edit(pytester, "star.py", '__all__ = ["one"]', '__all__ = ["one", "one"]')
    assert run(pytester) == set()
    edit(pytester, "star.py", '__all__ = ["one", "one"]', '__all__ = ["one", "len"]\nlen = 5')
    assert run(pytester) == {"test_count"}
    edit(pytester, "star.py", '__all__ = ["one", "len"]', '__all__ = ["one"]')
    assert run(pytester) == {"test_count"}
    # A new public function of a module imported with `*` shadows the builtin `len`.
    edit(pytester, "plain.py", "def two", "def len(xs):\n    return 5\n\n\ndef two")
    assert run(pytester) == {"test_count"}


def test_all_is_seen_by_its_readers_not_every_importer(pytester: pytest.Pytester) -> None:
    write(pytester, "lib.py", '__all__ = ["one"]\n\n\ndef one():\n    return 1\n')
    write(pytester, "user.py", "from lib import *\n")
    write(
        pytester,
        "test_lib.py",
        """
        import lib


        def test_one():
            assert lib.one() == 1


        def test_exports():
            assert "one" in lib.__all__
        """,
    )
    star_test = "import user\n\n\ndef test_star():\n    assert user.one() == 1\n"
    write(pytester, "test_user.py", star_test)
    assert run(pytester) == {"test_one", "test_exports", "test_star"}
    edit(pytester, "lib.py", '__all__ = ["one"]', '__all__ = ["one", "two"]\ntwo = 2')
    assert run(pytester) == {"test_exports"}  # test_star reads no name listed anew
    edit(pytester, "lib.py", '__all__ = ["one", "two"]', '__all__ = ["two"]')
    # user.one is gone; test_one reads the name `one` too (which module's is not told).
    assert run(pytester) == {"test_one", "test_exports", "test_star"}


def test_lookups_by_string_make_a_test_depend_on_every_binding(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "registry.py",
        """
        def find(name):
            return globals().get(name, lambda: 0)()


        def one():
            return 1
        """,
    )
    write(
        pytester,
        "test_registry.py",
        """
        import registry


        def test_missing():
            assert registry.find("tw" + "o") == 0


        def test_direct():
            assert registry.one() == 1
        """,
    )
    assert run(pytester) == {"test_missing", "test_direct"}
    # Nothing reads `two` by its name, yet `find` now finds it.
    edit(pytester, "registry.py", "def one", "def two():\n    return 2\n\n\ndef one")
    assert run(pytester) == {"test_missing"}


def test_module_getattr(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "lazy.py",
        """
        def __getattr__(name):
            if name == "answer":
                return 42
            raise AttributeError(name)
        """,
    )
    write(
        pytester,
        "test_lazy.py",
        "import lazy\n\n\ndef test_answer():\n    assert lazy.answer == 42\n",
    )
    assert run(pytester) == {"test_answer"}
    # A real binding now wins over `__getattr__`.
    edit(pytester, "lazy.py", "def __getattr__", "answer = 41\n\n\ndef __getattr__")
    assert run(pytester) == {"test_answer"}


def test_init_subclass_and_metaclass_registries(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "base.py",
        """
        REGISTRY = []


        class Plugin:
            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                REGISTRY.append(cls.__name__)


        class Meta(type):
            def __new__(mcs, name, bases, namespace):
                REGISTRY.append(name.lower())
                return super().__new__(mcs, name, bases, namespace)
        """,
    )
    write(
        pytester,
        "plugins.py",
        "from base import Meta, Plugin\n\n\nclass A(Plugin):\n    pass\n\n\n"
        "class M(metaclass=Meta):\n    pass\n",
    )
    write(
        pytester,
        "test_plugins.py",
        """
        import base
        import plugins


        def test_registry():
            assert base.REGISTRY == ["A", "m"]
        """,
    )
    assert run(pytester) == {"test_registry"}
    # A new class is registered at import: nothing reads its name, yet the test sees it.
    plugins = (pytester.path / "plugins.py").read_text()
    (pytester.path / "plugins.py").write_text(plugins + "\n\nclass N(M):\n    pass\n")
    assert run(pytester) == {"test_registry"}  # and fails: the registry has "n"
    (pytester.path / "plugins.py").write_text(plugins)
    assert run(pytester) == {"test_registry"}  # failed last time
    edit(
        pytester, "plugins.py", "class A(Plugin)", "class B(Plugin):\n    pass\n\n\nclass A(Plugin)"
    )
    assert run(pytester) == {"test_registry"}


def test_conftest_fixtures_select_their_users(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "conftest.py",
        """
        import pytest


        @pytest.fixture
        def base():
            return 1


        @pytest.fixture
        def derived(base):
            return base + 1


        @pytest.fixture
        def other():
            return 3
        """,
    )
    write(
        pytester,
        "test_fix.py",
        """
        import pytest


        def test_base(base):
            assert base == 1


        def test_derived(derived):
            assert derived == 2


        def test_other(other):
            assert other == 3


        def test_none():
            assert True
        """,
    )
    assert len(run(pytester)) == 4
    edit(pytester, "conftest.py", "return 1", "return 2 - 1")
    assert run(pytester) == {"test_base", "test_derived"}
    edit(pytester, "conftest.py", "return base + 1", "return 1 + base")
    assert run(pytester) == {"test_derived"}
    # A new fixture nobody uses: nothing; a fixture overriding one in the test file: its users.
    edit(
        pytester,
        "conftest.py",
        "def other",
        "def unused():\n    return 0\n\n\n@pytest.fixture\ndef other",
    )
    assert run(pytester) == set()
    edit(
        pytester,
        "test_fix.py",
        "def test_base",
        "@pytest.fixture\ndef other():\n    return 3\n\n\ndef test_base",
    )
    assert run(pytester) == {"test_other"}
    # An autouse fixture applies to every test below the conftest.
    edit(pytester, "conftest.py", "fixture\ndef unused", "fixture(autouse=True)\ndef unused")
    assert len(run(pytester)) == 4


def test_a_binding_that_raises_at_import_selects_every_importer(pytester: pytest.Pytester) -> None:
    """A binding nobody reads still runs at import: when it can raise there (a name not yet
    bound, a call), every test importing the module sees it. The tests import ``mod``
    inside their bodies, so that a broken import fails them rather than their collection."""
    write(
        pytester,
        "mod.py",
        """
        import typing

        LIMIT = 3


        def double(x):
            return x * 2


        def triple(x):
            return x * 3
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        def test_double():
            import mod

            assert mod.double(2) == 4


        def test_triple():
            import mod

            assert mod.triple(1) == 3
        """,
    )
    both = {"test_double", "test_triple"}
    assert run(pytester) == both
    # Bindings that cannot raise: nothing reads them, nothing runs.
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 3\nFRESH = (LIMIT, -1, {'k': [None]})")
    edit(pytester, "mod.py", "def triple(x):", "def triple(x: typing.Any, y: int = LIMIT):")
    assert run(pytester) == {"test_triple"}
    for broken in ("BROKEN = MISSING", "BROKEN = int('x')", "def g(x: Later): ..."):
        edit(pytester, "mod.py", "LIMIT = 3\n", f"LIMIT = 3\n{broken}\n")
        assert run(pytester) == both, broken
        edit(pytester, "mod.py", f"{broken}\n", "")
        assert run(pytester) == both, broken  # they failed last time
    edit(pytester, "mod.py", "def double(x):", "def double(x, y=typing.Missing):")
    assert run(pytester) == both
