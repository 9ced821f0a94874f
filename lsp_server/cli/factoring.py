"""``reks factor``: a fast factored test from a slow system test (test factoring)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "factor",
        help="factor a slow test: replay its environment from a captured transcript",
        description="Run TEST once, record every interaction of the code under test with the "
        "environment (the --boundary modules or classes) into a JSON transcript, and write a "
        "factored test beside TEST that runs the code under test for real and answers the "
        "environment from the transcript. Without --boundary, the boundary that saves the most "
        "time in a profile of TEST is used.",
    )
    p.add_argument("test", help="pytest node id of the system test (tests/test_x.py::test_y)")
    p.add_argument(
        "--boundary",
        action="append",
        default=[],
        metavar="MODULE_OR_CLASS",
        help="environment module (sqlite3, subprocess, myapp.db) or class (myapp.db.Store); "
        "repeatable",
    )
    p.add_argument(
        "--suggest", action="store_true", help="only rank candidate boundaries by expected saving"
    )
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.add_argument("--python", help="interpreter that runs the tests (default: the project's)")
    p.add_argument("--json", action="store_true", help="print JSON on stdout")
    p.add_argument(
        "--keep-slower", action="store_true", help="keep a factored test even if it is not faster"
    )
    p.add_argument(
        "--clock-in-e",
        action="store_true",
        help="when the factored test fails with the wall clock moved forward (it compares "
        "the time now with a recorded answer), replay the code under test's clock from the "
        "capture's moment instead of refusing the test",
    )
    p.add_argument(
        "--max-transcript-mb",
        type=float,
        default=10.0,
        metavar="MB",
        help="refuse a boundary whose transcript would be larger (default 10)",
    )
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    import json
    import sys

    from lsp_server.cli.common import existing_root
    from lsp_server.console import ProgressBar
    from lsp_server.factoring.factor import factor_test, suggest_boundaries
    from lsp_server.factoring.runner import RunError
    from lsp_server.jobs import Cancelled

    root = existing_root(args.root, "factor")
    if root is None:
        return 2
    boundaries = list(args.boundary)
    limit = int(args.max_transcript_mb * 1024 * 1024)
    try:
        if args.suggest or not boundaries:
            with ProgressBar("profile") as bar:
                ranked = suggest_boundaries(root, args.test, bar.job(), args.python, limit)
            if args.suggest:
                _print_candidates([c.to_json() for c in ranked], args.json)
                return 0
            usable = [c for c in ranked if not c.refused]
            if not usable:
                why = ranked[0].refused if ranked else "the test spends no time below its code"
                print(f"reks factor: no boundary worth factoring: {why}", file=sys.stderr)
                return 1
            boundaries = [usable[0].boundary]
            if not args.json:
                print(f"reks factor: boundary {boundaries[0]} (expected saving "
                      f"{usable[0].saving_s * 1000:.1f} ms)")  # fmt: skip
        with ProgressBar("factor") as bar:
            result = factor_test(
                root,
                args.test,
                boundaries,
                bar.job(),
                args.python,
                args.keep_slower,
                limit,
                args.clock_in_e,
            )
    except RunError as exc:
        print(f"reks factor: {exc}", file=sys.stderr)
        return 2
    except Cancelled:
        return 130
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        _print_result(result.to_json())
    return 0 if result.status == "factored" else 1


def _print_candidates(rows: list[dict[str, Any]], as_json: bool) -> None:
    import json

    if as_json:
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        print("no candidate boundary: the test spends no measurable time below its code")
        return
    print(f"{'boundary':<28} {'E time':>10} {'calls':>7} {'saving':>10} {'transcript':>11}")
    for row in rows:
        line = (
            f"{row['boundary']:<28} {row['time_s'] * 1000:>8.1f}ms {row['calls']:>7} "
            f"{row['saving_s'] * 1000:>8.1f}ms {row['transcript_bytes'] / 1024:>9.1f}kB"
        )
        print(line + (f"  refused: {row['refused']}" if row["refused"] else ""))


def _print_result(row: dict[str, Any]) -> None:
    if row["status"] != "factored":
        print(f"not factored: {row['reason']}")
        return
    for warning in row.get("warnings", ()):
        print(f"warning: {warning}")
    print(f"factored test: {row['factored_test']}")
    print(f"transcript:    {row['transcript']} ({row['calls']} calls, {row['transcript_bytes']} B)")
    print(
        f"system {row['system_s'] * 1000:.1f} ms, capture {row['capture_s'] * 1000:.1f} ms, "
        f"replay {row['replay_s'] * 1000:.1f} ms: {row['speedup']:.1f}x faster"
    )
