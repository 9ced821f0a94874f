"""``reks demo``: copy the bundled example project and run the main job on it.

Each step is the same command a user would type, run in-process, so the demo shows the
real output of the tool and exercises nothing the user cannot.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "versioned_set"


def _step(title: str, argv: Sequence[str]) -> int:
    from lsp_server.cli import main

    print(f"\n=== {title}\n$ reks {' '.join(argv)}", flush=True)
    code = main(list(argv))
    sys.stdout.flush()
    return code


def _def_position(path: Path, name: str) -> str:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        column = line.find(f"def {name}(")
        if column >= 0:
            return f"{path}:{number}:{column + len('def ') + 1}"
    raise SystemExit(f"reks demo: `def {name}` not found in {path}")


def _demo(args: argparse.Namespace) -> int:
    if args.dir:
        target = Path(args.dir).resolve()
        if target.exists() and any(target.iterdir()):
            print(f"reks demo: {target} exists and is not empty", file=sys.stderr)
            return 2
    else:
        target = Path(tempfile.mkdtemp(prefix="reks-demo-")) / "versioned_set"
    shutil.copytree(
        EXAMPLE, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    print(f"reks demo: working on a copy of the example project in {target}")
    source = target / "versioned_set.py"
    steps: list[tuple[str, list[str]]] = [
        (
            "1. Run the tests once, recording what each test depends on",
            ["test", "--root", str(target), "--", "-q"],
        ),
        (
            "2. Rename a method through reks: the refactoring updates the dependencies",
            [
                "refactor",
                "rename",
                _def_position(source, "_increment_version"),
                "_bump_version",
                "--apply",
            ],
        ),
        ("3. Which tests does that refactoring make us run?", ["affected", "--root", str(target)]),
        (
            "4. Which functions do the tests execute without checking, and what would catch them?",
            ["extreme", "--root", str(target), "--explain"],
        ),
    ]
    for title, argv in steps:
        code = _step(title, argv)
        if code != 0:
            print(f"reks demo: step failed with exit code {code}", file=sys.stderr)
            return code
    print(f"\nreks demo: done; the project, its store and reports are in {target}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the main job on the bundled example project")
    p.add_argument("--dir", help="copy the example here (default: a new temporary directory)")
    p.set_defaults(handler=_demo)
