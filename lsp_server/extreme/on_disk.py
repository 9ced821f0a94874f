"""Transformations applied the plain way: the file rewritten in a private copy of the
project, the tests run by a fresh pytest process.

Slow (a Python start and a collection per transformation) but it sees everything the
change does, also to code that ran while the project was imported (a decorator, a class
body, a module-level call, a constant cached at import), which swapping ``__code__`` in a
process that already imported the module cannot. The analysis uses it for the functions
that ran at import time and for ``--verify``. The user's files are never touched, and a
file of the copy a run left changed (a test stopped before its teardown) is put back
before the next run in the copy.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lsp_server.extreme.disk_recorder import ANALYSES_ENV, ROOT_ENV, UNITS_ENV, read_units
from lsp_server.extreme.model import Transformation, Verdict
from lsp_server.extreme.project_originals import Originals
from lsp_server.project.files import copy_ignore
from lsp_server.project.text import parse_python
from lsp_server.sandbox import SandboxProcess

NO_TESTS_RAN = 5  # pytest's exit status when no test was collected
USAGE_ERROR = 4  # pytest's exit status for a node id it does not find, among others


class RewriteError(ValueError):
    """The function's ``def`` is not where the transformation says."""


@dataclass(frozen=True)
class DiskVerdict:
    verdict: Verdict
    detail: str = ""
    duration: float = 0.0
    units: list[str] | None = None  # what the run executed (None: it did not run)


def rewrite_body(source: str, line: int, name: str, body: str) -> str:
    """``source`` with the body of the ``def name`` at ``line`` replaced by ``body``, its
    docstring kept (statements separated by ``; `` stay on one line, which Python
    accepts). Blank lines take the place of the body's other lines: every other line keeps
    its number, so code maps to the units of the file as it is on disk (``pre_import``)
    and tracebacks point where the user's file has the code."""
    tree = parse_python(source)
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno == line
            and n.name == name
        ),
        None,
    )
    if node is None:
        raise RewriteError(f"no def of {name} at line {line}")
    lines = source.splitlines(keepends=True)
    first, last = node.body[0], node.body[-1]
    end_line = last.end_lineno or last.lineno
    # Columns are UTF-8 byte offsets: cut the first and last lines as bytes.
    if ast.get_docstring(node, clean=False) is not None:
        # A swap in place keeps ``__doc__`` (its doctests, help texts): so does the file.
        at = first.end_lineno or first.lineno
        head = lines[at - 1].encode()[: first.end_col_offset or 0].decode() + "; "
    else:
        at = first.lineno
        head = lines[at - 1].encode()[: first.col_offset].decode()
    tail = lines[end_line - 1].encode()[last.end_col_offset or 0 :].decode()
    padding = "\n" * (end_line - at)
    return "".join([*lines[: at - 1], head, body, padding, tail, *lines[end_line:]])


class PrivateCopy:
    """A copy of the project at ``root`` in a temporary directory, where one file at a time
    is rewritten, its tests run, and the file restored."""

    def __init__(
        self, root: Path, python: str | None = None, pytest_args: Sequence[str] = ()
    ) -> None:
        self.root = root
        self.python = python or sys.executable
        self.pytest_args = list(pytest_args)
        self._scratch = tempfile.TemporaryDirectory(prefix="reks-extreme-disk-")
        self.copy = Path(self._scratch.name) / root.name
        shutil.copytree(root, self.copy, ignore=copy_ignore(root), symlinks=True)

    def __enter__(self) -> PrivateCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._scratch.cleanup()

    def _environment(self) -> dict[str, str]:
        # The copy's code must shadow an installed (or editable) copy of the project.
        paths = [str(self.copy)]
        if (self.copy / "src").is_dir():
            paths.append(str(self.copy / "src"))
        env = dict(os.environ)
        paths += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def run(
        self, transformation: Transformation, tests: Sequence[str], timeout: float
    ) -> DiskVerdict:
        """Run ``tests`` (stopping at the first failure) with ``transformation`` on disk."""
        started = time.perf_counter()
        path = self.copy / transformation.path
        original = path.read_bytes()
        name = transformation.function.rsplit(".", 1)[-1]
        try:
            text = original.decode("utf-8")
            path.write_text(
                rewrite_body(text, transformation.line, name, transformation.body),
                encoding="utf-8",
            )
        except (UnicodeDecodeError, SyntaxError, RewriteError) as exc:
            return DiskVerdict(Verdict.ERROR, f"cannot rewrite the file: {exc}")
        record = Path(self._scratch.name) / "units"
        record.unlink(missing_ok=True)
        try:
            verdict, detail, status = self._pytest(tests, timeout, record)
            if status == USAGE_ERROR:
                verdict, detail = self._by_function(tests, timeout, record, detail)
        finally:
            path.write_bytes(original)
        units = read_units(str(record))
        if status == USAGE_ERROR and self._pytest(tests, timeout, record)[2] == USAGE_ERROR:
            # Not found without the transformation either: a test whose id is drawn at
            # each collection (a time, a random value) can be run by no id.
            named = _named(tests)
            verdict, detail = Verdict.ERROR, f"not found by id even unchanged: {named} ({detail})"
        return DiskVerdict(verdict, detail, time.perf_counter() - started, units)

    def _by_function(
        self, tests: Sequence[str], timeout: float, record: Path, detail: str
    ) -> tuple[Verdict, str]:
        """The verdict when pytest found some of ``tests`` not (``detail``) with the file
        rewritten: their test functions run by name, every parametrization of each. A
        function found so is a test whose parametrization ids the transformation changed
        (its parameters are made by the transformed code): only the outcome of its tests
        under their new ids is evidence. A function not found either can no longer be
        collected, which the developer sees: a detection."""
        functions = list(dict.fromkeys(function_id(t) for t in tests))
        if functions != list(tests):
            verdict, by_name, status = self._pytest(functions, timeout, record)
            if status != USAGE_ERROR:
                changed = f"parametrization ids changed ({_named(tests)} not found)"
                return verdict, f"{changed}; by test function: {by_name}"
        return Verdict.DETECTED, f"no longer collected: {_named(tests)} ({detail})"

    def _pytest(
        self, tests: Sequence[str], timeout: float, record: Path
    ) -> tuple[Verdict, str, int | None]:
        """The verdict of running ``tests``, why, and pytest's exit status (None: stopped)."""
        environment = self._environment()
        environment[UNITS_ENV] = str(record)
        environment[ROOT_ENV] = str(self.copy)
        environment[ANALYSES_ENV] = str(self.root)
        args = [
            "-m",
            "pytest",
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:reks",
            "-p",
            "no:randomly",
            "-p",
            "lsp_server.extreme.disk_recorder",
            "-p",
            "lsp_server.extreme.project_options",
            "--rootdir",
            str(self.copy),
            *self.pytest_args,
            *tests,
        ]
        process = SandboxProcess(
            self.python, args, cwd=self.copy, env=environment, new_session=True
        )
        try:
            try:
                status = process.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                return Verdict.TIMEOUT, f"pytest ran past {timeout:.1f} s", None
            if status == 0:
                return Verdict.UNDETECTED, "every test passed with the file rewritten", status
            if status == NO_TESTS_RAN:
                return Verdict.DETECTED, "the tests could not even be collected", status
            lines = process.log_tail(600).strip().splitlines()
            why = f"pytest exit status {status}: {lines[-1] if lines else ''}"
            return Verdict.DETECTED, why, status
        finally:
            process.close(grace=0.0)
            # A run stopped before a test's teardown leaves a file of the copy changed:
            # the next check in this copy would read it (``disk_recorder`` kept it).
            Originals(self.copy).restore()


def function_id(nodeid: str) -> str:
    """The node id of the test function of ``nodeid``: its parametrization left out."""
    path, sep, rest = nodeid.partition("::")
    return path + sep + rest.split("[", 1)[0]


def _named(tests: Sequence[str]) -> str:
    return ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
