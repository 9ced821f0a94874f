"""A quiet module deleted (python-validators ``4973c49`` moved ``btc_address.py``, which
took ``from hashlib import sha256``): a test reading the name ``sha256`` elsewhere (the
package's own ``sha256`` check) depended on the deleted module's binding of it too, and
ran. The binding was another module's object; the deleted namespace is reached only
through the module, which the tests reaching it see gone. Real pytest sessions on
temporary projects."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, write

pytest_plugins = ["pytester"]

_BTC = """
from hashlib import sha256


def btc(value):
    return len(sha256(value.encode()).hexdigest()) == 64
"""

_HASHES = """
import re


def sha256(value):
    return bool(re.fullmatch("[0-9a-f]{64}", value))
"""


def _project(pytester: pytest.Pytester, reader: str) -> None:
    """A package taking ``btc`` from ``coins.py`` (which binds hashlib's ``sha256``) and its
    own ``sha256`` check from ``hashes.py``; ``test_hashes`` calls the check and
    ``test_reader`` is ``reader``'s body."""
    write(pytester, "pkg/__init__.py", "from .coins import btc\nfrom .hashes import sha256\n")
    write(pytester, "pkg/coins.py", _BTC)
    write(pytester, "pkg/hashes.py", _HASHES)
    write(
        pytester,
        "test_hashes.py",
        "from pkg import sha256\n\n\ndef test_sha256():\n    assert sha256('a' * 64)\n",
    )
    write(pytester, "test_reader.py", f"def test_reader():\n    {reader}\n")
    assert ran_and_failed(pytester) == ({"test_sha256", "test_reader"}, set())


def _delete_coins(pytester: pytest.Pytester) -> None:
    (pytester.path / "pkg" / "coins.py").unlink()
    write(pytester, "pkg/__init__.py", "from .hashes import sha256\n")


def test_a_deleted_module_binding_a_read_name_by_an_import_selects_no_reader_of_the_name(
    pytester: pytest.Pytester,
) -> None:
    """Precision (failed on ``f67c5d1``: ``test_sha256`` ran, ``coins.py::sha256``
    deleted)."""
    _project(pytester, "assert True")
    _delete_coins(pytester)
    assert ran_and_failed(pytester) == (set(), set())


def test_a_test_reading_the_binding_through_the_package_attribute_is_selected(
    pytester: pytest.Pytester,
) -> None:
    """Guard: the test reads ``sha256`` in the deleted module's namespace, reached as its
    package's attribute: gone."""
    _project(pytester, "import pkg\n\n    assert pkg.coins.sha256")
    _delete_coins(pytester)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_reader"}
    assert "test_reader" in ran


def test_a_test_reading_the_binding_of_a_module_imported_by_name_is_selected(
    pytester: pytest.Pytester,
) -> None:
    """Guard: the test imports the deleted module by a name held in a string."""
    reader = 'import importlib\n\n    assert importlib.import_module("pkg.coins").sha256'
    _project(pytester, reader)
    _delete_coins(pytester)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_reader"}
    assert "test_reader" in ran
