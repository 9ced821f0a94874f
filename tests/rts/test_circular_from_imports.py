"""A top-level ``from`` import added to a module that a package (or another module) is
still running: what the statement runs may read that module's namespace half done, on
real pytest sessions.

Found while guarding ``rts.version_guards``' ``TYPE_CHECKING`` rule: a new ``from pkg
import Schema`` in a module that ``pkg/__init__`` imports closes the cycle. That shape is
selected (``rts.from_import_checks``: ``pkg`` runs the importing module, so its names are
not surely bound when asked); a test file importing ``pkg`` at its top fails at
collection, whatever is selected. The hole was one step further: the added statement runs
another module, which reads the half-run namespace; a ``try``/``except ImportError`` there
turns the miss into another value, not an error, and the test importing that module at its
top was judged to see only the moment move (``rts.running_imports``)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


def test_a_new_circular_from_import_selects_every_importer(pytester: pytest.Pytester) -> None:
    """The importer imports ``pkg`` inside the test (at its top, collection fails)."""
    write(pytester, "pkg/__init__.py", "from pkg.schema import Schema\n")
    write(pytester, "pkg/registry.py", "def register(name, cls):\n    return name\n")
    write(
        pytester,
        "pkg/schema.py",
        "from pkg import registry\n\n\nclass Schema:\n    name = registry.register('S', 1)\n",
    )
    write(
        pytester,
        "test_schema.py",
        "def test_name():\n    from pkg import Schema\n\n    assert Schema.name == 'S'\n",
    )
    assert run(pytester) == {"test_name"}
    edit(pytester, "pkg/registry.py", "def register", "from pkg import Schema\n\n\ndef register")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_name"} and failed <= ran


# ``pkg`` runs ``pkg.b`` first, then binds ``Y`` and imports ``pkg.c`` (which binds ``Z``
# after importing ``pkg.b`` too): while ``b`` runs, ``pkg`` and ``c`` are half done.
_PACKAGE = "import pkg.c\nfrom pkg.b import B\n\nY = 1\n"
_C = "from pkg.b import B\n\nZ = 3\nD = 4\n"


def _half_run_project(pytester: pytest.Pytester, reader: str, value: str) -> None:
    """``pkg.a`` runs ``reader`` (its only code); ``test_a`` imports ``pkg.a`` at its top
    and checks ``pkg.a.VALUE == value`` (true while ``a`` runs after ``pkg`` is done)."""
    write(pytester, "pkg/__init__.py", _PACKAGE)
    write(pytester, "pkg/b.py", "B = 2\n")
    write(pytester, "pkg/c.py", _C)
    write(pytester, "pkg/d.py", "D = 4\n")
    write(pytester, "pkg/a.py", reader)
    write(
        pytester,
        "test_a.py",
        f"import pkg.a\n\n\ndef test_value():\n    assert pkg.a.VALUE == {value}\n",
    )
    write(pytester, "test_b.py", "import pkg.b\n\n\ndef test_b():\n    assert pkg.b.B == 2\n")
    assert run(pytester) == {"test_value", "test_b"}
    # ``b`` now runs ``a`` inside the import of ``pkg`` (and of ``c``).
    edit(pytester, "pkg/b.py", "B = 2\n", "from pkg.a import VALUE as SEEN\n\nB = 2\n")


def _optional(statement: str, name: str) -> str:
    return f"try:\n    {statement}\nexcept ImportError:\n    {name} = None\n\nVALUE = {name}\n"


# ``import pkg`` reads nothing yet; the attribute read after it finds ``Y`` missing.
_ATTRIBUTE = "import pkg\n\ntry:\n    VALUE = pkg.Y\nexcept AttributeError:\n    VALUE = None\n"


@pytest.mark.parametrize(
    ("reader", "value"),
    [
        pytest.param(_optional("from pkg import Y", "Y"), "1", id="package"),
        pytest.param(_optional("from . import Y", "Y"), "1", id="relative"),
        pytest.param(_optional("from pkg.c import Z", "Z"), "3", id="module"),
        pytest.param(_ATTRIBUTE, "1", id="plain-import"),
    ],
)
def test_a_module_run_by_the_new_import_reads_a_half_run_namespace(
    pytester: pytest.Pytester, reader: str, value: str
) -> None:
    """``a`` takes a name of ``pkg`` (or of ``c``), which is not bound yet when ``b`` runs
    ``a``: its fallback is taken, and the test importing ``a`` anyway must run (and fail).
    ``c`` is a plain module, no package above ``a``: reading it closes a cycle through
    ``b``, which was seen before too (``ImportResolver.run_closure``)."""
    _half_run_project(pytester, reader, value)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_value"} and failed <= ran


@pytest.mark.parametrize(
    "reader",
    [
        pytest.param("from pkg import d\n\nVALUE = d.D\n", id="submodule"),
        pytest.param("from pkg.d import D\n\nVALUE = D\n", id="whole-module"),
    ],
)
def test_a_module_run_by_the_new_import_reads_no_half_run_name(
    pytester: pytest.Pytester, reader: str
) -> None:
    """``a`` takes a submodule of the half-run ``pkg`` (the import system finds it in
    ``sys.modules``) or a name of a module no import in progress runs: the test importing
    ``a`` anyway sees only the moment move; the test of ``b`` does not import ``a``."""
    _half_run_project(pytester, reader, "4")
    assert run(pytester) == {"test_b"}
