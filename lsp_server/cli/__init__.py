"""The ``reks`` command: the composition root of the command-line front ends.

Each module of this package is the thin front end of one package (``cli/rts.py`` of
``lsp_server.rts``, ...) and defines ``register(subparsers)``, adding its commands with
``set_defaults(handler=...)``; a handler takes the parsed arguments and returns the exit
code. Only this package and ``server.py`` may import every package.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

import lsp_server

_FRONT_ENDS = (
    "server",
    "refactor",
    "rts",
    "extreme",
    "astgen",
    "factoring",
    "fex",
    "editors",
    "demo",
)
"""The modules of this package, in the order their commands are listed."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reks",
        description="Refactor Python with rope, skip the tests a refactoring cannot break, "
        "and find code the tests execute without checking.",
    )
    parser.add_argument("--version", action="version", version=f"reks {lsp_server.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _FRONT_ENDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # In this process Python compiles nothing of reks at run time: a SyntaxWarning here
    # comes from parsing a project's file (rope parses with no file name), which Python
    # reports with the file's name when the project's tests import it.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else sys.argv[1:])
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("reks: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`reks affected --json | head`): that is not an error, and
        # the interpreter must not report it again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
