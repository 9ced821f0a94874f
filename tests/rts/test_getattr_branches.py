"""A module ``__getattr__`` (PEP 562) whose body answers names by ``if name == "CONST":``
branches: a test depends on the branches for the names it looked up, not on every branch
(a conftest probing one absent name made every test depend on the whole function, so an
edit of the branch for a deprecated name ran the whole suite)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

# Only ``sys.monitoring`` (3.12+) tells the names asked; before, every run of the function
# depends on all of it (``test_a_tracer_not_telling_the_names_asked_keeps_every_branch``).
_NAMES_TOLD = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the 3.10/3.11 tracers do not tell the names asked"
)

_INIT = """
import os


def __getattr__(name):
    prefix = os.sep
    if name == "alpha":
        return prefix + "alpha"
    if name == "beta":
        return prefix + "beta"
    raise AttributeError(name)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", _INIT)
    write(
        pytester,
        "conftest.py",
        """
        import pkg

        PROBED = hasattr(pkg, "probe")
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import os

        import pkg


        def test_alpha():
            assert pkg.alpha == os.sep + "alpha"


        def test_beta():
            assert pkg.beta == os.sep + "beta"


        def test_missing():
            assert not hasattr(pkg, "gamma")


        def test_plain():
            assert pkg.__name__ == "pkg"
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 4
    return pytester


@_NAMES_TOLD
def test_editing_one_constant_branch_selects_the_tests_that_asked_its_name(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/__init__.py", 'return prefix + "alpha"', 'return prefix + "alpha" + ""')
    assert run(project) == {"test_alpha"}


def test_editing_the_code_outside_the_branches_selects_every_caller(
    project: pytest.Pytester,
) -> None:
    """The fall-through runs for every name no branch serves: the conftest's probe ran it
    for every test."""
    edit(project, "pkg/__init__.py", "raise AttributeError(name)", "raise AttributeError(name, 1)")
    assert run(project) == {"test_alpha", "test_beta", "test_missing", "test_plain"}


def test_a_branch_added_for_an_absent_name_selects_the_tests_that_asked_it(
    project: pytest.Pytester,
) -> None:
    """``hasattr(pkg, "gamma")`` was False: a branch serving ``gamma`` makes it True."""
    edit(
        project,
        "pkg/__init__.py",
        "    raise AttributeError",
        '    if name == "gamma":\n        return 3\n    raise AttributeError',
    )
    assert "test_missing" in run(project)


def test_a_condition_other_than_a_constant_keeps_the_function_whole(
    project: pytest.Pytester,
) -> None:
    edit(project, "pkg/__init__.py", 'if name == "alpha":', 'if name in ("alpha", "delta"):')
    run(project)
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_alpha", "test_beta", "test_missing", "test_plain"}


@_NAMES_TOLD
def test_names_taken_by_from_and_star_imports_ask_their_branches(
    project: pytest.Pytester,
) -> None:
    """``from pkg import beta`` and ``from pkg import *`` (``__all__`` lists ``alpha``) call
    ``__getattr__`` as the test module is imported: its every test asked the names."""
    edit(project, "pkg/__init__.py", "import os\n", 'import os\n\n__all__ = ["alpha"]\n')
    write(project, "test_from.py", "from pkg import beta\n\n\ndef test_from():\n    assert beta\n")
    write(project, "test_star.py", "from pkg import *\n\n\ndef test_star():\n    assert alpha\n")
    assert run(project) == {"test_from", "test_star"}
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_beta", "test_from"}
    edit(project, "pkg/__init__.py", 'return prefix + "alpha"', 'return prefix + "alpha" + ""')
    assert run(project) == {"test_alpha", "test_star"}


def test_a_module_asking_its_own_getattr_at_import_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "pkg/__init__.py",
        "raise AttributeError(name)\n",
        'raise AttributeError(name)\n\n\nBETA = __getattr__("beta")\n',
    )
    run(project)
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_alpha", "test_beta", "test_missing", "test_plain"}


@pytest.mark.parametrize("tracer", ["instrumented", "profile"])
def test_a_tracer_not_telling_the_names_asked_keeps_every_branch(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tracer: str
) -> None:
    """The 3.10/3.11 tracers see a call run, not the name it was asked: a run of the
    function depends on all of it."""
    monkeypatch.setenv("REKS_TRACER", tracer)
    assert len(run(project, flag="--reks-all")) == 4
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_alpha", "test_beta", "test_missing", "test_plain"}


@_NAMES_TOLD
def test_a_name_that_is_no_plain_string_asks_every_branch(
    project: pytest.Pytester,
) -> None:
    """A lookup may pass a ``str`` subclass equal to any name: its text tells nothing."""
    write(
        project,
        "test_direct.py",
        """
        import pkg


        class AnyName(str):
            def __eq__(self, other):
                return other == "beta"

            __hash__ = str.__hash__


        def test_direct():
            # No ``assert`` on a local: its rewriting reads ``locals()``, which reads any name.
            name = AnyName("alpha")
            found = getattr(pkg, name)
            if not found.endswith("beta"):
                raise AssertionError(found)
        """,
    )
    assert run(project) == {"test_direct"}
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_beta", "test_direct"}


_LOOKUPS = """
import pkg


class Holder:
    real = 1


NAMES = ["real"]


def test_lookup():
    # A computed name argument: no tracer tells the name, any binding may be found.
    found = getattr(Holder(), NAMES[0])
    if found != 1:
        raise AssertionError(found)


def test_module_lookup():
    name = "be" + "ta"
    found = getattr(pkg, name)
    if not found.endswith("beta"):
        raise AssertionError(found)
"""


@_NAMES_TOLD
def test_a_lookup_by_string_elsewhere_depends_on_no_branch(project: pytest.Pytester) -> None:
    """A lookup by a computed name depends on every binding of the test's modules (it may
    find any), not on the branches of a module ``__getattr__``: a lookup reaching one runs
    it, which tells the name (jinja 9c11dd65 edited the ``__version__`` branch: 832 of 911
    tests ran, each for ``Environment.getattr``'s ``getattr(obj, attribute)``)."""
    write(project, "test_lookups.py", _LOOKUPS)
    assert run(project) == {"test_lookup", "test_module_lookup"}
    edit(project, "pkg/__init__.py", 'return prefix + "beta"', 'return prefix + "beta" + ""')
    assert run(project) == {"test_beta", "test_module_lookup"}
