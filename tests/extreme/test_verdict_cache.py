"""The analysis's incremental state lives in the dependency store (schema 3): a JSON state
left by an older reks is ignored, and a store that cannot be used only costs the reuse."""

from __future__ import annotations

from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.rts.store import store_path


def test_old_json_state_is_ignored_and_verdicts_come_back_from_the_store(
    example: Path,
) -> None:
    (example / ".reks").mkdir(exist_ok=True)
    (example / ".reks" / "extreme-state.json").write_text('{"version": 1, "functions": [}')
    first = analyse(example, Options(jobs=2))
    assert first.run_count == 8 and not first.reused
    assert store_path(example).exists()
    second = analyse(example, Options(jobs=2))
    assert second.run_count == 0 and second.reused == set(first.covering)


def test_unusable_store_costs_only_the_reuse(example: Path) -> None:
    path = store_path(example)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"not a database" * 100)
    first = analyse(example, Options(jobs=2))
    second = analyse(example, Options(jobs=2))
    assert first.run_count == second.run_count == 8 and not second.reused
    assert [r.verdict for r in second.results] == [r.verdict for r in first.results]
    assert path.read_bytes() == b"not a database" * 100
