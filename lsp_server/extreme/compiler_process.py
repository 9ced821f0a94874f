"""The helper process of ``compile_ahead``: compiles each file named on its standard input
into the bytecode cache at ``PREFIX``, until told to stop (SIGTERM: after the file at hand,
so no partial file is left). Standard library only, so that it starts at once.

Run as ``python -m lsp_server.extreme.compiler_process PREFIX``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import py_compile
import signal
import sys


def compiled(source: str, cached: str) -> bool:
    """Bytecode of ``source`` is at ``cached``, no older than the source (the worker that
    reads it checks it as usual)."""
    try:
        return os.stat(cached).st_mtime >= os.stat(source).st_mtime
    except OSError:
        return False


def main(prefix: str) -> int:
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    with contextlib.suppress(OSError):
        os.nice(10)  # the workers come first
    files = sys.stdin.read().splitlines()
    sys.pycache_prefix = prefix  # after the imports: the standard library keeps its own
    mode = py_compile.PycInvalidationMode.TIMESTAMP  # the kind the workers write
    for source in files:
        if stopping:
            break
        cached = importlib.util.cache_from_source(source)
        if not compiled(source, cached):
            py_compile.compile(source, cfile=cached, invalidation_mode=mode, quiet=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
