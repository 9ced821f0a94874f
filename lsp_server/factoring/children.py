"""Child processes that E starts during capture, and whether they run the code under test.

A boundary around a process launcher (``subprocess``, ``sh``, ``os.system``) is a good
one when the child is a tool of the environment (git, a database server) and a bad one
when the child runs the project itself (its console script, ``python -m package``): the
replay answers the launcher from the transcript, so that code never runs and a factored
test would pass whatever T does. The capture watches every process started while T is
inside a call into E (an audit hook, so that ``fork`` + ``exec`` done by a library is seen
too: the hook runs in the forked child before ``exec``) and the boundary is refused when
one of them runs project code.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from lsp_server.project.files import is_excluded_dir

SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system"})
_SCRIPT_HEAD = 4096
_watch: ChildWatch | None = None
_hooked = False


class ChildWatch:
    """Records the command lines of processes started while ``in_environment()`` holds, each
    with what ``where()`` said then (the boundary suggester: which call into E started it)."""

    def __init__(
        self,
        root: Path,
        packages: Iterable[str],
        in_environment: Callable[[], bool],
        where: Callable[[], str] = str,
    ):
        self.root = root
        self.packages = frozenset(packages)
        self.in_environment = in_environment
        self.where = where
        handle, self._log = tempfile.mkstemp(prefix="reks-children-", suffix=".jsonl")
        os.close(handle)

    def start(self) -> None:
        global _watch, _hooked
        if not _hooked:
            sys.addaudithook(_audit)  # cannot be removed: it does nothing while no watch runs
            _hooked = True
        _watch = self

    def stop(self) -> list[list[str]]:
        """The command lines recorded (forked children included), and the log removed."""
        return [argv for argv, _ in self.stop_with_places()]

    def stop_with_places(self) -> list[tuple[list[str], str]]:
        """Each command line recorded with what ``where()`` said when it started."""
        global _watch
        _watch = None
        try:
            lines = Path(self._log).read_text(encoding="utf-8").splitlines()
        finally:
            os.unlink(self._log)
        return [tuple(json.loads(line)) for line in lines if line]

    def record(self, argv: list[str]) -> None:
        if not self.in_environment():
            return
        data = (json.dumps([argv, self.where()]) + "\n").encode("utf-8")
        handle = os.open(self._log, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(handle, data)
        finally:
            os.close(handle)

    def project_child(self, commands: Sequence[list[str]]) -> str | None:
        """Why replay would skip project code, or None: the first command line that runs it."""
        for argv in commands:
            package = runs_project_code(argv, self.packages, self.root)
            if package is not None:
                return (
                    f"E runs the code under test in a child process (`{shlex.join(argv)[:120]}`"
                    f" runs `{package}`): a replay would answer it from the transcript and never"
                    " run that code, so the factored test could pass whatever T does"
                )
        return None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    watch = _watch
    if watch is None or event not in SPAWN_EVENTS:
        return
    try:
        argv = _command_line(event, args)
        if argv:
            watch.record(argv)
    except Exception:  # an audit hook must never break the process it watches
        return


def _command_line(event: str, args: tuple[Any, ...]) -> list[str]:
    if event == "os.system":
        return _split(args[0])
    if event == "subprocess.Popen":
        executable, argv = args[0], args[1]
        words = _split(argv) if isinstance(argv, (str, bytes)) else [os.fsdecode(a) for a in argv]
        if executable is not None and words:
            words[0] = os.fsdecode(executable)
        return words
    argv = args[2] if event == "os.spawn" else args[1]
    words = [os.fsdecode(a) for a in argv]
    path = os.fsdecode(args[1] if event == "os.spawn" else args[0])
    return [path, *words[1:]] if words else [path]


def _split(command: str | bytes) -> list[str]:
    try:
        return shlex.split(os.fsdecode(command))
    except ValueError:
        return os.fsdecode(command).split()


def project_packages(root: Path, loaded: Iterable[str] = ()) -> frozenset[str]:
    """Top-level names of the project's own packages and modules (not its tests)."""
    names = {name.split(".")[0] for name in loaded}
    for base in (root, root / "src"):
        if not base.is_dir():
            continue
        for entry in base.iterdir():
            if entry.name.startswith((".", "test")) or entry.name in ("setup.py", "conftest.py"):
                continue
            if entry.is_dir() and not is_excluded_dir(entry.name):
                if (entry / "__init__.py").exists():
                    names.add(entry.name)
            elif entry.suffix == ".py" and entry.stem.isidentifier():
                names.add(entry.stem)
    return frozenset(names)


def runs_project_code(argv: Sequence[str], packages: frozenset[str], root: Path) -> str | None:
    """The project package or file a command line runs, or None. Python interpreters are
    judged by their arguments (``-m``, ``-c``, a script); other programs by their text when
    they are Python scripts (console scripts import the package they serve)."""
    if not argv:
        return None
    program = _resolve(argv[0])
    if _is_python(program):
        return _python_target(list(argv[1:]), packages, root)
    script = console_scripts(packages).get(Path(argv[0]).name)
    if script is not None:  # also through wrappers that hide the script (pyenv shims)
        return script
    head = _script_head(program)
    if head is not None and head.startswith("#!") and "python" in head.split("\n", 1)[0]:
        return _imported_package(head, packages)
    return None


def console_scripts(packages: frozenset[str]) -> dict[str, str]:
    """Installed console scripts that run project code: name -> ``module:function``."""
    from importlib.metadata import entry_points

    found = {}
    for group in ("console_scripts", "gui_scripts"):
        for entry in entry_points(group=group):
            if entry.value.split(".")[0].split(":")[0] in packages:
                found[entry.name] = entry.value
    return found


def _resolve(program: str) -> Path | None:
    found = shutil.which(program) if os.sep not in program else program
    return Path(found) if found else None


def _is_python(program: Path | None) -> bool:
    return program is not None and re.fullmatch(r"python[\d.]*", program.name) is not None


def _python_target(args: list[str], packages: frozenset[str], root: Path) -> str | None:
    while args:
        arg = args.pop(0)
        if arg == "-m" and args:
            top = args[0].split(".")[0]
            return args[0] if top in packages else None
        if arg == "-c" and args:
            return _imported_package(args[0], packages)
        if arg.startswith("-"):
            continue
        script = (root / arg).resolve() if not os.path.isabs(arg) else Path(arg).resolve()
        if script.is_relative_to(root.resolve()):
            return script.relative_to(root.resolve()).as_posix()
        return _imported_package(_script_head(script) or "", packages)
    return None


def _script_head(program: Path | None) -> str | None:
    if program is None or not program.is_file():
        return None
    try:
        with program.open("rb") as handle:
            return handle.read(_SCRIPT_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return None


def _imported_package(code: str, packages: frozenset[str]) -> str | None:
    for match in re.finditer(r"(?:^|;)\s*(?:from|import)\s+([A-Za-z_]\w*)", code, re.MULTILINE):
        if match.group(1) in packages:
            return match.group(1)
    return None
