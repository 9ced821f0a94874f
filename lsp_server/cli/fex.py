"""``reks fex``: field-exhaustive test suites for a class with an invariant."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "fex",
        help="generate a field-exhaustive pytest suite for a class with rep_ok",
        description="Find inputs within a scope that together realise every feasible value "
        "of every field of a class whose rep_ok defines its valid instances (Korat-style "
        "search over rep_ok, or incremental SAT over __fex_spec__), and write a pytest "
        "module that calls the chosen methods on them and checks rep_ok afterwards.",
    )
    parser.add_argument("target", metavar="MODULE:CLASS", help="e.g. pkg.lists:SortedList")
    parser.add_argument("--scope", type=int, required=True, help="objects per class, domains")
    parser.add_argument("--methods", default="", help="methods under test, comma-separated")
    parser.add_argument("--route", choices=("auto", "korat", "sat"), default="auto")
    parser.add_argument("--out", help="write the pytest module here (default: stdout)")
    parser.add_argument("--json", action="store_true", help="print a JSON description")
    parser.add_argument("--root", default=".", help="project root (default: cwd)")
    parser.add_argument("--python", help="the project's interpreter (default: found)")
    parser.add_argument("--budget", type=int, help="candidates the Korat search may visit")
    parser.add_argument("--seconds", type=float, help="time the Korat search may take")
    parser.set_defaults(handler=_fex)


def _fex(args: argparse.Namespace) -> int:
    from lsp_server.console import ProgressBar
    from lsp_server.fex import emit, korat
    from lsp_server.fex.model import FexError
    from lsp_server.fex.run import Request, generate_for_project, summary, write_suite
    from lsp_server.jobs import Cancelled

    if args.scope < 1:
        print("reks fex: --scope must be at least 1", file=sys.stderr)
        return 2
    request = Request(
        args.target,
        args.scope,
        args.route,
        tuple(m.strip() for m in args.methods.split(",") if m.strip()),
        args.budget or korat.DEFAULT_BUDGET,
        args.seconds,
    )
    with ProgressBar("fex") as bar:
        try:
            suite = generate_for_project(args.root, request, bar.job(), args.python)
        except FexError as exc:
            print(f"reks fex: {exc}", file=sys.stderr)
            return 1
        except Cancelled:
            return 130
    if args.out:
        path = write_suite(suite, args.out)
        print(f"{summary(suite)}\nwrote {path}", file=sys.stderr)
    elif not args.json:
        sys.stdout.write(emit.to_pytest(suite))
        print(summary(suite), file=sys.stderr)
    if args.json:
        sys.stdout.write(emit.to_json_text(suite))
    return 0
