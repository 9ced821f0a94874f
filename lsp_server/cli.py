"""The ``reks`` command. Thin: every subcommand lives in its package's ``cli`` module.

Each ``lsp_server/<package>/cli.py`` defines ``register(subparsers)``, adding its commands
with ``set_defaults(handler=...)``; a handler takes the parsed arguments and returns the
exit code.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Sequence

import lsp_server

_SERVER_COMMANDS = "lsp_server.server_cli"


def _command_modules() -> list[str]:
    names = [_SERVER_COMMANDS]
    for info in pkgutil.iter_modules(lsp_server.__path__):
        if not info.ispkg:
            continue
        spec = importlib.util.find_spec(f"lsp_server.{info.name}.cli")
        if spec is not None:
            names.append(f"lsp_server.{info.name}.cli")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reks",
        description="Refactor Python with rope, skip the tests a refactoring cannot break, "
        "and find code the tests execute without checking.",
    )
    parser.add_argument("--version", action="version", version=f"reks {lsp_server.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _command_modules():
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
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


if __name__ == "__main__":
    raise SystemExit(main())
