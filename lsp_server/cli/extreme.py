"""``reks extreme``: find pseudo-tested functions by extreme transformations."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Analysis


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
    p.add_argument(
        "--only",
        metavar="NAME[,NAME..]",
        help="analyse only these functions (qualified names, or file::qualname): the quick "
        "re-analysis after an edit; the others keep their remembered verdicts, and the "
        "report lists these only",
    )
    p.add_argument("--full", action="store_true", help="ignore previous verdicts (not incremental)")
    p.add_argument("--python", help="interpreter that runs the tests (default: this one)")
    p.add_argument(
        "--timeout-factor",
        type=float,
        default=3.0,
        help="timeout = 1 s + factor x the covering tests' original duration (default 3)",
    )
    _add_run_options(p)
    p.set_defaults(handler=_run)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """Bounds, checks and where the transformations run."""
    p.add_argument(
        "--test-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="cap on one test on the original code (a test still running is stopped, "
        "reported and left out; with a store, 5 s + 10 x its recorded duration; default 120)",
    )
    p.add_argument(
        "--verify",
        type=int,
        default=0,
        metavar="N",
        help="check N undetected, N detected and N timeout verdicts the plain way (the "
        "file rewritten in a private copy, pytest run afresh); a disagreement is reported "
        "as a defect of the analysis",
    )
    p.add_argument(
        "--in-place-only",
        action="store_true",
        help="do not check functions that ran at import time on disk: report them "
        "not analysable in place",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the transformations on this Dask distributed scheduler "
        "(needs the `dask` extra; default: local workers)",
    )


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
        test_timeout=args.test_timeout,
        on_disk=not args.in_place_only,
        verify=args.verify,
        scheduler=args.scheduler,
        only=[name.strip() for name in (args.only or "").split(",") if name.strip()],
    )
    try:
        with ProgressBar("extreme") as bar:
            analysis = analyse(root, options, bar.job())
    except (FileNotFoundError, ValueError, WorkerError) as exc:
        print(f"reks extreme: {exc}", file=sys.stderr)
        return 2
    except Cancelled:
        return 130
    _warn(analysis)

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


def _warn(analysis: Analysis) -> None:
    import sys

    for path, error in sorted(analysis.errors.items()):
        where = "" if error.startswith(path) else f"{path}: "
        print(f"reks extreme: warning: {where}{error}", file=sys.stderr)
    for nodeid in analysis.hung_tests:
        print(
            f"reks extreme: warning: {nodeid} ran past its timeout on the original code; "
            "it was stopped and left out",
            file=sys.stderr,
        )
    for path in analysis.restored:
        print(
            f"reks extreme: {path} restored: a run stopped before its test put it back "
            "(its bytes from before the analysis)",
            file=sys.stderr,
        )
    for defect in analysis.defects:
        print(f"reks extreme: defect of the analysis: {defect}", file=sys.stderr)
