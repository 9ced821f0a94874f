"""``reks extreme``: find pseudo-tested functions by extreme transformations."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "extreme",
        help="find pseudo-tested functions (extreme transformations)",
        description="Replace each function body by `pass` / `return <constant>` in memory and "
        "run the tests that execute it; a transformation no test detects marks the function "
        "pseudo-tested. Writes .reks/extreme.json and .reks/extreme.md.",
    )
    p.add_argument("paths", nargs="*", help="source files or directories (default: the project)")
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.add_argument("--json", action="store_true", help="print the JSON rows on stdout")
    p.add_argument(
        "--explain", action="store_true", help="diagnose undetected ones (Reneri) and suggest tests"
    )
    p.add_argument("--runs", type=int, default=10, help="runs per side for --explain (default 10)")
    p.add_argument("--jobs", "-j", type=int, default=0, help="workers (default: one per core)")
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="skip functions whose qualified name (or file::name) matches this glob; "
        "repeatable; also [tool.reks.extreme] exclude in pyproject.toml",
    )
    p.add_argument("--full", action="store_true", help="ignore previous verdicts (not incremental)")
    p.add_argument("--python", help="interpreter that runs the tests (default: this one)")
    p.add_argument(
        "--timeout-factor",
        type=float,
        default=3.0,
        help="timeout = 1 s + factor x the covering tests' original duration (default 3)",
    )
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from lsp_server.cli.common import existing_root
    from lsp_server.console import ProgressBar
    from lsp_server.extreme import report
    from lsp_server.extreme.analysis import Options, analyse
    from lsp_server.extreme.pool import WorkerError
    from lsp_server.jobs import Cancelled

    root = existing_root(args.root, "extreme")
    if root is None:
        return 2
    options = Options(
        paths=[Path(p).resolve() for p in args.paths],
        jobs=args.jobs,
        patterns=args.exclude,
        python=args.python,
        timeout_factor=args.timeout_factor,
        incremental=not args.full,
    )
    try:
        with ProgressBar("extreme") as bar:
            analysis = analyse(root, options, bar.job())
    except (FileNotFoundError, ValueError, WorkerError) as exc:
        print(f"reks extreme: {exc}", file=sys.stderr)
        return 2
    except Cancelled:
        return 130
    for path, error in sorted(analysis.errors.items()):
        where = "" if error.startswith(path) else f"{path}: "
        print(f"reks extreme: warning: {where}{error}", file=sys.stderr)

    diagnoses = None
    if args.explain:
        from lsp_server.extreme.explain import ExplainUnavailable, explain

        try:
            with ProgressBar("explain") as bar:
                diagnoses = explain(root, analysis, args.runs, bar.job(), args.python)
        except ExplainUnavailable as exc:
            print(f"reks extreme --explain: {exc}", file=sys.stderr)
    data = report.rows(analysis, diagnoses)
    report.save(root, data, report.markdown(analysis, data))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(report.table(data))
        print()
        print(report.summary_text(analysis))
    return 0
