"""``reks refactor ...``: the refactoring engine without an editor.

Positions are ``FILE:LINE:COL`` (1-based, columns in characters), selections
``FILE:L1:C1-L2:C2`` (end exclusive). Without ``--apply`` a unified diff is printed;
with it every file is written, or none (see ``lsp_server.refactor.apply``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lsp_server.refactor.model import RefactoringResult

SPEC_HELP = "FILE:LINE:COL (1-based)"
RANGE_HELP = "FILE:L1:C1-L2:C2 (1-based, end exclusive)"


def _offset(text: str, line: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    if line < 1 or line > max(len(lines), 1) or col < 1:
        raise ValueError(f"position {line}:{col} is outside the file")
    start = sum(len(x) for x in lines[: line - 1])
    length = len(lines[line - 1].rstrip("\r\n")) if lines else 0
    if col - 1 > length:
        raise ValueError(f"column {col} is past the end of line {line}")
    return start + col - 1


def _split_position(spec: str) -> tuple[str, int, int]:
    path, line, col = spec.rsplit(":", 2)
    return path, int(line), int(col)


def _parse(spec: str, selection: bool) -> tuple[str, int | None, int | None]:
    """(path, start offset, end offset); offsets None when ``spec`` is a bare file."""
    try:
        if selection:
            head, tail = spec.rsplit("-", 1)
            path, l1, c1 = _split_position(head)
            l2, c2 = (int(x) for x in tail.split(":"))
        elif spec.count(":") >= 2 and spec.rsplit(":", 2)[1].isdigit():
            path, l1, c1 = _split_position(spec)
            l2 = c2 = None  # type: ignore[assignment]
        else:
            return spec, None, None
    except ValueError as exc:
        raise SystemExit(
            f"reks: cannot read {spec!r}: expected {RANGE_HELP if selection else SPEC_HELP}"
        ) from exc
    from pathlib import Path

    from lsp_server.rts.units import tokenize_decode

    try:
        source = tokenize_decode(Path(path).read_bytes())
    except OSError as exc:
        raise SystemExit(f"reks: {exc}") from exc
    try:
        start = _offset(source, l1, c1)
        end = _offset(source, l2, c2) if l2 is not None and c2 is not None else None
    except ValueError as exc:
        raise SystemExit(f"reks: {path}: {exc}") from exc
    return path, start, end


def _run(args: argparse.Namespace, action: str, spec: str, selection: bool, **options: Any) -> int:
    from lsp_server.console import ProgressBar
    from lsp_server.refactor.engine import RefactorEngine, find_root
    from lsp_server.refactor.model import RefactoringError, RefactorRequest
    from lsp_server.refactor.rope_thread import RopeJob
    from lsp_server.trust.task_listener import install as install_task_listener

    path, start, end = _parse(spec, selection)
    path = os.path.realpath(path)
    if not os.path.exists(path):
        print(f"reks: {path} does not exist", file=sys.stderr)
        return 2
    if start is None:
        options.setdefault("module", True)
    root = os.path.realpath(args.root) if args.root else find_root(path)
    engine = RefactorEngine()
    engine.add_root(root)
    if args.apply:
        install_task_listener(engine)
    request = RefactorRequest(
        action, path, start or 0, end, {k: v for k, v in options.items() if v is not None}
    )
    try:
        with ProgressBar("refactor") as bar:
            result = engine.compute(request, RopeJob(on_progress=bar.update))
        for skipped in result.skipped_files:
            print(
                f"reks: skipped {os.path.relpath(skipped.path, root)}: {skipped.reason}",
                file=sys.stderr,
            )
        if result.uncertain:
            _print_uncertain(result, root)
            if args.apply and not args.yes:
                print("reks: nothing written; confirm these changes with --yes", file=sys.stderr)
                return 1
        if not args.apply:
            _print_diff(result, root)
        elif not _apply(args, engine, result, root):
            return 1
        if args.provenance:
            _print_provenance(result)
        return 0
    except RefactoringError as exc:
        print(f"reks: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.close()


def _apply(args: argparse.Namespace, engine: Any, result: RefactoringResult, root: str) -> bool:
    """Write ``result`` unless the trust checks would demote it (then ``--force``); say
    what happened on stderr. Whether it was written."""
    from lsp_server.refactor.model import RefactoringError

    refusal = None if args.force else _demoted(root, result)
    if refusal is not None and result.uncertain and args.yes:
        # Confirmed uncertain changes make the task inexact anyway: REKS runs its tests;
        # the user has seen the places, so say it and apply.
        print(refusal.split(" not applied: ")[-1].split(";")[0], file=sys.stderr)
        refusal = None
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return False
    try:
        engine.apply(result, root)
    except (RefactoringError, OSError) as exc:
        print(f"reks: {exc}; no file was changed", file=sys.stderr)
        return False
    description = result.provenance.description
    print(f"reks: {description}: {len(result.edits)} change(s) applied", file=sys.stderr)
    return True


def _demoted(root: str, result: RefactoringResult) -> str | None:
    """Why the task must not be applied without ``--force``: the trust-but-verify checks,
    run on the computed result before anything is written, would demote it to a hand
    edit (its tests would all run, and the edit may well change behaviour)."""
    from lsp_server.trust.task_listener import verdict

    reason = verdict(root, result.provenance)
    if reason is None:
        return None
    return (
        f"reks: {result.provenance.description} not applied: REKS would treat it as a hand"
        f" edit ({reason}); look at the diff without --apply, then pass --force to apply it"
        " anyway; no file was changed"
    )


def _print_diff(result: RefactoringResult, root: str) -> None:
    """The edits as a unified diff (renames and new files as a line each), on stdout."""
    from lsp_server.refactor.model import FileCreate, FileEdit, FileRename

    for edit in result.edits:
        if isinstance(edit, FileEdit):
            rel = os.path.relpath(edit.path, root)
            old, new = edit.old_text.splitlines(True), edit.new_text.splitlines(True)
            sys.stdout.writelines(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}"))
        elif isinstance(edit, FileRename):
            old_rel, new_rel = (os.path.relpath(p, root) for p in (edit.old_path, edit.new_path))
            print(f"rename {old_rel} -> {new_rel}")
        elif isinstance(edit, FileCreate):
            rel = os.path.relpath(edit.path, root)
            print(f"create {rel}")
            new = edit.text.splitlines(True)
            sys.stdout.writelines(difflib.unified_diff([], new, "/dev/null", f"b/{rel}"))


def _print_uncertain(result: RefactoringResult, root: str) -> None:
    from lsp_server.refactor.spans import describe_uncertain

    places = describe_uncertain(result.uncertain, root)
    print(f"reks: {len(places)} uncertain change(s) in this edit:", file=sys.stderr)
    for place in places:
        print(f"  {place}", file=sys.stderr)


def _print_provenance(result: RefactoringResult) -> None:
    for change in result.provenance.changes:
        print(
            f"provenance: {change.origin.value}: {change.old or '-'} -> {change.new or '-'}",
            file=sys.stderr,
        )
    if not result.provenance.exact:
        print("provenance: inexact (changed units count as hand edits)", file=sys.stderr)


def _signature_changes(args: argparse.Namespace) -> list[dict[str, Any]]:
    changes: list[dict[str, Any]] = []
    for index in args.remove or []:
        changes.append({"op": "remove", "index": index})
    for spec in args.add or []:
        index, _, rest = spec.partition(":")
        name, _, default = rest.partition("=")
        changes.append({"op": "add", "index": int(index), "name": name, "default": default or None})
    if args.reorder:
        changes.append({"op": "reorder", "order": [int(x) for x in args.reorder.split(",")]})
    if args.normalize:
        changes.append({"op": "normalize"})
    return changes


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("refactor", help="run a rope refactoring: print a diff, or --apply it")
    actions = parser.add_subparsers(dest="refactoring", metavar="REFACTORING", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = actions.add_parser(name, help=help_text)
        p.add_argument("--apply", action="store_true", help="write the files (all or none)")
        p.add_argument(
            "--force",
            action="store_true",
            help="with --apply, write the files even when the trust checks would treat the "
            "task as a hand edit",
        )
        p.add_argument(
            "--root", help="project root (default: nearest folder with pyproject.toml, .git, ...)"
        )
        p.add_argument(
            "--provenance", action="store_true", help="print the units touched on stderr"
        )
        p.add_argument(
            "--yes",
            action="store_true",
            help="with --apply: also write the uncertain changes (strings, unsure names)",
        )
        return p

    _register_renames_and_moves(add)
    _register_extract_and_inline(add)
    _register_rewrites(add)


AddParser = Any
"""``add(name, help)`` of ``register``: a subcommand parser with the common options."""


def _register_renames_and_moves(add: AddParser) -> None:
    p = add("rename", "rename the name at FILE:LINE:COL, or the module FILE")
    p.add_argument("target", metavar="FILE[:LINE:COL]")
    p.add_argument("new_name")
    p.set_defaults(handler=lambda a: _run(a, "rename", a.target, False, new_name=a.new_name))

    p = add(
        "move",
        "move the global at FILE:LINE:COL to module DEST, a method to attribute DEST, "
        "or the module FILE to package DEST",
    )
    p.add_argument("target", metavar="FILE[:LINE:COL]")
    p.add_argument("destination", metavar="DEST")
    p.set_defaults(handler=lambda a: _run(a, "move", a.target, False, destination=a.destination))


def _register_extract_and_inline(add: AddParser) -> None:
    for name, action in (
        ("extract-method", "extract-method"),
        ("extract-variable", "extract-variable"),
    ):
        p = add(name, f"{name.replace('-', ' ')} from the selection")
        p.add_argument("selection", metavar="FILE:L1:C1-L2:C2")
        p.add_argument("name")
        p.add_argument("--similar", action="store_true", help="also replace similar code")
        p.add_argument("--global", dest="global_", action="store_true", help="make it module level")
        p.set_defaults(
            handler=lambda a, action=action: _run(
                a,
                action,
                a.selection,
                True,
                name=a.name,
                similar=a.similar,
                **{"global": a.global_},
            )
        )

    p = add("inline", "inline the variable, function or parameter at FILE:LINE:COL")
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("--only-current", action="store_true", help="inline only this occurrence")
    p.set_defaults(
        handler=lambda a: _run(a, "inline", a.target, False, only_current=a.only_current)
    )


def _register_rewrites(add: AddParser) -> None:
    p = add("organize-imports", "sort imports and remove unused ones")
    p.add_argument("file")
    p.set_defaults(handler=lambda a: _run(a, "organize-imports", a.file, False, module=None))

    p = add("introduce-parameter", "turn the expression at FILE:LINE:COL into a parameter")
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("name")
    p.set_defaults(handler=lambda a: _run(a, "introduce-parameter", a.target, False, name=a.name))

    p = add(
        "change-signature", "add, remove or reorder parameters of the function at FILE:LINE:COL"
    )
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("--remove", type=int, action="append", metavar="INDEX")
    p.add_argument("--add", action="append", metavar="INDEX:NAME[=DEFAULT]")
    p.add_argument("--reorder", metavar="I,J,...", help="new order of the parameters")
    p.add_argument("--normalize", action="store_true", help="normalize the calls' arguments")
    p.set_defaults(
        handler=lambda a: _run(
            a, "change-signature", a.target, False, changes=_signature_changes(a)
        )
    )

    p = add("encapsulate-field", "replace the attribute at FILE:LINE:COL by a getter and a setter")
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("--getter")
    p.add_argument("--setter")
    p.set_defaults(
        handler=lambda a: _run(
            a, "encapsulate-field", a.target, False, getter=a.getter, setter=a.setter
        )
    )

    p = add("local-to-field", "turn the local variable at FILE:LINE:COL into a field")
    p.add_argument("target", metavar=SPEC_HELP)
    p.set_defaults(handler=lambda a: _run(a, "local-to-field", a.target, False))

    p = add("method-object", "turn the function at FILE:LINE:COL into a callable class")
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("classname", nargs="?")
    p.set_defaults(
        handler=lambda a: _run(a, "method-object", a.target, False, classname=a.classname)
    )

    p = add(
        "use-function", "replace code repeating the body of the function at FILE:LINE:COL by calls"
    )
    p.add_argument("target", metavar=SPEC_HELP)
    p.set_defaults(handler=lambda a: _run(a, "use-function", a.target, False))

    p = add("introduce-factory", "add a factory for the class at FILE:LINE:COL and use it")
    p.add_argument("target", metavar=SPEC_HELP)
    p.add_argument("name")
    p.add_argument("--global", dest="global_", action="store_true", help="module-level factory")
    p.set_defaults(
        handler=lambda a: _run(
            a, "introduce-factory", a.target, False, name=a.name, **{"global": a.global_}
        )
    )
