"""A module global or class attribute an earlier test rebound (and left so) is read by a
later test: in a full run after the code that chose the value changed, the later test reads
the new value. It depends on what ran in the tests that rebound it
(``rts.filled_containers``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

STATE = {
    "global": (
        "_MODE = 'plain'\n\n\ndef enable():\n    global _MODE\n    _MODE = choose()\n\n\n"
        "def mode():\n    return _MODE\n"
    ),
    "class attribute": (
        "class Settings:\n    mode = 'plain'\n\n    @classmethod\n    def enable(cls):\n"
        "        cls.mode = choose()\n\n\ndef enable():\n    Settings.enable()\n\n\n"
        "def mode():\n    return Settings.mode\n"
    ),
}


@pytest.mark.parametrize("state", sorted(STATE))
def test_a_test_reading_state_an_earlier_test_set_depends_on_what_set_it(
    pytester: pytest.Pytester, state: str
) -> None:
    write(
        pytester,
        "mod.py",
        "def choose():\n    return 'fast'\n\n\n"
        + STATE[state]
        + "\n\ndef other():\n    return 0\n",
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_enables():
            mod.enable()


        def test_reads():
            assert mod.mode() == "fast"


        def test_other():
            assert mod.other() == 0
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_enables", "test_reads", "test_other"}
    edit(pytester, "mod.py", "return 'fast'", "return 'slow'")
    assert run(pytester) == {"test_enables", "test_reads"}


def test_state_a_fixture_restores_adds_nothing(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        def choose():
            return 'fast'


        _MODE = 'plain'


        def mode():
            return _MODE


        def other():
            return 0
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_patches(monkeypatch):
            monkeypatch.setattr(mod, "_MODE", mod.choose())
            assert mod.mode() == "fast"


        def test_reads():
            assert mod.mode() == "plain"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_patches", "test_reads"}
    edit(pytester, "mod.py", "return 'fast'", "return 'slow'")
    assert run(pytester) == {"test_patches"}


def test_a_submodule_bound_on_its_package_by_an_earlier_import(pytester: pytest.Pytester) -> None:
    """Importing ``pkg.api`` binds ``api`` on ``pkg``: a later test that imports it itself
    gets it whatever ran before, and does not depend on the test that imported it first
    (``test_from_import_names`` selected every test importing the module at run time). A
    later test reading ``pkg.api`` without importing it does: without the earlier import it
    fails."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/api.py", "def run(x):\n    return x\n\n\ndef unrelated():\n    return 2\n")
    write(
        pytester,
        "test_a.py",
        """
        def test_first():
            from pkg import api

            assert api.run(1) == 1


        def test_imports_itself():
            from pkg import api

            assert api.unrelated() == 2
        """,
    )
    write(
        pytester,
        "test_b.py",
        """
        import pkg


        def test_relies_on_the_earlier_import():
            assert pkg.api.unrelated() == 2
        """,
    )
    assert run(pytester, "-p", "no:randomly") == {
        "test_first",
        "test_imports_itself",
        "test_relies_on_the_earlier_import",
    }
    edit(pytester, "pkg/api.py", "return x", "return x + 0")
    assert run(pytester, "-p", "no:randomly") == {"test_first", "test_relies_on_the_earlier_import"}
