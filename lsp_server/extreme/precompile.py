"""The project's bytecode written into the workers' private cache (``bytecode``) by reks
while a new worker starts Python and pytest.

In a new checkout (or with ``PYTHONDONTWRITEBYTECODE``) the worker compiled every project
file it imported, test modules included, on the path to the first transformation: on
more-itertools about a third of its collection, while reks's own process only waited. A
thread of that process now compiles them meanwhile, on the other core: the files of the
packages the analysed files belong to, the conftests and the test files the workers
collect (with plain asserts only: pytest writes rewritten test modules under other names).
A file the worker reaches first it compiles itself, as before; both write whole files
(``py_compile`` replaces atomically), and the worker checks any bytecode against its source.
"""

from __future__ import annotations

import os
import py_compile
import sys
import threading
from collections.abc import Iterable, Sequence
from importlib.util import MAGIC_NUMBER
from pathlib import Path

from lsp_server.extreme.assert_mode import assert_mode
from lsp_server.project.files import is_test_path, python_files

_HEADER = 16  # magic, flags, source mtime, source size


def cached_path(prefix: Path, source: Path) -> Path:
    """Where the import system looks for the bytecode of ``source`` (an absolute path)
    under ``sys.pycache_prefix`` = ``prefix`` (``importlib.util.cache_from_source``)."""
    tag = sys.implementation.cache_tag
    folder = str(source.parent).lstrip(os.sep)
    return prefix / folder / f"{source.name.rpartition('.')[0]}.{tag}.pyc"


def fresh(source: Path, cached: Path) -> bool:
    """Whether ``cached`` is bytecode of ``source`` as it is now (what the import checks)."""
    try:
        with open(cached, "rb") as handle:
            header = handle.read(_HEADER)
        stat = source.stat()
    except OSError:
        return False
    mtime = int(stat.st_mtime) & 0xFFFFFFFF
    return (
        len(header) == _HEADER
        and header[:4] == MAGIC_NUMBER
        and int.from_bytes(header[4:8], "little") == 0  # timestamp-checked, as imports write
        and int.from_bytes(header[8:12], "little") == mtime
        and int.from_bytes(header[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )


def compile_into(prefix: Path, sources: Iterable[Path]) -> int:
    """Write the bytecode of each of ``sources`` that has none fresh; how many were written.
    A file that does not compile is left to the worker (its error is the worker's to say)."""
    written = 0
    for source in sources:
        cached = cached_path(prefix, source)
        if fresh(source, cached):
            continue
        try:
            py_compile.compile(
                str(source),
                cfile=str(cached),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
            )
            written += 1
        except (py_compile.PyCompileError, OSError, ValueError):
            continue
    return written


def files_to_compile(root: Path, targets: Sequence[str], ignored: Iterable[str]) -> list[Path]:
    """The conftests, then the files of the targets' top folders (``src/<package>`` in a
    src layout), then the test files not ``ignored`` (test files with plain asserts only)
    of ``root``; ``targets`` and ``ignored`` relative to it."""
    tops = {_top_folder(rel) + "/" for rel in targets}
    left_out = set(ignored)
    plain = assert_mode(root) == "plain"
    conftests: list[Path] = []
    sources: list[Path] = []
    tests: list[Path] = []
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        if rel.endswith("/conftest.py") or rel == "conftest.py":
            conftests.append(path)
        elif is_test_path(rel):
            if plain and rel not in left_out:
                tests.append(path)
        elif rel in targets or any(rel.startswith(top) for top in tops):
            sources.append(path)
    return [*conftests, *sources, *tests]


def _top_folder(rel: str) -> str:
    parts = rel.split("/")
    return "/".join(parts[:2]) if parts[0] == "src" and len(parts) > 2 else parts[0]


def precompile(
    prefix: Path, root: Path, targets: Sequence[str], ignored: Iterable[str]
) -> threading.Thread:
    """Compile ``files_to_compile`` into ``prefix`` in a background thread (started, not
    waited for): finding them reads every test file too."""

    def work() -> None:
        compile_into(prefix, files_to_compile(root, targets, ignored))

    thread = threading.Thread(target=work, name="reks-precompile", daemon=True)
    thread.start()
    return thread
