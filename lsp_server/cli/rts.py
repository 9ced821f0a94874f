"""``reks test``, ``reks affected`` and ``reks store``: thin front ends to the rts package."""

from __future__ import annotations

import argparse
import json
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


def _read(store: DependencyStore, what: Callable[[DependencyStore], T]) -> T | None:
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
    selection = _read(
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
    read = _read(store, lambda s: (s.info(), s.check_integrity()))
    if read is None:
        return 2
    info, integrity = read
    print(f"store:        {info.path} ({info.size_bytes} bytes, schema {info.schema_version})")
    print(f"integrity:    {integrity}")
    print(f"tests:        {info.tests} ({', '.join(f'{k} {v}' for k, v in info.outcomes.items())})")
    print(f"stale tests:  {info.stale}")
    print(f"units:        {info.units} in {info.files} files")
    print(f"dependencies: {info.dependencies}")
    print(f"sessions:     {info.sessions}")
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
