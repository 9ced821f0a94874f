"""reks compiles the project's files into the workers' private bytecode cache while a new
worker starts (``extreme.precompile``): the bytecode must be the one the worker's imports
then take, and only of the files a worker imports."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.bytecode import private_cache
from lsp_server.extreme.precompile import cached_path, compile_into, files_to_compile, fresh


def test_an_import_under_the_private_cache_takes_the_bytecode_written(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"pkg/__init__.py": "", "pkg/mod.py": "VALUE = 'compiled'\n"})
    source = root / "pkg" / "mod.py"
    prefix = private_cache(root, {})
    assert prefix is not None
    assert compile_into(prefix, [source]) == 1
    assert fresh(source, cached_path(prefix, source))
    assert compile_into(prefix, [source]) == 0  # fresh already: not written again
    # The same size and time, other text: only an import that reads the bytecode written
    # above still sees "compiled".
    stat = source.stat()
    source.write_text("VALUE = 'source!!'\n")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    code = (
        f"import sys; sys.pycache_prefix = {str(prefix)!r}; sys.dont_write_bytecode = True; "
        "import pkg.mod; print(pkg.mod.VALUE)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "compiled"


def test_the_files_compiled_are_the_conftests_the_targets_packages_and_the_tests_collected(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "setup.py": "",
            "src/pkg/__init__.py": "",
            "src/pkg/core.py": "def f():\n    return 1\n",
            "src/other/__init__.py": "",
            "tests/conftest.py": "",
            "tests/test_core.py": "def test_f():\n    assert True\n",
            "tests/test_left_out.py": "def test_g():\n    assert True\n",
        }
    )
    files = files_to_compile(root, ["src/pkg/core.py"], ["tests/test_left_out.py"])
    assert [p.relative_to(root).as_posix() for p in files] == [
        "tests/conftest.py",
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "tests/test_core.py",
    ]


def test_test_files_whose_asserts_pytest_rewrites_are_not_compiled(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A test reads an assert's message: the workers rewrite asserts, and pytest writes
    # the bytecode of test modules under names of its own.
    reads = "import pytest\n\ndef test_m():\n    with pytest.raises(AssertionError):\n"
    root = make_project(
        {
            "pkg.py": "def f():\n    return 1\n",
            "test_pkg.py": reads + "        assert False\n",
        }
    )
    assert files_to_compile(root, ["pkg.py"], []) == [root / "pkg.py"]
