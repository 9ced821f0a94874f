"""A transformation's run log watches the project's code only: a child is not called back
for the code of pytest, the standard library or installed packages (each such call cost
~1 ms of a ~6 ms child), and still records every project unit the run executed, also the
code of a project module first imported while the tests ran."""

from __future__ import annotations

import importlib
import json.encoder
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lsp_server.extreme import execution_recorder
from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.run_log import RunLog

needs_monitoring = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="local events need sys.monitoring (3.12+)"
)


@pytest.fixture
def project_module(tmp_path: Path) -> Iterator[types.ModuleType]:
    (tmp_path / "watched_m.py").write_text(
        textwrap.dedent(
            """
            import json

            def encode(value):
                def inner(v):
                    return json.dumps(v)
                return inner(value)
            """
        )
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("watched_m")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("watched_m", None)


def _functions(module: types.ModuleType) -> list[types.FunctionType]:
    return [f for f in vars(module).values() if isinstance(f, types.FunctionType)]


@needs_monitoring
def test_a_watching_run_log_is_called_back_for_project_code_only(
    tmp_path: Path, project_module: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = RunLog(str(tmp_path))
    log.prewarm()
    log.watch(_functions(project_module))
    looked_up: list[str] = []
    info = execution_recorder.Recorder._info

    def counting(self: execution_recorder.Recorder, code: types.CodeType) -> object:
        looked_up.append(code.co_filename)
        return info(self, code)

    monkeypatch.setattr(execution_recorder.Recorder, "_info", counting)
    log.start()  # as in a child
    try:
        json.encoder.JSONEncoder().encode({"a": [1, 2.5, None]})
        project_module.encode([1])
    finally:
        log.recorder.stop()
    assert looked_up and all(name.startswith(str(tmp_path)) for name in looked_up)
    assert log.take() == ["watched_m.py::encode", "watched_m.py::encode.<locals>.inner"]


LAZY = {
    "m.py": """
        def outer(x):
            from helper import inc  # imported by the first test run that gets here
            y = inc(x)
            return y


        def check(x):
            ok = x > 0
            return ok
    """,
    "helper.py": """
        def inc(x):
            z = x + 1
            return z
    """,
    "test_m.py": """
        from m import check, outer

        def test_both():
            assert check(2)
            assert outer(1) == 2
    """,
}


def test_a_run_log_records_a_project_module_first_imported_by_the_run(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(LAZY)
    analysis = analyse(root, Options(paths=[root / "m.py"], jobs=1, incremental=False))
    runs = {
        (r.transformation.function, r.transformation.body): set(r.units or [])
        for r in analysis.results
    }
    # check -> return True: the test goes on into outer, which imports helper.
    assert {"m.py::check", "m.py::outer", "helper.py::inc"} <= runs[("check", "return True")]
    # check -> return False fails at once: nothing of outer or helper ran.
    assert "helper.py::inc" not in runs[("check", "return False")]
