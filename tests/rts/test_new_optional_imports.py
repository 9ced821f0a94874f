"""A package ``__init__`` starts importing a new module that takes an optional library in
``try: import lib`` / ``except ImportError: FLAG = False`` (python-validators ``4973c49``
moved ``btc_address.py`` into a new subpackage ``crypto_addresses`` beside a new
``eth_address.py``, which takes ``eth_hash`` so: 741 of 741 tests ran, testmon 25). The
``try`` raises nothing of its own when its handler catches ``ImportError`` and whichever
branch runs only imports and binds; its imports are then judged as top-level ones are
(``rts.quiet_modules``). Real pytest sessions on temporary projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

_CHECK = """
from helpers import checker


@checker
def new_check(value):
    return value == "new"
"""

_OPTIONAL = """
HAS_BACKEND = True
try:
    {body}
except {caught}:
    {handler}
"""

EVERY_IMPORTER = {"test_old", "test_registry_empty"}


@pytest.fixture
def checks_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A package exposing a check decorated by a ``@wraps`` wrapper of ``helpers``, which
    also holds a registry; each test imports the package itself (a failing import fails
    the test) and reads one thing of it."""
    write(
        pytester,
        "helpers.py",
        """
        from functools import wraps

        REGISTRY = []


        def checker(func):
            @wraps(func)
            def wrapper(*args):
                return bool(func(*args))

            return wrapper
        """,
    )
    write(pytester, "pkg/old.py", _CHECK.replace("new", "old"))
    write(pytester, "pkg/__init__.py", "from .old import old_check\n")
    write(
        pytester,
        "test_checks.py",
        """
        import helpers


        def test_old():
            from pkg import old_check

            assert old_check("old")


        def test_no_new_name():
            import pkg

            assert not hasattr(pkg, "new_check")


        def test_registry_empty():
            import pkg  # noqa: F401

            assert helpers.REGISTRY == []
        """,
    )
    assert run(pytester) == {"test_old", "test_no_new_name", "test_registry_empty"}
    return pytester


def _optional(body: str, handler: str = "HAS_BACKEND = False", caught: str = "ImportError") -> str:
    return _OPTIONAL.format(body=body, caught=caught, handler=handler) + _CHECK


def _import_new(pytester: pytest.Pytester, module: str) -> None:
    """A new subpackage ``crypto`` whose ``new`` module is ``module``; the package's
    ``__init__`` takes its check from there (``from .crypto import new_check``)."""
    write(pytester, "pkg/crypto/__init__.py", "from .new import new_check\n")
    write(pytester, "pkg/crypto/new.py", module)
    init = pytester.path / "pkg/__init__.py"
    init.write_text(init.read_text() + "from .crypto import new_check\n")


def test_new_module_taking_an_optional_stdlib_module_selects_only_the_readers_of_its_name(
    checks_project: pytest.Pytester,
) -> None:
    """Precision: ``try: import zlib`` / ``except ImportError:`` binds only the module's
    own names, whichever branch runs (failed on ``f67c5d1``: every importer ran)."""
    _import_new(checks_project, _optional("import zlib  # noqa: F401"))
    assert ran_and_failed(checks_project) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_new_module_taking_an_optional_project_module_selects_only_the_readers_of_its_name(
    checks_project: pytest.Pytester,
) -> None:
    """Precision: the optional module is a new project file that only defines (failed on
    ``f67c5d1``: every importer ran)."""
    write(checks_project, "pkg/crypto/backend.py", "def digest(data):\n    return data\n")
    _import_new(checks_project, _optional("from .backend import digest  # noqa: F401"))
    assert ran_and_failed(checks_project) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_optional_import_whose_handler_misses_import_error_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: ``except ModuleNotFoundError:`` does not catch the ``ImportError`` of a name
    the module lacks: the package's import fails."""
    body = "from json import no_such_name  # noqa: F401"
    _import_new(checks_project, _optional(body, caught="ModuleNotFoundError"))
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_import_whose_handler_raises_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the handler raises when the library is missing."""
    handler = 'raise RuntimeError("a backend is needed")'
    _import_new(checks_project, _optional("import not_installed_library_xyz", handler))
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_import_whose_handler_annotates_an_unbound_name_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the handler's annotated name binds nothing, but its annotation is evaluated
    and reads a name nothing binds."""
    handler = "LEVEL: undefined_level_type"
    _import_new(checks_project, _optional("import not_installed_library_xyz", handler))
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_import_under_a_rebound_import_error_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the module binds ``ImportError`` to another class, which its handler then
    catches instead."""
    module = "ImportError = KeyError\n" + _optional("import not_installed_library_xyz")
    _import_new(checks_project, module)
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_import_with_an_else_raising_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the ``else`` branch, run when the import succeeds, reads a name nothing
    binds."""
    module = _optional("import zlib  # noqa: F401").replace(
        "HAS_BACKEND = False\n", "HAS_BACKEND = False\nelse:\n    LEVEL = undefined_level\n", 1
    )
    _import_new(checks_project, module)
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_project_module_calling_at_import_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the optional module is a new project file filling the registry at import."""
    write(
        checks_project,
        "pkg/crypto/backend.py",
        'import helpers\n\nhelpers.REGISTRY.append("backend")\n',
    )
    _import_new(checks_project, _optional("from . import backend  # noqa: F401"))
    ran, failed = ran_and_failed(checks_project)
    assert failed == {"test_no_new_name", "test_registry_empty"}
    assert "test_old" in ran


def _installed(checks_project: pytest.Pytester, source: str) -> None:
    """A library ``ext_backend_xyz`` outside the project, on ``sys.path`` as an installed
    one is (reks does not track its code)."""
    site = checks_project.path.parent / f"{checks_project.path.name}-site"
    site.mkdir()
    (site / "ext_backend_xyz.py").write_text(source)
    checks_project.syspathinsert(Path(site))


def test_optional_library_raising_at_import_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the optional library is installed and raises at import something else than
    ``ImportError``."""
    _installed(checks_project, 'raise RuntimeError("no backend configured")\n')
    _import_new(checks_project, _optional("import ext_backend_xyz  # noqa: F401"))
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER


def test_optional_library_filling_a_registry_at_import_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: the optional library is installed and fills the project's registry."""
    _installed(checks_project, 'import helpers\n\nhelpers.REGISTRY.append("ext")\n')
    _import_new(checks_project, _optional("import ext_backend_xyz  # noqa: F401"))
    ran, failed = ran_and_failed(checks_project)
    assert failed == {"test_no_new_name", "test_registry_empty"}
    assert "test_old" in ran


def test_optional_library_binding_only_selects_only_the_readers_of_its_name(
    checks_project: pytest.Pytester,
) -> None:
    """Precision: the optional library only defines and binds its own names, which its
    import, run once in a fresh process, shows (``rts.library_imports``; a strict xfail
    on ``9fb6b03``: every importer ran)."""
    _installed(checks_project, "def keccak(data):\n    return data\n")
    _import_new(checks_project, _optional("from ext_backend_xyz import keccak  # noqa: F401"))
    assert ran_and_failed(checks_project) == ({"test_no_new_name"}, {"test_no_new_name"})


def test_new_module_importing_a_missing_library_in_a_class_body_selects_every_importer(
    checks_project: pytest.Pytester,
) -> None:
    """Guard: a class body runs at import, and its import statement with it."""
    module = _CHECK + "\n\nclass Backend:\n    import not_installed_library_xyz  # noqa: F401\n"
    _import_new(checks_project, module)
    _, failed = ran_and_failed(checks_project)
    assert failed >= EVERY_IMPORTER
