"""The test views of REKS in an editor, as LSP data: the failures of a run of the affected
tests as diagnostics, and the located skipped and affected tests as a plain list (what a
client's test view, e.g. VS Code's Testing view, shows). Used by the test selection feature.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server.lsp.convert import path_to_uri
from lsp_server.rts.run_report import RunReport
from lsp_server.rts.test_status import locate_tests

SOURCE = "reks"
SKIPPED = "reks.skipped"
AFFECTED = "reks.affected"
FAILED = "reks.failed"


def failure_diagnostics(root: Path, report: RunReport) -> dict[str, list[types.Diagnostic]]:
    """Per test-file URI: an Error on the ``def`` of each failing test (the file's first
    line for a failure outside any test, e.g. a collection error)."""
    located = locate_tests(root, [f.nodeid for f in report.failures])
    out: dict[str, list[types.Diagnostic]] = {}
    for failure in report.failures:
        where = located.get(failure.nodeid)
        line, start, end = (where.line - 1, where.start, where.end) if where else (0, 0, 0)
        path = where.path if where else failure.nodeid.split("::", 1)[0]
        what = "error" if failure.error else "failed"
        out.setdefault(path_to_uri(str(root / path)), []).append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(line=line, character=start),
                    end=types.Position(line=line, character=end),
                ),
                message=f"{what}: {failure.message}",
                severity=types.DiagnosticSeverity.Error,
                source=SOURCE,
                code=FAILED,
                data={"root": str(root), "tests": [failure.nodeid]},
            )
        )
    return out


def test_list(views: dict[str, list[types.Diagnostic]]) -> list[dict[str, Any]]:
    """The located skipped and affected tests, from their diagnostics (one per ``def``)."""
    out = []
    for uri, diagnostics in sorted(views.items()):
        for d in diagnostics:
            if d.code not in (AFFECTED, SKIPPED):
                continue
            state = "affected" if d.code == AFFECTED else "skipped"
            reason = d.message.split(": ", 1)[-1]
            for nodeid in (d.data or {}).get("tests", []):
                out.append(
                    {"nodeid": nodeid, "uri": uri, "line": d.range.start.line}
                    | {"state": state, "reason": reason}
                )
    return sorted(out, key=lambda t: t["nodeid"])
