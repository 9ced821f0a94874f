"""Check one case: run every engine on it and apply every oracle.

A *check* is one engine performing one refactoring on one generated program, with all
oracles applied (the differential oracle compares engines afterwards, per case).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

from lsp_server.astgen import oracles
from lsp_server.astgen.engines import Engine, EngineOutcome, Location
from lsp_server.astgen.gen import Label
from lsp_server.astgen.oracles import Finding
from lsp_server.astgen.program import Case
from lsp_server.astgen.program_runner import Runner, RunResult

CONFIRMED = "(after confirmation)"
"""Suffix of an oracle's name in a finding on an edit the user was asked to confirm."""


@dataclass
class CheckResult:
    """What one engine did on one case, and what the oracles found."""

    index: int
    """Position of the case in the generated sequence (the report's stable order)."""
    engine: str
    kind: str
    generator: str
    labels: tuple[Label, ...]
    status: str
    """``ok``, ``confirm`` (done, but the edit asks the user to confirm some changes),
    ``refused``, ``crashed``, ``unsupported``, or ``invalid`` (bad program)."""
    message: str = ""
    findings: list[Finding] = field(default_factory=list)
    after: dict[str, str] | None = None
    """The refactored files, kept only when a finding needs showing."""
    run: RunResult | None = None


@dataclass
class _EngineCheck:
    status: str
    message: str = ""
    findings: list[Finding] = field(default_factory=list)
    after: dict[str, str] | None = None
    run: RunResult | None = None


class Checker:
    """Engines, a program runner and a cache of original runs, for one worker process."""

    def __init__(self, engines: list[Engine], runner: Runner, inverse: bool = True) -> None:
        self.engines = engines
        self.runner = runner
        self.inverse = inverse
        self._before: dict[str, tuple[RunResult, dict[str, Counter[str]]]] = {}

    def clear_cache(self) -> None:
        """Forget the original programs' runs (a benchmark measures them too)."""
        self._before.clear()

    def close(self) -> None:
        for engine in self.engines:
            engine.close()
        self.runner.close()

    def run_before(self, files: dict[str, str]) -> tuple[RunResult, dict[str, Counter[str]]]:
        """The original program's behaviour and undefined names, shared by every case built
        on it."""
        key = hashlib.sha1(repr(sorted(files.items())).encode()).hexdigest()
        if key not in self._before:
            if len(self._before) > 4096:
                self._before.clear()
            self._before[key] = (self.runner.run(files), oracles.undefined_per_file(files))
        return self._before[key]

    def check(self, index: int, case: Case, labels: tuple[Label, ...]) -> list[CheckResult]:
        files = case.program.file_map
        target = case.target
        before, undefined = self.run_before(files)

        def result(engine: str, outcome: _EngineCheck) -> CheckResult:
            return CheckResult(
                index, engine, target.kind, case.generator, labels, outcome.status,
                outcome.message, outcome.findings, outcome.after, outcome.run,
            )  # fmt: skip

        if before.error is not None or before.timed_out:
            finding = Finding(oracles.INVALID_PROGRAM, f"original program: {before.describe()}")
            return [result("generator", _EngineCheck("invalid", findings=[finding], after=files))]
        results = [
            result(engine.name, self._check_engine(engine, case, before, undefined))
            for engine in self.engines
            if target.kind in engine.kinds
        ]
        differential = _differential(results)
        if differential is not None:
            results.append(differential)
        return results

    def _check_engine(
        self, engine: Engine, case: Case, before: RunResult, undefined: dict[str, Counter[str]]
    ) -> _EngineCheck:
        files = case.program.file_map
        target = case.target
        location = Location(target.path, target.offset, target.end)
        outcome = engine.perform(target.kind, files, location, target.arg_map)
        if outcome.status == "crashed":
            return _EngineCheck(
                "crashed", outcome.message, [Finding(oracles.CRASH, outcome.message)]
            )
        if outcome.status != "ok" or outcome.files is None:
            return _EngineCheck(outcome.status, outcome.message)
        after = outcome.files
        found: list[Finding | None] = []
        run: RunResult | None = None
        broken = oracles.compile_error(after, files)
        if broken is not None:
            found.append(broken)
        else:
            found.append(oracles.new_undefined_names(undefined, files, after))
            run = self.runner.run(after)
            if not run.same_behaviour(before):
                detail = f"before: {_short(before)} | after: {_short(run)}"
                found.append(Finding(oracles.OUTPUT_CHANGED, detail))
            if target.expected is not None:
                found.append(oracles.structural(dict(target.expected), after))
            if self.inverse and target.kind == "rename" and target.old_name:
                found.append(self._inverse(engine, case, after))
        findings = [f for f in found if f is not None]
        if target.expect_refusal and findings:
            first = findings[0]
            detail = f"accepted a precondition violation; {first.oracle}: {first.detail}"
            findings = [Finding(oracles.REFUSAL, detail)]
        if outcome.needs_confirmation:
            # Counted apart: the user saw and confirmed these changes (all of them here,
            # the worst case), so a finding is not a silent behaviour change.
            findings = [Finding(f"{f.oracle} {CONFIRMED}", f.detail) for f in findings]
            return _EngineCheck("confirm", "", findings, after if findings else None, run)
        return _EngineCheck("ok", "", findings, after if findings else None, run)

    def _inverse(self, engine: Engine, case: Case, after: dict[str, str]) -> Finding | None:
        """Rename back at the same token; the original must come back (up to layout)."""
        target = case.target
        original = case.program.file_map
        if target.path not in after:
            return None
        offset = oracles.corresponding_offset(
            original[target.path], after[target.path], target.offset
        )
        if offset is None:
            return None
        args = {"new_name": target.old_name}
        outcome: EngineOutcome = engine.perform(
            "rename", after, Location(target.path, offset), args
        )
        if outcome.status != "ok" or outcome.files is None:
            return Finding(oracles.INVERSE, f"inverse rename {outcome.status}: {outcome.message}")
        return oracles.same_program(original, outcome.files)


def _short(run: RunResult, limit: int = 160) -> str:
    text = run.stdout.replace("\n", "⏎")
    if len(text) > limit:
        text = text[:limit] + "…"
    return f"{text!r} {run.describe()}"


def _differential(results: list[CheckResult]) -> CheckResult | None:
    """Two engines both produced a running program but the programs behave differently."""
    ran = [r for r in results if r.status in ("ok", "confirm") and r.run is not None]
    for i, first in enumerate(ran):
        for second in ran[i + 1 :]:
            assert first.run is not None and second.run is not None
            if not first.run.same_behaviour(second.run):
                detail = (
                    f"{first.engine}: {_short(first.run)} | {second.engine}: {_short(second.run)}"
                )
                return CheckResult(
                    index=first.index,
                    engine=f"{first.engine}~{second.engine}",
                    kind=first.kind,
                    generator=first.generator,
                    labels=first.labels,
                    status="ok",
                    findings=[Finding(oracles.DIFFERENTIAL, detail)],
                    after=first.after or second.after,
                )
    return None
