"""``reks test``, ``reks affected``, ``reks store`` and ``reks verify-skipped``: thin front
ends to the rts package."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server.project import interpreter_problem, project_python
from lsp_server.project.interpreter import is_this_interpreter

if TYPE_CHECKING:
    from lsp_server.rts.store import DependencyStore

T = TypeVar("T")


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def _test(args: argparse.Namespace) -> int:
    root = _root(args)
    python = project_python(root, args.python)
    extra = list(args.pytest_args)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    problem = interpreter_problem(python, root)
    if problem is not None:
        print(f"reks: {problem}, or pass --python", file=sys.stderr)
        return 2
    flag = "--reks-all" if args.all else "--reks"
    return subprocess.call([python, "-m", "pytest", flag, *extra], cwd=root)


def _open_store(root: Path) -> DependencyStore | None:
    """The project's existing store, opened read-only; None (the reason on stderr) when it
    cannot be read."""
    from lsp_server.rts.store import DependencyStore, StoreError

    try:
        return DependencyStore(root, read_only=True)
    except StoreError as exc:
        print(f"reks: {exc}", file=sys.stderr)
        return None


def _read_store(store: DependencyStore, what: Callable[[DependencyStore], T]) -> T | None:
    """``what(store)``, then the store closed; None (the reason on stderr) when SQLite
    fails on the way, e.g. on a damaged page the opening check did not reach."""
    import sqlite3

    from lsp_server.rts.store import store_error

    try:
        with store:
            return what(store)
    except sqlite3.Error as exc:
        print(f"reks: {store_error(store.path, exc, writing=False)}", file=sys.stderr)
        return None


def _affected(args: argparse.Namespace) -> int:
    from lsp_server.rts.fingerprint import current_fingerprint
    from lsp_server.rts.select import select_affected_tests

    root = _root(args)
    store = _open_store(root)
    if store is None:
        return 2
    python = project_python(root, args.python)
    # The environment can only be compared from inside the project's interpreter.
    fingerprint = current_fingerprint() if is_this_interpreter(python) else None
    selection = _read_store(
        store, lambda s: select_affected_tests(root, s, None, fingerprint=fingerprint)
    )
    if selection is None:
        return 2
    if args.json:
        print(json.dumps(selection.to_json(), indent=2))
        return 0
    for nodeid, reason in selection.selected.items():
        print(f"{nodeid}  ({reason})")
    print(
        f"reks: {len(selection.selected)} affected, {len(selection.unaffected)} unaffected"
        f" of the recorded tests ({selection.seconds * 1000:.0f} ms); tests never run are"
        " not listed: `pytest --reks-dry-run` shows them too",
        file=sys.stderr,
    )
    return 0


def _store(args: argparse.Namespace) -> int:
    from lsp_server.rts.store import DependencyStore, store_path

    root = _root(args)
    if args.rebuild:
        DependencyStore.rebuild(root).close()
        print(f"reks: recreated an empty dependency store at {store_path(root)}")
        print("reks: run `reks test` (or `pytest --reks`) to record dependencies again")
        return 0
    store = _open_store(root)
    if store is None:
        return 2
    read = _read_store(
        store,
        lambda s: (s.info(), s.check_integrity(), [t.state for t in s.skipped_tests()]),
    )
    if read is None:
        return 2
    info, integrity, verification = read
    print(f"store:        {info.path} ({info.size_bytes} bytes, schema {info.schema_version})")
    print(f"integrity:    {integrity}")
    print(f"tests:        {info.tests} ({', '.join(f'{k} {v}' for k, v in info.outcomes.items())})")
    print(f"stale tests:  {info.stale}")
    print(f"units:        {info.units} in {info.files} files")
    print(f"dependencies: {info.dependencies}")
    print(f"sessions:     {info.sessions}")
    states = {state: verification.count(state) for state in ("pending", "passed", "failed")}
    print(
        "skipped by refactorings: "
        + ", ".join(f"{count} {state}" for state, count in states.items())
        + ("  (run `reks verify-skipped`)" if states["pending"] or states["failed"] else "")
    )
    if info.last_session:
        print(f"last session: {describe_session(info.last_session)}")
    return 0 if integrity == "ok" else 1


def describe_session(session: dict[str, Any]) -> str:
    """A stored session for people: number, kind, when (local time), how long, outcome."""
    started, finished = session.get("started"), session.get("finished")
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started))
        if isinstance(started, int | float)
        else "at an unknown time"
    )
    took = (
        f", {finished - started:.1f} s"
        if isinstance(started, int | float) and isinstance(finished, int | float)
        else ", unfinished"
    )
    details = session.get("details") or {}
    outcome = ", ".join(f"{k.replace('exitstatus', 'exit status')} {v}" for k, v in details.items())
    return f"#{session.get('id')} ({session.get('kind')}), {when}{took}" + (
        f": {outcome}" if outcome else ""
    )


_PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")


def _verify_skipped(args: argparse.Namespace) -> int:
    """Run the tests REKS skipped that no run verified yet; an alarm (exit 1) names each
    refactoring that broke one, with the patch that undoes it."""
    root = _root(args)
    store = _open_store(root)
    if store is None:
        return 2
    with store:
        pending = store.pending_tests()
    if args.undo is not None:
        return _undo(root, args.undo, args.yes)
    if pending and not args.list:
        python = project_python(root, args.python)
        problem = interpreter_problem(python, root)
        if problem is not None:
            print(f"reks: {problem}, or pass --python", file=sys.stderr)
            return 2
        code = _run_verification(root, python, len(pending), _pytest_extra(args))
        if code not in (0, 1, 5):
            print(f"reks: pytest stopped with exit code {code}", file=sys.stderr)
            return 2
    elif pending:
        for nodeid in pending:
            print(f"pending  {nodeid}")
    else:
        print("reks: no test REKS skipped waits for verification", file=sys.stderr)
    return _report_alarms(root)


def _pytest_extra(args: argparse.Namespace) -> list[str]:
    extra = list(args.pytest_args)
    return extra[1:] if extra[:1] == ["--"] else extra


def _run_verification(root: Path, python: str, count: int, extra: list[str]) -> int:
    """``pytest --reks --reks-verify-skipped`` with a progress bar; its output is shown
    when it fails."""
    from lsp_server.console import ProgressBar

    argv = [python, "-m", "pytest", "--reks", "--reks-verify-skipped", *extra]
    lines: list[str] = []
    with ProgressBar(f"reks: verifying {count} skipped tests") as bar:
        proc = subprocess.Popen(
            argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            match = _PERCENT.search(line.rstrip())
            if match:
                bar.update(int(match.group(1)), 100, "%")
        code = proc.wait()
    if code == 1:
        print("\n".join(lines))
    else:
        print("\n".join(line for line in lines if line.startswith(("reks:", "=")))[-2000:])
    return code


def _report_alarms(root: Path) -> int:
    """Learn the shapes of new failures, print every standing alarm; 1 if there is one."""
    from lsp_server.rts.verification import alarms, describe_alarm, undo_patch
    from lsp_server.trust.verification import learn_failures

    learn_failures(root)
    store = _open_store(root)
    if store is None:
        return 2
    with store:
        standing = [(alarm, store.task_evidence(alarm.task_id)) for alarm in alarms(store)]
    for alarm, evidence in standing:
        print("\n".join(describe_alarm(alarm)), file=sys.stderr)
        if evidence is not None:
            print(undo_patch(evidence), end="", file=sys.stderr)
    return 1 if standing else 0


def _undo(root: Path, task_id: int, apply: bool) -> int:
    """Print the patch that undoes task ``task_id``; with ``--yes`` write it, when every
    file still holds the text the task left."""
    from lsp_server.project.text import write_atomic
    from lsp_server.rts.verification import undo_patch

    store = _open_store(root)
    if store is None:
        return 2
    with store:
        evidence = store.task_evidence(task_id)
    if evidence is None:
        print(f"reks: no recorded refactoring task {task_id} with skipped tests", file=sys.stderr)
        return 2
    print(undo_patch(evidence), end="")
    if not apply:
        print("reks: pass --yes to restore these files", file=sys.stderr)
        return 0
    changed = [p for p, (_, after) in evidence.files.items() if _read(root / p) != after]
    if changed:
        print(
            f"reks: edited since the refactoring, not restored: {', '.join(changed)}",
            file=sys.stderr,
        )
        return 1
    for path, (before, _) in evidence.files.items():
        if before is None:
            (root / path).unlink(missing_ok=True)
        else:
            write_atomic(root / path, before)
    print(
        f"reks: restored {len(evidence.files)} files to their text before task {task_id}",
        file=sys.stderr,
    )
    return 0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("test", help="run the affected tests (pytest --reks) and record")
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.add_argument("--python", help="interpreter to run pytest with (default: project venv)")
    p.add_argument("--all", action="store_true", help="run every test and re-record")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest")
    p.set_defaults(handler=_test)

    p = sub.add_parser("affected", help="list the recorded tests that would run, and why")
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.add_argument("--python", help="the project's interpreter (for the environment check)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_affected)

    p = sub.add_parser("store", help="inspect or recreate the dependency store")
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--info", action="store_true", help="print what the store holds")
    group.add_argument(
        "--rebuild", action="store_true", help="recreate an empty store (keeps a .bak copy)"
    )
    p.set_defaults(handler=_store)

    p = sub.add_parser(
        "verify-skipped",
        help="run the tests REKS skipped after refactorings that no run verified yet;"
        " exit 1 with an alarm naming the refactoring when one fails",
    )
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.add_argument("--python", help="interpreter to run pytest with (default: project venv)")
    p.add_argument("--list", action="store_true", help="list them and the alarms, run nothing")
    p.add_argument(
        "--undo", type=int, metavar="TASK", help="print the patch that undoes a refactoring task"
    )
    p.add_argument("--yes", action="store_true", help="with --undo: restore the files")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest")
    p.set_defaults(handler=_verify_skipped)
