"""Compiling the project into the workers' bytecode cache while the first worker starts.

With an empty cache (a new checkout) the first worker compiles every module it imports
while it collects, on one core, while the other mostly waits. A helper process of the
workers' interpreter compiles them meanwhile into the same private cache (``bytecode``):
the worker imports pytest first and reaches the project's modules later, finding their
bytecode written; a module it reaches first it compiles itself, as before (each writer
replaces a file whole). The code under test comes before the tests, which import it.

The helper runs niced, and is stopped once the workers have collected (what it has not
compiled by then they did not need); it finishes the file at hand, so no partial file is
left. Started as ``python -m lsp_server.extreme.compile_ahead PREFIX``, the files' absolute
paths one per line on its standard input.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from lsp_server.extreme.bytecode import PREFIX_VARIABLE
from lsp_server.project.files import is_test_path, python_files

STOP_GRACE = 5.0
"""Seconds the helper may take to finish the file at hand once asked to stop."""


class CompileAhead:
    """The helper of the module docstring, over the project at ``root``."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @classmethod
    def start(
        cls, root: Path, python: str, env: Mapping[str, str], ignored: Iterable[str] = ()
    ) -> CompileAhead | None:
        """Compile the project's Python files but ``ignored`` (absolute paths) into the
        private cache ``env`` names for the workers; None when it names none (the user
        chose a cache folder) or every file's bytecode is there already."""
        prefix = env.get(PREFIX_VARIABLE)
        if not prefix:
            return None
        left_out = set(ignored)
        files = [str(p) for p in python_files(root) if str(p) not in left_out]
        # The code under test first: the first test module imports it.
        files.sort(key=lambda f: is_test_path(Path(f).relative_to(root).as_posix()))
        if python == sys.executable:  # the cache tag is this interpreter's: look first
            tag = sys.implementation.cache_tag or ""
            files = [f for f in files if not _compiled(f, _cached_path(f, prefix, tag))]
        if not files:
            return None
        process = subprocess.Popen(
            [python, "-m", __name__, prefix],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(env),
        )
        assert process.stdin is not None
        try:
            process.stdin.write("".join(f"{f}\n" for f in files).encode("utf-8", "surrogateescape"))
            process.stdin.close()
        except OSError:  # it ended already (an interpreter that cannot run it)
            pass
        return cls(process)

    def stop(self) -> None:
        """Stop after the file at hand, and wait for the helper."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _compiled(source: str, cached: str) -> bool:
    """Bytecode of ``source`` is at ``cached``, no older than the source (the worker that
    reads it checks it as usual)."""
    try:
        return os.stat(cached).st_mtime >= os.stat(source).st_mtime
    except OSError:
        return False


def _cached_path(source: str, prefix: str, tag: str) -> str:
    """Where an interpreter with ``sys.pycache_prefix`` set to ``prefix`` keeps the
    bytecode of ``source`` (``importlib.util.cache_from_source``'s rule)."""
    folder, name = os.path.split(os.path.abspath(source))
    return os.path.join(prefix, folder.lstrip(os.sep), f"{name.rpartition('.')[0]}.{tag}.pyc")


def main(prefix: str) -> int:
    """The helper: compile each file named on standard input, until told to stop."""
    import importlib.util
    import py_compile

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
        if not _compiled(source, cached):
            py_compile.compile(source, cfile=cached, invalidation_mode=mode, quiet=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
