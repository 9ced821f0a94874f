"""``importlib.import_module("pkg.mod")`` in code that reads names dynamically (``vars()``,
a ``__dict__`` handed on): a computed name could fetch any module, possibly one only another
test's file imported, so such code reads the session's listing (``rts.module_fetches``)
and reruns on any change anywhere. A constant absolute name fetches that one module (and
its packages): the code depends on them, as on a module it imports, and lists nothing
(toolz's ``test_curried_namespace`` ran at every commit of its history). Real pytest
sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

# ``vars()`` of a module and a ``__dict__`` handed to a call: the reads no call site tells.
_READER = """
import importlib


def curried_names():
    from importlib import import_module

    found = {fetch}
    return sorted(k for k, v in {{**vars(found), **found.__dict__}}.items() if callable(v))
"""
_FETCHES = {
    "import_module": 'importlib.import_module("{name}")',
    "local": 'import_module("{name}")',  # a local's call: imported in the function
    "__import__": '__import__("{name}").tools',  # the top package, then its attribute
}


def _project(pytester: pytest.Pytester, name: str = "pkg.tools", fetch: str = "") -> None:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/tools.py", "def alpha():\n    return 1\n")
    write(pytester, "other.py", "def beta():\n    return 2\n")
    spelled = _FETCHES[fetch or "import_module"].format(name=name)
    write(pytester, "reader.py", _READER.format(fetch=spelled))
    write(
        pytester,
        "test_fetches_by_name.py",
        """
        import reader


        def test_names():
            assert "alpha" in reader.curried_names()
        """,
    )
    write(
        pytester,
        "test_beside_fetches.py",
        "import other\n\n\ndef test_beta():\n    assert other.beta() == 2\n",
    )
    assert {"test_names", "test_beta"} <= run(pytester)


@pytest.mark.parametrize("fetch", sorted(_FETCHES))
def test_a_change_elsewhere_does_not_select_a_constant_fetch(
    pytester: pytest.Pytester, fetch: str
) -> None:
    _project(pytester, fetch=fetch)
    edit(pytester, "other.py", "return 2", "return 1 + 1")
    assert run(pytester) == {"test_beta"}


def test_a_change_to_the_fetched_module_selects_it(pytester: pytest.Pytester) -> None:
    _project(pytester)
    edit(pytester, "pkg/tools.py", "def alpha", "def omega")
    ran, failed = ran_and_failed(pytester)
    assert "test_names" in ran and failed == {"test_names"}


def test_a_change_to_the_fetched_modules_package_selects_it(pytester: pytest.Pytester) -> None:
    # Fetching ``pkg.tools`` runs ``pkg/__init__.py`` first: a failing package fails it.
    _project(pytester)
    edit(pytester, "pkg/__init__.py", "", "raise ImportError('gone')\n")
    ran, failed = ran_and_failed(pytester)
    assert "test_names" in ran and "test_names" in failed


def test_a_computed_name_still_lists(pytester: pytest.Pytester) -> None:
    # ``"pkg." + "tools"`` is folded to a constant by the compiler: a name built at run time
    # from a call could be any module.
    _project(pytester, name='" + ".".join(["pkg", "tools"]) + "')
    edit(pytester, "other.py", "return 2", "return 1 + 1")
    assert run(pytester) == {"test_beta", "test_names"}


def test_a_computed_fetch_by_a_local_lists(pytester: pytest.Pytester) -> None:
    # ``import_module`` imported in the function is a local: on e1ec010 only a global's or
    # an attribute's load counted as a fetch. ``pkg.tools`` is loaded already (another test
    # file imports it), so no import runs while the test fetches it: only the listing tells.
    loads = "import pkg.tools\n\n\ndef test_loaded():\n    pass\n"
    write(pytester, "test_aaa_loads_tools.py", loads)
    _project(pytester, name='" + ".".join(["pkg", "tools"]) + "', fetch="local")
    edit(pytester, "pkg/tools.py", "def alpha", "def omega")
    ran, failed = ran_and_failed(pytester)
    assert "test_names" in ran and failed == {"test_names"}
