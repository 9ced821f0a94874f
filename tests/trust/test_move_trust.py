"""Trust-but-verify on moves: a correct move is not demoted by a known-failure shape it only
looks like, and the import check reads the editor's unsaved buffers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactoringResult, RefactorRequest
from lsp_server.trust import known_failures
from lsp_server.trust.checks import check_known_failures, check_move_imports, verify
from tests.support.reks import write_files

MODULE = 'VALUE = 3\n\n\ndef f():\n    return "f%d" % VALUE\n'


def move_f(engine: RefactorEngine, module: Path, destination: str) -> RefactoringResult:
    text = module.read_text()
    request = RefactorRequest(
        "move", str(module), text.index("def f") + 4, None, {"destination": destination}
    )
    return engine.compute(request)


def test_a_correct_move_is_not_demoted_as_a_known_failure_shape(
    tmp_engine: RefactorEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The isort false alarm: a client imports the module relatively (``from . import
    m``) and calls ``m.f()``; rope moves that correctly, but the packaged shapes took it
    for the relative import of the name rope leaves broken."""
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(tmp_path / "none.json"))  # the packaged
    rel = "from . import m\n\n\ndef use():\n    return m.f() + '!'\n"
    files = {"pkg/__init__.py": "", "pkg/m.py": MODULE, "pkg/other.py": "", "pkg/rel.py": rel}
    write_files(tmp_path, {"pyproject.toml": "", **files})
    result = move_f(tmp_engine, tmp_path / "pkg/m.py", "pkg/other.py")
    assert verify(str(tmp_path), result.provenance) is None
    tmp_engine.apply(result, str(tmp_path))
    code = "from pkg import rel; print(rel.use())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "f3!\n", done.stderr


def test_move_import_check_reads_unsaved_buffers(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    # A private module: nothing re-exports the moved name from it.
    write_files(tmp_path, {"pyproject.toml": "", "_m.py": MODULE, "other.py": "", "main.py": ""})
    result = move_f(tmp_engine, tmp_path / "_m.py", "other.py")
    root = str(tmp_path)
    assert check_move_imports(root, result.provenance) is None
    unsaved = {"main.py": "from _m import f as g\nprint(g())\n"}
    message = check_move_imports(root, result.provenance, unsaved)
    assert message is not None and message.startswith("main.py:1 still imports `f`")


def test_the_packaged_shapes_are_generated_by_the_engine_test_command() -> None:
    """The file is only ever written by ``reks engine-test --write-known-failures``: it
    says so, and it is exactly what that command's writer produces from its contents."""
    text = Path(known_failures.DATA_PATH).read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["generated_by"].startswith("reks engine-test --bound ")
    assert data["generated_by"].endswith("--write-known-failures")
    known = known_failures.parse(data)
    versions = {"rope": known.rope_version, "jedi": known.jedi_version}
    assert known_failures.dumps(list(known.shapes), versions, known.generated_by) == text


@pytest.mark.parametrize(
    ("client", "demoted"),
    [("from . import m\n", True), ("from pkg import m\n", False)],
    ids=["relative", "from-package"],
)
def test_a_module_rename_matches_shapes_by_how_the_module_is_imported(
    tmp_engine: RefactorEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    client: str,
    demoted: bool,
) -> None:
    shape = known_failures.FailureShape(
        "reks", "rename-module", "output-changed", frozenset({"module:relative"}), (), 1, "", "x"
    )
    data = tmp_path / "shapes.json"
    data.write_text(known_failures.dumps([shape], {"rope": "", "jedi": ""}))
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(data))
    files = {"pkg/__init__.py": "", "pkg/m.py": MODULE, "pkg/user.py": client}
    write_files(tmp_path, {"pyproject.toml": "", **files})
    module = tmp_path / "pkg/m.py"
    request = RefactorRequest("rename", str(module), 0, None, {"new_name": "m2", "module": True})
    result = tmp_engine.compute(request)
    message = check_known_failures(str(tmp_path), result.provenance)
    assert (message is not None and "known reks failure of rename-module" in message) is demoted
