"""A method listing its own ``self.__dict__`` (python-validators' ``ValidationError.__repr__``:
``{k: v for (k, v) in self.__dict__.items() if k != 'func'}``) reads its instance's
attributes: a name newly imported into a package's ``__init__`` (and listed in its
``__all__``) is none of them, yet reran its tests on 5 of 30 commits (``<import>.x`` and
``__all__.x`` units were taken for class attributes). ``self`` may be a module all the same
(``Lister.names(module)``): told as the line runs (3.12), the read is of every name there;
where no line is watched (3.11, a generator), the method reads every name wherever it runs."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

_LISTER = """
class Lister:
    def names(self):
        return sorted(k for k in self.__dict__ if not k.startswith("_"))

    def each_name(self):
        yield from sorted(k for k in self.__dict__ if not k.startswith("_"))
"""


@pytest.fixture
def package(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "checks/__init__.py",
        """
        from .utils import ValidationError
        from .between import between

        __all__ = ("ValidationError", "between")
        """,
    )
    write(
        pytester,
        "checks/utils.py",
        """
        class ValidationError(Exception):
            def __init__(self, function, arg_dict):
                self.func = function
                self.__dict__.update(arg_dict)

            def __repr__(self):
                return (
                    f"ValidationError(func={self.func.__name__}, "
                    + f"args={({k: v for (k, v) in self.__dict__.items() if k != 'func'})})"
                )
        """,
    )
    write(
        pytester,
        "checks/between.py",
        """
        from .utils import ValidationError


        def between(value, low, high):
            if low <= value <= high:
                return True
            return ValidationError(between, {"value": value, "low": low, "high": high})
        """,
    )
    write(
        pytester,
        "test_repr_case.py",
        """
        from checks import between


        def test_repr():
            assert "ValidationError(func=between" in repr(between(3, 4, 5))
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_repr"}
    return pytester


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the owner is told by 3.12's LINE events")
def test_a_name_imported_into_the_package_selects_no_repr(package: pytest.Pytester) -> None:
    edit(
        package,
        "checks/__init__.py",
        '__all__ = ("ValidationError", "between")',
        'from .between import between as near\n__all__ = ("ValidationError", "between", "near")',
    )
    assert run(package) == set()


def test_a_new_ancestor_of_the_instance_still_selects_repr(package: pytest.Pytester) -> None:
    edit(package, "checks/utils.py", "(Exception)", "(ValueError)")
    assert run(package) == {"test_repr"}


@pytest.fixture
def module_self(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "kit.py", _LISTER)
    write(pytester, "things.py", "from kit import Lister\nalpha = 1\n")
    write(
        pytester,
        "test_guard_case.py",
        """
        import things
        from kit import Lister


        def test_module_names():
            assert Lister.names(things) == ["Lister", "alpha"]


        def test_module_names_lazily():
            assert list(Lister.each_name(things)) == ["Lister", "alpha"]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_module_names", "test_module_names_lazily"}
    return pytester


@pytest.mark.parametrize("new", ["beta = 2", "from os import sep"])
def test_a_module_as_self_sees_a_new_name(module_self: pytest.Pytester, new: str) -> None:
    edit(module_self, "things.py", "alpha = 1\n", f"alpha = 1\n{new}\n")
    both = {"test_module_names", "test_module_names_lazily"}
    assert ran_and_failed(module_self) == (both, both)


_GETTER = """
class Getter:
    def find(self, head, tail):
        return getattr(self, head + tail, None)

    def each(self, head, tail):
        yield getattr(self, head + tail, None)
"""


def _getter(pytester: pytest.Pytester, tests: str) -> set[str]:
    """``Getter.find`` looks up a computed name in what it is handed as ``self`` (a module,
    ``things``; or an instance) by ``tests``; the tests a first run ran."""
    write(pytester, "kit.py", _GETTER)
    write(pytester, "things.py", "from kit import Getter\nalpha = 1\n")
    write(pytester, "test_getter_case.py", "import things\nfrom kit import Getter\n\n" + tests)
    return run(pytester, flag="--reks-all")


_MODULE_TEST = """
def test_module_name():
    assert Getter.find(things, "s", "ep") is None
"""
_MODULE_GENERATOR_TEST = """
def test_module_name():
    assert list(Getter.each(things, "s", "ep")) == [None]
"""
_INSTANCE_TEST = """
def test_instance_name():
    assert Getter().find("s", "ep") is None
"""


@pytest.mark.parametrize("tests", [_MODULE_TEST, _MODULE_GENERATOR_TEST])
@pytest.mark.parametrize("new", ["sep = 2", "from os import sep"])
def test_a_module_as_self_of_a_computed_getattr_sees_a_new_name(
    pytester: pytest.Pytester, new: str, tests: str
) -> None:
    # On e1ec010 (a strict xfail since f85e4cb): ``getattr(self, head + tail)`` read any
    # member of ``self``'s classes, never a module's global, and the test was not selected.
    assert _getter(pytester, tests) == {"test_module_name"}
    edit(pytester, "things.py", "alpha = 1\n", f"alpha = 1\n{new}\n")
    assert ran_and_failed(pytester) == ({"test_module_name"}, {"test_module_name"})


def test_an_instance_as_self_of_a_computed_getattr_reads_members_only(
    pytester: pytest.Pytester,
) -> None:
    # The instance's lookup finds no global of ``things``: told so (3.12's CALL event, the
    # fast local ``self`` read before), it reads members only; a new member selects it.
    assert _getter(pytester, _INSTANCE_TEST) == {"test_instance_name"}
    edit(pytester, "things.py", "alpha = 1\n", "alpha = 1\nsep = 2\n")
    assert run(pytester) == set()
    edit(pytester, "kit.py", "class Getter:\n", "class Getter:\n    sep = 2\n")
    assert ran_and_failed(pytester) == ({"test_instance_name"}, {"test_instance_name"})


def test_a_module_after_an_instance_at_the_same_site_sees_a_new_name(
    pytester: pytest.Pytester,
) -> None:
    # The site is handed an instance first, then the module (in another test): it is
    # watched on after the first call.
    assert _getter(pytester, _INSTANCE_TEST + _MODULE_TEST) == {
        "test_instance_name",
        "test_module_name",
    }
    edit(pytester, "things.py", "alpha = 1\n", "alpha = 1\nsep = 2\n")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_module_name"} <= ran
