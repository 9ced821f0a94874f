"""A top-level ``from .encoding import want_bytes`` reads ``want_bytes`` off ``pkg.encoding``
alone (``rts.from_import_reads``), on real pytest sessions: itsdangerous e5295938 added that
import to the package's ``__init__`` and the 396 tests whose modules imported the name
elsewhere reran (pytest-testmon: 0). A binding that can change what the import or a
reader of the name finds still selects: a new one in the module imported from, in the
importing module, or in a module the one imported from star-imports."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from .encoding import base64_encode\n")
    write(
        pytester,
        "pkg/encoding.py",
        """
        def want_bytes(s):
            return s.encode() if isinstance(s, str) else s


        def base64_encode(s):
            return want_bytes(s)
        """,
    )
    write(
        pytester,
        "pkg/signer.py",
        """
        from .encoding import want_bytes


        def sign(value):
            return want_bytes(value) + b"."
        """,
    )
    write(
        pytester,
        "test_signer.py",
        """
        from pkg.signer import sign


        def test_sign():
            assert sign("a") == b"a."
        """,
    )
    assert run(pytester) == {"test_sign"}
    return pytester


def test_a_package_importing_a_name_its_modules_import_selects_no_test(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "pkg/__init__.py",
        "base64_encode\n",
        "base64_encode\nfrom .encoding import want_bytes\n",
    )
    assert run(project) == set()


def test_a_new_binding_in_the_module_imported_from_selects_the_reader(
    pytester: pytest.Pytester,
) -> None:
    # encoding.py takes the name from base.py in turn; a def added below that import
    # rebinds it there, a binding unit new in the module signer.py imports from.
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/base.py", "def want_bytes(s):\n    return s.encode()\n")
    write(pytester, "pkg/encoding.py", "from .base import want_bytes\n\nLIMIT = 1\n")
    write(
        pytester,
        "pkg/signer.py",
        "from .encoding import want_bytes\n\n\ndef sign(value):\n    return want_bytes(value)\n",
    )
    write(
        pytester,
        "test_signer.py",
        "from pkg.signer import sign\n\n\ndef test_sign():\n    assert sign('a') == b'a'\n",
    )
    assert run(pytester) == {"test_sign"}
    edit(pytester, "pkg/encoding.py", "LIMIT = 1\n", "\ndef want_bytes(s):\n    return b'shadow'\n")
    assert ran_and_failed(pytester) == ({"test_sign"}, {"test_sign"})


def test_a_new_binding_in_the_importing_module_selects_the_reader(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "pkg/signer.py",
        "\n\ndef sign",
        "\n\ndef want_bytes(value):\n    return b'mine'\n\n\ndef sign",
    )
    assert ran_and_failed(project) == ({"test_sign"}, {"test_sign"})


def test_a_new_binding_in_a_module_the_one_imported_from_star_imports_selects_the_reader(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/impl.py", "def want_bytes(s):\n    return s.encode()\n")
    write(pytester, "pkg/extra.py", "LIMIT = 1\n")
    write(pytester, "pkg/encoding.py", "from .impl import *\nfrom .extra import *\n")
    write(
        pytester,
        "pkg/signer.py",
        "from .encoding import want_bytes\n\n\ndef sign(value):\n    return want_bytes(value)\n",
    )
    write(
        pytester,
        "test_signer.py",
        "from pkg.signer import sign\n\n\ndef test_sign():\n    assert sign('a') == b'a'\n",
    )
    assert run(pytester) == {"test_sign"}
    edit(pytester, "pkg/extra.py", "LIMIT = 1\n", "def want_bytes(s):\n    return b'extra'\n")
    assert ran_and_failed(pytester) == ({"test_sign"}, {"test_sign"})
