"""Is REKS safe on real refactorings? Replay the refactoring commits of projects' histories.

For each git repository given (a clone or a bare mirror; this script never fetches) it
takes the commits whose message says "rename", "extract", "move" or "inline", or (among
the newest ``--shape-scan``) whose Python diff is one identifier substitution or has an
extract or inline shape (``history_shapes``), newest first. Per commit: (1) the parent's
tree is exported and its whole suite recorded with ``pytest --reks-all`` (a parent where
no test passes is left out); (2) the refactoring is redone with reks at the parent (the
engine with the REKS listener, as ``reks refactor ... --apply``): for a rename, the
identifier substitution the changed lines agree on, asked for at the old name's
definition on a changed line; (3) reported: whether reks reproduced the commit (same
text, same code, or how many files), S_ref (the share of the suite REKS skipped), and
after a **full run**: **safety violations** (tests that passed at the parent and do not
now while REKS does not select them; goal 0).

Renames, inlines, extract-methods and moves are redone (``history_shapes`` recovers them
from the diff; a move is a top-level function removed from one module and added, the
same, to another: moved there with reks, its destination given as a dotted module).
The tests run with this interpreter (reks installed), the exported tree (and its ``src``)
first on ``sys.path``.

    python bench/reks_safety_history.py REPO [REPO ...] [--max-commits 8] [--only SHA,...]
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from history_shapes import Files, definition, extract_site, inline_site, move_site, rename_of

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactoringError, RefactorRequest
from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore
from lsp_server.trust.task_listener import install

KINDS = ("rename", "extract", "inline", "move")
_MESSAGE = re.compile(r"\b(renam|extract|inlin|move)\w*", re.I)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PYTEST = ["-q", "-rA", "-p", "no:cacheprovider", "-o", "addopts=", "-W", "ignore"]
_RESULT = re.compile(r"^(PASSED|FAILED|ERROR) (.+?)(?: - .*)?$")
"""A ``-rA`` summary line: node ids may hold spaces (``test_split[select * from a]``), so
not up to the first blank: that merged sqlparse's parametrized tests (S_ref over 100%)."""
_SHAPE_MAX_FILES = 6
_NO_CONFTEST: set[Path] = set()
"""Exported trees whose suites run with ``--noconftest`` (see ``run_suite``)."""


@dataclass
class Replay:
    repo: str
    commit: str
    subject: str
    kind: str
    status: str = ""
    """"ok", or why the commit was left out."""
    reproduced: str = ""
    tests: int = 0
    recorded: int = 0
    """Tests in the dependency store: S_ref's denominator, as REKS skips among them (the
    ``-rA`` summary leaves out skipped and xfailed tests: sqlparse's S_ref was 100.7%)."""
    skipped: int = 0
    broken: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    """Broken, not selected, but passing on a rerun (not counted as violations)."""
    trusted: bool | None = None
    distrust: str = ""
    """Why REKS treated the refactoring as a hand edit (its check's words)."""
    failing_at_parent: int = 0
    """Tests that fail at the parent already (left out of ``broken``)."""


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, *args], capture_output=True, text=True, check=True
    ).stdout


def candidates(
    repo: str, limit: int, kinds: tuple[str, ...], shape_scan: int, only: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, str]]:
    """(commit, subject, kind) of non-merge commits that change Python files and whose
    message names one of ``kinds``, or (among the newest ``shape_scan``) whose Python diff
    has a rename, extract or inline shape (a message naming another kind, e.g. "Refactor
    ... and move ...", does not hide the shape); newest first, at most ``limit``."""
    found = 0
    log = git(repo, "log", "--no-merges", "--format=%H%x00%s").splitlines()
    for index, line in enumerate(log):
        commit, _, subject = line.partition("\0")
        if found >= limit:
            return
        if only and not commit.startswith(only):
            continue
        match = _MESSAGE.search(subject)
        said = "" if match is None else match.group(1).lower()[:4]
        if said and any(k.startswith(said) for k in kinds):
            kind = next(k for k in KINDS if k.startswith(said))
        elif index < shape_scan and "rename" in kinds and _rename_shaped(repo, commit):
            files = changed_python(repo, commit)
            pair = rename_of(files)
            if pair is None or definition(files, pair[0]) is None:
                continue  # a typo fixed in a comment or a docstring
            kind = "rename"
        elif index < shape_scan and (shaped := _extract_or_inline_shaped(repo, commit, kinds)):
            kind = shaped
        else:
            continue
        changed = git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", commit)
        if kind in kinds and any(p.endswith(".py") for p in changed.split()):
            found += 1
            yield commit, subject, kind


def _rename_shaped(repo: str, commit: str) -> bool:
    """Whether the commit's Python diff only substitutes one identifier for another."""
    diff = git(repo, "show", "--format=", "-U0", commit, "--", "*.py")
    removed = [x[1:] for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    added = [x[1:] for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    if not removed or len(removed) != len(added):
        return False
    pairs: set[tuple[str, str]] = set()
    for old, new in zip(removed, added, strict=True):
        a, b = _IDENT.findall(old), _IDENT.findall(new)
        if len(a) != len(b) or _IDENT.sub("", old) != _IDENT.sub("", new):
            return False
        pairs |= {(x, y) for x, y in zip(a, b, strict=True) if x != y}
    return len(pairs) == 1


def _extract_or_inline_shaped(repo: str, commit: str, kinds: tuple[str, ...]) -> str:
    """The kind, "extract" or "inline", when the commit's diff has that shape (``history_shapes``),
    else "": a commit need not say "extract" to be one (e.g. "Split generation of ...")."""
    wanted = [k for k in ("extract", "inline") if k in kinds]
    if not wanted:
        return ""
    files = changed_python(repo, commit)
    if len(files) > _SHAPE_MAX_FILES:
        return ""  # a broad change: a helper new in it is rarely a plain extract
    return next((k for k in wanted if not isinstance(_request(k, files, Path()), str)), "")


def export(repo: str, commit: str, into: Path) -> None:
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", repo, "archive", commit], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)


def changed_python(repo: str, commit: str) -> dict[str, tuple[str | None, str | None]]:
    """Path -> (text at the parent, text at the commit) of the Python files it changed."""
    out: dict[str, tuple[str | None, str | None]] = {}
    names = git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", f"{commit}^", commit)
    for path in names.split():
        if path.endswith(".py"):
            out[path] = (_show(repo, f"{commit}^:{path}"), _show(repo, f"{commit}:{path}"))
    return out


def _show(repo: str, spec: str) -> str | None:
    try:
        return git(repo, "show", spec)
    except subprocess.CalledProcessError:
        return None


def run_suite(root: Path, *args: str) -> dict[str, str]:
    """Node id -> PASSED / FAILED / ERROR of a pytest run of the whole suite."""
    paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": os.pathsep.join(paths)}
    env.pop("PYTEST_ADDOPTS", None)
    if root in _NO_CONFTEST:
        args = (*args, "--noconftest")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST, *args],
        cwd=root, capture_output=True, text=True, timeout=1800, env=env,
    )  # fmt: skip
    out: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        match = _RESULT.match(line)
        if match:
            out.setdefault(match.group(2), match.group(1))
    if not out and root not in _NO_CONFTEST and "conftest.py" in proc.stderr + proc.stdout:
        # An old project's conftest.py that today's pytest rejects (boltons' hooks take
        # ``path``, removed in pytest 8): its suite still runs without it.
        print(f"    {root.name}: conftest.py does not load; --noconftest", file=sys.stderr)
        _NO_CONFTEST.add(root)
        return run_suite(root, *args)
    return out


def replay(repo: str, commit: str, subject: str, kind: str, work: Path) -> Replay:
    """Replay one commit (see the module docstring); the status says why one was left out."""
    result = Replay(
        Path(repo).parent.name if repo.endswith("repo") else repo, commit[:10], subject, kind
    )
    files = changed_python(repo, commit)
    root = work / commit[:10]
    request = _request(kind, files, root)
    if isinstance(request, str):
        result.status = request
        return result
    export(repo, f"{commit}^", root)
    # A test module that cannot be imported (pyparsing's test_diagram.py needs the optional
    # ``railroad``) must not stop the parent's run: it counts as one test failing there.
    before = run_suite(root, "--reks-all", "--continue-on-collection-errors")
    result.tests = len(before)
    result.failing_at_parent = sum(1 for v in before.values() if v != "PASSED")
    if result.failing_at_parent == len(before):
        result.status = f"parent suite does not run ({len(before)} tests, none passes)"
        return result
    engine = RefactorEngine()
    try:
        engine.add_root(str(root))
        listener = install(engine, report=None)
        engine.apply(engine.compute(request), str(root))
        outcome = listener.last
    except RefactoringError as exc:
        result.status = f"reks refused: {exc}"[:160]
        return result
    finally:
        engine.close()
    result.trusted = outcome is not None and outcome.fallback is None
    result.distrust = "" if outcome is None else str(outcome.fallback or "")
    result.skipped = len(outcome.skipped_tests) if outcome else 0
    result.reproduced = reproduction(root, files)
    with DependencyStore(root, create=False) as store:
        selected = set(select_affected_tests(root, store).selected)
        result.recorded = len(store.test_records())
    after = run_suite(root, "--continue-on-collection-errors")
    passed = [t for t, v in before.items() if v == "PASSED"]
    result.broken = sorted(t for t in passed if after.get(t) != "PASSED")
    if kind == "move":  # a moved test has a new node id: gone here, passing there
        elsewhere = {t.rpartition("::")[2] for t, v in after.items() if v == "PASSED"}
        result.broken = [
            t for t in result.broken if t in after or t.rpartition("::")[2] not in elsewhere
        ]
    unselected = [t for t in result.broken if t not in selected]
    result.flaky = _passing_on_rerun(root, unselected)
    result.violations = [t for t in unselected if t not in result.flaky]
    result.status = "ok"
    return result


def _passing_on_rerun(root: Path, tests: list[str], reruns: int = 2) -> list[str]:
    """Those of ``tests`` that pass in one of ``reruns`` more runs of the refactored tree:
    flaky (e.g. click's pager tests fail now and then at the parent itself), reported
    apart from the safety violations."""
    passed: set[str] = set()
    for _ in range(reruns):
        left = [t for t in tests if t not in passed]
        if not left:
            break  # (no node ids would run the whole suite)
        again = run_suite(root, *left)
        passed |= {t for t, v in again.items() if v == "PASSED"}
    return [t for t in tests if t in passed]


def _request(kind: str, files: Files, root: Path) -> RefactorRequest | str:
    """The request that redoes the commit at the parent, or why it cannot be recovered."""
    if kind == "inline":
        site = inline_site(files)
        if site is None:
            return "no function that the commit removed and whose calls it replaced"
        return RefactorRequest("inline", str(root / site[0]), site[1])
    if kind == "move":
        moved = move_site(files)
        if moved is None:
            return "no top-level function removed from one module and added to another"
        return RefactorRequest(
            "move", str(root / moved[0]), moved[1], None, {"destination": moved[2]}
        )
    if kind == "extract":
        found = extract_site(files)
        if found is None:
            return "no new function whose body is a run of lines at the parent"
        rel, start, end, name = found
        return RefactorRequest("extract-method", str(root / rel), start, end, {"name": name})
    pair = rename_of(files)
    where = None if pair is None else definition(files, pair[0])
    if pair is None or where is None:
        return "no definition of a substituted name on a changed line"
    return RefactorRequest("rename", str(root / where[0]), where[1], None, {"new_name": pair[1]})


def reproduction(root: Path, files: dict[str, tuple[str | None, str | None]]) -> str:
    """ "exact" (every file the commit changed holds the commit's text), "code" (the same
    code, docstrings and layout aside), else how many files have the commit's code."""
    texts = {p: _read(root / p) for p in files}
    if all(texts[p] == after for p, (_, after) in files.items()):
        return "exact"
    same = [p for p, (_, after) in files.items() if _code(texts[p]) == _code(after)]
    return "code" if len(same) == len(files) else f"{len(same)}/{len(files)} files"


def _code(text: str | None) -> str | None:
    """The module's syntax tree without docstrings (None: no file, or it does not parse)."""
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if docstring and isinstance(first.value.value, str):  # type: ignore[union-attr]
            body[0] = ast.Pass()  # type: ignore[index]
    return ast.dump(tree)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def report(results: list[Replay]) -> None:
    head = f"{'repo':16} {'commit':10} {'kind':7} {'reproduced':13} {'S_ref':>7}"
    print(f"{head} {'broken':>6} {'viol':>4}  subject [status]")
    for r in results:
        print_row(r)
    _summary(results)


def print_row(r: Replay, stream: TextIO | None = None) -> None:
    s_ref = f"{100 * _s_ref(r):.1f}%" if r.status == "ok" and r.tests else "-"
    if r.status != "ok":
        note = f"  [{r.status}]"
    else:
        note = "" if r.trusted else f"  [REKS did not trust it, its tests run: {r.distrust}]"
        note += f"  [{r.failing_at_parent} fail at parent]" if r.failing_at_parent else ""
    print(
        f"{r.repo[:16]:16} {r.commit:10} {r.kind:7} {r.reproduced or '-':13} {s_ref:>7}"
        f" {len(r.broken):>6} {len(r.violations):>4}  {r.subject[:60]}{note}",
        file=stream,
        flush=True,
    )
    for test in r.violations:
        print(f"    SAFETY VIOLATION: {test}", file=stream, flush=True)
    for test in r.flaky:
        print(f"    flaky (not selected, failed once, passed on a rerun): {test}", file=stream)


def _s_ref(r: Replay) -> float:
    return r.skipped / max(r.recorded or r.tests, 1)


def _summary(results: list[Replay]) -> None:
    done = [r for r in results if r.status == "ok"]
    print(
        f"\n{len(results)} refactoring commits found, {len(done)} replayed"
        f" ({sum(1 for r in done if r.reproduced in ('exact', 'code'))} reproduced),"
        f" {sum(1 for r in done if r.trusted)} trusted by REKS;"
        f" mean S_ref {100 * sum(_s_ref(r) for r in done) / max(len(done), 1):.1f}%;"
        f" safety violations: {sum(len(r.violations) for r in done)} (goal 0)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", help="git repositories (clones or bare mirrors)")
    parser.add_argument("--max-commits", type=int, default=8, help="per repository")
    parser.add_argument("--keep", action="store_true", help="keep the exported trees")
    parser.add_argument("--only", default="", help="comma-separated commit prefixes to replay")
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated kinds to look for"
    )
    parser.add_argument(
        "--shape-scan",
        type=int,
        default=400,
        help="also take rename-, extract- and inline-shaped diffs among the newest N commits,"
        " whatever the message",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="reks-history-"))
    results: list[Replay] = []
    try:
        for repo in args.repos:
            kinds = tuple(args.kinds.split(","))
            only = tuple(c for c in args.only.split(",") if c)
            for commit, subject, kind in candidates(
                repo, args.max_commits, kinds, args.shape_scan, only
            ):
                print(
                    f"... {Path(repo).parent.name} {commit[:10]} {subject[:60]}",
                    file=sys.stderr,
                    flush=True,
                )
                try:
                    results.append(replay(repo, commit, subject, kind, work))
                    print_row(results[-1], sys.stderr)
                except (subprocess.SubprocessError, OSError, UnicodeDecodeError) as exc:
                    failed = Replay(Path(repo).parent.name, commit[:10], subject, kind)
                    failed.status = f"could not replay: {type(exc).__name__}: {exc}"[:160]
                    results.append(failed)
                    print_row(failed, sys.stderr)
        report(results)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
