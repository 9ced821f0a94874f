"""``reks engine-test``: check the refactoring engines with generated programs."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from lsp_server.project.text import write_atomic


def _names(values: list[str] | None) -> tuple[str, ...]:
    """Repeatable and comma-separated options, in first-seen order."""
    out: list[str] = []
    for value in values or []:
        for name in value.split(","):
            name = name.strip()
            if name and name not in out:
                out.append(name)
    return tuple(out)


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "engine-test",
        help="check rope and jedi refactorings on bounded-exhaustive generated programs",
        description="Generate every program of the chosen generators up to --bound, perform "
        "the refactorings with each engine, and check the results with the oracles (crash, "
        "does not compile, new undefined names, run-and-compare, structural, inverse, "
        "differential, refusal). Writes engine-test.json and engine-test.md to --out.",
    )
    parser.add_argument(
        "--refactoring",
        action="append",
        metavar="KIND",
        help="rename, rename-module, extract-method, extract-variable, inline, move "
        "(repeatable or comma-separated; default: all)",
    )
    parser.add_argument(
        "--generator",
        action="append",
        metavar="NAME",
        help="fields, classes, methods, statements, expressions, inline, inline-functions, "
        "modules, refusals (repeatable or comma-separated; default: all)",
    )
    parser.add_argument("--bound", type=int, default=2, help="size bound (default 2)")
    parser.add_argument(
        "--suite",
        choices=("bounded-exhaustive", "field-exhaustive"),
        default="bounded-exhaustive",
        help="every generated program (default), or a subset in which every option of every "
        "generator choice point still occurs",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--engines", default="reks,jedi", help="engines: reks, rope, jedi (default reks,jedi)"
    )
    parser.add_argument("--out", default="engine-test-report", help="report folder")
    parser.add_argument("--limit", type=int, help="check only the first N cases")
    parser.add_argument("--no-inverse", action="store_true", help="skip the inverse oracle")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per program run")
    parser.add_argument(
        "--write-known-failures",
        nargs="?",
        const="",
        metavar="PATH",
        help="also write the known-failing shapes (default: the user's data folder, "
        "$REKS_KNOWN_FAILURES or ~/.local/share/reks/known_failures.json)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="check on this Dask distributed scheduler (needs the `dask` extra; "
        "default: --jobs local processes)",
    )
    parser.set_defaults(handler=_engine_test)


def _command(args: argparse.Namespace) -> str:
    """The command line that reproduces this run's shapes (for the known-failures file)."""
    words = ["reks engine-test", f"--bound {args.bound}", f"--engines {args.engines}"]
    for option, values in (("--generator", args.generator), ("--refactoring", args.refactoring)):
        words += [f"{option} {v}" for v in values or []]
    if args.suite != "bounded-exhaustive":
        words.append(f"--suite {args.suite}")
    return " ".join([*words, "--write-known-failures"])


def _field_exhaustive(cases: list[Any]) -> list[Any]:
    from lsp_server.fex.choices import field_exhaustive_cases

    return field_exhaustive_cases(cases)


def _check(config: Any, scheduler: str | None, job: Any) -> Any:
    """The checks, on the local processes or on the Dask cluster at ``scheduler``."""
    if not scheduler:
        from lsp_server.astgen import driver

        return driver.run(config, job)
    from lsp_server.astgen import dask_checks

    return dask_checks.run(config, scheduler, job)


def _engine_test(args: argparse.Namespace) -> int:
    from lsp_server.astgen import driver, report, report_markdown
    from lsp_server.astgen.engines import ENGINES
    from lsp_server.console import ProgressBar
    from lsp_server.jobs import Cancelled
    from lsp_server.trust import known_failures

    engines = _names([args.engines])
    bad = [e for e in engines if e not in ENGINES]
    if bad or not engines:
        print(f"reks engine-test: unknown engine {bad[0] if bad else ''!r}", file=sys.stderr)
        return 2
    if args.bound < 1 or args.jobs < 1:
        print("reks engine-test: --bound and --jobs must be at least 1", file=sys.stderr)
        return 2
    config = driver.Config(
        bound=args.bound,
        refactorings=_names(args.refactoring),
        generators=_names(args.generator),
        engines=engines,
        jobs=args.jobs,
        inverse=not args.no_inverse,
        limit=args.limit,
        timeout=args.timeout,
        select=_field_exhaustive if args.suite == "field-exhaustive" else None,
    )
    try:
        cases = driver.generate(config)
    except ValueError as exc:
        print(f"reks engine-test: {exc}", file=sys.stderr)
        return 2
    with ProgressBar("engine-test") as bar:
        try:
            outcome = _check(config, args.scheduler, bar.job())
        except Cancelled:
            return 130
        except (ImportError, OSError) as exc:
            print(f"reks engine-test: --scheduler {args.scheduler}: {exc}", file=sys.stderr)
            return 2
    groups = report.group_failures(outcome.results, cases)
    data = report.to_json(outcome, groups, report.distinct_failures(outcome.results, cases))
    os.makedirs(args.out, exist_ok=True)
    json_path = os.path.join(args.out, "engine-test.json")
    md_path = os.path.join(args.out, "engine-test.md")
    write_atomic(json_path, report.dumps(data))
    write_atomic(md_path, report_markdown.to_markdown(data))
    if args.write_known_failures is not None:
        path = args.write_known_failures or known_failures.user_path()
        shapes = known_failures.shapes_from(outcome, groups, cases)
        write_atomic(path, known_failures.dumps(shapes, data["versions"], _command(args)))
        print(f"known failures: {len(shapes)} shapes -> {path}")
    rate = outcome.checks / outcome.cpu_seconds if outcome.cpu_seconds else 0.0
    print(
        f"{outcome.cases} cases, {outcome.checks} checks, "
        f"{report.headline(data['summary']['distinct_failures'], len(groups))} "
        f"in {outcome.wall_seconds:.1f}s ({rate:.0f} checks per CPU-second)"
    )
    print(f"report: {json_path}, {md_path}")
    return 0
